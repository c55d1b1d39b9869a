"""resolve_slice: claims re-keyed onto resolved nodes and canonical relations, duplicates merged,
evidence kept per document and sentence, and nothing lost (a self-loop becomes a rejection)."""

from __future__ import annotations

from kgbuild.extract.base import ExtractionResult
from kgbuild.records import Entity, Evidence, Triple
from kgbuild.resolve.entities import AliasIndex, Resolver
from kgbuild.resolve.merge import resolve_slice
from kgbuild.triples import triple_key

AD, DONEPEZIL, APP, APOE = "MESH:D000544", "MESH:D000077265", "NCBIGene:351", "NCBIGene:348"
KINDS = {AD: "Disease", DONEPEZIL: "Compound", APP: "Gene", APOE: "Gene"}


def resolver() -> Resolver:
    idx = AliasIndex()
    for form, cid in [("Alzheimer's disease", AD), ("AD", AD), ("donepezil", DONEPEZIL),
                      ("APP", APP), ("APOE", APOE)]:  # fmt: skip
        idx.add(form, cid, KINDS[cid], 3)
    return Resolver(idx, banned={})


def claim(pmid: str, head: str, rel: str, tail: str, sent: int = 0, **kw) -> tuple:
    tid = triple_key(head, rel, tail)
    t = Triple(tid, head, rel, tail, rel, "generative")
    e = Evidence(
        evidence_id=f"e-{pmid}-{tid[:6]}-{sent}", triple_id=tid, pmid=pmid, year=2020,
        sentence="s", sent_start=sent, sent_end=sent + 10, head_start=0, head_end=1,
        tail_start=5, tail_end=6, method="generative", extractor="generative",
        relation_raw=rel, head_text=kw.get("head_text", head), tail_text=kw.get("tail_text", tail),
    )  # fmt: skip
    return t, e


def run(*claims, free=()):
    result = ExtractionResult(
        triples=[c[0] for c in claims],
        evidence=[c[1] for c in claims],
        free_nodes=[Entity(nid, name, "") for nid, name in free],
    )
    return resolve_slice(result, resolver(), KINDS.get, 2020)


def test_claims_whose_free_ends_resolve_alike_merge_into_one_triple_with_all_evidence():
    a = claim("1", "free:donepezil", "treats", AD)
    b = claim("2", DONEPEZIL, "treats", "free:alzheimer s disease")
    out = run(a, b, free=[("free:donepezil", "donepezil"),
                          ("free:alzheimer s disease", "Alzheimer's disease")])  # fmt: skip
    assert [(t.head_id, t.relation, t.tail_id, t.metaedge) for t in out.triples] == [
        (DONEPEZIL, "treats", AD, "CtD")
    ]
    tid = out.triples[0].triple_id
    assert sorted((e.pmid, e.triple_id) for e in out.evidence) == [("1", tid), ("2", tid)]
    assert {r.node_id: r.merged_into for r in out.resolutions} == {
        "free:donepezil": DONEPEZIL, "free:alzheimer s disease": AD}  # fmt: skip
    assert out.rejections == []


def test_a_reversed_predicate_swaps_the_ends_and_the_evidence_spans():
    (t, e) = claim("3", AD, "is treated by", DONEPEZIL, head_text="AD", tail_text="donepezil")
    out = run((t, e))
    (kept,) = out.triples
    assert (kept.head_id, kept.relation, kept.tail_id) == (DONEPEZIL, "treats", AD)
    assert kept.relation_raw == "is treated by"  # the extractor's own words stay
    (ev,) = out.evidence
    assert (ev.head_text, ev.tail_text, ev.claim_reversed) == ("donepezil", "AD", True)
    assert (ev.head_start, ev.tail_start) == (e.tail_start, e.head_start)
    assert ev.evidence_id != e.evidence_id and ev.triple_id == kept.triple_id


def test_symmetric_relations_put_the_smaller_id_first_so_both_directions_are_one_triple():
    out = run(claim("4", APP, "interacts with", APOE), claim("5", APOE, "interacts with", APP))
    (kept,) = out.triples
    assert (kept.head_id, kept.tail_id, kept.metaedge) == (min(APP, APOE), max(APP, APOE), "GiG")
    assert len(out.evidence) == 2


def test_a_claim_whose_ends_resolve_to_one_concept_is_a_rejection_not_a_loss():
    out = run(claim("6", "free:ad", "associated with", AD, head_text="AD"),
              free=[("free:ad", "AD")])  # fmt: skip
    assert out.triples == [] and out.evidence == []
    (rej,) = out.rejections
    assert (rej.pmid, rej.head) == ("6", "AD")
    assert rej.reason == "head and tail resolve to the same concept"


def test_unchanged_claims_keep_their_evidence_ids_and_duplicates_collapse():
    t, e = claim("7", DONEPEZIL, "treats", AD)
    out = run((t, e), (t, e))  # the same sentence twice (e.g. two extractor passes)
    assert [x.evidence_id for x in out.evidence] == [e.evidence_id]
    assert [x.triple_id for x in out.triples] == [t.triple_id]


def test_an_unresolvable_free_node_stays_its_own_node_with_a_decision_row():
    out = run(claim("8", "free:tau seeding", "associated with", AD),
              free=[("free:tau seeding", "tau seeding")])  # fmt: skip
    ((res_id, method),) = [(r.merged_into, r.method) for r in out.resolutions]
    assert (res_id, method) == ("free:tau seeding", "unresolved")
    (kept,) = out.triples
    assert kept.head_id == "free:tau seeding" and kept.metaedge is None  # no kind, no metaedge
