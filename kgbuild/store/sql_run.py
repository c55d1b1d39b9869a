"""Running a user's SQL in a child process that the operating system bounds.

DuckDB's ``memory_limit`` governs its buffer manager, not every allocation: a scalar function
such as ``repeat('x', 2_000_000_000)``, ``lpad`` or ``range(300_000_000)`` builds its result
outside it (``range`` took 14.6 GB here under a 200 MB limit), and ``interrupt()`` is only
seen between vectors, so the same call ignored a 5 s time limit for 47 s (``lpad`` over 1.2
billion characters a 1 s limit for 9.6 s). The statements therefore run in a child process
(:mod:`kgbuild.store.sql_child`) that caps its own address space, and this side

- gives it none of the parent's environment but what Python needs (no API key to read), and
  does not put the working folder on ``sys.path`` (``-P``);
- reads its rows as a stream of JSON batches (data, never code) through a small queue, so
  neither process holds more than a few batches;
- holds one deadline, set when the caller starts (``--timeout`` after it): waiting for the
  child to start, for its rows, and the caller's own time between rows (printing them,
  :mod:`kgbuild.store.sql_print`) all count, and at the deadline the child is killed, even
  inside one function call (the child also interrupts itself then, in case this side is gone);
- gets every string cut at :attr:`Limits.cell_chars` (a 20 MB cell cannot flood a terminal).
"""

from __future__ import annotations

import json
import math
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NoReturn

from kgbuild.config import environment_subset
from kgbuild.errors import Busy, InputError, KgbuildError, NoWarehouse, QueryError, StoreError
from kgbuild.store.sql import MEMORY_LIMIT_MB, TIMEOUT_S, check_statements

#: Address space the child may use beyond DuckDB's memory limit (its Python objects and the
#: batches it is converting), in MiB.
HEADROOM_MB = 1024
#: Seconds the child may take to open the catalog (it waits while a publish holds the file),
#: within the time limit.
SETUP_S = 60.0
#: The longest time limit accepted: a day.
MAX_TIMEOUT_S = 86_400.0
#: Environment variables the child keeps (everything else, API keys included, is dropped).
_ENV_KEPT = ("PATH", "PYTHONPATH", "PYTHONHOME", "LD_LIBRARY_PATH", "LANG", "LC_ALL",
             "LC_CTYPE", "TMPDIR", "HOME")  # fmt: skip
_ERRORS: dict[str, type[KgbuildError]] = {
    cls.__name__: cls for cls in (QueryError, StoreError, Busy, InputError)
}


@dataclass(frozen=True, slots=True)
class Limits:
    """What one statement may take: time, memory, and how much of its result comes back."""

    timeout_s: float = TIMEOUT_S
    memory_mb: int = MEMORY_LIMIT_MB
    #: Rows sent back (the rest are counted only); None sends every row.
    keep_rows: int | None = None
    #: Characters of one string value; longer ones end in "…".
    cell_chars: int = 100_000
    #: Characters of the whole result (None: no cap, the time limit bounds a stream).
    result_chars: int | None = 64_000_000

    def __post_init__(self) -> None:
        t = self.timeout_s
        if not (isinstance(t, int | float) and math.isfinite(t) and 0 < t <= MAX_TIMEOUT_S):
            raise InputError(
                f"--timeout must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}",
                timeout=t,
            )
        if self.keep_rows is not None and self.keep_rows < 0:
            raise InputError("--max-rows must be 0 or more", max_rows=self.keep_rows)


@dataclass(slots=True)
class SqlResult:
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    #: Rows the statement returned (``rows`` may hold fewer: :attr:`Limits.keep_rows`).
    total_rows: int = 0
    #: String values cut at :attr:`Limits.cell_chars`.
    cut_cells: int = 0


class TimeLimit(QueryError):
    """The time limit passed (the caller may say how much it had printed by then)."""


def interrupted(limits: Limits) -> str:
    return f"query interrupted after its {limits.timeout_s:g} s time limit"


def out_of_memory(limits: Limits) -> str:
    return f"query needs more than its {limits.memory_mb:,} MiB memory limit: narrow it"


class SqlStream:
    """The child's answer as it arrives: :attr:`columns`, then :meth:`rows`; the totals are
    set (and :attr:`finished`) once the rows are exhausted. Waiting past ``deadline`` (a
    :func:`time.monotonic` time) raises :class:`TimeLimit`."""

    def __init__(
        self, proc: subprocess.Popen[bytes], errors: IO[bytes], limits: Limits, deadline: float
    ) -> None:
        self.proc, self.errors, self.limits, self.deadline = proc, errors, limits, deadline
        self.columns: list[str] = []
        #: DuckDB's type name of each column (``VARCHAR``, ``DOUBLE``, ``DECIMAL(4,2)``…).
        self.types: list[str] = []
        self.total_rows = self.cut_cells = 0
        self.finished = False
        self._lines: queue.Queue[bytes | None] = queue.Queue(maxsize=4)  # backpressure
        self._pump = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def start(self, request: bytes) -> None:
        """Send the request; wait for the child to be ready (the time limit starts then) and
        for the result's columns."""
        self._pump.start()
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(request)
            self.proc.stdin.close()
        except BrokenPipeError:
            pass  # it died: the next message says how
        self._next(until=min(self.deadline, time.monotonic() + SETUP_S))
        head = self._next()
        self.columns, self.types = head["columns"], head["types"]

    def rows(self) -> Iterator[list[Any]]:
        while True:
            message = self._next()
            if "end" in message:
                self.total_rows = message["end"]["total_rows"]
                self.cut_cells = message["end"]["cut_cells"]
                self.finished = True
                return
            yield from message["rows"]

    def _next(self, until: float | None = None) -> dict[str, Any]:
        """The next message; :class:`TimeLimit` past the deadline (the consumer's time counts
        too), QueryError past ``until`` (the catalog stayed busy)."""
        until = self.deadline if until is None else until
        try:
            line = self._lines.get(timeout=max(0.0, until - time.monotonic()))
        except queue.Empty:
            self.close()
            if until < self.deadline:
                raise QueryError(f"the query did not start within {SETUP_S:g} s") from None
            raise TimeLimit(interrupted(self.limits)) from None
        if line is None:
            self.proc.wait()
            self.errors.seek(0)
            _died(self.proc.returncode, self.errors.read()[-4000:], self.limits)
        message = json.loads(line)
        if "error" in message:
            raise _ERRORS.get(message.get("kind", ""), QueryError)(message["error"])
        return message

    def close(self) -> None:
        """Kill the child if it still runs and let the reader thread finish."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        while self._pump.is_alive():
            with suppress(queue.Empty):
                self._lines.get(timeout=0.1)


@contextmanager
def open_confined(
    root: Path,
    sql: str,
    limits: Limits | None = None,
    kg: str | None = None,
    snapshot: str | None = None,
    deadline: float | None = None,
) -> Iterator[SqlStream]:
    """A user's SQL over the warehouse at ``root``, running in a bounded child process, all of
    it (start-up included) before ``deadline`` (a :func:`time.monotonic` time; default: the
    time limit from now)."""
    limits = limits or Limits()
    if deadline is None:
        deadline = time.monotonic() + limits.timeout_s
    statements = check_statements(sql)  # refuse early, without a process
    if not (Path(root) / "kg.duckdb").is_file():
        raise NoWarehouse(root)
    root = Path(root).resolve()
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeLimit(interrupted(limits))
    # The child interrupts itself when the time left now has passed since it was ready (a
    # little after this side's deadline): the second line, should this process be gone.
    own = asdict(replace(limits, timeout_s=min(limits.timeout_s, left)))
    request = {"root": str(root), "statements": statements, "limits": own,
               "kg": kg, "snapshot": snapshot}  # fmt: skip
    env = environment_subset(_ENV_KEPT)
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "kgbuild.store.sql_child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            cwd=root,
        )
        stream = SqlStream(proc, errors, limits, deadline)
        try:
            stream.start(json.dumps(request).encode())
            yield stream
        finally:
            stream.close()


def run_confined(
    root: Path,
    sql: str,
    limits: Limits | None = None,
    kg: str | None = None,
    snapshot: str | None = None,
) -> SqlResult:
    """:func:`open_confined`, its rows collected (within :attr:`Limits.result_chars`)."""
    with open_confined(root, sql, limits, kg, snapshot) as stream:
        rows = list(stream.rows())
        return SqlResult(stream.columns, rows, stream.total_rows, stream.cut_cells)


def _died(returncode: int, stderr: bytes, limits: Limits) -> NoReturn:
    """The child ended without an answer: out of memory (one line), else a bug in kgbuild,
    raised with the child's traceback."""
    text = stderr.decode("utf-8", "replace")
    if "MemoryError" in text or "bad_alloc" in text or returncode == -signal.SIGKILL:
        raise QueryError(out_of_memory(limits))
    raise RuntimeError(f"the SQL process failed (exit status {returncode}):\n{text}")


def run_sql(
    root: Path,
    sql: str,
    timeout_s: float = TIMEOUT_S,
    kg: str | None = None,
    snapshot: str | None = None,
    memory_mb: int = MEMORY_LIMIT_MB,
) -> tuple[list[str], list[list[Any]]]:
    """Column names and rows of the last statement of ``sql`` (a user's), run confined in a
    bounded child process (:func:`run_confined`)."""
    limits = Limits(timeout_s=timeout_s, memory_mb=memory_mb)
    result = run_confined(root, sql, limits, kg=kg, snapshot=snapshot)
    return result.columns, result.rows
