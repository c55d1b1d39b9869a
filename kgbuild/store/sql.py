"""SQL typed by a user (``kgbuild sql``, the query server): confined by DuckDB's own controls.

A read-only connection is not enough: DuckDB still lets it ``COPY … TO`` any file (aimed at
``kg.duckdb`` it destroys the catalog), read any local file (``read_text('/etc/shadow')``,
``read_csv``, ``glob``) and install extensions for ``https://`` paths. A filter over SQL text
cannot be made safe either (``EXPLAIN ANALYZE COPY …`` passed one). So, following DuckDB's
"Securing DuckDB" guide, an untrusted statement runs on a connection that

1. is a fresh in-memory database with the catalog ``ATTACH``-ed ``READ_ONLY`` (nothing it does
   can change the warehouse's database file);
2. reads parts only through this connection's own views with absolute paths under
   ``<warehouse>/parts`` (``allowed_directories``), with ``enable_external_access = false``:
   no other file, directory listing, URL or database can be opened, and ``getenv`` is gone;
3. cannot install or load extensions (auto-install/auto-load off, external access off), cannot
   spill to disk (``temp_directory = ''``), has a memory limit, and ``lock_configuration = true``
   so no ``SET`` can undo any of it.

As a second, independent line, only statements DuckDB's own parser classifies as ``SELECT``
(which includes ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``, ``FROM t``) run, or ``EXPLAIN [ANALYZE]``
of one: the one write DuckDB still allows inside the allowed folder is ``COPY … TO``, which is
not a ``SELECT``. A statement that runs longer than its time limit is interrupted.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.errors import QueryError, StoreError
from kgbuild.store import catalog

#: Memory a user's statement may use (DuckDB's ``memory_limit``); it cannot spill to disk.
MEMORY_LIMIT = "2GB"
#: Seconds a user's statement may run before it is interrupted.
TIMEOUT_S = 60.0


def check_statements(sql: str) -> list[str]:
    """The statements of ``sql`` if every one is a read (by DuckDB's parser), else QueryError."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"SQL error: {catalog.first_line(exc)}") from exc
    if not statements:
        raise QueryError("no SQL statement given")
    for st in statements:
        if st.type == duckdb.StatementType.EXPLAIN:
            _check_explained(st.query)
        elif st.type != duckdb.StatementType.SELECT:
            kind = str(st.type).rsplit(".", 1)[-1]
            raise QueryError(f"SQL is read-only here: {kind} statements are refused")
    return [st.query for st in statements]


def _check_explained(query: str) -> None:
    """``EXPLAIN [ANALYZE] <statement>`` runs its statement: that one must be a SELECT too."""
    tokens = duckdb.tokenize(query)
    skip = 1
    if len(tokens) > 1 and query[tokens[1][0] :].upper().startswith("ANALY"):
        skip = 2
    if len(tokens) <= skip:
        raise QueryError("EXPLAIN needs a statement")
    inner = duckdb.extract_statements(query[tokens[skip][0] :])
    if len(inner) != 1 or inner[0].type != duckdb.StatementType.SELECT:
        raise QueryError("SQL is read-only here: only EXPLAIN of a SELECT is allowed")


@contextmanager
def confined(
    root: Path, memory_limit: str = MEMORY_LIMIT, wait_s: float = 30.0
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection for untrusted SQL over the warehouse at ``root`` (see the module doc)."""
    root = Path(root).resolve()
    path = root / "kg.duckdb"
    if not path.is_file():
        raise StoreError("no catalog yet: build a KG first", catalog=path)
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        catalog.open_with_retry(
            lambda: con.execute("ATTACH ? AS kg (READ_ONLY)", [str(path)]), path, wait_s
        )
        con.execute("USE kg")
        if con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'snapshot_parts'"
                       ).fetchone()[0]:  # fmt: skip
            catalog.part_views(con, root, temporary=True)
        con.execute("SET temp_directory = ''")
        con.execute("SET memory_limit = ?", [memory_limit])
        con.execute("SET allow_community_extensions = false")
        con.execute("SET allowed_directories = ?", [[str(root / "parts") + "/"]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con
    finally:
        con.close()


def run_sql(
    root: Path, sql: str, timeout_s: float = TIMEOUT_S
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of the last statement of ``sql`` (a user's), run confined."""
    statements = check_statements(sql)
    with confined(root) as con:
        timer = threading.Timer(timeout_s, con.interrupt)
        timer.start()
        try:
            cur = None
            for st in statements:
                cur = con.execute(st)
            assert cur is not None
            cols = [d[0] for d in cur.description] if cur.description else []
            return cols, cur.fetchall()
        except duckdb.InterruptException as exc:
            raise QueryError(f"query interrupted after its {timeout_s:g} s time limit") from exc
        except duckdb.Error as exc:
            raise QueryError(f"SQL error: {catalog.first_line(exc)}") from exc
        finally:
            timer.cancel()
