"""Every part is read from the warehouse's own parts folder, never from a `parts/` folder in
the working folder: DuckDB looks relative paths up in the working folder
before `file_search_path`, so a forged tree with the same names used to be read by export,
serve/ask and SQL while `check` said all was well."""

import json
import os
import subprocess
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgbuild.store.snapshots import Warehouse
from tests.conftest import ROOT
from tests.support.query_kg import build_query_kg

AD_Q = "Which gene is the main genetic risk factor of Alzheimer's disease (AD)?"
#: Text columns a forger rewrites (ids and hashes are kept, so joins still work).
FORGED_COLUMNS = ("name", "sentence", "title", "abstract", "text")


@pytest.fixture
def toy(tmp_path):
    root = tmp_path / "warehouse"
    build_query_kg(root)
    return root


def forge(root, cwd):
    """A copy of the warehouse's parts under ``cwd/parts`` with the same names and every text
    value rewritten."""
    for path in sorted((root / "parts").rglob("*.parquet")):
        table = pq.read_table(path)
        for name in FORGED_COLUMNS:
            if name in table.column_names and pa.types.is_string(table.schema.field(name).type):
                values = [None if v is None else f"FORGED {v}" for v in table[name].to_pylist()]
                i = table.schema.get_field_index(name)
                table = table.set_column(i, name, pa.array(values, pa.string()))
        out = cwd / path.relative_to(root)
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, out)
    return cwd


def kgbuild(*args, warehouse, cwd):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse), "PYTHONPATH": str(ROOT),
           "HF_HUB_OFFLINE": "1"}  # fmt: skip
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=180)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.slow  # CLI processes
def test_a_parts_folder_in_the_working_folder_is_never_read(toy, tmp_path):
    own_names = [r[0] for r in Warehouse(toy).query("SELECT name FROM entities ORDER BY name")]
    own_sentences = {r[0] for r in Warehouse(toy).query("SELECT sentence FROM evidence")}
    cwd = forge(toy, tmp_path / "cwd")

    rows = json.loads(kgbuild("sql", "SELECT name FROM entities ORDER BY name", "--format",
                              "json", warehouse=toy, cwd=cwd))  # fmt: skip
    assert [r["name"] for r in rows] == own_names

    kgbuild("export", "latest", "-o", str(tmp_path / "x"), warehouse=toy, cwd=cwd)
    exported = pq.read_table(tmp_path / "x" / "parquet" / "evidence.parquet")
    assert set(exported["sentence"].to_pylist()) == own_sentences

    answer = kgbuild("ask", AD_Q, "--no-llm", "--json", "--embed", "off", "--index-dir",
                     str(tmp_path / "index"), warehouse=toy, cwd=cwd)  # fmt: skip
    assert "FORGED" not in answer
    assert "APOE is the main genetic risk factor of Alzheimer disease." in answer

    stats = kgbuild("stats", "--json", warehouse=toy, cwd=cwd)
    assert json.loads(stats)[-1]["n_triples"] > 0
    assert json.loads(kgbuild("check", "--json", warehouse=toy, cwd=cwd))["ok"]


def test_an_older_catalog_opened_read_only_reads_its_own_parts_too(toy, tmp_path, monkeypatch):
    """A catalog written before part paths were resolved by the views themselves (relative
    paths, resolved by DuckDB in the working folder first) is read through this connection's
    own views until the next build rewrites it."""
    own = Warehouse(toy).query("SELECT name FROM entities ORDER BY name")
    con = duckdb.connect(str(toy / "kg.duckdb"), config={"file_search_path": str(toy)})
    for t, op, view in con.execute(
        "SELECT DISTINCT tbl, op, CASE op WHEN 'add' THEN '_rows_' ELSE '_dels_' END || tbl "
        "FROM snapshot_parts"
    ).fetchall():
        rel = [r[0] for r in con.execute(
            "SELECT DISTINCT path FROM snapshot_parts WHERE tbl = ? AND op = ?", [t, op]
        ).fetchall()]  # fmt: skip
        cols = "*" if op == "add" else "_row, _part"
        files = str(duckdb.ConstantExpression(rel))
        con.execute(f"CREATE OR REPLACE VIEW {view} AS SELECT {cols} "
                    f"FROM read_parquet({files}, union_by_name = true)")  # fmt: skip
    con.execute("UPDATE catalog_meta SET value = '2' WHERE key = 'catalog_version'")
    con.close()
    monkeypatch.chdir(forge(toy, tmp_path / "cwd"))
    assert Warehouse(toy).query("SELECT name FROM entities ORDER BY name") == own
