"""SQL typed by a user (``kgbuild sql``): confined by DuckDB's own controls.

A read-only connection is not enough: DuckDB still lets it ``COPY … TO`` any file (aimed at
``kg.duckdb`` it destroys the catalog), read any local file (``read_text('/etc/shadow')``,
``read_csv``, ``glob``) and install extensions for ``https://`` paths. A filter over SQL text
cannot be made safe either (``EXPLAIN ANALYZE COPY …`` passed one). So, following DuckDB's
"Securing DuckDB" guide, an untrusted statement runs on a connection that

1. is a fresh in-memory database holding a *copy* of the catalog's registry tables, with the
   views and macros derived from them again (:func:`kgbuild.store.catalog.copy_registry`). It
   never attaches ``kg.duckdb``: DuckDB lets a connection read the file of every database it
   has attached, whatever ``allowed_directories`` says (``read_blob('…/kg.duckdb')``), and
   nothing it does can change the warehouse's database file;
2. reads parts only through views with absolute paths under ``<warehouse>/parts``
   (``allowed_directories``), with ``enable_external_access = false``: no other file,
   directory listing, URL or database can be opened, and ``getenv`` is gone;
3. cannot install or load extensions (auto-install/auto-load off, external access off), cannot
   spill to disk (``temp_directory = ''``), has a memory limit, and ``lock_configuration = true``
   so no ``SET`` can undo any of it.

As a second, independent line, only statements DuckDB's own parser classifies as ``SELECT``
(which includes ``DESCRIBE``, ``SHOW``, ``SUMMARIZE``, ``FROM t``) run, or ``EXPLAIN`` of one
(``EXPLAIN ANALYZE``, ``EXPLAIN (FORMAT json)``…): the one write DuckDB still allows inside the
allowed folder is ``COPY … TO``, which is not a ``SELECT``. Anything the parser cannot classify
(``UPDATE EXTENSIONS``) is refused too. :mod:`kgbuild.store.sql_run` runs the statements in a
child process that an address-space limit and a hard deadline bound (DuckDB's ``memory_limit``
does not hold for every function, nor its interrupt inside one).

The unqualified views (``triples``, ``kg_edges``…) are pinned to one KG: the
one asked for, or the only one in the warehouse. With several KGs and none chosen they raise an
error naming them, rather than follow whichever KG was built last.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from kgbuild.errors import NoWarehouse, QueryError
from kgbuild.store import catalog
from kgbuild.store.sql_output import visible

#: Memory a user's statement may use (DuckDB's ``memory_limit``), in MiB; it cannot spill.
MEMORY_LIMIT_MB = 2048
MEMORY_LIMIT = f"{MEMORY_LIMIT_MB}MiB"
#: Seconds a user's SQL may take, its child's start-up included (``kgbuild sql``: the whole
#: command, printing included; see :mod:`kgbuild.store.sql_print`).
TIMEOUT_S = 60.0


def check_statements(sql: str) -> list[str]:
    """The statements of ``sql`` if every one is a read (by DuckDB's parser), else QueryError."""
    statements = _parse(sql)
    if not statements:
        raise QueryError("no SQL statement given")
    for st in statements:
        kind = _kind(st)
        if kind == "EXPLAIN":
            _check_explained(st.query)
        elif kind != "SELECT":
            what = f"{kind} statements are" if kind else "this statement is"
            raise QueryError(f"SQL is read-only here: {what} refused")
    return [st.query for st in statements]


def _parse(sql: str) -> list[duckdb.Statement]:
    try:
        return duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise sql_error(exc) from exc


def sql_error(exc: duckdb.Error) -> QueryError:
    """DuckDB's message as one line, its control characters escaped: it may quote a value
    from the corpus (``Could not convert string '…' to INT32``)."""
    return QueryError(f"SQL error: {visible(catalog.first_line(exc), keep_layout=False)}")


def _kind(st: duckdb.Statement) -> str:
    """The statement's type name; '' for a type this DuckDB's Python enum does not know
    (``UPDATE EXTENSIONS`` raised a ValueError here)."""
    try:
        return str(st.type).rsplit(".", 1)[-1]
    except ValueError:
        return ""


#: Words that start a statement: ``EXPLAIN (SELECT 1)`` is a statement in parentheses, while
#: ``EXPLAIN (FORMAT json) SELECT 1`` starts with an option list.
_STATEMENT_STARTS = frozenset(
    ("SELECT", "WITH", "FROM", "VALUES", "TABLE", "(", "SUMMARIZE", "DESCRIBE", "SHOW", "PIVOT")
)


def _check_explained(query: str) -> None:
    """``EXPLAIN [ANALYZE | (options)] <statement>`` runs its statement: that one must be a
    single SELECT too. Whatever cannot be split that way is refused (one line, no traceback):
    a wrong split leaves a suffix that does not parse as exactly one SELECT."""
    tokens = duckdb.tokenize(query)
    ends = [t[0] for t in tokens[1:]] + [len(query)]
    words = [
        query[start:end].split("/*")[0].split("--")[0].strip().upper()
        for (start, _), end in zip(tokens, ends, strict=True)
    ]
    i = 1
    first, second = [*words[1:], "", ""][:2]
    if first in ("ANALYZE", "ANALYSE"):
        i += 1
    elif first == "(" and second not in _STATEMENT_STARTS:
        depth = 0
        while i < len(words):
            depth += (words[i] == "(") - (words[i] == ")")
            i += 1
            if depth <= 0:
                break
    if i >= len(words):
        raise QueryError("EXPLAIN needs a statement")
    inner = _parse(query[tokens[i][0] :])
    if len(inner) != 1 or _kind(inner[0]) != "SELECT":
        raise QueryError("SQL is read-only here: only EXPLAIN of a SELECT is allowed")


@contextmanager
def confined(
    root: Path,
    memory_limit: str = MEMORY_LIMIT,
    wait_s: float = 30.0,
    kg: str | None = None,
    snapshot: str | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection for untrusted SQL over the warehouse at ``root`` (see the module doc),
    its unqualified views pinned to ``snapshot``, to the newest snapshot of ``kg``, or to the
    only KG there is."""
    root = Path(root).resolve()
    path = root / "kg.duckdb"
    if not path.is_file():
        raise NoWarehouse(root)
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        catalog.quiet(con)
        con.execute("ATTACH ':memory:' AS kg")  # the name users see in SHOW ALL TABLES
        con.execute("USE kg")
        catalog.copy_registry(path, con, wait_s)
        catalog.rebuild_views(con, root)
        pin(con, kg, snapshot)
        con.execute("SET temp_directory = ''")
        con.execute("SET memory_limit = ?", [memory_limit])
        con.execute("SET allow_community_extensions = false")
        con.execute(  # the parts, and the curation log the views read
            "SET allowed_directories = ?",
            [[str(root / "parts") + "/", str(root / "curations") + "/"]],
        )
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
        yield con
    finally:
        con.close()


def pin(con: duckdb.DuckDBPyConnection, kg: str | None, snapshot: str | None) -> str | None:
    """Pin ``head_snapshot()`` (and with it every unqualified view and ``*_asof`` macro) to one
    snapshot; return its id. Several KGs and no choice: those views raise an error that lists
    the KGs, while ``snapshots``, ``*_at(id)`` and ``kg_name :=`` keep working."""
    kgs = [r[0] for r in con.execute("SELECT DISTINCT kg FROM snapshots ORDER BY 1").fetchall()]
    if snapshot is not None:
        row = con.execute("SELECT kg FROM snapshots WHERE snapshot_id = ?", [snapshot]).fetchone()
        if row is None:
            raise QueryError("unknown snapshot", snapshot=snapshot)
        if kg is not None and row[0] != kg:
            raise QueryError(f"snapshot {snapshot[:12]} belongs to KG {row[0]!r}, not {kg!r}")
        sid = snapshot
    elif kg is not None or len(kgs) == 1:
        name = kg if kg is not None else kgs[0]
        if name not in kgs:
            raise QueryError(f"no KG named {name!r} here (KGs: {', '.join(kgs) or 'none'})")
        sid = con.execute("SELECT head_snapshot(kg_name := ?)", [name]).fetchone()[0]
    elif not kgs:
        return None  # nothing built yet: the views are empty
    else:
        listed = ", ".join(kgs)
        message = (
            f"this warehouse holds {len(kgs)} KGs ({listed}): choose one with --kg or "
            "--snapshot, or name it in the query (triples_at(snapshot_id), "
            "head_snapshot(kg_name := '…'), triples_asof(year, kg_name := '…'))"
        )
        catalog.define_head(con, f"error({catalog.sql_literal(message)})")
        return None
    catalog.define_head(con, catalog.sql_literal(sid))
    return sid
