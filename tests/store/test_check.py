"""A damaged warehouse is noticed and repaired."""

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


def forged_copy(warehouse, dest, table="triples"):
    """A copy of one of ``table``'s add parts under ``dest`` with every relation changed, and
    the part's path relative to the warehouse."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    part = first_year_part(warehouse, table)
    data = pq.read_table(part)
    forged = pa.array(["FORGED"] * data.num_rows, pa.string())
    out = dest / part.relative_to(warehouse)
    out.parent.mkdir(parents=True)
    pq.write_table(data.set_column(data.schema.get_field_index("relation"), "relation", forged),
                   out)  # fmt: skip
    return part, out


def test_check_sees_a_view_that_reads_another_file(corpus, warehouse, tmp_path):
    """Intact parts are not enough: check asks the catalog's views (as every reader opens
    them) which files they read."""
    import duckdb

    build_kg(corpus, kg="t", warehouse=warehouse)
    part, forged = forged_copy(warehouse, tmp_path / "elsewhere")
    con = duckdb.connect(str(warehouse / "kg.duckdb"))
    files = [str(forged) if p.name == part.name else str(p)
             for p in sorted((warehouse / "parts" / "triples").glob("*.parquet"))]  # fmt: skip
    files = duckdb.ConstantExpression(files)
    con.execute("CREATE OR REPLACE VIEW _rows_triples AS SELECT *, filename AS _file FROM "
                f"read_parquet({files}, union_by_name = true)")  # fmt: skip
    con.close()
    assert ("FORGED",) in Warehouse(warehouse).query("SELECT relation FROM triples")  # read
    report = check_warehouse(warehouse)
    assert not report.ok
    assert [(d.path, d.table) for d in report.damaged] == [(str(forged), "triples")]
    assert "not one of the warehouse's parts" in report.damaged[0].problem
    proc = cli("check", "--json", warehouse=warehouse)
    assert proc.returncode == 1 and json.loads(proc.stdout)["damaged"][0]["path"] == str(forged)


def test_check_compares_the_catalog_with_the_manifests(corpus, warehouse, tmp_path):
    import duckdb

    build_kg(corpus, kg="t", warehouse=warehouse)
    part, forged = forged_copy(warehouse, tmp_path / "elsewhere")
    rel = os.path.relpath(forged, warehouse)  # ../../elsewhere/parts/triples/<id>.parquet
    con = duckdb.connect(str(warehouse / "kg.duckdb"))
    con.execute("UPDATE snapshot_parts SET path = ? WHERE path = ?",
                [rel, str(part.relative_to(warehouse))])  # fmt: skip
    con.close()
    report = check_warehouse(warehouse, full=False)
    assert not report.ok
    problems = {(d.path, d.problem) for d in report.damaged}
    assert (rel, "the catalog lists this part; the snapshot's manifest does not") in problems
    assert any("the catalog does not" in p for _, p in problems)


# ---- query caches, and what a build really cleans up ------------------------------------------
AD_Q = "Which gene is the main genetic risk factor of Alzheimer's disease?"


def _rename_nodes(path):
    """Every node's names changed inside a cached nodes.arrow; same rows, same types."""
    import pyarrow as pa
    import pyarrow.ipc as ipc

    table = ipc.open_file(pa.py_buffer(path.read_bytes())).read_all()
    for col in ("name", "display"):
        i = table.schema.get_field_index(col)
        table = table.set_column(i, col, pa.array(["iron oxide"] * table.num_rows, pa.string()))
    with ipc.new_file(str(path), table.schema) as w:
        w.write_table(table)


@pytest.mark.slow  # CLI processes
def test_check_reports_an_edited_query_cache_and_the_next_ask_rebuilds_it(warehouse):
    from tests.support.query_kg import build_query_kg

    build_query_kg(warehouse)
    ask = ("ask", AD_Q, "--choices", "APOE;APP", "--no-llm", "--embed", "off", "--json")
    first = cli(*ask, warehouse=warehouse)
    assert first.returncode == 0, first.stderr
    (folder,) = [p for p in (warehouse / "index").iterdir() if p.is_dir()]
    assert json.loads(cli("check", "--json", warehouse=warehouse).stdout)["caches"] == 1
    _rename_nodes(folder / "nodes.arrow")

    text = cli("check", warehouse=warehouse)
    assert text.returncode == 1 and "Traceback" not in text.stderr
    flat = " ".join(text.stdout.split())  # the table folds long cells
    assert "query cache" in flat and "nodes.arrow" in flat
    report = json.loads(cli("check", "--json", warehouse=warehouse).stdout)
    (d,) = report["damaged"]
    assert not report["ok"] and d["path"] == f"index/{folder.name}/nodes.arrow"
    assert d["problem"].startswith("bytes do not match its sidecar (sha256); never served")
    assert d["problem"].endswith(f"never served: the next `kgbuild serve`/`ask` on snapshot "
                                 f"{folder.name[:20]} rebuilds it first")  # fmt: skip

    again = cli(*ask, warehouse=warehouse)  # what the line promised
    assert again.returncode == 0 and "iron oxide" not in again.stdout
    assert json.loads(again.stdout) == json.loads(first.stdout) | {
        "timings_ms": json.loads(again.stdout)["timings_ms"]}  # fmt: skip
    assert [ln for ln in again.stderr.splitlines() if "query cache" in ln and "rebuilt" in ln]
    assert cli("check", warehouse=warehouse).returncode == 0
    assert check_warehouse(warehouse).ok


def test_check_promises_a_clean_up_only_for_what_a_build_removes(corpus, warehouse):
    """Each kind of stray file check reports is planted; after check, a build runs; what check
    said would go is gone, what it said stays is there — in its report, its notes and the
    CLI's own lines."""
    build_kg(corpus, kg="t", warehouse=warehouse)
    part = first_year_part(warehouse, "triples")
    planted = {
        # the next build removes these (Warehouse.repair, the build's scratch clean-up)
        "parts/evidence/.tmp-deadbeef.parquet": True,
        "snapshots/.tmp-cafe.json": True,
        "scratch/20260101T000000Z-dead/seen.duckdb": True,
        # and leaves these: each must say so
        f"parts/triples/{'0' * 32}.parquet": False,  # named like a part, no manifest names it
        "parts/evidence/sub/.tmp-deep.parquet": False,  # a temp name, not where writers put one
        "parts/.tmp-top.parquet": False,
        "parts/stray.parquet": False,
        "parts/triples/notes.txt": False,
        "index/.tmp-0123/nodes.arrow": False,  # a killed query-cache writer's folder
        "index/0000000000-0000000000000000-00000000/nodes.arrow": False,  # no snapshot's
    }
    for rel in planted:
        (warehouse / rel).parent.mkdir(parents=True, exist_ok=True)
        (warehouse / rel).write_bytes(part.read_bytes() if rel.endswith(".parquet") else b"x")
    report = check_warehouse(warehouse)
    assert report.ok  # strays are not damage: no reader reads them
    said = {}
    for x in report.leftovers:
        top = x.path if x.path in planted else next(r for r in planted if r.startswith(x.path))
        said[top] = x.removed_by_build
        assert (x.fate == "the next `kgbuild build` removes them") == x.removed_by_build
    assert said == planted  # every planted file is reported, with its true fate
    notes = report.notes()
    proc = cli("check", warehouse=warehouse)
    printed = " ".join(proc.stdout.split())  # the CLI prints the notes (however it wraps)
    assert notes and all(" ".join(line.split()) in printed for line in notes), proc.stdout
    assert "the next build cleans up" not in printed

    build_kg(corpus, kg="t", warehouse=warehouse)
    gone = {rel: not (warehouse / rel).exists() for rel in planted}
    assert gone == planted  # removed exactly when check said the build removes it
    for line in notes:  # each note's paths went, or stayed, as the note said
        paths = line.rsplit(": ", 1)[1].split(", ")
        removed = {not (warehouse / p).exists() for p in paths}
        assert removed == {"the next `kgbuild build` removes them" in line}, line
    left = check_warehouse(warehouse).leftovers
    assert {x.path for x in left} == {x.path for x in report.leftovers if not x.removed_by_build}
