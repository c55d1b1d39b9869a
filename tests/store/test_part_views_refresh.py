"""A publish re-lists the part views and re-derives the macros only when a part view's columns
changed (kgbuild.store.catalog.refresh_part_views)."""

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import build_query_kg


@pytest.fixture
def wh(tmp_path):
    build_query_kg(tmp_path / "wh")
    return Warehouse(tmp_path / "wh")


def _count_rebuilds(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = catalog.rebuild_views
    monkeypatch.setattr(catalog, "rebuild_views", lambda *a, **k: (calls.append(1), real(*a, **k)))
    return calls


def test_publishing_parts_of_the_same_shape_keeps_the_macros(wh, monkeypatch):
    calls = _count_rebuilds(monkeypatch)
    before = wh.query("SELECT count(*) FROM triples")
    with catalog.connect(wh.catalog_path) as con:
        catalog.refresh_part_views(con)
    assert calls == []
    assert wh.query("SELECT count(*) FROM triples") == before


def _add_wider_triples_part(wh: Warehouse, con: duckdb.DuckDBPyConnection) -> None:
    """A triples part with one more column, listed in the head snapshot (as a part written by
    a later schema would be)."""
    sid, path = con.execute(
        "SELECT snapshot_id, path FROM snapshot_parts WHERE tbl = 'triples' AND op = 'add' "
        "ORDER BY depth DESC LIMIT 1"
    ).fetchone()
    rows = pq.read_table(wh.root / path).slice(0, 1)
    rows = rows.append_column("later_column", pa.array(["x"]))
    part = "parts/triples/wider.parquet"
    pq.write_table(rows.set_column(rows.schema.get_field_index("_part"), "_part",
                                   pa.array(["wider"])), wh.root / part)  # fmt: skip
    con.execute(
        "INSERT INTO snapshot_parts VALUES (?, 'triples', 'wider', 'add', 99, ?)", [sid, part]
    )


def test_a_part_with_a_new_column_re_derives_the_views(wh, monkeypatch):
    calls = _count_rebuilds(monkeypatch)
    n = wh.query("SELECT count(*) FROM triples")[0][0]
    with catalog.connect(wh.catalog_path) as con:
        _add_wider_triples_part(wh, con)
        catalog.refresh_part_views(con)
    assert calls == [1]
    assert wh.query("SELECT count(*), count(later_column) FROM triples") == [(n + 1, 1)]
