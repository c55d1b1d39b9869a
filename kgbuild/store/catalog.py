"""The DuckDB catalog (``warehouse/kg.duckdb``): snapshot registry, lineage, views and macros.

The catalog is an index over immutable Parquet parts and JSON manifests, which stay the source
of truth (``rebuild_views`` re-derives everything from the registry). Registration is one DuckDB
transaction, so a reader sees a snapshot whole or not at all.

SQL a user gets (see README "Exploring with SQL"):
- ``snapshots`` (one row per snapshot, Table 1 counts, manifest), ``snapshot_lineage``;
- ``<table>_at(snapshot_id)`` for documents, mentions, entities, triples, evidence, doc_status,
  problems; ``<table>_asof(year[, kg])``; views ``<table>`` on the newest snapshot;
- ``kg_edges_at(sid)`` / ``kg_edges``: triples with names, support and year span;
- ``triples_diff(a, b)``: added / removed triples between two snapshots.

Part paths are stored relative to the warehouse (``parts/<table>/<id>.parquet``), so a moved or
copied warehouse reads its own parts: every connection kgbuild opens sets DuckDB's
``file_search_path`` to the warehouse folder (another DuckDB client does the same, or starts in
the warehouse folder). Part names are content hashes, so a same-named file found first in some
other working folder holds the same rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from kgbuild.errors import Busy, StoreError
from kgbuild.records import SCHEMAS

#: 2: part paths relative to the warehouse (version 1 views held absolute paths) and
#: identical rows of a part kept (version 1 read them back as one).
CATALOG_VERSION = "2"
TABLES = tuple(SCHEMAS)

_DDL = """
CREATE TABLE IF NOT EXISTS catalog_meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS snapshots (
    snapshot_id VARCHAR PRIMARY KEY, kg VARCHAR NOT NULL, as_of_year INTEGER NOT NULL,
    build_id VARCHAR, parent_id VARCHAR, depth INTEGER NOT NULL, created_at TIMESTAMP,
    content_hash VARCHAR NOT NULL, inputs VARCHAR, code_version VARCHAR, extractor VARCHAR,
    n_records INTEGER, n_documents INTEGER, n_duplicates INTEGER, n_rejected INTEGER,
    n_mentions BIGINT, n_entities INTEGER, n_nodes INTEGER, n_relations INTEGER,
    n_triples BIGINT, n_evidence BIGINT, n_problems BIGINT, manifest JSON
);
CREATE TABLE IF NOT EXISTS snapshot_parts (
    snapshot_id VARCHAR NOT NULL, tbl VARCHAR NOT NULL, part_id VARCHAR NOT NULL,
    op VARCHAR NOT NULL, depth INTEGER NOT NULL, path VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS builds (
    build_id VARCHAR PRIMARY KEY, kg VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP,
    extractor VARCHAR, published INTEGER, reused INTEGER, llm_usage JSON
);
CREATE TABLE IF NOT EXISTS snapshot_fingerprints (
    inputs VARCHAR NOT NULL, snapshot_id VARCHAR NOT NULL, code_version VARCHAR,
    recorded_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS snapshot_lineage (
    snapshot_id VARCHAR NOT NULL, ancestor_id VARCHAR NOT NULL, distance INTEGER NOT NULL
);
"""

_SQL_TYPES = {
    "string": "VARCHAR",
    "int32": "INTEGER",
    "double": "DOUBLE",
    "list<item: string>": "VARCHAR[]",
    "bool": "BOOLEAN",
}


def open_with_retry(
    opener: Callable[[], duckdb.DuckDBPyConnection], path: Path, wait_s: float = 30.0
) -> duckdb.DuckDBPyConnection:
    """``opener()``, retried (up to ``wait_s``) while another process holds the file lock:
    DuckDB allows one writer *or* readers per file, and a publish holds it for a moment."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return opener()
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise StoreError(f"cannot open catalog: {first_line(exc)}", catalog=path) from exc
            if time.monotonic() > deadline:
                raise Busy(f"catalog busy: {first_line(exc)}", catalog=path) from exc
            time.sleep(0.2)


@contextmanager
def connect(
    path: Path, read_only: bool = False, wait_s: float = 30.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A trusted connection (kgbuild's own SQL) whose relative part paths resolve in the
    warehouse folder; waits while another process holds the file lock."""
    if read_only and not path.is_file():
        raise StoreError("no catalog yet: build a KG first", catalog=path)
    config = {"file_search_path": str(path.resolve().parent)}  # holds for cursors too
    con = open_with_retry(
        lambda: duckdb.connect(str(path), read_only=read_only, config=config), path, wait_s
    )
    try:
        yield con
    finally:
        con.close()


def sql_literal(value: object) -> str:
    """A value as a SQL literal, quoted by DuckDB itself (for DDL, which takes no parameters)."""
    return str(duckdb.ConstantExpression(value))


def first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    """Create the registry tables; re-derive views and macros written by an older version."""
    con.execute(_DDL)
    old = con.execute("SELECT value FROM catalog_meta WHERE key = 'catalog_version'").fetchone()
    if old is not None and old[0] == CATALOG_VERSION:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        if old is not None:
            rebuild_views(con)
        con.execute(
            "INSERT OR REPLACE INTO catalog_meta VALUES ('catalog_version', ?)", [CATALOG_VERSION]
        )
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def _empty_select(table: str, with_data: bool) -> str:
    cols = []
    if with_data:
        for f in SCHEMAS[table]:
            cols.append(f'NULL::{_SQL_TYPES[str(f.type)]} AS "{f.name}"')
    cols += ["NULL::VARCHAR AS _row", "NULL::VARCHAR AS _part"]
    return f"SELECT {', '.join(cols)} WHERE false"


def part_views(
    con: duckdb.DuckDBPyConnection, root: Path | None = None, temporary: bool = False
) -> None:
    """(Re)create the views reading every table's parts: ``_rows_<t>`` (add parts) and
    ``_dels_<t>`` (del parts). Persistent views name parts relative to the warehouse; with
    ``root`` and ``temporary`` they are this connection's own views with absolute paths, which
    shadow the persistent ones (the confined connection, whose file access is limited to
    ``<root>/parts``, cannot resolve relative paths)."""
    kind = "TEMP VIEW" if temporary else "VIEW"
    for t in TABLES:
        for op, view in (("add", f"_rows_{t}"), ("del", f"_dels_{t}")):
            rel = [
                r[0]
                for r in con.execute(
                    "SELECT DISTINCT path FROM snapshot_parts WHERE tbl = ? AND op = ? ORDER BY 1",
                    [t, op],
                ).fetchall()
            ]
            if rel:
                cols = "*" if op == "add" else "_row, _part"
                files = [str(root / p) if root else p for p in rel]
                body = (
                    f"SELECT {cols} FROM read_parquet({sql_literal(files)}, union_by_name = true)"
                )
            else:
                body = _empty_select(t, with_data=op == "add")
            con.execute(f"CREATE OR REPLACE {kind} {view} AS {body}")


def rebuild_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create the part-reading views and every macro; call inside the publishing transaction."""
    part_views(con)
    for t in TABLES:
        con.execute(f"""
            CREATE OR REPLACE MACRO _{t}_at(sid) AS TABLE
            SELECT * EXCLUDE (_part, _depth) FROM (
                SELECT r.*, p.depth AS _depth FROM _rows_{t} r
                -- a part listed at two depths joins once; identical rows of a part all count
                JOIN (SELECT part_id, max(depth) AS depth FROM snapshot_parts
                      WHERE snapshot_id = sid AND tbl = '{t}' AND op = 'add' GROUP BY part_id) p
                  ON p.part_id = r._part
            ) a
            WHERE NOT EXISTS (
                SELECT 1 FROM _dels_{t} d JOIN snapshot_parts q ON q.part_id = d._part
                WHERE q.snapshot_id = sid AND q.tbl = '{t}' AND q.op = 'del'
                  AND d._row = a._row AND q.depth > a._depth)
        """)
        con.execute(
            f"CREATE OR REPLACE MACRO {t}_at(sid) AS TABLE "
            f"SELECT * EXCLUDE (_row) FROM _{t}_at(sid)"
        )
    con.execute("""
        CREATE OR REPLACE MACRO head_snapshot(kg_name := NULL) AS (
            SELECT snapshot_id FROM snapshots
            WHERE kg = coalesce(kg_name,
                (SELECT kg FROM snapshots ORDER BY created_at DESC, depth DESC LIMIT 1))
            ORDER BY created_at DESC, depth DESC LIMIT 1)
    """)
    con.execute("""
        CREATE OR REPLACE MACRO snapshot_asof(yr, kg_name := NULL) AS (
            SELECT s.snapshot_id FROM snapshot_lineage l
            JOIN snapshots s ON s.snapshot_id = l.ancestor_id
            WHERE l.snapshot_id = head_snapshot(kg_name := kg_name) AND s.as_of_year <= yr
            ORDER BY s.as_of_year DESC, l.distance ASC LIMIT 1)
    """)
    for t in TABLES:
        con.execute(
            f"CREATE OR REPLACE MACRO {t}_asof(yr, kg_name := NULL) AS TABLE "
            f"SELECT * FROM {t}_at(snapshot_asof(yr, kg_name := kg_name))"
        )
        con.execute(f"CREATE OR REPLACE VIEW {t} AS SELECT * FROM {t}_at(head_snapshot())")
    con.execute("""
        CREATE OR REPLACE MACRO kg_edges_at(sid) AS TABLE
        WITH ev AS (
            SELECT triple_id, count(*) AS n_evidence, count(DISTINCT pmid) AS support,
                   min(year) AS first_year, max(year) AS last_year,
                   list(DISTINCT method ORDER BY method) AS methods,
                   list(DISTINCT model ORDER BY model) FILTER (WHERE model IS NOT NULL) AS models
            FROM evidence_at(sid) GROUP BY triple_id),
        per_doc AS (
            SELECT triple_id, pmid, max(confidence) AS p FROM evidence_at(sid) GROUP BY ALL),
        conf AS (  -- noisy-OR across documents (iKraph): 1 - prod(1 - p_doc)
            SELECT triple_id, round(1 - exp(sum(ln(greatest(1 - p, 1e-9)))), 4) AS confidence
            FROM per_doc GROUP BY triple_id),
        ent AS (SELECT id, name, type FROM entities_at(sid))
        SELECT t.triple_id, t.head_id, h.name AS head_name, h.type AS head_type, t.relation,
               t.tail_id, x.name AS tail_name, x.type AS tail_type, t.metaedge,
               coalesce(ev.support, 0) AS support, coalesce(ev.n_evidence, 0) AS n_evidence,
               conf.confidence, ev.first_year, ev.last_year, ev.methods, ev.models
        FROM triples_at(sid) t LEFT JOIN ev USING (triple_id) LEFT JOIN conf USING (triple_id)
        LEFT JOIN ent h ON h.id = t.head_id LEFT JOIN ent x ON x.id = t.tail_id
    """)
    con.execute("CREATE OR REPLACE VIEW kg_edges AS SELECT * FROM kg_edges_at(head_snapshot())")
    con.execute("""
        CREATE OR REPLACE MACRO triples_diff(a, b) AS TABLE
        SELECT 'added' AS change, n.* FROM triples_at(b) n
        WHERE n.triple_id NOT IN (SELECT triple_id FROM triples_at(a))
        UNION ALL
        SELECT 'removed' AS change, o.* FROM triples_at(a) o
        WHERE o.triple_id NOT IN (SELECT triple_id FROM triples_at(b))
    """)
