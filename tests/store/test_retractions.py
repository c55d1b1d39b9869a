"""Retracted papers: recorded per snapshot, no longer served from that snapshot on.

The catalog's ``evidence_status_at`` with retractions (:func:`evidence_status_sql`) is written
into each test's own catalog here (persistent macros: the export reads through a second cursor,
which sees no temporary ones) — what the catalog change makes every reader see."""

from __future__ import annotations

import duckdb
import pytest

from kgbuild.export.source import edge_rows
from kgbuild.pipeline import retractions as pipeline_retractions
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.records import Document, Entity, Evidence, Retraction, SnapshotCounts, Triple
from kgbuild.sources.pubmed_corpus import PubMedCorpus
from kgbuild.sources.record import make_mention
from kgbuild.store import catalog
from kgbuild.store.check import check_warehouse
from kgbuild.store.retractions import (
    RETRACTED,
    define_retraction_views,
    evidence_status_sql,
)
from kgbuild.store.snapshots import Warehouse
from tests.sources.test_pubmed import fast
from tests.sources.test_pubmed_retractions import RetractionNCBI
from tests.support.eutils_server import serve

COUNTS = SnapshotCounts(documents=4, entities=3, triples=3, evidence=5)


def _ev(tid: str, pmid: str, status: str = "asserted") -> Evidence:
    s = f"sentence {tid} of {pmid}"
    return Evidence(f"e{tid}-{pmid}", tid, pmid, 2019, s, 0, len(s), 0, 1, 2, 3, "generative",
                    "x", confidence=0.7, epistemic=status)  # fmt: skip


def _warehouse(tmp_path) -> tuple[Warehouse, str, str]:
    """2019: t1 asserted by papers 1 and 2, t2 by paper 3 only, t3 by 4 (hedged by 3).
    2020 (child): papers 2 and 3 recorded as retracted."""
    wh = Warehouse(tmp_path / "wh")
    w = wh.writer("toy")
    w.add("documents", [Document(p, 2019, f"title {p}", "abstract", "J") for p in "1234"])
    w.add("entities", [Entity(i, i, "Gene") for i in ("NCBIGene:1", "NCBIGene:2", "NCBIGene:3")])
    pairs = (("t1", "NCBIGene:1", "NCBIGene:2"), ("t2", "NCBIGene:1", "NCBIGene:3"),
             ("t3", "NCBIGene:2", "NCBIGene:3"))  # fmt: skip
    w.add("triples", [Triple(t, h, "interacts", x, "interacts", "generative")
                      for t, h, x in pairs])  # fmt: skip
    w.add("evidence", [_ev("t1", "1"), _ev("t1", "2"), _ev("t2", "3"), _ev("t3", "4"),
                       _ev("t3", "3", "hypothesis")])  # fmt: skip
    old = w.commit(2019, "b", {}, "i19", "test", COUNTS).snapshot_id
    w.add("retractions", [Retraction(p, 2020, "pubmed-esearch", "retracted publication")
                          for p in ("2", "3")])  # fmt: skip
    new = w.commit(2020, "b", {}, "i20", "test", COUNTS).snapshot_id
    return wh, old, new


def _with_retractions(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """The proposed catalog change, written into this (test's) catalog."""
    con.execute(f"CREATE OR REPLACE MACRO evidence_status_at(sid) AS TABLE "
                f"{evidence_status_sql('sid')}")  # fmt: skip
    define_retraction_views(con, "CREATE OR REPLACE")
    return con


@pytest.fixture
def toy(tmp_path):
    wh, old, new = _warehouse(tmp_path)
    with catalog.connect(wh.catalog_path) as con:
        yield _with_retractions(con), old, new


def test_retractions_are_a_table_of_the_snapshot_that_records_them(toy):
    con, old, new = toy
    assert con.execute("SELECT count(*) FROM retractions_at(?)", [old]).fetchone() == (0,)
    assert con.execute("SELECT pmid, checked_year, source FROM retractions_at(?) ORDER BY 1",
                       [new]).fetchall() == [("2", 2020, "pubmed-esearch"),
                                             ("3", 2020, "pubmed-esearch")]  # fmt: skip


def test_a_retracted_paper_is_not_served_from_the_snapshot_that_records_it(toy):
    con, old, new = toy
    edges = "SELECT triple_id, support, n_evidence FROM kg_edges_at(?) ORDER BY 1"
    assert con.execute(edges, [old]).fetchall() == [("t1", 2, 2), ("t2", 1, 1), ("t3", 1, 1)]
    # t2 stood on paper 3 alone; t1 keeps paper 1; the snapshot before still serves both
    assert con.execute(edges, [new]).fetchall() == [("t1", 1, 1), ("t3", 1, 1)]
    status = con.execute("SELECT pmid, epistemic FROM evidence_status_at(?) ORDER BY 1, 2",
                         [new]).fetchall()  # fmt: skip
    assert status == [("1", "asserted"), ("2", RETRACTED), ("3", RETRACTED), ("3", RETRACTED),
                      ("4", "asserted")]  # fmt: skip
    # evidence_at keeps what each sentence said
    raw = con.execute("SELECT epistemic FROM evidence_at(?) WHERE pmid = '3' ORDER BY 1", [new])
    assert raw.fetchall() == [("asserted",), ("hypothesis",)]


def test_the_export_stream_and_confidence_follow_the_status(toy):
    con, _, new = toy
    edges = {e["triple_id"]: e for e in edge_rows(con, new)}
    assert sorted(edges) == ["t1", "t3"]  # no evidence left over for the unserved t2
    assert edges["t1"]["pmids"] == ["1"] and edges["t1"]["n_evidence"] == 1
    conf = dict(con.execute("SELECT triple_id, confidence FROM kg_edges_at(?)", [new]).fetchall())
    assert conf["t1"] == edges["t1"]["confidence"]


def test_retracted_at_lists_papers_with_what_they_supported(toy):
    con, old, new = toy
    rows = con.execute(
        "SELECT pmid, publication_year, title, checked_year, n_evidence, n_triples, "
        "n_triples_asserted, n_triples_unserved FROM retracted_at(?)",
        [new],
    ).fetchall()
    assert rows == [
        ("2", 2019, "title 2", 2020, 1, 1, 1, 0),  # t1 still stands on paper 1
        ("3", 2019, "title 3", 2020, 2, 2, 1, 1),  # t2 is gone; t3 it only hedged
    ]
    assert con.execute("SELECT * FROM retracted_at(?)", [old]).fetchall() == []


def test_retractions_diff_names_the_papers_retracted_between_two_snapshots(toy):
    con, old, new = toy
    diff = "SELECT change, pmid, checked_year FROM retractions_diff(?, ?)"
    assert con.execute(diff, [old, new]).fetchall() == [("added", "2", 2020), ("added", "3", 2020)]
    assert con.execute(diff, [new, old]).fetchall() == [("removed", "2", 2020),
                                                        ("removed", "3", 2020)]  # fmt: skip
    assert con.execute(diff, [new, new]).fetchall() == []


def test_the_status_join_streams_past_a_small_hash_table(toy):
    con, _, new = toy
    plan = "\n".join(
        r[1] for r in con.execute(
            "EXPLAIN SELECT * FROM evidence_status_at(?)", [new]).fetchall()
    ).lower()  # fmt: skip
    assert "hash join" in plan and "join type: left" in plan and "delim" not in plan


# -- the build: PubMed papers retracted after they were built ----------------------------------

TERMS = {  # PMID → (mention, PubTator type, identifier)
    "99000001": [("Curcumin", "Chemical", "MESH:D003474"), ("APP", "Gene", "351"),
                 ("Alzheimer disease", "Disease", "MESH:D000544")],
    "99000002": [("APOE4", "Gene", "348"), ("cognitive decline", "Disease", "MESH:D003072")],
}  # fmt: skip


def _annotate(recs) -> None:
    for r in recs:
        for text, kind, ident in TERMS.get(r.pmid, []):
            at = r.text.find(text)
            m = make_mention(r, 0, at, at + len(text), text, kind, ident, "test")
            if m is not None:
                r.mentions.append(m)


def _corpus(fake, cache, years: str) -> PubMedCorpus:
    return PubMedCorpus("alzheimer", years, annotator={"annotator": "test"},
                        make_annotator=lambda: _annotate,
                        eutils=fast(fake, cache_dir=cache))  # fmt: skip


def _build(corpus, wh):
    opts = ExtractionOptions("cooccurrence", embed_model="none")
    return build_kg(corpus, kg="ad", extractor=opts, warehouse=wh)


def test_a_refresh_records_a_paper_retracted_after_it_was_built(tmp_path):
    wh, cache = tmp_path / "wh", tmp_path / "raw"
    with serve(RetractionNCBI()) as fake:
        first = _build(_corpus(fake, cache, "2015"), wh).head
    assert Warehouse(wh).manifest(first.snapshot_id)["config"]["retractions"] == "pubmed-esearch"
    with serve(RetractionNCBI(retracted_later=("99000002",))) as fake:
        corpus = _corpus(fake, cache, "2015-2016")
        # the build alone reads PubMed's cached answer; the refresh asks again first
        assert pipeline_retractions.recheck(corpus, wh / "kg.duckdb", first.snapshot_id) == [
            "99000002"
        ]
        report = _build(corpus, wh)
    assert [y.action for y in report.years] == ["reused", "published"]
    new = report.head.snapshot_id
    assert check_warehouse(wh).damaged == []  # `kgbuild check` hashes the new table's parts too
    assert Warehouse(wh).manifest(new)["tables"]["retractions"]["rows"] == 1
    with catalog.connect(wh / "kg.duckdb") as con:
        _with_retractions(con)
        rows = "SELECT pmid, checked_year, reason FROM retractions_at(?)"
        assert con.execute(rows, [new]).fetchall() == [("99000002", 2016, "retracted publication")]
        served = "SELECT DISTINCT pmid FROM served_evidence_at(?) ORDER BY 1"
        assert ("99000002",) in con.execute(served, [first.snapshot_id]).fetchall()
        assert ("99000002",) not in con.execute(served, [new]).fetchall()
        lost = con.execute("SELECT n_triples_unserved FROM retracted_at(?)", [new]).fetchone()
        assert lost is not None and lost[0] >= 1


def test_local_files_say_retractions_were_not_checked(tmp_path, corpus):
    opts = ExtractionOptions("cooccurrence", embed_model="none")
    report = build_kg(corpus, kg="local", extractor=opts, warehouse=tmp_path / "wh",
                      years="2019")  # fmt: skip
    config = Warehouse(tmp_path / "wh").manifest(report.head.snapshot_id)["config"]
    assert config["retractions"] == pipeline_retractions.NOT_CHECKED
    assert "local files carry no PubMed publication type" in config["retractions"]
