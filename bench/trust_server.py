"""Trust drill: ``kgbuild serve`` against idle floods, slowloris clients and request
fields that lax parsing would coerce, observed from outside.

A small warehouse is built with the hostile scenario's own helpers
(:mod:`bench.hostile_scenario`), and a real ``kgbuild serve`` (default timeouts) is started on
it with RLIMIT_NOFILE lowered to :data:`NOFILE` — as a small container or a hostile parent
would leave it. Then, in turn:

1. **Flood**: :data:`FLOOD` idle connections (more than the server has descriptors) opened as
   fast as the machine allows, while a monitor opens a new connection to ``/health`` every
   0.1 s and gives it 1 s to answer.
2. **Idle**: the flood's connections must all be closed by the idle timeout (plus grace).
3. **Slowloris**: :data:`SLOWLORIS` clients trickle a header line every second, as many send
   complete headers and then trickle the body a byte a second; each must be closed by its
   timeout (plus grace).
4. **Coercion**: request bodies whose fields pydantic's lax mode would coerce (``k=true``,
   ``k="10"``, ``hops="2"``…) must be refused.

Every figure returned must be 0: ``health_unanswered``, ``idle_connections_left_open``,
``slowloris_left_open``, ``traceback_lines_logged`` (lines of the server's log that start a
traceback) and ``coerced_fields_accepted``.

    .venv/bin/python bench/trust_server.py      # one JSON line, ~70 s on 2 cores
"""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.hostile_scenario import BASE_ENV, build, good_corpus
from kgbuild.serve.connections import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, IDLE_TIMEOUT_S
from tests.support.serve_process import stop_server

#: The server's descriptor limit.
NOFILE = 512
#: Idle connections in the flood: half as many again as the server has descriptors.
FLOOD = NOFILE * 3 // 2
#: Slow-header clients, and as many slow-body clients.
SLOWLORIS = 10
#: Slack between a deadline and the client seeing its connection closed (2 shared cores).
GRACE_S = 3.0
QUESTION = "Does APOE bind amyloid beta in Alzheimer's disease?"
#: Bodies whose fields lax parsing would coerce: each must be a 422.
COERCED = [
    {"question": QUESTION, "k": True},
    {"question": QUESTION, "k": "10"},
    {"question": QUESTION, "k": 10.0},
    {"question": QUESTION, "hops": "2"},
    {"question": QUESTION, "token_budget": "2000"},
    {"question": QUESTION, "timings": "false"},
    {"question": QUESTION, "filters": {"min_support": True}},
    {"question": QUESTION, "filters": {"as_of_year": "2015"}},
]


def _closed(s: socket.socket) -> bool:
    """Whether the server has closed ``s`` (EOF or reset), without waiting."""
    s.setblocking(False)
    try:
        return s.recv(1 << 16) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def _open_after(socks: list[socket.socket], deadline: float) -> int:
    """How many of ``socks`` the server has not closed by ``deadline`` (monotonic)."""
    left = list(socks)
    while left and time.monotonic() < deadline:
        left = [s for s in left if not _closed(s)]
        time.sleep(0.1)
    return sum(not _closed(s) for s in left)


def _http(port: int, method: str, path: str, body: bytes = b"", timeout: float = 1.0) -> int:
    """One request on a new connection: its status, or -1 if none came within ``timeout``."""
    head = (f"{method} {path} HTTP/1.1\r\nHost: drill\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")  # fmt: skip
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(head.encode() + body)
            status = s.recv(64).split(b" ", 2)
            return int(status[1]) if len(status) > 1 else -1
    except (OSError, ValueError):
        return -1


def _trickle(s: socket.socket, piece: bytes, stop: threading.Event) -> None:
    """A slowloris client: ``piece`` once a second until told to stop or the server closes."""
    while not stop.wait(1.0):
        try:
            s.sendall(piece)
        except OSError:
            return


def _start(wh: Path, workdir: Path, log: Path) -> tuple[subprocess.Popen[bytes], int]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))

    proc, url = common.start_serve(wh, "--no-embed", log=log, timeout_s=120, poll_s=0.3,
                                   cwd=workdir, env=BASE_ENV, preexec_fn=limit)  # fmt: skip
    return proc, int(url.rsplit(":", 1)[1])


def drill(workdir: Path) -> dict[str, int]:
    """The drill in ``workdir`` (a warehouse, the server's log): counts that must all be 0."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < FLOOD + 256:  # the flood's client needs its own descriptors
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, FLOOD + 1024), hard))
    wh = workdir / "wh"
    corpus = good_corpus(workdir / "corpus", n=20, first=77001)
    r = build(corpus, wh, workdir, BASE_ENV, "--extractor", "cooccurrence")
    if r.returncode != 0:
        raise RuntimeError(f"drill build failed: {r.stderr[-300:]}")
    log = workdir / "serve.log"
    proc, port = _start(wh, workdir, log)
    out: dict[str, int] = {}
    flood: list[socket.socket] = []
    slow: list[socket.socket] = []
    try:
        # 1. the flood, with /health probed throughout (until the idle timeout has passed)
        probes: list[int] = []
        stop = threading.Event()

        def monitor() -> None:
            while not stop.is_set():
                t0 = time.monotonic()
                ok = _http(port, "GET", "/health") == 200 and time.monotonic() - t0 <= 1.0
                probes.append(int(not ok))
                time.sleep(max(0.0, 0.1 - (time.monotonic() - t0)))

        watcher = threading.Thread(target=monitor)
        watcher.start()
        try:
            for _ in range(FLOOD):
                try:
                    flood.append(socket.create_connection(("127.0.0.1", port), timeout=2))
                except OSError:
                    break  # the kernel's queue is full: what is open is the flood
            flooded = time.monotonic()
            # 2. every idle connection closed by the idle timeout
            out["idle_connections_left_open"] = _open_after(
                flood, flooded + IDLE_TIMEOUT_S + GRACE_S
            )
        finally:
            stop.set()
            watcher.join()
        # each probe waits at most 1 s, so a window of several seconds holds at least 10: fewer
        # means the probes hung, and every missing one counts as unanswered
        out["health_unanswered"] = sum(probes) + max(0, 10 - len(probes))
        for s in flood:
            s.close()

        # 3. slowloris: headers a line a second, bodies a byte a second
        stop = threading.Event()
        threads = []
        for i in range(2 * SLOWLORIS):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i < SLOWLORIS:
                s.sendall(b"GET /health HTTP/1.1\r\n")
                piece = b"X-Slow: 1\r\n"
            else:
                s.sendall(b"POST /retrieve HTTP/1.1\r\nHost: drill\r\nContent-Type: "
                          b"application/json\r\nContent-Length: 4000\r\n\r\n{")  # fmt: skip
                piece = b" "
            slow.append(s)
            threads.append(threading.Thread(target=_trickle, args=(s, piece, stop)))
        started = time.monotonic()
        for t in threads:
            t.start()
        try:
            headers_left = _open_after(slow[:SLOWLORIS], started + HEADER_TIMEOUT_S + GRACE_S)
            bodies_left = _open_after(slow[SLOWLORIS:], started + BODY_TIMEOUT_S + GRACE_S)
        finally:
            stop.set()
            for t in threads:
                t.join()
        out["slowloris_left_open"] = headers_left + bodies_left
        for s in slow:
            s.close()

        # 4. fields lax parsing would coerce
        out["coerced_fields_accepted"] = sum(
            _http(port, "POST", "/retrieve", json.dumps(b).encode(), timeout=10) == 200
            for b in COERCED
        )
    finally:
        stop_server(proc)
    with log.open("rb") as f:
        out["traceback_lines_logged"] = sum(line.startswith(b"Traceback") for line in f)
    return {k: out[k] for k in sorted(out)}


if __name__ == "__main__":
    common.run_drill(drill, __doc__, "trust-server-")
