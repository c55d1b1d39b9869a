"""A damaged warehouse is noticed and repaired (issue 11, item 14)."""

import json
import os
import subprocess
import sys

import pytest

from kgbuild.pipeline.build import build_kg, plan_build
from kgbuild.store.check import check_warehouse
from kgbuild.store.snapshots import Warehouse


def cli(*args, warehouse):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip


def first_year_part(warehouse, table="evidence"):
    wh = Warehouse(warehouse)
    sid = wh.query("SELECT snapshot_id FROM snapshots ORDER BY as_of_year LIMIT 1")[0][0]
    part = next(p for p in wh.manifest(sid)["parts"] if p["table"] == table)
    return warehouse / part["path"]


@pytest.mark.slow  # builds and rebuilds in a process
@pytest.mark.parametrize("damage", ["delete", "truncate", "flip"])
def test_damaged_part_is_reported_and_rebuilt(corpus, warehouse, damage):
    first = build_kg(corpus, kg="t", warehouse=warehouse)
    hashes = [y.snapshot.content_hash for y in first.years]
    assert check_warehouse(warehouse).ok
    path = first_year_part(warehouse)
    data = path.read_bytes()
    if damage == "delete":
        path.unlink()
    elif damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    else:  # same size, one row's content changed: only re-hashing finds it
        import pyarrow as pa
        import pyarrow.parquet as pq

        t = pq.read_table(path)
        col = t.column("sentence").to_pylist()
        col[0] = col[0].upper()
        pq.write_table(t.set_column(t.schema.get_field_index("sentence"), "sentence",
                                    pa.array(col, pa.string())), path)  # fmt: skip
    report = check_warehouse(warehouse)
    assert not report.ok
    (d,) = report.damaged
    assert d.table == "evidence" and d.path.endswith(path.name) and len(d.snapshots) == 2
    proc = cli("check", warehouse=warehouse)
    assert proc.returncode == 1 and path.name in proc.stdout and "Traceback" not in proc.stderr
    if damage != "flip":  # found without re-hashing: by stats, by the plan and by a build
        stats = cli("stats", warehouse=warehouse)
        assert stats.returncode == 0 and "kgbuild check" in stats.stderr
        plan = plan_build(corpus, kg="t", warehouse=warehouse)
        assert [p.reason for p in plan] == ["damaged", "parent rebuilt"]
    again = build_kg(corpus, kg="t", warehouse=warehouse, verify=damage == "flip")
    assert [y.snapshot.content_hash for y in again.years] == hashes
    assert [y.reused for y in again.years] == [False, False]  # rebuilt (same snapshots)
    assert check_warehouse(warehouse).ok
    assert json.loads(cli("check", "--json", warehouse=warehouse).stdout)["ok"]


def test_orphaned_temporary_parts_are_cleaned(corpus, warehouse):
    build_kg(corpus, kg="t", warehouse=warehouse)
    tmp = warehouse / "parts" / "evidence" / ".tmp-deadbeef.parquet"
    tmp.write_bytes(b"half a part")
    assert check_warehouse(warehouse).temp_files == ["parts/evidence/.tmp-deadbeef.parquet"]
    build_kg(corpus, kg="t", warehouse=warehouse)
    assert not tmp.exists()
