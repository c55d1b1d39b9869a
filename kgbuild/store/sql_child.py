"""The child process that runs a user's SQL (``python -P -m kgbuild.store.sql_child``).

It reads one request (JSON) on stdin and writes JSON lines on stdout: ``{"ready": true}`` once
the confined connection is open, ``{"columns": […], "types": […]}`` (DuckDB's type names: CSV
writes text columns spreadsheet-safe), ``{"rows": […]}`` batches, and
``{"end": {…}}`` — or ``{"error": …}`` at any point. Before it runs the statements it caps its
own address space (:func:`limit_address_space`), so an allocation that DuckDB's
``memory_limit`` does not see fails as an out-of-memory error instead of taking the machine.
Values leave as JSON data (never code): numbers, booleans, None, strings (cut at
:attr:`~kgbuild.store.sql_run.Limits.cell_chars`), lists and objects; anything else as the
text printing showed.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from kgbuild.errors import KgbuildError, QueryError
from kgbuild.store.sql import check_statements, confined, sql_error
from kgbuild.store.sql_run import HEADROOM_MB, Limits, interrupted, out_of_memory

#: Rows converted per fetch: few, so a handful of huge cells never sit in memory together.
FETCH_ROWS = 64
#: Characters per ``rows`` message (a batch is sent when it holds this much, or 1,000 rows).
BATCH_CHARS = 1 << 20


class _Budget:
    """Converts values to JSON-able data, cutting long strings, within a character budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits, self.used, self.cut = limits, 0, 0

    def text(self, s: str) -> str:
        if len(s) > self.limits.cell_chars:
            s, self.cut = s[: self.limits.cell_chars - 1] + "…", self.cut + 1
        self.used += len(s)
        cap = self.limits.result_chars
        if cap is not None and self.used > cap:
            raise QueryError(
                f"the result is larger than {cap:,} characters: narrow it (WHERE, LIMIT) or "
                "use kgbuild export"
            )
        return s

    def value(self, v: Any) -> Any:
        """Numbers, booleans and None as they are; lists and structs element by element;
        anything else (decimals, dates, UUIDs, blobs) as the text printing showed."""
        if v is None or isinstance(v, bool | int | float):
            self.used += 8
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, list | tuple):
            return [self.value(x) for x in v]
        if isinstance(v, dict):
            return {self.text(str(k)): self.value(x) for k, x in v.items()}
        return self.text(str(v))


def execute(
    root: Path,
    statements: list[str],
    limits: Limits,
    emit: Callable[[dict[str, Any]], None],
    kg: str | None = None,
    snapshot: str | None = None,
    on_open: Callable[[], None] = lambda: None,
) -> None:
    """Run checked statements confined and ``emit`` the last one's result, bounded;
    ``on_open`` runs once the connection is open, before any statement."""
    with confined(root, f"{limits.memory_mb}MiB", kg=kg, snapshot=snapshot) as con:
        on_open()
        emit({"ready": True})
        deadline = time.monotonic() + limits.timeout_s
        timer = threading.Timer(limits.timeout_s, con.interrupt)
        timer.start()
        try:
            cur = con
            for st in statements:
                cur = con.execute(st)
            desc = cur.description or []
            emit({"columns": [d[0] for d in desc], "types": [str(d[1]) for d in desc]})
            budget, batch, total, kept, mark = _Budget(limits), [], 0, 0, 0
            while chunk := cur.fetchmany(FETCH_ROWS):
                for row in chunk:
                    total += 1
                    if limits.keep_rows is None or kept < limits.keep_rows:
                        batch.append([budget.value(v) for v in row])
                        kept += 1
                if len(batch) >= 1000 or budget.used - mark >= BATCH_CHARS:
                    emit({"rows": batch})
                    batch, mark = [], budget.used
                if time.monotonic() > deadline:
                    raise duckdb.InterruptException("time limit")
            if batch:
                emit({"rows": batch})
            emit({"end": {"total_rows": total, "cut_cells": budget.cut}})
        except duckdb.InterruptException as exc:
            raise QueryError(interrupted(limits)) from exc
        except (duckdb.OutOfMemoryException, MemoryError) as exc:
            raise QueryError(out_of_memory(limits)) from exc
        except duckdb.Error as exc:
            raise sql_error(exc) from exc
        finally:
            timer.cancel()


def limit_address_space(memory_mb: int) -> None:
    """Cap this process's address space at what it holds now plus DuckDB's memory limit and
    the headroom (Linux; elsewhere DuckDB's own limit is all there is)."""
    try:
        import resource

        held = int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError):
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = held + (memory_mb + HEADROOM_MB) * 2**20
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main() -> None:
    """One request on stdin; its answer as JSON lines on stdout."""
    request = json.loads(sys.stdin.read())
    try:
        limits = Limits(**request["limits"])
        statements = [q for st in request["statements"] for q in check_statements(st)]
        root = Path(request["root"])
        execute(root, statements, limits, _emit, request["kg"], request["snapshot"],
                on_open=lambda: limit_address_space(limits.memory_mb))  # fmt: skip
    except KgbuildError as exc:
        _emit({"error": str(exc), "kind": type(exc).__name__})


if __name__ == "__main__":
    main()
