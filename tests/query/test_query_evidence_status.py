"""The query module serves asserted evidence by default; ``all_evidence`` gives every row.
The toy KG of tests/support/query_kg.py, plus one triple whose only evidence is a
hypothesis."""

from __future__ import annotations

from kgbuild.query.engine import QueryEngine
from kgbuild.query.explore import Filters
from kgbuild.records import Entity, Evidence, Triple
from kgbuild.search.index import open_index
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import EDGES_2019, EDGES_2020, NODES, publish_year

HYPOTHESIS = "t:MESH:D000109|associates|MESH:D000544"
SENTENCE = "Acetylcholine may be associated with Alzheimer disease."


def _kg(tmp_path):
    root = tmp_path / "wh"
    w = Warehouse(root).writer("toy")
    publish_year(w, 2019, EDGES_2019, [Entity(i, n, t, [n], 2019) for i, n, t in NODES])
    w.add("triples", [Triple(HYPOTHESIS, "MESH:D000109", "associates", "MESH:D000544",
                             "associates", "generative")])  # fmt: skip
    w.add("evidence", [Evidence("e:hyp", HYPOTHESIS, "3001", 2020, SENTENCE, 0, len(SENTENCE),
                                0, 13, 37, 56, "generative", "g", confidence=0.7,
                                epistemic="hypothesis", epistemic_cue="may")])  # fmt: skip
    publish_year(w, 2020, EDGES_2020)
    return root


def test_index_holds_asserted_evidence_unless_asked(tmp_path):
    wh = Warehouse(_kg(tmp_path))
    sid = wh.resolve("latest")
    default = open_index(wh, sid)
    everything = open_index(wh, sid, all_evidence=True)
    assert HYPOTHESIS not in default.edges["triple_id"]
    assert HYPOTHESIS in everything.edges["triple_id"]
    assert SENTENCE in everything.evidence["sentence"]
    assert SENTENCE not in default.evidence["sentence"]
    assert everything.path != default.path  # two caches, neither overwrites the other


def test_engine_flag_and_per_request_filter(tmp_path):
    root = _kg(tmp_path)
    q = "Is acetylcholine related to Alzheimer disease?"
    eng = QueryEngine(root, embeddings=False)

    def cited(r):
        return {t.triple_id for t in r.triples}

    assert HYPOTHESIS not in cited(eng.retrieve(q, embed="off"))
    got = eng.retrieve(q, embed="off", filters=Filters(all_evidence=True))
    assert HYPOTHESIS in cited(got)
    assert got.diagnostics["filters"]["all_evidence"] is True
    assert HYPOTHESIS in cited(QueryEngine(root, embeddings=False, all_evidence=True)
                               .retrieve(q, embed="off"))  # fmt: skip
