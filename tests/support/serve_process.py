"""``kgbuild serve`` as a user starts it, for tests: a real process on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

#: A request that first opens an as-of year builds that snapshot's index inside the request
#: (about 0.6 s on an idle machine, several seconds on a CI box running four test workers on
#: two cores): tests wait for it instead of failing on httpx's 5 s default. They assert the
#: answers, not their latency (bench/ready_after_build.py and bench/explorer_views.py time them).
HTTP = httpx.Client(timeout=60.0)

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_serve(
    wh: Path, *args: str, extra_env: dict[str, str] | None = None, timeout_s: float = 180
) -> tuple[subprocess.Popen[str], str]:
    """(process, base url) once ``/health`` answers. The environment's LLM endpoint is
    dropped unless ``extra_env`` names one; a server that dies or never answers fails the
    test with its stderr."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    env.update(extra_env or {})
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgbuild.cli", "serve", "-w", str(wh), "--port", str(port), *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    why = wait_healthy(proc, url, timeout_s, 0.2)
    if why is not None:
        pytest.fail(f"server did not start: {proc.stderr.read() if proc.stderr else ''}")
    return proc, url


def wait_healthy(proc: subprocess.Popen, url: str, timeout_s: float, poll_s: float) -> str | None:
    """Wait until ``url``'s ``/health`` answers 200: None then; else why not (the process
    ended, or ``timeout_s`` passed), the process killed."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return None
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            return "ended" if proc.poll() is not None else "timed out"
        time.sleep(poll_s)


def stop_server(proc: subprocess.Popen) -> None:
    """Terminate ``proc``; kill it if it has not ended within 30 s."""
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def probe_health(
    url: str, stop: threading.Event, period: float = 0.05
) -> tuple[threading.Thread, list[float], list[str]]:
    """GET /health every ``period`` seconds, each on its own thread, whatever the previous
    ones are doing; latency counts from when the probe was due, so a stalled server shows as
    every probe due during the stall, not as one slow sample."""
    latencies: list[float] = []
    errors: list[str] = []
    limits = httpx.Limits(max_connections=64, max_keepalive_connections=64)
    client = httpx.Client(base_url=url, timeout=300, limits=limits)  # one SSL context, shared

    def probe(due: float) -> None:
        try:
            r = client.get("/health")
            if r.status_code != 200:
                errors.append(f"{r.status_code} {r.text[:100]}")
        except httpx.HTTPError as exc:
            errors.append(repr(exc))
        latencies.append(time.perf_counter() - due)

    def run() -> None:
        with client, ThreadPoolExecutor(64) as pool:
            due = time.perf_counter()
            while not stop.is_set():
                pool.submit(probe, due)
                due += period
                time.sleep(max(0.0, due - time.perf_counter()))

    thread = threading.Thread(target=run)
    thread.start()
    return thread, latencies, errors
