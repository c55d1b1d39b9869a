"""The gold-ID → built-node map every gold score reads (kgbuild/evaluate/facts.py::node_map),
on a real published snapshot: a gold ID built as two nodes maps to the one most of its mentions
were built as, the same on every run."""

from __future__ import annotations

from kgbuild.evaluate.facts import node_map
from kgbuild.records import Document, Entity, Mention
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

MOUSE_APP, APP, APOE, AD = "NCBIGene:11820", "NCBIGene:351", "NCBIGene:348", "MESH:D000544"


def _mention(pmid: str, start: int, cid: str, given: str | None = None) -> Mention:
    return Mention(pmid, start, start + 3, "App", "Gene", "Gene", cid, [cid], annotator_id=given)


def test_a_gold_id_built_as_two_nodes_maps_to_the_one_most_mentions_were_built_as(tmp_path):
    w = Warehouse(tmp_path / "wh").writer("k")
    nodes = [Entity(APP, "APP", "Gene", ["APP"], 2019), Entity(MOUSE_APP, "App", "Gene", ["App"],
             2019), Entity(APOE, "APOE", "Gene", ["APOE"], 2019),
             Entity(AD, "Alzheimer disease", "Disease", ["AD"], 2019)]  # fmt: skip
    w.add("documents", [Document(p, 2019, "T.", "App " * 5) for p in ("1", "2", "3")])
    # the mouse App relinked to its human ortholog in three mentions, kept in two
    mentions = [_mention("1", 0, APP, MOUSE_APP), _mention("1", 4, APP, MOUSE_APP),
                _mention("2", 0, APP, MOUSE_APP), _mention("2", 4, MOUSE_APP),
                _mention("3", 0, MOUSE_APP), _mention("3", 4, APOE)]  # fmt: skip
    w.add("mentions", mentions)
    info = publish_year(w, 2019, [(APOE, "associates", AD, [("1", 2019, "APOE and AD.", 0.8)])],
                        nodes)  # fmt: skip
    got = [node_map(Warehouse(tmp_path / "wh"), info.snapshot_id) for _ in range(5)]
    assert got[0][MOUSE_APP] == APP
    assert got[0][APP] == APP and got[0][APOE] == APOE
    assert all(g == got[0] for g in got)
