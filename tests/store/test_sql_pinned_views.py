"""`kgbuild sql`'s unqualified views never jump to another KG built into the same warehouse
later: they show the KG asked for (--kg / --snapshot), or the only one;
with several and no choice they fail in one line that lists them."""

import json
import os
import subprocess
import sys

import pytest

from kgbuild.errors import QueryError
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql_run import run_sql
from tests.conftest import FIXTURES, ROOT
from tests.support.query_kg import build_query_kg


@pytest.fixture(scope="module")
def two_kgs(tmp_path_factory):
    wh = tmp_path_factory.mktemp("twokgs") / "warehouse"
    build_query_kg(wh)  # "toy", 2019-2020
    build_kg(FIXTURES / "corpus", kg="t", warehouse=wh)  # built later: the newest snapshots
    return wh


def sql(*args, warehouse):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "kgbuild.cli", "sql", *args, "--format", "json"]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def count(proc):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)[0]["n"]


def test_views_never_follow_another_kg_built_later(two_kgs):
    wh = Warehouse(two_kgs)
    head = "SELECT count(*) FROM triples_at(head_snapshot(kg_name := ?))"
    toy, t = wh.query(head, ["toy"])[0][0], wh.query(head, ["t"])[0][0]
    assert toy != t
    q = "SELECT count(*) AS n FROM triples"

    proc = sql(q, warehouse=two_kgs)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr
    assert "2 KGs (t, toy)" in lines[0] and "--kg" in lines[0]
    for view in ("kg_edges", "entities", "evidence"):
        with pytest.raises(QueryError, match="2 KGs"):
            run_sql(two_kgs, f"SELECT count(*) FROM {view}")
    with pytest.raises(QueryError, match="2 KGs"):
        run_sql(two_kgs, "SELECT count(*) FROM triples_asof(2020)")

    assert count(sql(q, "--kg", "toy", warehouse=two_kgs)) == toy
    assert count(sql(q, "--kg", "t", warehouse=two_kgs)) == t
    assert run_sql(two_kgs, q, kg="toy")[1] == [[toy]]
    asof = wh.query("SELECT count(*) FROM triples_asof(2019, kg_name := 'toy')")[0][0]
    assert count(sql(q, "--snapshot", "toy@2019", warehouse=two_kgs)) == asof
    assert count(sql("SELECT count(*) AS n FROM triples_asof(2019)", "--kg", "toy",
                     warehouse=two_kgs)) == asof  # fmt: skip
    # what names a KG or a snapshot keeps working without a choice
    assert count(sql("SELECT count(*) AS n FROM snapshots", warehouse=two_kgs)) == 4
    named = "SELECT count(*) AS n FROM triples_at(head_snapshot(kg_name := 'toy'))"
    assert count(sql(named, warehouse=two_kgs)) == toy


def test_a_kg_that_is_not_there_is_one_clear_line(two_kgs):
    proc = sql("SELECT 1 AS n", "--kg", "nope", warehouse=two_kgs)
    assert proc.returncode == 2 and "no KG named 'nope'" in proc.stderr and "t, toy" in proc.stderr
    proc = sql("SELECT 1 AS n", "--kg", "t", "--snapshot", "toy@2020", warehouse=two_kgs)
    assert proc.returncode == 2 and "belongs to KG 'toy'" in proc.stderr
