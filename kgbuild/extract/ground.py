"""Ground LLM entity strings to the document's annotated mentions, and guard against
hallucinated endpoints.

An LLM names entities in its own words ("AD (Alzheimer's disease)", "Abeta levels"). Each name is
tried against the mentions of *this* document, most reliable rule first (as entity linkers do):
exact surface form → alias (the name's parts and simple variants, and every other surface form
of the same concept in the document) → abbreviation (Schwartz & Hearst 2003 pairs found in the
abstract by scispaCy's AbbreviationDetector) → rapidfuzz string similarity, unless the two differ by
a number or a word that changes the concept (:mod:`kgbuild.lexical`). A name that matches no
mention becomes a free-text node (``free:<normalized name>``), flagged as ungrounded, so resolution
(entity resolution issue) can still link it — except a short form this abstract defines whose long
form is not annotated: it becomes the long form's free node, because the definition, not a
corpus-wide alias, says what it is ("Multidomain Alzheimer Preventive Trial (MAPT)" is no gene;
"retinal pigment epithelium (RPE)" no epimerase: the DALK audits).

The hallucination guard keeps a claim only when both endpoints occur in the title/abstract: a
grounded endpoint occurs by construction; a free one must occur as words of the text.
"""

from __future__ import annotations

import re
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from typing import Any

from rapidfuzz import fuzz, process

from kgbuild.names import most_frequent, norm, variants
from kgbuild.records import Document, Mention

#: Minimum rapidfuzz token_sort_ratio for a fuzzy match to a mention's surface form. At 90,
#: "amyloid beta peptide"/"amyloid-beta peptides" match and "APP"/"APOE" (57) do not.
FUZZY_MIN = 90.0
#: Names shorter than this (after normalization) are never fuzzy-matched: for gene symbols one
#: character is another gene (APP/APH, TAU/TAF).
FUZZY_MIN_LEN = 5
_STOPWORDS = frozenset({
    "the", "and", "for", "with", "from", "into", "onto", "that", "this", "these", "those",
    "its", "their", "via", "of", "in", "on", "by", "to",
})  # fmt: skip

_PARENTHESIZED = re.compile(r"\(([^()]{1,80})\)")
#: How far before "(" a long form may start (Schwartz & Hearst bound it by min(|A| + 5, 2|A|)
#: words; 160 characters holds that for short forms up to 10 characters).
_LONG_FORM_CHARS = 160


@dataclass(frozen=True, slots=True)
class Grounding:
    """Where a name landed: a concept (with its kind, None for non-node mentions such as
    species) or a free-text node, how, and where in the text it occurs ((-1, -1) if nowhere)."""

    node_id: str
    kind: str | None
    method: str  # exact | alias | abbreviation | fuzzy | free
    spans: tuple[tuple[int, int], ...]

    @property
    def grounded(self) -> bool:
        return self.method != "free"


@cache
def _abbreviation_pipeline() -> Any:
    import spacy
    from scispacy.abbreviation import AbbreviationDetector  # noqa: F401  (registers the factory)

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("abbreviation_detector")
    return nlp


def abbreviations(text: str) -> dict[str, str]:
    """Normalized short form → long form defined in ``text`` ("Alzheimer's disease (AD)")."""
    with warnings.catch_warnings():  # the detector's global matcher has no patterns unless
        warnings.filterwarnings("ignore", message=r"\[W036\]")  # a model adds some: expected
        doc = _abbreviation_pipeline()(text)
    return {norm(a.text): norm(a._.long_form.text) for a in doc._.abbreviations}


class DocumentGrounder:
    """Grounds names against one document's mentions; abbreviations are found on first need."""

    def __init__(self, doc: Document, mentions: list[Mention]) -> None:
        self.text = doc.text
        self.ntext = f" {norm(self.text)} "
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        self.kind: dict[str, str | None] = {}
        self.spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for m in mentions:
            if not m.concept_id:
                continue
            counts[norm(m.text)][m.concept_id] += 1
            self.kind.setdefault(m.concept_id, m.hetionet_type)
            self.spans[m.concept_id].append((m.start, m.end))
        # A surface form annotated with several concepts goes to its most frequent one.
        self.forms = {f: most_frequent(c) for f, c in counts.items() if f}
        self._form_list = sorted(self.forms)
        self._abbrevs: dict[str, str] = {}
        self._scanned: set[tuple[int, int]] = set()
        self._words: set[str] | None = None
        self._parens: list[tuple[str, str, tuple[int, int]]] | None = None

    def ground(self, name: str) -> Grounding:
        n = norm(name)
        if n in self.forms:
            return self._hit(self.forms[n], "exact")
        forms = variants(name)
        for v in forms:
            if v in self.forms:
                return self._hit(self.forms[v], "alias")
        for window in self._definitions(name):
            if window not in self._scanned:  # the detector runs on the defining sentence only
                self._scanned.add(window)
                self._abbrevs.update(abbreviations(self.text[window[0] : window[1]]))
        if self._abbrevs:
            long_to_short = {v: k for k, v in self._abbrevs.items()}
            for v in forms:
                other = self._abbrevs.get(v) or long_to_short.get(v)
                if other in self.forms:
                    return self._hit(self.forms[other], "abbreviation")
            for v in forms:  # defined here, its long form not annotated: the abstract says
                long_form = self._abbrevs.get(v)  # what it is, so no corpus-wide alias may
                if long_form:  # ("MAPT" defined as a trial is not the gene MAPT)
                    return Grounding(f"free:{long_form}", None, "free", tuple(self._find(name)))
        if len(n) >= FUZZY_MIN_LEN and self._form_list:
            from kgbuild.lexical import incompatible

            for form, _, _ in process.extract(
                n, self._form_list, scorer=fuzz.token_sort_ratio, score_cutoff=FUZZY_MIN, limit=3
            ):  # a close string is not the concept when it differs by a number or a modifier
                if not incompatible(n, form):
                    return self._hit(self.forms[form], "fuzzy")
        return Grounding(f"free:{n}", None, "free", tuple(self._find(name)))

    @property
    def abbreviation_pairs(self) -> dict[str, str]:
        """Normalized short → long forms found defined in the text so far (for resolution)."""
        return dict(self._abbrevs)

    def occurs(self, name: str) -> bool:
        """The hallucination guard: does the name occur in the text — as a phrase (any reading
        of it, plural allowed), or at least as words (every content word of the name is a word
        of the text, e.g. "cell membrane fluidity" for "fluidity of the cell membrane")?"""
        for v in variants(name):
            if any(f" {v}{plural} " in self.ntext for plural in ("", "s", "es")):
                return True
        words = [w for w in norm(name).split() if len(w) > 2 and w not in _STOPWORDS]
        if self._words is None:
            self._words = set(self.ntext.split())
        return bool(words) and all(
            w in self._words or f"{w}s" in self._words or w.rstrip("s") in self._words
            for w in words
        )

    def _hit(self, concept_id: str, method: str) -> Grounding:
        return Grounding(concept_id, self.kind[concept_id], method, tuple(self.spans[concept_id]))

    def _definitions(self, name: str) -> list[tuple[int, int]]:
        """Text windows where an abbreviation definition may involve this name — "(NAME)" or
        "NAME (…)" — ending at the parenthesis; only these are given to the (slower) detector."""
        if self._parens is None:
            self._parens = []
            for m in _PARENTHESIZED.finditer(self.text):
                start = max(0, m.start() - _LONG_FORM_CHARS)
                before = f" {norm(self.text[start : m.start()])}"
                self._parens.append((norm(m.group(1)), before, (start, m.end())))
        forms = variants(name)
        return [
            window
            for inner, before, window in self._parens
            if any(v == inner or before.endswith(f" {v}") for v in forms)
        ]

    def _find(self, name: str) -> list[tuple[int, int]]:
        lower, needle = self.text.lower(), name.lower()
        at = lower.find(needle) if needle else -1
        if at >= 0:  # the common case, without compiling a pattern per name
            spans = []
            while at >= 0 and len(spans) < 20:
                spans.append((at, at + len(needle)))
                at = lower.find(needle, at + 1)
            return spans
        pattern = _loose(name)
        if not pattern:
            return []
        return [m.span() for m in re.finditer(pattern, self.text, re.I)][:20]


def _loose(name: str) -> str:
    """A regex for the name's alphanumeric runs with any punctuation or space between them."""
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", name) if p]
    return r"[^0-9A-Za-z]+".join(map(re.escape, parts))
