"""kg_edges serves asserted evidence only; kg_edges_all keeps every row with per-status counts.
A real warehouse written through the snapshot writer."""

from __future__ import annotations

from kgbuild.records import Entity, Evidence, SnapshotCounts, Triple
from kgbuild.store.snapshots import Warehouse

COUNTS = {"records": 3, "documents": 3, "duplicates": 0, "rejected": 0, "mentions": 0,
          "entities": 3, "nodes": 3, "relations": 1, "triples": 3, "evidence": 5,
          "problems": 0}  # fmt: skip


def _ev(tid: str, pmid: str, status: str, verified: str = "") -> Evidence:
    s = f"sentence of {pmid}"
    return Evidence(f"e{tid}{pmid}", tid, pmid, 2020, s, 0, len(s), 0, 1, 2, 3, "generative",
                    "x", confidence=0.7, epistemic=status, epistemic_cue="cue",
                    verified=verified)  # fmt: skip


def _warehouse(tmp_path) -> tuple[Warehouse, str]:
    wh = Warehouse(tmp_path / "wh")
    w = wh.writer("toy")
    w.add("entities", [Entity(i, i, "Gene") for i in ("A", "B", "C")])
    pairs = (("t1", "A", "B"), ("t2", "A", "C"), ("t3", "B", "C"))
    w.add("triples", [Triple(t, h, "associates", x, "associates", "generative")
                      for t, h, x in pairs])  # fmt: skip
    w.add("evidence", [
        _ev("t1", "1", "asserted"), _ev("t1", "2", "hypothesis"),  # served, 1 of 2 rows
        _ev("t2", "3", "negated"), _ev("t2", "4", "background"),  # nothing served
        _ev("t3", "5", "asserted", verified="no"),  # refuted by the verification pass
    ])  # fmt: skip
    info = w.commit(2020, "b", {}, "i", "test", SnapshotCounts.from_dict(COUNTS))
    return wh, info.snapshot_id


def test_kg_edges_serves_asserted_evidence_only(tmp_path):
    wh, sid = _warehouse(tmp_path)
    served = wh.query("SELECT triple_id, n_evidence, support FROM kg_edges_at(?)", [sid])
    assert served == [("t1", 1, 1)]
    assert wh.query("SELECT triple_id FROM kg_edges") == [("t1",)]


def test_kg_edges_all_has_every_row_with_status_counts(tmp_path):
    wh, sid = _warehouse(tmp_path)
    rows = wh.query(
        "SELECT triple_id, n_evidence, n_asserted, n_hypothesis, n_negated, n_background, "
        "n_not_in_sentence, n_unclassified, n_verified_no FROM kg_edges_all_at(?) ORDER BY 1",
        [sid],
    )
    assert rows == [("t1", 2, 1, 1, 0, 0, 0, 0, 0), ("t2", 2, 0, 0, 1, 1, 0, 0, 0),
                    ("t3", 1, 1, 0, 0, 0, 0, 0, 1)]  # fmt: skip
    assert len(wh.query("SELECT * FROM kg_edges_all")) == 3
    statuses = wh.query("SELECT epistemic, count(*) FROM evidence_status_at(?) GROUP BY 1 "
                        "ORDER BY 1", [sid])  # fmt: skip
    assert statuses == [("asserted", 2), ("background", 1), ("hypothesis", 1), ("negated", 1)]


def test_quality_reports_status_shares(tmp_path):
    from kgbuild.report.quality import epistemic_figures

    wh, sid = _warehouse(tmp_path)
    f = epistemic_figures(wh, sid)
    assert f["evidence_asserted_share"] == 0.4
    assert f["evidence_negated_share"] == 0.2
    assert f["edges_with_asserted_evidence_share"] == round(1 / 3, 4)
    assert "evidence_unclassified_share" not in f
