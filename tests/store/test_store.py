import json

import duckdb
import pyarrow.parquet as pq
import pytest

from kgbuild.errors import StoreError
from kgbuild.export import export_snapshot
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse


def content_hashes(wh: Warehouse) -> list[tuple]:
    return wh.query("SELECT kg, as_of_year, content_hash FROM snapshots ORDER BY as_of_year")


def test_build_publishes_one_snapshot_per_year(corpus, warehouse):
    report = build_kg(corpus, kg="t", warehouse=warehouse)
    assert [y.year for y in report.years] == [2019, 2020]
    first, second = (y.snapshot for y in report.years)
    assert first.parent_id is None and second.parent_id == first.snapshot_id
    wh = Warehouse(warehouse)
    rows = {r["as_of_year"]: r for r in wh.snapshots("t")}
    assert rows[2019]["n_documents"] == 3 and rows[2020]["n_documents"] == 4
    assert rows[2020]["n_records"] == 8 and rows[2020]["n_duplicates"] == 2
    assert rows[2020]["n_rejected"] == 2
    assert rows[2019]["n_triples"] < rows[2020]["n_triples"]
    # as-of access agrees with the registry, and the latest views show the head.
    for year, row in rows.items():
        (n,) = wh.query("SELECT count(*) FROM triples_asof(?)", [year])[0]
        assert n == row["n_triples"]
        (d,) = wh.query("SELECT count(*) FROM documents_asof(?, kg_name := 't')", [year])[0]
        assert d == row["n_documents"]
    assert wh.query("SELECT count(*) FROM doc_status")[0][0] == 8
    assert wh.query("SELECT count(*) FROM triples_asof(2018)")[0][0] == 0


def test_identical_rerun_is_idempotent(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    wh = Warehouse(warehouse)
    before = content_hashes(wh)
    files_before = sorted(p.name for p in (warehouse / "parts").rglob("*.parquet"))
    again = build_kg(corpus, kg="t", warehouse=warehouse)
    assert all(y.reused for y in again.years)
    assert content_hashes(wh) == before
    assert sorted(p.name for p in (warehouse / "parts").rglob("*.parquet")) == files_before
    assert wh.query("SELECT count(*) FROM snapshots")[0][0] == 2


def test_same_inputs_give_identical_content_hashes_in_any_warehouse(corpus, tmp_path):
    build_kg(corpus, kg="t", warehouse=tmp_path / "a")
    build_kg(corpus, kg="t", warehouse=tmp_path / "b")
    a, b = Warehouse(tmp_path / "a"), Warehouse(tmp_path / "b")
    assert content_hashes(a) == content_hashes(b)
    ids = "SELECT snapshot_id FROM snapshots ORDER BY as_of_year"
    assert a.query(ids) == b.query(ids)


def test_storage_is_delta_not_copies(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    wh = Warehouse(warehouse)
    for table in ("documents", "mentions", "evidence", "doc_status"):
        stored = sum(
            pq.read_metadata(p).num_rows for p in (warehouse / "parts" / table).glob("*.parquet")
        )
        (latest,) = wh.query(f"SELECT count(*) FROM {table}")[0]
        assert stored == latest, table  # each row stored once across both snapshots


def test_changed_entity_is_replaced_not_duplicated(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    wh = Warehouse(warehouse)
    q = "SELECT aliases FROM entities_asof(?) WHERE id = 'NCBIGene:348'"
    assert wh.query(q, [2019]) == [(["APOE"],)]
    # 2020 adds PMID 1004, whose APOE mentions raise the count but add no new surface form;
    # dementia is new in 2020 and absent in 2019.
    assert wh.query("SELECT count(*) FROM entities_asof(2019) WHERE id = 'MESH:D003704'") == [(0,)]
    assert wh.query("SELECT name, aliases FROM entities_asof(2020) WHERE id = 'MESH:D003704'") == [
        ("Dementia", ["Dementia", "dementia"])
    ]
    # NCBIGene:351's most frequent form changes in 2020, but a node with a preferred name
    # (Hetionet's symbol) keeps it: the row is not rewritten.
    name = "SELECT name FROM entities_asof(?) WHERE id = 'NCBIGene:351'"
    assert wh.query(name, [2019]) == [("APP",)] and wh.query(name, [2020]) == [("APP",)]
    assert list((warehouse / "parts" / "entities").glob("*.parquet"))
    for year in (2019, 2020):
        dup = wh.query("SELECT id FROM entities_asof(?) GROUP BY id HAVING count(*) > 1", [year])
        assert dup == []


def test_diff_and_export(corpus, warehouse, tmp_path):
    build_kg(corpus, kg="t", warehouse=warehouse)
    wh = Warehouse(warehouse)
    a, b = wh.resolve("t@2019"), wh.resolve("t@2020")
    changes = dict(wh.query("SELECT change, count(*) FROM triples_diff(?, ?) GROUP BY 1", [a, b]))
    n_a = wh.query("SELECT n_triples FROM snapshots WHERE snapshot_id = ?", [a])[0][0]
    n_b = wh.query("SELECT n_triples FROM snapshots WHERE snapshot_id = ?", [b])[0][0]
    assert changes.get("added", 0) == n_b - n_a and "removed" not in changes
    written = export_snapshot(wh, a, tmp_path / "export", ["parquet"])["parquet"]
    files = {t: path for t, (path, _) in written.items()}
    assert pq.read_table(files["triples"]).num_rows == n_a
    assert pq.read_table(files["documents"]).num_rows == 3


def test_interrupted_publish_leaves_nothing_visible(corpus, warehouse, monkeypatch):
    build_kg(corpus, kg="t", warehouse=warehouse, years="2019")
    wh = Warehouse(warehouse)
    before = content_hashes(wh)

    def crash(self, manifest):
        raise KeyboardInterrupt("killed between manifest and catalog")

    monkeypatch.setattr(Warehouse, "register", crash)
    with pytest.raises(KeyboardInterrupt):
        build_kg(corpus, kg="t", warehouse=warehouse)
    monkeypatch.undo()
    assert content_hashes(wh) == before  # readers still see only the 2019 snapshot
    report = build_kg(corpus, kg="t", warehouse=warehouse)  # repair + resume
    assert [y.year for y in report.years] == [2019, 2020]
    assert len(content_hashes(wh)) == 2


def test_catalog_is_plain_duckdb(corpus, warehouse):
    """Any DuckDB client reads the catalog; part paths resolve in the warehouse folder."""
    build_kg(corpus, kg="t", warehouse=warehouse)
    con = duckdb.connect(str(warehouse / "kg.duckdb"), read_only=True)
    con.execute("SET file_search_path = ?", [str(warehouse)])
    top = con.execute(  # every triple, served or not: evidence merged across documents
        "SELECT head_name, relation, tail_name, support FROM kg_edges_all "
        "ORDER BY support DESC, head_name, tail_name LIMIT 1"
    ).fetchone()
    assert top[3] >= 2
    manifest = json.loads(con.execute("SELECT manifest FROM snapshots LIMIT 1").fetchone()[0])
    assert {"parent_id", "code_version", "config", "tables", "parts"} <= set(manifest)
    con.close()


def test_unknown_snapshot_is_a_clear_error(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    with pytest.raises(StoreError, match="unknown snapshot"):
        Warehouse(warehouse).resolve("nope")


def test_source_relation_lines_are_kept(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    rows = Warehouse(warehouse).query("SELECT pmid, rel_type, arg1, arg2 FROM source_relations")
    assert rows == [("1001", "Association", "348", "MESH:D000544")]


def test_repair_ignores_manifests_that_were_never_renamed(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse, years="2019")
    wh = Warehouse(warehouse)
    (published,) = wh.manifests.glob("*.json")
    unpublished = json.loads(published.read_text())
    unpublished["snapshot_id"] = "never-renamed"
    (wh.manifests / ".tmp-killed.json").write_text(json.dumps(unpublished))
    (wh.manifests / ".tmp-truncated.json").write_text('{"snapshot_id": ')
    assert wh.repair() == []
    assert not list(wh.manifests.glob(".tmp-*"))
    assert wh.query("SELECT count(*) FROM snapshots") == [(1,)]
