"""From a grounded (head, relation, tail) to a Triple with Evidence — or a Rejection with a reason.

Shared by every LLM extractor: one place decides which claims are kept. Hetionet relations are
oriented as DALK Table 11 / ``data/type_pair_relations.tsv`` says (symmetric → sorted IDs,
oriented → the metaedge's source kind first, directed → as stated) and get their metaedge; other
predicates are kept lower-cased as written (canonicalization is the resolution stage's job).

Two rules keep what the abstract *tells* a model out of the KG (trust boundary; see
:mod:`kgbuild.extract.guard`): a document with instruction-like text has every LLM claim
rejected as ``prompt_injection_suspected`` (an obedient model follows an instruction wherever
it cites its evidence), and a claim is kept only with an evidence sentence that holds both
endpoints: an endpoint the text holds only in other words (hyphenation, plural, word order) is
located by its words within one sentence, or the claim is rejected — no evidence row points at
a sentence (or the title, as before) that does not name what it supports.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from kgbuild.extract.epistemics import classify
from kgbuild.extract.ground import _STOPWORDS as IGNORED_WORDS
from kgbuild.extract.ground import DocumentGrounder, Grounding
from kgbuild.extract.guard import Finding, injection_findings, not_entity_like
from kgbuild.extract.sentences import sentence_spans
from kgbuild.names import norm, variants
from kgbuild.records import Document, Evidence, Rejection, Triple, stable_id
from kgbuild.triples import negation_cue, normalize_relation, orient, triple_key

#: The reason (prefix) of every rejected claim of a document flagged by the injection guard.
INJECTION_REASON = "prompt_injection_suspected"
_TOKEN = re.compile(r"[^\W_]+")
Span = tuple[int, int]

#: Prior support of one piece of evidence by extraction method, and the factor for how each
#: endpoint was grounded; kept on each evidence row as a prior (the calibrated model of
#: :mod:`kgbuild.belief.confidence` gives ``kg_edges.confidence``; this is its fallback for a
#: method the model was not fitted on). Priors are kgbuild's choice, documented, not fitted.
METHOD_PRIOR = {"generative": 0.7, "pairwise": 0.7, "cooccurrence": 0.3}
GROUNDING_FACTOR = {"exact": 1.0, "alias": 1.0, "abbreviation": 0.95, "fuzzy": 0.9, "free": 0.8}


def evidence_confidence(method: str, *groundings: str) -> float:
    p = METHOD_PRIOR.get(method, 0.5)
    for g in groundings:
        p *= GROUNDING_FACTOR.get(g, 0.8)
    return round(p, 4)


#: Longest free predicate kept (the prompts ask for at most 5 words; one word of slack).
MAX_PREDICATE_WORDS = 6


#: Longest head, relation or tail kept in a ``rejections`` row (longer: cut, ending in "…").
MAX_REJECTED_CHARS = 1000


def _clip(text: str) -> str:
    return text if len(text) <= MAX_REJECTED_CHARS else text[: MAX_REJECTED_CHARS - 1] + "…"


@dataclass(slots=True)
class Provenance:
    method: str
    extractor: str
    model: str | None
    prompt_version: str | None


@dataclass(slots=True)
class DocClaims:
    """The kept claims and the rejections of one document, deduplicated by triple."""

    doc: Document
    grounder: DocumentGrounder
    prov: Provenance
    triples: dict[str, Triple] = field(default_factory=dict)
    evidence: dict[str, Evidence] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)
    free_nodes: dict[str, str] = field(default_factory=dict)
    _sentences: list[Span] | None = None
    _findings: list[Finding] | None = None
    _words: dict[Span, _Words] = field(default_factory=dict)

    @property
    def abbreviation_pairs(self) -> list[tuple[str, str]]:
        """Short → long forms the grounder found defined in this document."""
        return sorted(self.grounder.abbreviation_pairs.items())

    def reject(self, head: str, relation: str, tail: str, reason: str) -> None:
        """Keep a refused claim with its reason; each name the model wrote is kept up to
        :data:`MAX_REJECTED_CHARS` (a name longer than that is no entity, and a flood of text
        must not be stored whole)."""
        self.rejections.append(
            Rejection(
                self.doc.pmid,
                self.doc.year,
                self.prov.method,
                _clip(head),
                _clip(relation),
                _clip(tail),
                reason,
                self.prov.prompt_version,
            )
        )

    def add_named(self, head: str, relation: str, tail: str) -> None:
        """A claim between two names the LLM wrote: ground both, guard, then add."""
        if self.injection:
            self.reject(head, relation, tail, self.injection_reason)
            return
        if not head or not tail:
            self.reject(head, relation, tail, "empty head or tail")
            return
        if tail[:3].lower() == "by " and not relation.lower().rstrip().endswith(" by"):
            # "caspase-1 | secreted | by RPE cells" is the passive "secreted by": the agent is
            # the tail only in name (DALK audit, seed 1607)
            relation, tail = f"{relation.rstrip()} by", tail[3:].strip()
        h, t = self.grounder.ground(head), self.grounder.ground(tail)
        for g, name, which in ((h, head, "head"), (t, tail, "tail")):
            if g.grounded:
                continue
            if not self.grounder.occurs(name):
                self.reject(head, relation, tail, f"{which} not in title/abstract (hallucinated)")
                return
            why = not_entity_like(name)
            if why:
                self.reject(head, relation, tail, f"{which} {why} (not an entity)")
                return
        self.add(h, head, relation, t, tail)

    @property
    def injection(self) -> list[Finding]:
        """Instruction-like passages of the document (see :mod:`kgbuild.extract.guard`)."""
        if self._findings is None:
            self._findings = injection_findings(self.doc.text)
        return self._findings

    @property
    def injection_reason(self) -> str:
        """Why a flagged document's claims are rejected: the first finding, and how many more."""
        first, more = self.injection[0], len(self.injection) - 1
        also = f" and {more} more" if more else ""
        return f"{INJECTION_REASON}: the document addresses the model ({first.describe()}{also})"

    def add(self, h: Grounding, head: str, relation_raw: str, t: Grounding, tail: str) -> None:
        if self.injection:  # whatever the answer cites: the model may have obeyed the text
            self.reject(head, relation_raw, tail, self.injection_reason)
            return
        relation = normalize_relation(relation_raw)
        words = len(relation.split())
        if not words or words > MAX_PREDICATE_WORDS:
            why = "empty relation" if not words else f"relation longer than {MAX_PREDICATE_WORDS}"
            self.reject(head, relation_raw, tail, why)
            return
        cue = negation_cue(relation_raw)
        if cue:  # "X does not bind Y" is no edge between X and Y, of any kind
            self.reject(head, relation_raw, tail, f"negated claim ({cue!r}): asserts no relation")
            return
        if h.node_id == t.node_id:
            self.reject(head, relation_raw, tail, "head and tail are the same concept")
            return
        for g, which in ((h, "head"), (t, "tail")):
            if g.grounded and g.kind is None:
                self.reject(
                    head, relation_raw, tail, f"{which} is not a KG node kind (DALK Table 10)"
                )
                return
        metaedge, swap = orient(h.node_id, h.kind, relation, t.node_id, t.kind)
        if swap:
            h, t, head, tail = t, h, tail, head
        tid = triple_key(h.node_id, relation, t.node_id)
        eid = stable_id(tid, self.doc.pmid, self.prov.method)
        if eid in self.evidence:
            return
        hs, ts = h.spans or self._word_spans(head), t.spans or self._word_spans(tail)
        for spans, which in ((hs, "head"), (ts, "tail")):
            if not spans:
                self.reject(
                    head, relation_raw, tail,
                    f"{which} not in any one sentence (no evidence sentence would name it)",
                )  # fmt: skip
                return
        ev = self._evidence(eid, tid, (hs, ts), (h, t), relation_raw, head, tail, swap)
        for g, name in ((h, head), (t, tail)):
            if not g.grounded:
                self.free_nodes.setdefault(g.node_id, name)
        self.triples.setdefault(
            tid,
            Triple(tid, h.node_id, relation, t.node_id, relation_raw, self.prov.method, metaedge),
        )
        self.evidence[eid] = ev

    @property
    def sentences(self) -> list[Span]:
        if self._sentences is None:
            self._sentences = sentence_spans(self.doc.text, [], [len(self.doc.title) + 1])
        return self._sentences

    def _word_spans(self, name: str) -> tuple[Span, ...]:
        """Where a name the text holds only in other words occurs, one span per sentence that
        holds it: as a phrase (any reading of the name, plural allowed: "neuro-inflammation"
        is "neuroinflammation"), else as its words in any order ("cell membrane fluidity" in
        "fluidity of the cell membrane"; every word but the hallucination guard's stopwords,
        short ones too: "5G radiation" is not "radiation")."""
        phrases = [v.split() for v in variants(name)]
        content = [w for w in norm(name).split() if w not in IGNORED_WORDS]
        out = []
        for sentence in self.sentences:
            words = self._words.get(sentence)
            if words is None:
                words = self._words[sentence] = _index(self.doc.text, *sentence)
            span = _phrase_span(words, phrases) or _words_span(words.words, content)
            if span:
                out.append(span)
        return tuple(out)

    def _evidence(
        self,
        eid: str,
        tid: str,
        spans: tuple[tuple[Span, ...], tuple[Span, ...]],
        ends: tuple[Grounding, Grounding],
        relation_raw: str,
        head: str,
        tail: str,
        reversed_: bool = False,
    ) -> Evidence:
        """One sentence naming both endpoints (their closest occurrences there), else the
        shortest run of sentences holding the closest occurrences of head and tail (both
        located: :meth:`add` rejects a claim with an endpoint in no sentence).

        Why a single sentence first: the closest pair of mentions may straddle a boundary
        ("… Abeta. Tau …") while another sentence states the claim whole; a run of sentences
        cannot be read as stating it (epistemic status ``not_in_sentence``)."""
        hs, ts = _in_one_sentence(*spans, self.sentences) or _closest(*spans)
        h, t = ends
        text = self.doc.text
        lo, hi = min(hs[0], ts[0]), max(hs[1], ts[1])
        s_start = max((a for a, _ in self.sentences if a <= lo), default=0)
        s_end = min((b for _, b in self.sentences if b >= hi), default=len(text))
        p = self.prov
        # what the sentence does with the claim: every row keeps its status
        # (endpoints in the claim's own order: the direction check reads the raw predicate)
        raw = ((ts, hs), (tail, head)) if reversed_ else ((hs, ts), (head, tail))
        status, cue = classify(
            text, (s_start, s_end), *raw[0], relation_raw, s_end <= len(self.doc.title), raw[1]
        )
        return Evidence(
            eid, tid, self.doc.pmid, self.doc.year, text[s_start:s_end], s_start, s_end,
            hs[0], hs[1], ts[0], ts[1], p.method, p.extractor, p.model, p.prompt_version,
            relation_raw, head, tail, evidence_confidence(p.method, h.method, t.method),
            reversed_, status, cue,
        )  # fmt: skip


class _Words(NamedTuple):
    """The normalized words of a sentence, each with its token's span; and the words joined
    without spaces, with where each word ends in the join and which word starts where."""

    words: list[tuple[str, int, int]]
    joined: str
    ends: list[int]
    first_of: dict[int, int]


def _index(text: str, start: int, end: int) -> _Words:
    words = [(w, m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)
             for w in norm(m.group()).split()]  # fmt: skip
    starts, ends, at = [], [], 0
    for w, _, _ in words:
        starts.append(at)
        at += len(w)
        ends.append(at)
    return _Words(
        words, "".join(w for w, _, _ in words), ends, {a: i for i, a in enumerate(starts)}
    )


def _phrase_span(index: _Words, phrases: list[list[str]]) -> Span | None:
    """The first run of words reading one of ``phrases``, spaces aside ("alpha1-adrenergic"
    reads "alpha-1 adrenergic", "Ca 2+" reads "Ca2+"), starting at a word and ending at one or
    before its plural ending."""
    words, joined, ends, first_of = index
    for phrase in phrases:
        needle = "".join(phrase)
        at = joined.find(needle) if needle else -1
        while at >= 0:
            last = bisect.bisect_left(ends, at + len(needle))
            if at in first_of and joined[at + len(needle) : ends[last]] in ("", "s", "es"):
                return words[first_of[at]][1], words[last][2]
            at = joined.find(needle, at + 1)
    return None


def _words_span(words: list[tuple[str, int, int]], content: list[str]) -> Span | None:
    """From the first to the last of ``content`` in ``words``, if every one is there (plural
    or singular, as the hallucination guard reads them)."""
    if not content:
        return None
    hits = []
    for w in content:
        forms = {w, f"{w}s", w.rstrip("s")}
        hit = next(((a, b) for word, a, b in words if word in forms), None)
        if hit is None:
            return None
        hits.append(hit)
    return min(a for a, _ in hits), max(b for _, b in hits)


def _in_one_sentence(
    a: tuple[Span, ...], b: tuple[Span, ...], sentences: list[Span]
) -> tuple[Span, Span] | None:
    """The closest pair of spans (one of ``a``, one of ``b``) that lie in one sentence, the
    closest over all sentences (ties: the first sentence); None if no sentence holds both.
    Spans are put in their sentence by bisection, so a dense abstract costs n log n, not
    sentences × mentions (a hostile abstract may be dense by design)."""
    starts = [s0 for s0, _ in sentences]

    def by_sentence(spans: tuple[Span, ...]) -> dict[int, list[Span]]:
        out: dict[int, list[Span]] = {}
        for x in spans:
            k = bisect.bisect_right(starts, x[0]) - 1
            if k >= 0 and x[1] <= sentences[k][1]:
                out.setdefault(k, []).append(x)
        return out

    in_a, in_b = by_sentence(a), by_sentence(b)
    best: tuple[int, int, tuple[Span, Span]] | None = None
    for k in sorted(in_a.keys() & in_b.keys()):
        pair = _closest(tuple(in_a[k]), tuple(in_b[k]))
        key = (abs(pair[0][0] - pair[1][0]), k, pair)
        if best is None or key[:2] < best[:2]:
            best = key
    return best[2] if best else None


def _closest(a: tuple[Span, ...], b: tuple[Span, ...]) -> tuple[Span, Span]:
    """The pair of spans (one of ``a``, one of ``b``) whose starts are closest (ties: the
    smallest pair). For each span of ``a`` only the ``b`` spans at the nearest start on either
    side can be closest, so this is O(|a| log |b|), not |a|·|b| (a concept mentioned thousands
    of times in a dense abstract)."""
    none = (-1, -1)
    if not a or not b:
        return (a[0] if a else none), (b[0] if b else none)
    by_start: dict[int, list[tuple[int, int]]] = {}
    for y in b:
        by_start.setdefault(y[0], []).append(y)
    starts = sorted(by_start)
    best: tuple[int, tuple[tuple[int, int], tuple[int, int]]] | None = None
    for x in a:
        i = bisect.bisect_left(starts, x[0])
        for j in (i - 1, i):
            if 0 <= j < len(starts):
                for y in by_start[starts[j]]:
                    key = (abs(x[0] - y[0]), (x, y))
                    if best is None or key < best:
                        best = key
    assert best is not None
    return best[1]
