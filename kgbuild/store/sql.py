"""Read-only SQL over the catalog, for the ``kgbuild sql`` command and for library users.

The connection is opened read-only, and statements are checked before they run: DuckDB lets a
read-only connection still ``COPY … TO`` files, ``ATTACH`` other databases or ``INSTALL``
extensions, so anything but SELECT/EXPLAIN/DESCRIBE/SHOW is refused with a clear error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from kgbuild.errors import QueryError
from kgbuild.store import catalog

_ALLOWED = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


def run_sql(catalog_path: Path, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of the last statement of ``sql``; writes are refused."""
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"SQL error: {_first_line(exc)}") from exc
    if not statements:
        raise QueryError("no SQL statement given")
    for st in statements:
        if st.type not in _ALLOWED:
            kind = str(st.type).rsplit(".", 1)[-1]
            raise QueryError(f"kgbuild sql is read-only: {kind} statements are refused")
    with catalog.connect(catalog_path, read_only=True) as con:
        try:
            cur = None
            for st in statements:
                cur = con.execute(st)
            assert cur is not None
            cols = [d[0] for d in cur.description] if cur.description else []
            return cols, cur.fetchall()
        except duckdb.Error as exc:
            raise QueryError(f"SQL error: {_first_line(exc)}") from exc


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
