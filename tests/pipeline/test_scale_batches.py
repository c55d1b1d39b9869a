"""A year built in bounded batches gives exactly the snapshots of a whole-slice build,
and the per-document bookkeeping lives in DuckDB, not in the build's memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgbuild.pipeline import batches
from kgbuild.pipeline.build import SCRATCH, build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.pipeline.seen import Prefetched, SeenIndex
from kgbuild.store import snapshots
from kgbuild.store.snapshots import Warehouse

COOC = ExtractionOptions("cooccurrence", embed_model="none")


def _statuses(wh: Path) -> list[tuple]:
    return Warehouse(wh).query(
        "SELECT pmid, year, status, reason FROM doc_status ORDER BY pmid, year, status"
    )


def test_one_record_batches_and_tiny_parts_publish_the_same_snapshots(
    corpus, tmp_path, monkeypatch
):
    whole = build_kg(corpus, kg="t", warehouse=tmp_path / "whole", extractor=COOC)
    monkeypatch.setattr(batches, "BATCH_RECORDS", 1)
    monkeypatch.setattr(snapshots, "PART_BYTES", 0)  # every batch's rows become a part
    tiny = build_kg(corpus, kg="t", warehouse=tmp_path / "tiny", extractor=COOC)
    assert [y.snapshot.snapshot_id for y in tiny.years] == [
        y.snapshot.snapshot_id for y in whole.years
    ]
    assert tiny.head.content_hash == whole.head.content_hash
    assert _statuses(tmp_path / "tiny") == _statuses(tmp_path / "whole")
    head = Warehouse(tmp_path / "tiny").manifest(tiny.head.snapshot_id)
    doc_parts = [p for p in head["parts"] if p["table"] == "documents"]
    assert len(doc_parts) > len(tiny.years)  # several parts per year: rows were not held
    assert not (tmp_path / "tiny" / SCRATCH).exists()  # the scratch folder is cleaned up


def test_a_duplicate_pmid_in_a_later_batch_is_found_in_the_index(tmp_path, monkeypatch):
    """The PMID index answers across batches and years as the in-memory dict did."""
    src = tmp_path / "src"
    src.mkdir()
    doc = "{p}|t|Amyloid beta and tau in Alzheimer disease.\n{p}|a|Tau binds amyloid beta.\n"
    (src / "2019.pubtator").write_text("\n".join(doc.format(p=p) for p in ("1", "2", "1")))
    (src / "2020.pubtator").write_text(doc.format(p="2") + "\n" + doc.format(p="3"))
    monkeypatch.setattr(batches, "BATCH_RECORDS", 1)
    build_kg(src, kg="t", warehouse=tmp_path / "wh", extractor=COOC)
    rows = Warehouse(tmp_path / "wh").query(
        "SELECT pmid, year, status FROM doc_status ORDER BY year, record_no"
    )
    assert rows == [
        ("1", 2019, "built"),
        ("2", 2019, "built"),
        ("1", 2019, "duplicate"),
        ("2", 2020, "duplicate"),
        ("3", 2020, "built"),
    ]


def test_seen_index_seeds_from_a_snapshot_and_collects_a_batch(corpus, tmp_path):
    report = build_kg(corpus, kg="t", warehouse=tmp_path / "wh", extractor=COOC)
    wh = Warehouse(tmp_path / "wh")
    index = SeenIndex(tmp_path / "seen.duckdb")
    try:
        index.seed(wh.catalog_path, report.head.snapshot_id)
        built = wh.query("SELECT pmid FROM documents_at(?)", [report.head.snapshot_id])
        assert index.count() == len(built) > 0
        pmid = built[0][0]
        known = Prefetched(index, [pmid, "no-such-pmid"])
        assert set(known) == {pmid}
        known["new-pmid"] = ("x.pubtator", 2021, "d")
        assert index.lookup(["new-pmid"]) == {}  # written back only on flush
        known.flush()
        assert index.lookup(["new-pmid"]) == {"new-pmid": ("x.pubtator", 2021, "d")}
        view = index.view()
        assert pmid in view and "nope" not in view
    finally:
        index.close()


def test_spill_round_trips_records_as_data_and_refuses_a_swapped_file(tmp_path):
    import pyarrow as pa
    from pyarrow import ipc

    from kgbuild.errors import InputError
    from kgbuild.pipeline.batches import Spill
    from kgbuild.records import Evidence, Triple

    triples = [
        Triple("t1", "MESH:D1", "treats", "MESH:D2", "treats", "generative", "CtD"),
        Triple("t2", "free:x", "related_to", "NCBIGene:1", "binds?", "generative"),
    ]
    evidence = [Evidence("e1", "t1", "9", 2020, "S é.", 0, 4, 0, 1, 2, 3, "generative",
                         "generative", relation_raw="treats", claim_reversed=True)]  # fmt: skip
    spill = Spill(tmp_path / "spill")
    spill.put("claims", 0, triples, evidence)
    spill.put("claims", 1, [], [])
    assert spill.take("claims", 0) == [triples, evidence]
    assert spill.take("claims", 1) == [[], []]
    assert list((tmp_path / "spill").iterdir()) == []  # taken files are removed

    spill.put("claims", 2, triples, evidence)
    swapped = pa.table({"x": [1]}).replace_schema_metadata({"kgbuild.record": "triples"})
    with ipc.new_file(str(tmp_path / "spill" / "claims-000002-0.arrow"), swapped.schema) as w:
        w.write_table(swapped)
    with pytest.raises(InputError, match="spill file"):
        spill.take("claims", 2)
