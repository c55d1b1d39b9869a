"""Printing a ``kgbuild sql`` result within its time limit.

``--timeout T`` bounds the whole command, from the moment it starts to the last byte it writes:
opening the warehouse, the query, fetching the rows, formatting them and writing them. Before,
the limit stopped at the child's last row: a 300,000-row table under ``--timeout 10`` took
3 minutes (rich laid the whole table out in memory, 800 MB, before printing it), and CSV into
a pipe that nobody read blocked forever. Three things hold the limit now:

1. **One deadline** (:class:`SqlDeadline`), set when the command starts. The stream from the
   child (:class:`~kgbuild.store.sql_run.SqlStream`) raises at it while waiting for rows, and
   every format is printed as the rows arrive (a table too:
   :class:`~kgbuild.store.sql_output.TableText`), so memory stays at a few batches whatever
   ``--max-rows`` says.
2. **Writes that cannot block past it** (:class:`DeadlineWriter`): before each piece it waits
   (``select``) until stdout can take it, never beyond the deadline, and a piece to a pipe is
   at most ``PIPE_BUF`` bytes, which a pipe that polls writable takes at once. Not
   ``O_NONBLOCK``: that flag belongs to the open file, which the shell and the other programs
   of a pipeline share, and a process killed before it restores the flag leaves them broken
   (a shell reading a terminal left non-blocking exits).
3. **A watchdog** (:class:`SqlDeadline` again) for whatever still blocks: a terminal that
   stops reading (Ctrl-S, a stalled SSH session) polls writable with a single byte of room,
   so a write to it can block after all; a full stderr pipe; a catalog lock.
   :data:`WATCHDOG_S` after the deadline it kills the child, writes the note if stderr takes
   it at once, and ends the process with status 2, the status of every time-limit error.

When the limit hits during printing, the output stops at a row boundary (a line cut by a
blocked write is ended with a newline when the reader takes it), and one line on stderr says
how many rows were printed: the output is incomplete and the status is 2.
"""

from __future__ import annotations

import os
import select
import stat
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import TextIO

from kgbuild.errors import QueryError
from kgbuild.store.sql_output import TableText, csv_text, json_chunks
from kgbuild.store.sql_run import SqlStream, TimeLimit, interrupted

#: Seconds past the deadline before the watchdog ends a process that is still running.
WATCHDOG_S = 1.0
#: Bytes buffered before they are written (and at most this long, in seconds).
FLUSH_BYTES = 1 << 16
FLUSH_S = 0.1
#: Exit status of the process the watchdog ends: that of every error a user can cause.
EXIT_STATUS = 2
#: Bytes a pipe that polls writable takes in one write without blocking (POSIX: atomic writes).
PIPE_BUF = getattr(select, "PIPE_BUF", 512)


class OutputTimeout(Exception):
    """The deadline passed before a write could go out."""


class DeadlineWriter:
    """Text written to a file descriptor, never past a deadline, even when the reader stalls.

    Chunks are buffered (:data:`FLUSH_BYTES`, :data:`FLUSH_S`) and written in pieces that the
    descriptor can take without blocking (see the module doc). :attr:`chunks` counts the
    chunks written whole, so a caller that writes a row per chunk knows how many rows were
    printed when the deadline hit.
    """

    def __init__(
        self, fd: int, deadline: float, encoding: str = "utf-8", errors: str = "strict"
    ) -> None:
        self.fd, self.deadline, self.encoding, self.errors = fd, deadline, encoding, errors
        #: Chunks whose every byte was written; bytes written in all.
        self.chunks = self.written = 0
        self.ends_line = True
        self._buffer = bytearray()
        self._ends: deque[int] = deque()  # where each buffered chunk ends, in bytes from 0
        self._buffered = 0  # bytes handed to write() in all
        self._flushed_at = time.monotonic()
        try:
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            regular = False
        self._piece = FLUSH_BYTES if regular else PIPE_BUF
        self._select = os.name == "posix"  # elsewhere select() takes sockets only

    def write(self, chunk: str) -> None:
        """Buffer ``chunk``; OutputTimeout if the deadline has passed."""
        now = time.monotonic()
        if now >= self.deadline:
            raise OutputTimeout
        data = chunk.encode(self.encoding, self.errors)
        self._buffer += data
        self._buffered += len(data)
        self._ends.append(self._buffered)
        if len(self._buffer) >= FLUSH_BYTES or now - self._flushed_at >= FLUSH_S:
            self.flush()

    def flush(self) -> None:
        """Write the buffer out; OutputTimeout if the deadline passes first. The counts move
        after every piece: the watchdog reads them while a write blocks."""
        try:
            while self._buffer:
                self._wait()
                done = self._put(self._buffer[: self._piece])
                self.ends_line = self._buffer[done - 1] == ord("\n")
                del self._buffer[:done]
                self.written += done
                while self._ends and self._ends[0] <= self.written:
                    self._ends.popleft()
                    self.chunks += 1
        finally:
            self._flushed_at = time.monotonic()

    def _put(self, data: bytes) -> int:
        return os.write(self.fd, data)

    def _wait(self) -> None:
        """Until the descriptor takes a piece without blocking; OutputTimeout at the deadline."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutputTimeout
        if not self._select:
            return
        try:
            _, ready, _ = select.select([], [self.fd], [], left)
        except (OSError, ValueError):  # not selectable: blocking writes, the watchdog bounds
            self._select = False
            return
        if not ready:
            raise OutputTimeout

    def abandon(self) -> None:
        """Drop what was not written; end a line cut in the middle if the reader takes one
        more byte at once (a terminal does), so the shell's prompt starts on its own line."""
        self._buffer.clear()
        self._ends.clear()
        if self.ends_line:
            return
        with suppress(OSError, ValueError):
            if not self._select or select.select([], [self.fd], [], 0)[1]:
                os.write(self.fd, b"\n")
                self.ends_line = True


class _TextWriter(DeadlineWriter):
    """For a stdout without a file descriptor (a test harness's buffer, where nothing
    blocks): the same deadline and counts, written through ``out``."""

    def __init__(self, out: TextIO, deadline: float) -> None:
        super().__init__(-1, deadline)
        self._out, self._piece, self._select = out, 1 << 62, False

    def _put(self, data: bytes) -> int:
        self._out.write(data.decode(self.encoding, self.errors))
        return len(data)


def _fd(out: TextIO) -> int | None:
    try:
        return out.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None


def _writer(deadline: float) -> DeadlineWriter:
    out = sys.stdout
    fd = _fd(out)
    if fd is None:
        return _TextWriter(out, deadline)
    return DeadlineWriter(fd, deadline, out.encoding or "utf-8", out.errors or "strict")


class SqlDeadline:
    """The time limit of one ``kgbuild sql`` command and its watchdog (see the module doc).

    Used as a context manager around the whole command. Leaving it disarms the watchdog,
    except with :class:`~kgbuild.store.sql_run.TimeLimit`: that error's line still has to be
    written, and that can block too. The watchdog ends the process, so only
    :meth:`for_command` arms it, and only in the ``kgbuild`` program itself (not when a test
    calls the command inside its own process).
    """

    def __init__(
        self, timeout_s: float, started: float | None = None, watchdog: bool = False
    ) -> None:
        self.timeout_s = timeout_s
        #: The deadline, a :func:`time.monotonic` time.
        self.at = (time.monotonic() if started is None else started) + timeout_s
        self.watchdog = watchdog
        #: The child to kill and the note to write, once there are any (set by the printer).
        self.process: subprocess.Popen[bytes] | None = None
        self.note: Callable[[], str] = lambda: f"time limit of {timeout_s:g} s reached"
        self._done = threading.Event()
        self._dog = threading.Thread(target=self._watch, name="sql-watchdog", daemon=True)

    @classmethod
    def for_command(cls, timeout_s: float) -> SqlDeadline:
        """The deadline of the ``kgbuild sql`` command: ``timeout_s`` after this process
        started (Python's start-up counts: the user waits for it too), the watchdog armed. In
        any other program (a test calling the command): from now, no watchdog."""
        if not _is_kgbuild_program():
            return cls(timeout_s)
        return cls(timeout_s, started=_process_start(), watchdog=_fd(sys.stdout) is not None)

    def __enter__(self) -> SqlDeadline:
        if self.watchdog:
            self._dog.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if kind is None or not issubclass(kind, TimeLimit):
            self._done.set()

    def _watch(self) -> None:
        if self._done.wait(max(0.0, self.at + WATCHDOG_S - time.monotonic())):
            return
        if self.process is not None:
            with suppress(OSError):
                self.process.kill()
        line = f"error: {self.note()} (stopped by the watchdog)\n".encode("utf-8", "replace")
        with suppress(OSError, ValueError):
            if os.name != "posix" or select.select([], [2], [], 0.2)[1]:
                os.write(2, line[:PIPE_BUF])
        os._exit(EXIT_STATUS)


def _is_kgbuild_program() -> bool:
    """Whether this process is the ``kgbuild`` command (its script, or ``-m kgbuild.cli``, whose
    ``argv[0]`` is the package's ``__main__.py``)."""
    program = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    return program.stem == "kgbuild" or program.parts[-3:] == ("kgbuild", "cli", "__main__.py")


def _process_start() -> float:
    """When this process started, as a :func:`time.monotonic` time (Linux: ``/proc``, to
    10 ms); elsewhere, or if that reads oddly, now."""
    now = time.monotonic()
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        age = uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time
    except (OSError, ValueError, IndexError):
        return now
    return now - age if 0 <= age < 600 else now


def print_result(stream: SqlStream, fmt: str, deadline: SqlDeadline, width: int = 200) -> int:
    """Write ``stream``'s rows to stdout as ``fmt`` (table, csv or json) before the deadline;
    return how many cells were cut short. Past the deadline: stop, and raise TimeLimit saying
    how many rows went out."""
    table = TableText(stream.columns, width) if fmt == "table" else None

    def len_shown() -> int:
        keep = stream.limits.keep_rows
        return stream.total_rows if keep is None else min(keep, stream.total_rows)

    def footer() -> str:
        total, shown = stream.total_rows, len_shown()
        rows = f"{total:,} row{'' if total == 1 else 's'}"
        return rows if shown == total else f"{rows}, the first {shown:,} shown (--max-rows)"

    chunks: Iterator[str]
    if table is not None:
        chunks = table.chunks(stream.rows(), footer)
    elif fmt == "json":
        chunks = json_chunks(stream.columns, stream.rows())
    else:
        chunks = csv_text(stream.columns, stream.types, stream.rows())
    sys.stdout.flush()  # nothing may wait in Python's buffer: at exit it would block unbounded
    writer = _writer(deadline.at)

    def note() -> str:
        rows = max(0, writer.chunks - 1)  # chunks: the head, one per row, the tail
        if not writer.written:
            return interrupted(stream.limits)
        of = f"{rows:,} of {len_shown():,}" if stream.finished else f"{rows:,}"
        return (
            f"time limit of {deadline.timeout_s:g} s reached after {of} rows were printed: "
            "the output is incomplete"
        )

    deadline.process, deadline.note = stream.proc, note
    try:
        for chunk in chunks:
            writer.write(chunk)
        writer.flush()
    except (OutputTimeout, TimeLimit):
        writer.abandon()
        raise TimeLimit(note()) from None
    except QueryError:  # the query failed after some rows: print those, then the error
        with suppress(OutputTimeout, OSError):
            writer.flush()
        raise
    return table.cut if table is not None else stream.cut_cells
