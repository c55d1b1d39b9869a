"""Answer kinds finer than a node kind: "Which microRNAs …", "What are the side effects of …",
"How does X …", "Which biomarkers …", "the targets of …", "which pathways …".

A researcher who asks for microRNAs linked to Alzheimer's disease wants MIR146A and MIR132, not
the genes most joined to the disease (APP, MAPT); one who asks for donepezil's side effects
wants diseases the drug causes, not the disease it treats. Hetionet has node kinds for some of
these (Pathway, Side Effect: Himmelstein et al. 2017, metaedges CcSE and GpPW); a KG built from
abstracts with DALK's three kinds (Gene, Compound, Disease; DALK Table 10) has them only as
named nodes (HGNC names microRNA genes MIR*) and as relations (``causes``, BC5CDR's
chemical-induced disease; ``biomarker_of``, or a sentence that says "marker"). So each kind is a
row of ``data/answer_kinds.toml`` saying which nodes are of the kind (node kinds, a name
pattern), which facts are evidence of it (relations and weights, a sentence pattern) and what
rules a candidate out; the vocabulary grows by adding rows, not code.

When the snapshot holds nothing of the kind, :func:`absent` says so in plain words rather than
letting a generic list stand in for an answer.
"""

from __future__ import annotations

import re
import threading
import tomllib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from kgbuild.schema import data_dir
from kgbuild.search.index import SnapshotIndex

KINDS_TOML = "answer_kinds.toml"
#: The words that open a question asking for entities of a kind ("how" for a mechanism).
_WH = re.compile(r"\b(?:which|what|list|name|identify|find|give|show|how)\b", re.IGNORECASE)
#: How far (in words) after the wh-word the kind's noun may stand.
_WINDOW = 6


@dataclass(frozen=True, slots=True)
class AnswerKind:
    """One row of ``answer_kinds.toml`` (see its header for each field)."""

    key: str
    label: str
    cue: re.Pattern[str]
    types: frozenset[str] = frozenset()
    name: re.Pattern[str] | None = None
    name_types: frozenset[str] = frozenset()
    exclude: re.Pattern[str] | None = None
    relations: dict[str, float] = field(default_factory=dict)
    min_weight: float = 0.0
    evidence: re.Pattern[str] | None = None
    stated: frozenset[str] = frozenset()
    contra: frozenset[str] = frozenset()
    anchors: frozenset[str] = frozenset()
    fallback: bool = True
    direct: re.Pattern[str] | None = None
    inverse: str = ""
    directed: frozenset[str] = frozenset()
    via: str = ""
    pair: bool = False
    #: Words in a sentence naming an answer with the question's entity that say it is one
    #: (the same-sentence tier only: :mod:`kgbuild.corpus.same_sentence`); else ``evidence``.
    said: re.Pattern[str] | None = None
    #: A PubTator type the KG keeps no node of, whose mentions answer the kind ("Species").
    mentions: str = ""
    #: A verb whose stranded preposition's object is the wh-word ("what does nicotine act on?").
    verb: re.Pattern[str] | None = None

    def weight(self, relation: str, asked: float) -> float:
        """A fact's weight for the kind: the kind's own table, else the question's
        (``asked``); 0 below :attr:`min_weight` (no evidence of the kind)."""
        w = self.relations.get(relation, 0.0) if self.relations else asked
        return w if w >= self.min_weight else 0.0

    def applies(self, anchor_kinds: list[str]) -> bool:
        """Is the kind asked about entities of these kinds (side effects: of a compound)?"""
        return not self.anchors or any(k in self.anchors for k in anchor_kinds)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.key, "label": self.label}


@cache
def answer_kinds() -> tuple[AnswerKind, ...]:
    """The kinds of ``data/answer_kinds.toml``, compiled once per process."""
    with open(data_dir() / KINDS_TOML, "rb") as fh:
        rows = tomllib.load(fh)
    out = []
    for key, r in rows.items():
        out.append(AnswerKind(
            key, r.get("label", key),
            re.compile(rf"(?<![\w-])(?:{r['cue']})(?![\w-])", re.IGNORECASE),
            frozenset(r.get("types", [])),
            re.compile(r["name"]) if r.get("name") else None,
            frozenset(r.get("name_types", [])),
            re.compile(r["exclude"]) if r.get("exclude") else None,
            {k: float(v) for k, v in r.get("relations", {}).items()},
            float(r.get("min_weight", 0.0)),
            re.compile(r["evidence"], re.IGNORECASE) if r.get("evidence") else None,
            frozenset(r.get("stated", [])), frozenset(r.get("contra", [])),
            frozenset(r.get("anchors", [])), bool(r.get("fallback", True)),
            re.compile(r["direct"], re.IGNORECASE) if r.get("direct") else None,
            r.get("inverse", ""), frozenset(r.get("directed", [])), r.get("via", ""),
            bool(r.get("pair", False)),
            re.compile(r["said"], re.IGNORECASE) if r.get("said") else None,
            r.get("mentions", ""),
            re.compile(rf"(?<![\w-])(?:{r['verb']})(?![\w-])", re.IGNORECASE)
            if r.get("verb") else None,
        ))  # fmt: skip
    return tuple(out)


#: Words after which a noun no longer heads the wh-phrase ("Which genes are involved *in* Wnt
#: signaling": genes are asked for, not pathways) …
_PREPOSITIONS = frozenset({
    "in", "of", "on", "at", "to", "by", "for", "with", "from", "into", "through", "during",
    "among", "between", "within", "against", "via",
})  # fmt: skip
#: … except "of" after these ("which of the following microRNAs", "what kinds of markers").
_OF_OK = frozenset({
    "following", "kind", "kinds", "type", "types", "class", "classes", "sort", "sorts", "group",
    "groups",
})  # fmt: skip


def for_anchors(kind: AnswerKind, anchor_kinds: list[str], answer_type: str | None,
                cue: str = "") -> AnswerKind | None:  # fmt: skip
    """The kind asked of entities of ``anchor_kinds``: ``kind`` when it applies, else its
    ``inverse`` row ("Which drugs target GSK3B?": the targets are asked of a gene, so the
    compounds that target it are meant) when that applies and yields the ``answer_type`` asked
    ("Which genes target …" is no drug question); else None. ``cue``: the words the kind was
    read from; a kind read from its :attr:`AnswerKind.verb` has no inverse ("what does TREM2
    act on?" asks what TREM2 acts on, not the drugs acting on it)."""
    if kind.applies(anchor_kinds):
        return kind
    from_verb = kind.verb is not None and bool(kind.verb.fullmatch(cue))
    other = (
        next((k for k in answer_kinds() if k.key == kind.inverse), None)
        if kind.inverse and not from_verb
        else None
    )
    if other is None or not other.applies(anchor_kinds):
        return None
    if answer_type and other.types and answer_type not in other.types:
        return None
    return other


def heads(between: str) -> bool:
    """Does a noun after these words (from the wh-word on) still head the wh-phrase?"""
    words = re.findall(r"[\w'’-]+", between.lower())
    return all(w not in _PREPOSITIONS or (w == "of" and i and words[i - 1] in _OF_OK)
               for i, w in enumerate(words))  # fmt: skip


def _crosses(a: int, b: int, taken: list[tuple[int, int]]) -> bool:
    """Does a link overlap the span without lying inside it? (a link inside the cue —
    "diseases share" spelled as Rare Diseases — yields to the cue)."""
    return any(not (b <= x or a >= y) and not (a <= x and y <= b) for x, y in taken)


#: What may follow a kind's verb whose object is the wh-word: the question's end, or a setting
#: ("… act on in Alzheimer's disease?", "… act on in the brain?"), never an object of its own.
_VERB_TAIL = re.compile(
    r"\s*(?:(?:in|within|during|for|among|to treat|against)\b[^?]*)?[?.!]*\s*$", re.IGNORECASE
)
#: The wh-words that may be a stranded preposition's object ("what … act on?").
_WH_OBJECT = re.compile(r"\b(?:what|which)\b", re.IGNORECASE)


def verb_kind(question: str, taken: list[tuple[int, int]]) -> tuple[AnswerKind, int, int] | None:
    """The kind asked by a verb whose stranded preposition's object is the question's "what"
    ("what does nicotine act on?", "What is curcumin (from turmeric) supposed to act on in
    Alzheimer's disease?"): the kind's ``verb`` after the wh-word, in its clause, followed by
    nothing but a setting (:data:`_VERB_TAIL`). "Which drugs act on NMDA receptors?" names its
    object, so asks no kind by the verb."""
    wh = _WH_OBJECT.search(question)
    if wh is None:
        return None
    clause_end = len(question)
    if (stop := re.search(r"[?;]", question[wh.end() :])) is not None:
        clause_end = wh.end() + stop.end()
    for kind in answer_kinds():
        if kind.verb is None:
            continue
        for m in kind.verb.finditer(question, wh.end(), clause_end):
            if _crosses(m.start(), m.end(), taken):
                continue
            if _VERB_TAIL.match(question[m.end() : clause_end]):
                return kind, m.start(), m.end()
    return None


def read_kind(
    question: str, taken: list[tuple[int, int]], opening: tuple[int, int] | None = None
) -> tuple[AnswerKind, int, int] | None:
    """The kind a wh-question asks for and its cue's span: the earliest cue within
    :data:`_WINDOW` words of the wh-word, outside the ``taken`` spans (linked entities) save
    those within the cue, and
    heading the wh-phrase (:func:`heads`); else the kind its verb asks (:func:`verb_kind`).
    Without a wh-word, the kind a typed query names
    (:func:`noun_phrase_kind`; ``opening``: the answer noun it opens with, if any). None for
    any other question."""
    wh = _WH.search(question)
    if wh is None:
        return noun_phrase_kind(question, taken, opening)
    words = list(re.finditer(r"\S+", question[wh.end() :]))
    limit = wh.end() + words[min(_WINDOW, len(words)) - 1].end() if words else len(question)
    best: tuple[AnswerKind, int, int] | None = None
    for kind in answer_kinds():
        for m in kind.cue.finditer(question, wh.start(), limit):
            if _crosses(m.start(), m.end(), taken):
                continue
            if m.start() > wh.end() and not heads(question[wh.end() : m.start()]):
                continue
            if best is None or m.start() < best[1]:
                best = (kind, m.start(), m.end())
            break
    return best or verb_kind(question, taken)


#: Words a typed query may open with before the kind it names ("tell me the targets of
#: huperzine A", "all known side effects of X"): a request and determiners, no content.
_LEAD = frozenset({
    "tell", "me", "us", "please", "the", "a", "an", "all", "known", "main", "common", "major",
    "some", "any", "possible", "potential", "reported", "key", "top", "about", "its", "their",
})  # fmt: skip
#: What may follow a kind named after its entity ("memantine side effects", "AD biomarkers
#: in CSF"): the query's end or a preposition; "memantine targets NMDA receptors" is a claim.
_AFTER = re.compile(
    r"\s*(?:[?.!]*\s*$|(?:" + "|".join(sorted(_PREPOSITIONS))
    + r"|linked|associated|related|involved|implicated|reported|known)\b)",
    re.IGNORECASE,
)  # fmt: skip


def noun_phrase_kind(
    question: str, taken: list[tuple[int, int]], opening: tuple[int, int] | None = None
) -> tuple[AnswerKind, int, int] | None:
    """The kind a query without a wh-word names, as people type them: opening with the kind
    ("side effects of memantine", "microRNAs in AD", "tell me the targets of huperzine A"),
    or naming it right after its entities and ending there or at a preposition ("memantine
    side effects"). Only :data:`_LEAD` words and linked entities (``taken``) may stand before
    the cue; the caller reads a yes/no question ("Does memantine cause side effects?") first.
    A query opening with an answer noun (``opening``: "drugs that target GSK3B") may name the
    kind's cue right after it and a relative pronoun."""
    words = [(m.start(), m.end(), m.group(0).lower())
             for m in re.finditer(r"[\w'’-]+", question)]  # fmt: skip
    if opening is not None:  # the noun and "that"/"which" are the query's lead, not content
        after = re.match(r"\s+(?:that|which|who)\b", question[opening[1] :], re.IGNORECASE)
        end = opening[1] + (after.end() if after else 0)
        words = [w for w in words if not (opening[0] <= w[0] and w[1] <= end)]

    def linked(a: int, b: int) -> bool:
        return any(x <= a and b <= y for x, y in taken)

    best: tuple[AnswerKind, int, int] | None = None
    for kind in answer_kinds():
        for m in kind.cue.finditer(question):
            if _crosses(m.start(), m.end(), taken):
                continue
            before = [w for w in words if w[1] <= m.start()]
            if any(w not in _LEAD and not linked(a, b) for a, b, w in before):
                break  # a content word first: the query is about something else
            entity_first = any(linked(a, b) for a, b, _ in before)
            if entity_first and not _AFTER.match(question, m.end()):
                continue
            if best is None or m.start() < best[1]:
                best = (kind, m.start(), m.end())
            break
    return best


_NODES: dict[tuple[int, str], tuple[SnapshotIndex, np.ndarray]] = {}
_EDGES: dict[tuple[int, str], tuple[SnapshotIndex, np.ndarray]] = {}
_LOCK = threading.Lock()


def kind_nodes(index: SnapshotIndex, kind: AnswerKind) -> np.ndarray:
    """Per node: is it of the kind? (one pass over the node names per opened index)."""
    key = (id(index), kind.key)
    with _LOCK:
        got = _NODES.get(key)
        if got is None or got[0] is not index:
            types, names, shown = index.nodes["type"], index.nodes["name"], index.nodes["display"]
            ok = np.zeros(index.n_nodes, bool)
            for i in range(index.n_nodes):
                t = types[i] or ""
                yes = t in kind.types or (
                    kind.name is not None
                    and t in kind.name_types
                    and bool(kind.name.search(names[i] or "") or kind.name.search(shown[i] or ""))
                )
                if yes and kind.exclude is not None:
                    yes = not (kind.exclude.search(names[i] or "") or
                               kind.exclude.search(shown[i] or ""))  # fmt: skip
                ok[i] = yes
            if len(_NODES) >= 32:
                _NODES.clear()
            got = _NODES[key] = (index, ok)
        return got[1]


def kind_edges(index: SnapshotIndex, kind: AnswerKind) -> np.ndarray | None:
    """Per edge: how many of its evidence rows are evidence of the kind; None when all are
    (the kind has no sentence pattern). With a pattern: every row of a ``stated`` relation,
    else the rows whose sentence matches it — APP associates Alzheimer's disease in 1,233
    PMIDs, a handful of which call it a marker (one pass over the evidence per opened index)."""
    if kind.evidence is None:
        return None
    key = (id(index), kind.key)
    with _LOCK:
        got = _EDGES.get(key)
        if got is None or got[0] is not index:
            ev = index.evidence
            hit = np.fromiter((bool(kind.evidence.search(s or "")) for s in ev["sentence"]),
                              bool, len(ev["sentence"]))  # fmt: skip
            edge = np.asarray(ev["edge"], np.int64)
            ok = np.bincount(edge[hit], minlength=index.n_edges).astype(np.float64)
            stated = [i for i, r in enumerate(index.relations) if r in kind.stated]
            if stated:
                every = np.bincount(edge, minlength=index.n_edges).astype(np.float64)
                ok = np.where(np.isin(index.edges["rel"], stated), every, ok)
            if len(_EDGES) >= 32:
                _EDGES.clear()
            got = _EDGES[key] = (index, ok)
        return got[1]


def absent(index: SnapshotIndex, kind: AnswerKind, anchors: list[str], weaker: bool = False) -> str:
    """Why no asserted answer of the kind came back, in plain words: the snapshot has no node
    of the kind at all, or no asserted fact of the kind joins one to the question's entities
    (``weaker``: the answers listed rest only on weaker evidence or a shared abstract)."""
    about = ", ".join(anchors) or "the question's entities"
    if not kind_nodes(index, kind).any():
        return f"this snapshot has no {kind.label} entities, so it cannot list {kind.label}s"
    out = f"no asserted fact in this snapshot states a {kind.label} of {about}"
    if weaker:
        out += ("; the answers below rest only on weaker evidence or on being named in the "
                "same abstracts")  # fmt: skip
    return out
