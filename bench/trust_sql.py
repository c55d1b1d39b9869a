"""Trust drill: does ``kgbuild sql --timeout T`` hold while the result is printed?

A small warehouse is built from the test corpus (offline co-occurrence extractor); then the real
``kgbuild sql`` CLI runs a query that yields rows faster than they can be printed
(``range(100_000_000)`` with an md5 per row, ``--max-rows`` far above what fits in the limit),
in every format, the way a user's shell would connect it:

* stdout a pipe that is read as fast as it fills (table, csv, json): the whole output streams;
* stdout a pipe that nobody reads (csv, table): a write blocks once the pipe's 64 KB are full;
* stdout a terminal that stops reading (csv; a pseudo-terminal, Linux/macOS): a terminal polls
  writable with a single byte of room, so here the watchdog must end the command;
* and the reported case: a finite result (100,000 rows, fetched in about a second) as a table,
  which rich used to lay out whole after the query had ended (about a minute, untimed). It may
  finish (status 0, every row and the row count printed) or stop at the limit like the rest.

Every figure is read from outside: the wall time from ``Popen`` to exit, the time the last
byte of stdout arrived, the exit status, the stderr line and the rows actually printed.

* ``sql_timeouts_overrun``: runs still running at T + :data:`MARGIN_S` (killed then), or ended
  after it;
* ``sql_unbounded_output``: runs that wrote stdout after T + :data:`SLACK_S`, that did not end
  with status 2 and exactly one stderr line saying the limit was reached (with the rows
  printed, when some were), or that printed more rows than that line says (a finite run may
  instead end with status 0, nothing on stderr and every row printed).

Both must be 0. T is measured, not fixed: the limit counts from the command's start, so it is
the wall time of ``kgbuild sql "SELECT 1"`` on this machine now plus 2 s (rows must print
before it), at least 3 s. Run: ``python bench/trust_sql.py [--workdir DIR]`` (one JSON line;
about 45 s on two cores).

``peak_rss_mb`` is the largest resident set seen (``VmHWM``, sampled) of any ``kgbuild sql``
process or its confined child: memory stays bounded however many rows stream through.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import CLI

ENDLESS = "SELECT range AS i, md5(range::VARCHAR) AS h FROM range(100_000_000)"
FINITE_ROWS = 100_000
FINITE = f"SELECT range AS i, md5(range::VARCHAR) AS h FROM range({FINITE_ROWS})"
#: Seconds past T a run may take in all (Python's exit, the watchdog's second included).
MARGIN_S = 3.0
#: Seconds past T a byte of stdout may still arrive (the reader's own scheduling delay).
SLACK_S = 1.0
#: A printed row, per format (every cell of this query fits its column: one line per row).
ROW = {"table": re.compile(rb"^\xe2\x94\x82 \d"), "csv": re.compile(rb"^\d+,"),
       "json": re.compile(rb"^\{")}  # fmt: skip
NOTE = re.compile(
    r"^error: (?:time limit of (?P<t>[\d.]+) s reached after (?P<rows>[\d,]+)(?: of [\d,]+)? "
    r"rows were printed: the output is incomplete|query interrupted after its (?P<t2>[\d.]+) s "
    r"time limit)"
)


@dataclass
class Run:
    fmt: str
    stdout: str  # "read", "blocked" or "stalled-tty"
    query: str = ENDLESS
    wall: float = 0.0
    killed: bool = False
    last_byte: float | None = None
    status: int | None = None
    stderr: str = ""
    out: bytes = b""
    peak_kb: int = 0
    notes: list[str] = field(default_factory=list)


def _env(wh: Path) -> dict[str, str]:
    return common.cli_env(common.NO_LLM, KGBUILD_WAREHOUSE=str(wh), HF_HUB_OFFLINE="1")


def _drain(fd: int, run: Run, start: float) -> None:
    """Read ``fd`` to its end, noting when the last byte came."""
    chunks = []
    while True:
        try:
            data = os.read(fd, 1 << 16)
        except OSError:  # a pseudo-terminal ends with EIO
            break
        if not data:
            break
        chunks.append(data)
        run.last_byte = time.monotonic() - start
    run.out = b"".join(chunks)


def _peak_kb(pid: int) -> int:
    """The largest resident set so far of ``pid`` and its children (Linux; else 0)."""
    peak = 0
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        kids = []
    for p in [str(pid), *kids]:
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peak = max(peak, int(line.split()[1]))
    return peak


def sql_run(wh: Path, fmt: str, stdout: str, limit: float, workdir: Path, query: str) -> Run:
    """One ``kgbuild sql`` of ``query``, its stdout connected as ``stdout`` says."""
    run = Run(fmt, stdout, query)
    cmd = [*CLI, "sql", query, "--format", fmt, "--max-rows", "100000000",
           "--timeout", f"{limit:g}"]  # fmt: skip
    err_path = workdir / f"stderr-{fmt}-{stdout}-{len(query)}"
    reader = None
    with err_path.open("w+b") as err:
        if stdout == "stalled-tty":
            master, slave = os.openpty()
            target: int = slave
        else:
            master, slave, target = -1, -1, subprocess.PIPE
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=target, stderr=err, env=_env(wh), cwd=workdir)
        if slave >= 0:
            os.close(slave)
        if stdout == "read":
            assert proc.stdout is not None
            reader = threading.Thread(target=_drain, args=(proc.stdout.fileno(), run, start))
            reader.start()
        while proc.poll() is None and time.monotonic() - start < limit + MARGIN_S:
            run.peak_kb = max(run.peak_kb, _peak_kb(proc.pid))
            time.sleep(0.02)
        run.wall = time.monotonic() - start
        if proc.poll() is None:
            run.notes.append(f"still running at {run.wall:.1f} s: killed")
            run.killed = True
            proc.kill()
        proc.wait()
        run.status = proc.returncode
        if reader is not None:
            reader.join()
        elif proc.stdout is not None:
            run.out = proc.stdout.read()  # what the pipe held: written before the limit
        if master >= 0:
            os.close(master)
        if proc.stdout is not None:
            proc.stdout.close()
        err.seek(0)
        run.stderr = err.read().decode("utf-8", "replace")
    return run


def unbounded(run: Run, limit: float) -> bool:
    """Whether ``run`` printed after the limit or did not say, in one line, that it stopped."""
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    if run.query == FINITE and run.status == 0 and not lines:
        printed = sum(bool(ROW[run.fmt].match(line)) for line in run.out.splitlines())
        if printed != FINITE_ROWS or not run.out.endswith(f"{FINITE_ROWS:,} rows\n".encode()):
            run.notes.append(f"finished, but printed {printed} of {FINITE_ROWS} rows")
            return True
        return False
    if run.status != 2 or len(lines) != 1:
        run.notes.append(f"status {run.status}, stderr {run.stderr[-300:]!r}")
        return True
    m = NOTE.match(lines[0])
    if not m or float(m["t"] or m["t2"]) != limit:
        run.notes.append(f"stderr {lines[0]!r}")
        return True
    if run.last_byte is not None and run.last_byte > limit + SLACK_S:
        run.notes.append(f"stdout written at {run.last_byte:.2f} s")
        return True
    if run.stdout == "read":
        said = int(m["rows"].replace(",", "")) if m["rows"] else 0
        printed = sum(bool(ROW[run.fmt].match(line)) for line in run.out.splitlines())
        if not said <= printed <= said + 1:  # + one row a stopped write cut
            run.notes.append(f"printed {printed} rows, said {said}")
            return True
    return False


def drill(workdir: Path) -> dict[str, int]:
    """Build a small warehouse, run the CLI in every format and connection, and count the
    runs that overran the limit or printed unbounded (both must be 0)."""
    common.go_offline()
    t0 = time.monotonic()
    workdir = Path(workdir)
    wh = common.small_warehouse(workdir)
    start = time.monotonic()
    probe = subprocess.run([*CLI, "sql", "SELECT 1", "--format", "csv"], env=_env(wh),
                           cwd=workdir, capture_output=True, timeout=120)  # fmt: skip
    startup = time.monotonic() - start
    limit = float(max(3, math.ceil(startup) + 2))
    cases = [("table", "read", FINITE), ("table", "read", ENDLESS), ("csv", "read", ENDLESS),
             ("json", "read", ENDLESS), ("csv", "blocked", ENDLESS),
             ("table", "blocked", ENDLESS)]  # fmt: skip
    if hasattr(os, "openpty"):
        cases.append(("csv", "stalled-tty", ENDLESS))
    runs = [sql_run(wh, fmt, how, limit, workdir, query) for fmt, how, query in cases]
    overrun = [r for r in runs if r.killed or r.wall > limit + MARGIN_S]
    loose = [r for r in runs if unbounded(r, limit)]
    read = [r for r in runs if r.stdout == "read"]
    for r in runs:
        if r.notes:
            print(f"{r.fmt}/{r.stdout}: {'; '.join(r.notes)}", file=sys.stderr)
    return {
        "sql_timeouts_overrun": len(overrun),
        "sql_unbounded_output": len(loose),
        "runs": len(runs),
        "probe_exit": probe.returncode,
        "limit_s": int(limit),
        "worst_wall_past_limit_ms": round(1000 * max(r.wall - limit for r in runs)),
        "rows_printed_min": min(
            sum(bool(ROW[r.fmt].match(ln)) for ln in r.out.splitlines()) for r in read
        ),
        "peak_rss_mb": max(r.peak_kb for r in runs) // 1024,
        "seconds": round(time.monotonic() - t0),
    }


if __name__ == "__main__":
    common.run_drill(drill, __doc__, "trust-sql-", sort_keys=True)
