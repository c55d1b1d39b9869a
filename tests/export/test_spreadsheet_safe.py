"""Every CSV/TSV kgbuild writes is safe to open in a spreadsheet (OWASP "CSV Injection"), and the
raw value stays where no spreadsheet reads it (Parquet, JSON) or comes back exactly (LadybugDB).

The snapshot's text fields all begin with a formula sign, tab, CR or quote
(tests/support/formula_kg.py); the checks read the written files with ``csv``, DuckDB and
pandas, never with kgbuild's own reader.
"""

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kgbuild.export import export_snapshot, ladybug
from kgbuild.export.neo4j import NODE_HEADER, REL_HEADER, unmark_cypher
from kgbuild.store.files import one_line
from kgbuild.store.spreadsheet import raw_column, raw_text, text_cell, text_column
from kgbuild.store.sql_output import csv_text
from tests.support.formula_kg import FORMULAS, NEGATIVE, formula_cells, is_formula, publish_formulas
from tests.support.kgx_venv import run_check

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def formulas(tmp_path_factory):
    """(warehouse, snapshot id) of the formula snapshot."""
    return publish_formulas(tmp_path_factory.mktemp("formulas") / "wh")


def _rows(path, delimiter):
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter=delimiter))


def test_the_rule_marks_formulas_only_and_is_undone_exactly():
    for value in FORMULAS:
        assert is_formula(value) or value.startswith("'")
        assert text_cell(value) == "'" + value and not is_formula(text_cell(value))
    for value in ("APOE", "", "a=b", " =1", "β-amyloid", "3-hydroxy", "free:=x"):
        assert text_cell(value) == value
    # every value comes back from its cell, a quote-led one included (the mark is doubled)
    for value in (*FORMULAS, "'", "''x", "'quoted", "-", "plain"):
        assert raw_text(text_cell(value)) == value
    values = [*FORMULAS, "ok", "", None, "'x"]
    cells = text_column(pa.array(values)).to_pylist()
    assert cells == [None if v is None else text_cell(v) for v in values]
    assert raw_column(pa.array(cells)).to_pylist() == values


def test_every_exported_csv_and_tsv_cell_is_safe_and_parquet_keeps_the_raw_value(
    formulas, tmp_path
):
    wh, sid = formulas
    out = export_snapshot(wh, sid, tmp_path / "out", ["parquet", "tsv", "kgx", "neo4j"])
    files = [p for w in out.values() for p, _ in w.values() if p.suffix in (".csv", ".tsv")]
    assert len(files) == 15 + 4 + 2
    found = {str(p.relative_to(tmp_path)): formula_cells(p) for p in files}
    assert {k: v for k, v in found.items() if v} == {}
    # the snapshot really held formulas in every writer's text: each file had some to mark
    for name in ("tsv/entities.tsv", "tsv/evidence.tsv", "tsv/documents.tsv",
                 "tsv/mentions.tsv", "tsv/kg_edges.tsv", "kgx/nodes.tsv", "kgx/edges.tsv",
                 "neo4j/nodes.csv", "neo4j/relationships.csv"):  # fmt: skip
        text = (tmp_path / "out" / name).read_text(encoding="utf-8")
        assert "'=HYPERLINK(" in text or "'-2+3+cmd" in text, name
    # Parquet keeps every value as stored; the TSV cell is the value with the mark
    ents = pq.read_table(out["parquet"]["entities"][0]).to_pylist()
    assert {e["name"] for e in ents} >= set(FORMULAS)
    tsv = {r["id"]: r for r in _rows(out["tsv"]["entities"][0], "\t")}
    for e in ents:
        assert tsv[e["id"]]["name"] == text_cell(e["name"])
        assert raw_text(tsv[e["id"]]["name"]) == e["name"]
    ev = pq.read_table(out["parquet"]["evidence"][0]).to_pylist()
    assert any(r["sentence"].startswith("=HYPERLINK(") for r in ev)


def test_number_columns_stay_numbers(formulas, tmp_path):
    """By column type, not content: ``-3`` in an offset column is a number (no mark, read as an
    integer), while text that looks like a number would be marked."""
    wh, sid = formulas
    out = export_snapshot(wh, sid, tmp_path / "out", ["tsv", "neo4j"])
    path = str(out["tsv"]["evidence"][0])
    con = duckdb.connect()
    typ = con.execute("SELECT typeof(sent_start), typeof(confidence) FROM read_csv(?, "
                      "delim='\t', header=true) LIMIT 1", [path]).fetchone()  # fmt: skip
    assert typ == ("BIGINT", "DOUBLE")
    got = con.execute("SELECT min(sent_start), min(head_start) FROM read_csv(?, delim='\t', "
                      "header=true)", [path]).fetchone()  # fmt: skip
    assert got == (NEGATIVE, NEGATIVE)
    rels = _rows(out["neo4j"]["relationships.csv"][0], ",")
    assert all(r["confidence:float"] == "0.7" and r["support:int"] == "1" for r in rels)
    assert text_cell("-3") == "'-3"  # the same characters in a text column are marked


@pytest.mark.slow  # LadybugDB load
def test_neo4j_csvs_round_trip_through_ladybug_with_the_raw_values(formulas, tmp_path):
    wh, sid = formulas
    out = export_snapshot(wh, sid, tmp_path / "out", ["neo4j", "ladybug"])
    db = out["ladybug"]["kg.lbug"][0]
    names = {i: (n, a) for i, n, a in wh.query("SELECT id, name, aliases FROM entities")}
    loaded = ladybug.query(db, "MATCH (n) RETURN n.id, n.name, n.aliases")
    assert len(loaded) == out["neo4j"]["nodes.csv"][1] == 14
    assert any(n.startswith("=HYPERLINK(") for _, n, _ in loaded)
    for node_id, name, aliases in loaded:
        want_name, want_aliases = names[node_id]
        assert name == one_line(want_name)  # the mark is gone, the value exact (on one line)
        assert aliases == [one_line(a).replace("|", "¦") for a in want_aliases]
    raw = dict(wh.query("SELECT triple_id, relation_raw FROM triples"))
    for tid, rel_raw in ladybug.query(db, "MATCH ()-[r]->() RETURN r.triple_id, r.relation_raw"):
        assert rel_raw == one_line(raw[tid])
    # neo4j-admin loads the mark as text: unmark.cypher is in the folder and covers every text
    # property of both headers, arrays by their first element
    script = out["neo4j"]["unmark.cypher"][0].read_text()
    assert script == unmark_cypher() and "unmark.cypher" in out["neo4j"]["import.sh"][0].read_text()
    for col in (*NODE_HEADER, *REL_HEADER):
        name, _, spec = col.partition(":")
        if name and spec in ("", "ID", "string", "string[]"):
            assert f"x.`{name}`" in script, col
        elif name:
            assert f"x.`{name}`" not in script, col


@pytest.mark.slow  # the kgx venv
def test_kgx_of_formulas_is_valid_for_the_kgx_validator(formulas, kgx_python, tmp_path):
    wh, sid = formulas
    kgx = export_snapshot(wh, sid, tmp_path / "out", ["kgx"])["kgx"]
    got = run_check(kgx_python, "--graph", str(kgx["nodes.tsv"][0]), str(kgx["edges.tsv"][0]))
    (v,) = got["validation"]
    assert v["errors"] == {}, v["errors"]
    assert (v["nodes"], v["edges"]) == (kgx["nodes.tsv"][1], kgx["edges.tsv"][1])


def test_sql_csv_text_is_marked_by_column_type():
    cols = ["name", "n", "x", "d", "s", "=c"]
    types = ["VARCHAR", "INTEGER", "DOUBLE", "DECIMAL(4,2)", "VARCHAR[]", "VARCHAR"]
    rows = [["=HYPERLINK(1)", -3, -1.5, "-1.50", ["=a"], "-3"], [None] * 5 + ["@x"]]
    text = "".join(csv_text(cols, types, rows))
    got = list(csv.reader(text.splitlines()))
    assert got == [
        ["name", "n", "x", "d", "s", "'=c"],
        ["'=HYPERLINK(1)", "-3", "-1.5", "-1.50", "['=a']", "'-3"],
        ["", "", "", "", "", "'@x"],
    ]


def _sql(wh, *args):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(wh.root), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", "sql", *args], env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


@pytest.mark.slow  # CLI processes
def test_kgbuild_sql_csv_is_safe_and_json_keeps_the_raw_value(formulas):
    wh, _ = formulas
    query = ("SELECT e.name, e.aliases, v.sentence, v.sent_start, -1.5::DOUBLE AS neg, "
             "'-1.5' AS neg_text FROM entities e, evidence v ORDER BY ALL")  # fmt: skip
    res = _sql(wh, query, "--format", "csv")
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(res.stdout.splitlines(keepends=True)))
    assert len(rows) == 17 * 9
    assert not [(k, c) for r in rows for k, c in r.items() if is_formula(c)]
    assert {r["neg"] for r in rows} == {"-1.5"} and {r["neg_text"] for r in rows} == {"'-1.5"}
    assert str(NEGATIVE) in {r["sent_start"] for r in rows}
    assert "'=HYPERLINK(" in res.stdout
    js = _sql(wh, query, "--format", "json")
    assert js.returncode == 0, js.stderr
    data = json.loads(js.stdout)
    assert {r["name"] for r in data} >= set(FORMULAS)  # as stored: no mark, CR and tab kept
    assert any(r["sentence"].startswith("=HYPERLINK(") for r in data)
    assert {r["neg"] for r in data} == {-1.5} and {r["neg_text"] for r in data} == {"-1.5"}
    # there is no TSV output of kgbuild sql: it is refused, not written unmarked
    tsv = _sql(wh, "SELECT name FROM entities", "--format", "tsv")
    assert tsv.returncode == 2 and not tsv.stdout and "csv or json" in tsv.stderr
