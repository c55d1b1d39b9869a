"""A small claim reader: does a sentence, as written, state a signed claim between two mentions?

Used by :mod:`kgbuild.belief.conflicts` to read every sentence of a snapshot's abstracts where
two concepts are mentioned. The extractors type a pair per abstract and cite the sentence
holding the pair's closest mentions, so the cited sentence often does not say what the type
says ("N-acetyl-cysteine, a scavenger of ROS, inhibited the neurotoxic effect" cited as *ROS
lowers neurotoxicity*); two sides read off such rows mostly do not disagree. This reader ignores the
extractor's type and reads the sentence itself, and reads it only where the words between (and
around) the two mentions fit one of a few explicit templates — the rule-based indicator-word
approach to relation polarity (verb cues between two named entities, a fixed set of
constructions; SemRep-style indicator rules), deliberately narrow: a template that does not
fire costs a listed conflict, a template that fires wrongly lists a false one.

Measured on BioRED gold (``bench/claim_reader_gold.py``; tuned on Train, Dev held out): the
sign it reads agrees with the curators' Positive/Negative_Correlation on 131/131 Train and
25/25 Dev (pair, sentence) units it reads, but it reads only ~3–4% of the sentences holding a
signed pair.

The templates and what they read are :mod:`kgbuild.belief.claims_templates` (their regex
pieces: :mod:`kgbuild.belief.claims_grammar`); this module applies them to one sentence.
Every pattern is one regex string that DuckDB (RE2: no lookaround, no backreferences) and
Python's ``re`` (with ``re.ASCII``, as RE2's ``\\w``/``\\b``/``\\s`` are ASCII) read the same
way: :func:`read_claim` applies them in Python (the gold measurement, ``bench/
claim_reader_gold.py``, runs the very same strings on BioRED),
:func:`~kgbuild.belief.claims_read_sql.template_sql` in SQL (the ``conflicts`` view). The first
template that matches decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from kgbuild.belief.claims_grammar import (
    CUE,
    MAX_MID,
    PRE_AGENT,
    PRE_BLOCK,
    PRE_MEASURE,
    PRE_QUESTION,
    STARTER,
    VARIANT,
)
from kgbuild.belief.claims_templates import TEMPLATES, Polarity, Span, Template

_FLAGS = re.ASCII


def normalize(text: str) -> str:
    """Lower-cased, every run of whitespace one space (what the templates are written on)."""
    return re.sub(r"\s+", " ", text.lower(), flags=_FLAGS)


@dataclass(frozen=True, slots=True)
class Claim:
    """What :func:`read_claim` read: the template, its polarity, the subject ("a" or "b": which
    of the two spans passed) and whether the claim is symmetric."""

    template: str
    polarity: Polarity
    subject: Literal["a", "b"]
    symmetric: bool


_COMPILED: dict[str, re.Pattern[str]] = {}


def _full(pattern: str, text: str) -> bool:
    rx = _COMPILED.get(pattern)
    if rx is None:
        rx = _COMPILED[pattern] = re.compile(pattern, _FLAGS)
    return rx.fullmatch(text) is not None


def _search(pattern: str, text: str) -> bool:
    rx = _COMPILED.get(pattern)
    if rx is None:
        rx = _COMPILED[pattern] = re.compile(pattern, _FLAGS)
    return rx.search(text) is not None


def pieces(sentence: str, first: Span, second: Span) -> tuple[str, str, str] | None:
    """(pre, mid, post) of ``sentence`` around two spans (offsets into the sentence, ``first``
    before ``second``), normalized; None when the spans overlap or fall outside."""
    (s1, e1), (s2, e2) = first, second
    if not (0 <= s1 < e1 <= s2 < e2 <= len(sentence)):
        return None
    return normalize(sentence[:s1]), normalize(sentence[e1:s2]), normalize(sentence[e2:])


def worth_reading(mid: str) -> bool:
    """The cheap cuts (:data:`MAX_MID`, :data:`CUE`) a row passes before the templates are
    tried (the same tests :func:`~kgbuild.belief.claims_read_sql.cue_sql` and
    :func:`~kgbuild.belief.claims_read_sql.worth_reading_sql` write)."""
    rx = _COMPILED.get(CUE)
    if rx is None:
        rx = _COMPILED[CUE] = re.compile(CUE, _FLAGS)
    st = _COMPILED.get(STARTER)
    if st is None:
        st = _COMPILED[STARTER] = re.compile(STARTER, _FLAGS)
    return len(mid) <= MAX_MID and rx.search(mid) is not None and st.match(mid) is not None


def template_matches(t: Template, pre: str, mid: str, post: str) -> bool:
    """Whether ``t`` reads the pieces (the same tests
    :func:`~kgbuild.belief.claims_read_sql.template_sql` writes in SQL)."""
    if t.pre is not None:
        if not _full(t.pre, pre):
            return False
    elif _full(PRE_BLOCK, pre) and not (_full(PRE_MEASURE, pre) or _full(PRE_AGENT, pre)):
        return False
    if _full(PRE_QUESTION, pre):
        return False
    if t.gate is not None and not _search(t.gate, mid):
        return False
    return _full(t.mid, mid) and _full(t.post, post)


def read_claim(
    sentence: str, a: Span, b: Span, templates: tuple[Template, ...] = TEMPLATES
) -> Claim | None:
    """The claim ``sentence`` states between the mentions at spans ``a`` and ``b`` (offsets
    into the sentence, either order), or None when no template reads it."""
    first, second = (a, b) if a[0] <= b[0] else (b, a)
    cut = pieces(sentence, first, second)
    if cut is None or not worth_reading(cut[1]):
        return None
    for t in templates:
        if template_matches(t, *cut):
            first_is_a = first is a
            subject_is_a = first_is_a if t.subject == 1 else not first_is_a
            return Claim(t.name, t.polarity, "a" if subject_is_a else "b", t.symmetric)
    return None


def variant(mention: str) -> str:
    """The variant marker of a mention's text ('' when none): see :data:`VARIANT`."""
    m = re.search(VARIANT, mention.lower(), _FLAGS)
    return m.group(1) if m else ""


__all__ = [
    "Claim",
    "normalize",
    "pieces",
    "read_claim",
    "template_matches",
    "variant",
    "worth_reading",
]
