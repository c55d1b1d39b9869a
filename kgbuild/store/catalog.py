"""The DuckDB catalog (``warehouse/kg.duckdb``): snapshot registry, lineage, views and macros.

The catalog is an index over immutable Parquet parts and JSON manifests, which stay the source
of truth (``rebuild_views`` re-derives everything from the registry). Registration is one DuckDB
transaction, so a reader sees a snapshot whole or not at all.

SQL a user gets (see README "Exploring with SQL"):
- ``snapshots`` (one row per snapshot, Table 1 counts, manifest), ``snapshot_lineage``;
- ``<table>_at(snapshot_id)`` for documents, mentions, entities, triples, evidence, doc_status,
  problems; ``<table>_asof(year[, kg])``; views ``<table>`` on the newest snapshot;
- ``kg_edges_at(sid)`` / ``kg_edges``: triples with names, support and year span, counting only
  served evidence (``served_evidence_at``: epistemic asserted — or unclassified, in parts
  written before statuses existed — and not refuted by verification); a triple without any is
  left out;
- ``kg_edges_all_at(sid)`` / ``kg_edges_all``: every triple over every evidence row, with
  per-status counts (``n_asserted``, ``n_hypothesis``…); ``evidence_status_at(sid)``;
- ``triples_diff(a, b)``: added / removed triples between two snapshots;
- ``belief_of(sid)``, ``belief_at(year[, kg])``, ``belief_history(triple_id[, kg])``: each
  fact's asserted / hedged / negated evidence and belief as the KG stood in a year
  (:mod:`kgbuild.belief.history`); ``lineage_years([kg])``: the head lineage's year → snapshot.

Part paths are stored relative to the warehouse (``parts/<table>/<id>.parquet``), so a moved or
copied warehouse reads its own parts. They are resolved against the warehouse folder *only*:
DuckDB looks a relative path up in the working folder first and in ``file_search_path`` after,
so a ``parts/`` tree in whatever folder a reader starts in would be read instead of the
warehouse's own. The views therefore prefix each part with the connection's
``file_search_path`` themselves (:func:`part_files`), which every connection kgbuild opens sets
to the warehouse folder; another DuckDB client sets it too, or starts in the warehouse folder.
Each part view also names the file it read (``_file``), so ``kgbuild check`` can see that what it
hashes is what readers read.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.belief.confidence import load_model, model_digest
from kgbuild.belief.conflicts import define_conflict_views
from kgbuild.belief.history import define_belief_views
from kgbuild.errors import Busy, NoWarehouse, StoreError
from kgbuild.records import RECORD_TYPES, arrow_schemas
from kgbuild.store.curations import define_log, prepare_connection
from kgbuild.store.edges import edges_macro_sql
from kgbuild.store.retractions import define_retraction_views, evidence_status_sql

#: 2: part paths relative to the warehouse (version 1 views held absolute paths) and
#: identical rows of a part kept (version 1 read them back as one). 3: part paths resolved
#: against ``file_search_path`` by the views themselves, never the working folder; ``_file``.
#: 4: kg_edges serves asserted evidence only; kg_edges_all, evidence_status_at (epistemic
#: status: a hedged or negated sentence is not served).
#: 5: deletions applied by an anti join (no buffering delim join) and kg_edges' lists without
#: ordered aggregates, so a 1M-triple snapshot's kg_edges streams within an export's memory
#: limit.
#: 6: evidence.verifier_score (NULL in older parts) and the ``unsupported`` status.
#: 7: one display name per node: ``entity_names_at``, ``kg_nodes``; kg_edges'
#: head_name/tail_name are display names.
#: 8: belief over time: belief_of, belief_at, belief_history, lineage_years;
#: conflicts_at, conflicts (kgbuild.belief.conflicts); the retractions table: a retracted
#: paper's evidence reads 'retracted' (kg_edges_all's n_retracted), retracted_at,
#: retractions_diff (kgbuild.store.retractions).
#: 9: kg_edges' SQL from kgbuild.store.edges (the same query; the export stages its parts).
#: 10: kg_edges_all counts the reader's ``proposed`` rows (n_proposed).
#: 11: belief_at / belief_history check their arguments first (checked_year, checked_kg,
#: checked_triple): a NULL, unknown or wrong-typed one is an error naming what is valid.
#: 12: belief_history takes a triple ID or a node's ID, name or alias (history_key, replacing
#: checked_triple); a key that matches nothing, or several nodes, is an error naming it.
#: 13: curations (kgbuild.store.curations): ``curation_log()``; a row a curator took out reads
#: 'curated_out' in evidence_status_at (kg_edges_all's n_curated_out).
CATALOG_VERSION = "13"
TABLES = tuple(RECORD_TYPES)
#: The registry's own tables (everything else in the catalog is derived: views and macros).
REGISTRY_TABLES = (
    "catalog_meta",
    "snapshots",
    "snapshot_parts",
    "builds",
    "snapshot_fingerprints",
    "snapshot_lineage",
)

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


def quiet(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """``con`` without DuckDB's progress bar, which it draws on the terminal for any query past
    ``progress_bar_time`` (2 s), from a library call as from its shell: in a CLI command or a
    server's log it is noise between our lines. A connection-local setting (DuckDB refuses it
    as a connect-time option), so every connection we open passes through here."""
    con.execute("SET enable_progress_bar = false")
    return con


def open_with_retry(
    opener: Callable[[], duckdb.DuckDBPyConnection], path: Path, wait_s: float = 30.0
) -> duckdb.DuckDBPyConnection:
    """``opener()``, retried (up to ``wait_s``) while another process holds the file lock:
    DuckDB allows one writer *or* readers per file, and a publish holds it for a moment."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return quiet(opener())
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise StoreError(f"cannot open catalog: {first_line(exc)}", catalog=path) from exc
            if time.monotonic() > deadline:
                raise Busy(f"catalog busy: {first_line(exc)}", catalog=path) from exc
            time.sleep(0.2)


@contextmanager
def connect(
    path: Path,
    read_only: bool = False,
    wait_s: float = 30.0,
    settings: dict[str, Any] | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A trusted connection (kgbuild's own SQL) whose relative part paths resolve in the
    warehouse folder; waits while another process holds the file lock. ``settings``: more
    DuckDB settings at connect time (an export's memory limit and spill folder)."""
    if read_only and not path.is_file():
        raise NoWarehouse(path.parent)
    root = path.resolve().parent
    config = {**(settings or {}), "file_search_path": str(root)}  # holds for cursors too
    con = open_with_retry(
        lambda: duckdb.connect(str(path), read_only=read_only, config=config), path, wait_s
    )
    try:
        prepare_connection(con, root, read_only)  # the curation log the views read
        if read_only and _stale_views(con):
            rebuild_views(con, root, temporary=True)  # an older catalog's trust the cwd
        yield con
    finally:
        con.close()


def _stale_views(con: duckdb.DuckDBPyConnection) -> bool:
    """The catalog's part views were written by an older version (a read-only connection
    cannot rebuild them; the next build does)."""
    names = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    if not {"catalog_meta", "snapshot_parts"} <= names:
        return False
    # fetchall: a result left unfinished would block a reader that streams next (export)
    rows = con.execute("SELECT value FROM catalog_meta WHERE key = 'catalog_version'").fetchall()
    return not rows or rows[0][0] != views_version()


def views_version() -> str:
    """What the catalog's derived views were written by: the catalog version and the confidence
    model's digest (``kg_edges`` holds the model's coefficients; another model, other views)."""
    return f"{CATALOG_VERSION}+{model_digest()}"


def copy_registry(path: Path, dst: duckdb.DuckDBPyConnection, wait_s: float = 30.0) -> None:
    """Copy the registry tables of the catalog at ``path`` into ``dst`` (another database, e.g.
    in memory), through a read-only connection of its own: ``dst`` never opens the file, so it
    holds no right to read it (DuckDB lets a connection read the file of any database it has
    attached, whatever ``allowed_directories`` says). Views and macros are not copied:
    :func:`rebuild_views` derives them from the registry."""
    dst.execute(_DDL)
    with connect(path, read_only=True, wait_s=wait_s) as src:
        present = {r[0] for r in src.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        for table in REGISTRY_TABLES:
            if table not in present:
                continue
            rows = src.sql(f"SELECT * FROM {table}").to_arrow_table()
            dst.register("_registry_rows", rows)
            try:
                dst.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _registry_rows")
            finally:
                dst.unregister("_registry_rows")


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
    if old is not None and old[0] == views_version():
        return
    con.execute("BEGIN TRANSACTION")
    try:
        # a new catalog gets its views with its version, in one transaction: a version row
        # without views (the first publish failing on a full disk) would never be repaired
        rebuild_views(con)
        con.execute(
            "INSERT OR REPLACE INTO catalog_meta VALUES ('catalog_version', ?)", [views_version()]
        )
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def _empty_select(table: str, with_data: bool) -> str:
    cols = []
    if with_data:
        for f in arrow_schemas()[table]:
            cols.append(f'NULL::{_SQL_TYPES[str(f.type)]} AS "{f.name}"')
    cols += ["NULL::VARCHAR AS _row", "NULL::VARCHAR AS _part", "NULL::VARCHAR AS _file"]
    return f"SELECT {', '.join(cols)} WHERE false"


def part_files(rel: list[str], root: Path | None = None) -> str:
    """SQL for the files of parts ``rel`` (paths relative to the warehouse): under ``root``
    when given (absolute paths), else under the reading connection's ``file_search_path``,
    which DuckDB folds to a constant when the query is bound. Only a connection without one
    (another client, started in the warehouse folder) falls back to relative paths."""
    if root is not None:
        return sql_literal([str(Path(root) / p) for p in rel])
    base = "current_setting('file_search_path')"
    return (
        f"list_transform({sql_literal(rel)}, lambda p: "
        f"CASE WHEN {base} = '' THEN p ELSE {base} || '/' || p END)"
    )


def part_views(
    con: duckdb.DuckDBPyConnection, root: Path | None = None, temporary: bool = False
) -> None:
    """(Re)create the views reading every table's parts: ``_rows_<t>`` (add parts) and
    ``_dels_<t>`` (del parts), each with ``_file``, the file DuckDB read. Persistent views name
    parts relative to the warehouse (:func:`part_files`); with ``root`` they hold absolute
    paths, and with ``temporary`` they are this connection's own views, which shadow the
    persistent ones (an older catalog's, read-only)."""
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
                files = part_files(rel, root)
                body = (
                    f"SELECT {cols}, filename AS _file "
                    f"FROM read_parquet({files}, union_by_name = true)"
                )
            else:
                body = _empty_select(t, with_data=op == "add")
            con.execute(f"CREATE OR REPLACE {kind} {view} AS {body}")


def _part_columns(con: duckdb.DuckDBPyConnection) -> list[list[tuple[Any, ...]]]:
    return [
        con.execute(f"DESCRIBE {pre}{t}").fetchall() for t in TABLES for pre in ("_rows_", "_dels_")
    ]


def refresh_part_views(con: duckdb.DuckDBPyConnection) -> None:
    """After a registration: the part views list the new parts; the macros and views over them
    are re-derived only when a part view's columns changed (a part written with more columns).

    Why not always :func:`rebuild_views`: its ~70 statements take 0.6-0.8 s (parsing and binding
    the edge macros), once per published snapshot, where re-listing the parts takes 70 ms and
    the column check ~90 ms on DALK's 89 parts. The macros' text never depends on the parts
    (missing columns are filled at query time), but a view bound over a part view that gained
    a column is re-derived anyway: DuckDB 2.0 re-binds views on use, earlier releases could
    refuse one whose columns changed ("contents of view were altered"), and ``duckdb>=1.1`` is
    what the project allows. Call inside the publishing transaction, on a catalog whose macros
    are this version's (:func:`ensure_schema`)."""
    before = _part_columns(con)
    part_views(con)
    if _part_columns(con) != before:
        rebuild_views(con)


def define_head(
    con: duckdb.DuckDBPyConnection, default: str | None = None, temporary: bool = False
) -> None:
    """``head_snapshot(kg_name := NULL)``: the newest snapshot of ``kg_name``; without a name,
    the SQL expression ``default`` (a pinned snapshot id, or an ``error(…)`` that names the
    KGs: :mod:`kgbuild.store.sql`), else the newest snapshot of the most recently built KG.
    Every unqualified view and ``*_asof`` macro goes through it."""
    newest_kg = "(SELECT kg FROM snapshots ORDER BY created_at DESC, depth DESC LIMIT 1)"
    unnamed = default if default is not None else f"({_head_of(newest_kg)})"
    create = "CREATE OR REPLACE TEMP" if temporary else "CREATE OR REPLACE"
    con.execute(f"""
        {create} MACRO head_snapshot(kg_name := NULL) AS (
            CASE WHEN kg_name IS NULL THEN {unnamed} ELSE ({_head_of("kg_name")}) END)
    """)


def _head_of(kg_sql: str) -> str:
    return (
        f"SELECT snapshot_id FROM snapshots WHERE kg = {kg_sql} "
        "ORDER BY created_at DESC, depth DESC LIMIT 1"
    )


def rebuild_views(
    con: duckdb.DuckDBPyConnection, root: Path | None = None, temporary: bool = False
) -> None:
    """(Re)create the part-reading views and every macro; call inside the publishing transaction
    (``root``: absolute part paths, for a connection that holds a copy of the registry;
    ``temporary``: this connection's own objects, shadowing an older catalog's)."""
    part_views(con, root, temporary)
    create = "CREATE OR REPLACE TEMP" if temporary else "CREATE OR REPLACE"
    for t in TABLES:
        con.execute(f"""
            {create} MACRO _{t}_at(sid) AS TABLE
            SELECT * EXCLUDE (_part, _depth, _file) FROM (
                SELECT r.*, p.depth AS _depth FROM _rows_{t} r
                -- a part listed at two depths joins once; identical rows of a part all count
                JOIN (SELECT part_id, max(depth) AS depth FROM snapshot_parts
                      WHERE snapshot_id = sid AND tbl = '{t}' AND op = 'add' GROUP BY part_id) p
                  ON p.part_id = r._part
            ) a
            -- an uncorrelated anti join, not NOT EXISTS (…): DuckDB decorrelates that with a
            -- delim join that buffers every row of the table in memory before the first one
            -- leaves (585 MB for a 1M-triple snapshot's evidence, per reader)
            ANTI JOIN (
                SELECT d._row AS _del_row, q.depth AS _del_depth
                FROM _dels_{t} d JOIN snapshot_parts q ON q.part_id = d._part
                WHERE q.snapshot_id = sid AND q.tbl = '{t}' AND q.op = 'del') x
              ON x._del_row = a._row AND x._del_depth > a._depth
        """)
        con.execute(
            f"{create} MACRO {t}_at(sid) AS TABLE SELECT * EXCLUDE (_row) FROM _{t}_at(sid)"
        )
    define_head(con, temporary=temporary)
    con.execute(f"""
        {create} MACRO snapshot_asof(yr, kg_name := NULL) AS (
            SELECT s.snapshot_id FROM snapshot_lineage l
            JOIN snapshots s ON s.snapshot_id = l.ancestor_id
            WHERE l.snapshot_id = head_snapshot(kg_name := kg_name) AND s.as_of_year <= yr
            ORDER BY s.as_of_year DESC, l.distance ASC LIMIT 1)
    """)
    for t in TABLES:
        con.execute(
            f"{create} MACRO {t}_asof(yr, kg_name := NULL) AS TABLE "
            f"SELECT * FROM {t}_at(snapshot_asof(yr, kg_name := kg_name))"
        )
        con.execute(f"{create} VIEW {t} AS SELECT * FROM {t}_at(head_snapshot())")
    # Epistemic status of each evidence row. Parts written before it have no
    # ``epistemic``/``verified`` columns: their rows read as 'unclassified' (never as
    # 'asserted': nobody looked) and are still served, as they were when published — an old
    # snapshot's kg_edges does not empty itself; ``kg_edges_all`` counts them apart.
    # a paper the snapshot records as retracted reads 'retracted' (never served)
    # a sentence a curator took out reads 'curated_out' (kgbuild.store.curations)
    define_log(con, create, root)
    con.execute(f"{create} MACRO evidence_status_at(sid) AS TABLE {evidence_status_sql('sid')}")
    con.execute(f"""
        {create} MACRO served_evidence_at(sid) AS TABLE
        SELECT * FROM evidence_status_at(sid)
        WHERE epistemic IN ('asserted', 'unclassified') AND verified <> 'no'
    """)
    _name_views(con, create)
    model = load_model()
    for name, all_statuses in (("kg_edges_at", False), ("kg_edges_all_at", True)):
        con.execute(f"{create} MACRO {name}(sid) AS TABLE {edges_macro_sql(model, all_statuses)}")
    con.execute(f"{create} VIEW kg_edges AS SELECT * FROM kg_edges_at(head_snapshot())")
    con.execute(f"{create} VIEW kg_edges_all AS SELECT * FROM kg_edges_all_at(head_snapshot())")
    con.execute(f"{create} VIEW kg_nodes AS SELECT * FROM kg_nodes_at(head_snapshot())")
    define_retraction_views(con, create)
    define_belief_views(con, create)
    define_conflict_views(con, create)
    con.execute(f"""
        {create} MACRO triples_diff(a, b) AS TABLE
        SELECT 'added' AS change, n.* FROM triples_at(b) n
        WHERE n.triple_id NOT IN (SELECT triple_id FROM triples_at(a))
        UNION ALL
        SELECT 'removed' AS change, o.* FROM triples_at(a) o
        WHERE o.triple_id NOT IN (SELECT triple_id FROM triples_at(b))
    """)


def _name_views(con: duckdb.DuckDBPyConnection, create: str) -> None:
    """``entity_names_at(sid)``: each node's display name, and ``kg_nodes_at(sid)``
    / ``kg_nodes``: one row per node with it. The name is computed once at build time
    (``entities.display_name``: :func:`kgbuild.resolve.naming.display_name`); parts written
    before it have no such column, and their nodes show ``name`` (a rebuild names them)."""
    con.execute(f"""
        {create} MACRO entity_names_at(sid) AS TABLE
        SELECT id, coalesce(nullif(display_name, ''), name, id) AS display_name, name, type,
               aliases, first_year
        FROM (SELECT * FROM entities_at(sid) UNION ALL BY NAME
              SELECT NULL::VARCHAR AS display_name WHERE false)
    """)
    con.execute(f"""
        {create} MACRO kg_nodes_at(sid) AS TABLE
        WITH ends AS (SELECT head_id AS id, tail_id AS other FROM triples_at(sid)
                      UNION ALL SELECT tail_id, head_id FROM triples_at(sid)),
        deg AS (SELECT id, count(*) AS n_triples,
                       count(DISTINCT other) FILTER (WHERE other <> id) AS degree
                FROM ends GROUP BY id)
        SELECT e.id, e.display_name, e.name, e.type, e.first_year, e.aliases,
               coalesce(deg.degree, 0) AS degree, coalesce(deg.n_triples, 0) AS n_triples
        FROM entity_names_at(sid) e LEFT JOIN deg USING (id)
    """)
