"""From a grounded (head, relation, tail) to a Triple with Evidence — or a Rejection with a reason.

Shared by every LLM extractor: one place decides which claims are kept. Hetionet relations are
oriented as DALK Table 11 / ``data/type_pair_relations.tsv`` says (symmetric → sorted IDs,
oriented → the metaedge's source kind first, directed → as stated) and get their metaedge; other
predicates are kept lower-cased as written (canonicalization is the resolution stage's job).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from kgbuild.extract.ground import DocumentGrounder, Grounding
from kgbuild.extract.guard import instruction_spans, not_entity_like, overlaps
from kgbuild.extract.sentences import sentence_spans
from kgbuild.records import Document, Evidence, Rejection, Triple, stable_id
from kgbuild.triples import negation_cue, normalize_relation, orient, triple_key

#: Prior support of one piece of evidence by extraction method, and the factor for how each
#: endpoint was grounded; a triple's confidence aggregates these across documents by noisy-OR
#: (as iKraph does). Priors are kgbuild's choice, documented in README, not fitted.
METHOD_PRIOR = {"generative": 0.7, "pairwise": 0.7, "cooccurrence": 0.3}
GROUNDING_FACTOR = {"exact": 1.0, "alias": 1.0, "abbreviation": 0.95, "fuzzy": 0.9, "free": 0.8}


def evidence_confidence(method: str, *groundings: str) -> float:
    p = METHOD_PRIOR.get(method, 0.5)
    for g in groundings:
        p *= GROUNDING_FACTOR.get(g, 0.8)
    return round(p, 4)


#: Longest free predicate kept (the prompts ask for at most 5 words; one word of slack).
MAX_PREDICATE_WORDS = 6


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
    _sentences: list[tuple[int, int]] | None = None
    _instructions: list[tuple[int, int]] | None = None

    @property
    def abbreviation_pairs(self) -> list[tuple[str, str]]:
        """Short → long forms the grounder found defined in this document."""
        return sorted(self.grounder.abbreviation_pairs.items())

    def reject(self, head: str, relation: str, tail: str, reason: str) -> None:
        self.rejections.append(
            Rejection(
                self.doc.pmid,
                self.doc.year,
                self.prov.method,
                head,
                relation,
                tail,
                reason,
                self.prov.prompt_version,
            )
        )

    def add_named(self, head: str, relation: str, tail: str) -> None:
        """A claim between two names the LLM wrote: ground both, guard, then add."""
        if not head or not tail:
            self.reject(head, relation, tail, "empty head or tail")
            return
        if tail[:3].lower() == "by " and not relation.lower().rstrip().endswith(" by"):
            # "caspase-1 | secreted | by RPE cells" is the passive "secreted by": the agent is
            # the tail only in name (issue 16 audit, seed 1607)
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
    def instruction_spans(self) -> list[tuple[int, int]]:
        """Sentences of the document that address a model (see :mod:`kgbuild.extract.guard`)."""
        if self._instructions is None:
            self._instructions = instruction_spans(self.doc.text)
        return self._instructions

    def add(self, h: Grounding, head: str, relation_raw: str, t: Grounding, tail: str) -> None:
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
        ev = self._evidence(eid, tid, h, t, relation_raw, head, tail, swap)
        if self.instruction_spans and overlaps(self.instruction_spans, ev.sent_start, ev.sent_end):
            self.reject(
                head, relation_raw, tail,
                "evidence is an instruction-like sentence (prompt injection suspected)",
            )  # fmt: skip
            return
        for g, name in ((h, head), (t, tail)):
            if not g.grounded:
                self.free_nodes.setdefault(g.node_id, name)
        self.triples.setdefault(
            tid,
            Triple(tid, h.node_id, relation, t.node_id, relation_raw, self.prov.method, metaedge),
        )
        self.evidence[eid] = ev

    def _evidence(
        self,
        eid: str,
        tid: str,
        h: Grounding,
        t: Grounding,
        relation_raw: str,
        head: str,
        tail: str,
        reversed_: bool = False,
    ) -> Evidence:
        """The shortest run of sentences holding the closest occurrences of head and tail."""
        hs, ts = _closest(h.spans, t.spans)
        located = [s for s in (hs, ts) if s[0] >= 0]
        text = self.doc.text
        if located:
            lo, hi = min(s[0] for s in located), max(s[1] for s in located)
            if self._sentences is None:
                self._sentences = sentence_spans(text, [], [len(self.doc.title) + 1])
            s_start = max((a for a, _ in self._sentences if a <= lo), default=0)
            s_end = min((b for _, b in self._sentences if b >= hi), default=len(text))
        else:
            s_start, s_end = 0, len(self.doc.title)
        p = self.prov
        return Evidence(
            eid, tid, self.doc.pmid, self.doc.year, text[s_start:s_end], s_start, s_end,
            hs[0], hs[1], ts[0], ts[1], p.method, p.extractor, p.model, p.prompt_version,
            relation_raw, head, tail, evidence_confidence(p.method, h.method, t.method),
            reversed_,
        )  # fmt: skip


def _closest(
    a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], tuple[int, int]]:
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
