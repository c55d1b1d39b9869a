"""The SQL a user types is untrusted: it reads the warehouse's own tables and nothing else, and
writes nothing."""

import hashlib
import shutil

import duckdb
import pytest

from kgbuild.errors import QueryError
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql import check_statements, confined
from kgbuild.store.sql_run import run_sql


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from tests.conftest import FIXTURES

    wh = tmp_path_factory.mktemp("sqlsafety") / "warehouse"
    build_kg(FIXTURES / "corpus", kg="t", warehouse=wh)
    return wh


def digest_tree(root):
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_reads_of_the_warehouse_work(built):
    _, rows = run_sql(built, "SELECT count(*) FROM triples")
    assert rows[0][0] > 0
    assert run_sql(built, "SELECT count(*) FROM triples_asof(2019)")[1][0][0] > 0
    assert run_sql(built, "SELECT head_name, support FROM kg_edges LIMIT 1")[1]
    for sql in (
        "DESCRIBE triples",
        "SHOW TABLES",
        "SUMMARIZE documents",
        "FROM snapshots",
        "EXPLAIN SELECT * FROM triples",
        "EXPLAIN ANALYZE SELECT count(*) FROM evidence",
    ):
        cols, _ = run_sql(built, sql)
        assert cols, sql


@pytest.mark.parametrize(
    "sql",
    [
        "EXPLAIN ANALYZE COPY (SELECT 1) TO '{wh}/kg.duckdb'",
        "EXPLAIN COPY (SELECT 1) TO '{wh}/kg.duckdb'",
        "COPY (SELECT 1) TO '{wh}/snapshots/x.json'",
        "COPY (SELECT 1) TO '{wh}/parts/triples/evil.parquet'",
        "EXPORT DATABASE '{wh}/dump'",
        "ATTACH '{wh}/other.duckdb' AS o",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "PRAGMA database_list",
        "CALL pragma_version()",
        "CREATE TABLE x AS SELECT 1",
        "DELETE FROM snapshots",
        "CHECKPOINT",
        "SELECT 1; COPY (SELECT 1) TO '{wh}/kg.duckdb'",
    ],
)
def test_statements_that_write_or_escape_are_refused(built, sql):
    before = digest_tree(built)
    with pytest.raises(QueryError, match=r"read-only|EXPLAIN"):
        run_sql(built, sql.format(wh=built))
    assert digest_tree(built) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM read_csv('/etc/passwd', sep=':')",
        "SELECT * FROM read_blob('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM sniff_csv('/etc/passwd')",
        "SELECT * FROM read_parquet('https://example.org/x.parquet')",
        "SELECT * FROM read_json('http://127.0.0.1:1/x.json')",
        "SELECT getenv('OPENAI_API_KEY')",
        "SELECT * FROM read_text('{wh}/parts/../kg.duckdb')",
        "SELECT * FROM read_text('{wh}/snapshots/*.json')",
        "SELECT * FROM read_text('{wh}/../../../../etc/passwd')",
        "SELECT * FROM query('COPY (SELECT 1) TO ''/tmp/kgbuild-evil.csv''')",
    ],
)
def test_nothing_outside_the_warehouse_tables_can_be_read(built, sql):
    with pytest.raises(QueryError, match="SQL error"):
        run_sql(built, sql.format(wh=built))


def test_the_connection_itself_confines_even_without_the_statement_check(built, tmp_path):
    """Layer 1 holds on its own: statements the parser check would refuse still cannot write
    the catalog, read outside, or undo the settings. (The connection's database is an
    in-memory copy of the registry: a table created there is gone with it.)"""
    before = digest_tree(built)
    with confined(built) as con:
        for sql in (
            f"COPY (SELECT 1) TO '{built}/kg.duckdb'",
            f"COPY (SELECT 1) TO '{tmp_path}/out.csv'",
            f"COPY (SELECT 1) TO '{built}/snapshots/x.json'",
            f"ATTACH '{built}/kg.duckdb' AS again",
            f"SELECT * FROM read_blob('{built}/kg.duckdb')",
            "SET enable_external_access = true",
            "SET allowed_directories = ['/']",
            "INSTALL httpfs",
            "SELECT * FROM read_text('/etc/passwd')",
        ):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        con.execute("CREATE TABLE snapshots2 AS SELECT 1")  # in memory only
        assert con.execute("SELECT count(*) FROM triples").fetchone()[0] > 0
    assert digest_tree(built) == before
    assert not (tmp_path / "out.csv").exists()


def test_runaway_query_is_interrupted(built):
    with pytest.raises(QueryError, match="time limit"):
        run_sql(built, "SELECT count(*) FROM range(100000000000) a", timeout_s=0.5)


def test_check_statements_uses_duckdbs_parser_not_text():
    assert len(check_statements("  select 1 ; FROM t")) == 2
    with pytest.raises(QueryError):
        check_statements("/* SELECT */ COPY (SELECT 1) TO 'x'")
    with pytest.raises(QueryError):
        check_statements("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x'")
    with pytest.raises(QueryError, match="no SQL"):
        check_statements("   ")


def test_moved_and_copied_warehouses_read_their_own_parts(built, tmp_path):
    moved = tmp_path / "moved"
    shutil.copytree(built, tmp_path / "orig")
    shutil.move(tmp_path / "orig", moved)
    copy = tmp_path / "copy"
    shutil.copytree(moved, copy)
    expect = Warehouse(built).query("SELECT count(*) FROM evidence")[0][0]
    # The copy must not read the original's parts: remove them, then read through the copy.
    shutil.rmtree(moved / "parts")
    assert Warehouse(copy).query("SELECT count(*) FROM evidence")[0][0] == expect
    assert run_sql(copy, "SELECT count(*) FROM evidence")[1][0][0] == expect
    from tests.conftest import FIXTURES

    again = build_kg(FIXTURES / "corpus", kg="t", warehouse=copy)
    assert all(y.reused for y in again.years)
