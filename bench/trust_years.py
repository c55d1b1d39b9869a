"""Drill: opening as-of years in ``kgbuild serve`` while ``/health`` is watched from outside.

A hostile-user probe found that ``GET /api/entity/MESH:D000544?as_of=2013&per_relation=500``
on a fresh server over the full DALK build blocked ``/health`` for up to 5.7 s, and that all
years opened at once turned most away and timed ``/health`` out. This drill repeats it on a
multi-year warehouse (the DALK build: ``--warehouse``, or built here from ``--source``):

1. a fresh ``kgbuild serve`` (its own empty index folder, so every year is cold);
2. one cold year, then every other year at once from ``--threads`` clients (each year asked
   for by about two of them), while ``/health`` is probed every 50 ms (latency counted from
   when each probe was due);
3. every year turned away (503) asked again after its ``Retry-After``, until it is served.

Figures that must be 0: ``health_over_1s`` (probes slower than 1 s), ``health_failed`` (probes
with no 200), ``duplicate_year_loads`` (loads the server started beyond one per snapshot:
``/health``'s ``load.years``; null on a server that does not report them),
``busy_without_retry_after``, ``server_errors`` (5xx other than 503), ``years_unserved``
(never a 200 after the retries) and ``traceback_lines_logged``. The rest describe the run.

    .venv/bin/python bench/trust_years.py --warehouse /tmp/wh   # ~1 min on 2 cores (+80 s to
    .venv/bin/python bench/trust_years.py                       # build DALK without one)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from tests.support.serve_process import probe_health, stop_server

CLI = common.CLI
ENV = common.cli_env(HF_HUB_OFFLINE="1", DO_NOT_TRACK="1")
NODE = "MESH:D000544"  # Alzheimer disease: the hub, with the most facts per relation
PER_RELATION = "500"
#: Retries of a turned-away year (each after its Retry-After).
RETRIES = 60


def _build(source: Path, wh: Path) -> None:
    r = subprocess.run([*CLI, "build", "--domain", "alzheimers", "--source", str(source),
                        "-w", str(wh)], env=ENV, capture_output=True, text=True)  # fmt: skip
    if r.returncode != 0:
        raise RuntimeError(f"build failed: {r.stderr[-500:]}")


def _page(url: str, year: int) -> tuple[int, int, str | None, float]:
    t0 = time.perf_counter()
    try:
        r = httpx.get(f"{url}/api/entity/{NODE}", timeout=120,
                      params={"as_of": str(year), "per_relation": PER_RELATION})  # fmt: skip
        status, retry = r.status_code, r.headers.get("retry-after")
    except httpx.HTTPError:
        status, retry = -1, None
    return year, status, retry, time.perf_counter() - t0


def drill(wh: Path, workdir: Path, threads: int, embed: bool) -> dict[str, object]:
    """The drill against a server over ``wh``: figures (see the module docstring)."""
    log = workdir / "serve.log"
    proc, url = common.start_serve(
        wh,
        "--index-dir",
        str(workdir / "index"),
        *([] if embed else ["--no-embed"]),
        log=log,
        env=ENV,
        poll_s=0.3,
    )
    out: dict[str, object] = {}
    try:
        years = httpx.get(f"{url}/api/years", timeout=60).json()
        head, asked = years["as_of_year"], [y for y in years["years"] if y != years["as_of_year"]]
        cold = asked[len(asked) // 3]  # 2013 of DALK's 2011–2020
        stop = threading.Event()
        watcher, health, failed = probe_health(url, stop)
        calls: list[tuple[int, int, str | None, float]] = []
        try:
            time.sleep(1)
            calls.append(_page(url, cold))
            out["cold_year_s"] = round(calls[-1][3], 2)
            t0 = time.perf_counter()
            wanted = [asked[i % len(asked)] for i in range(max(threads, len(asked)))]
            with ThreadPoolExecutor(threads) as pool:
                calls += pool.map(lambda y: _page(url, y), wanted)
            out["all_years_wall_s"] = round(time.perf_counter() - t0, 2)
            served = {y for y, s, *_ in calls if s == 200}
            for _ in range(RETRIES):
                left = sorted(set(asked) - served)
                if not left:
                    break
                time.sleep(max(int(r or 1) for y, s, r, _ in calls if s == 503))
                with ThreadPoolExecutor(len(left)) as pool:
                    calls += pool.map(lambda y: _page(url, y), left)
                served |= {y for y, s, *_ in calls if s == 200}
            out["all_years_served_s"] = round(time.perf_counter() - t0, 2)
            time.sleep(1)
        finally:
            stop.set()
            watcher.join()
        load = httpx.get(f"{url}/health", timeout=60).json()["load"].get("years")
    finally:
        stop_server(proc)
    statuses = [s for _, s, *_ in calls]
    q = statistics.quantiles(health, n=100)
    out.update({
        "years": len(asked) + 1, "head": head, "requests": len(calls),
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "health_probes": len(health), "health_p50_ms": round(q[49] * 1000, 1),
        "health_p99_ms": round(q[98] * 1000, 1), "health_max_ms": round(max(health) * 1000, 1),
        "health_over_1s": sum(x > 1.0 for x in health), "health_failed": len(failed),
        "health_errors": sorted(set(failed))[:3],
        "duplicate_year_loads": (None if load is None
                                 else load["loads"] - load["open"] - load["failed"]),
        "year_loads": None if load is None else load["loads"],
        "busy_without_retry_after": sum(s == 503 and not r for _, s, r, _ in calls),
        "server_errors": sum((s >= 500 and s != 503) or s < 0 for s in statuses),
        "years_unserved": len(set(asked) - {y for y, s, *_ in calls if s == 200}),
    })  # fmt: skip
    with log.open("rb") as f:
        out["traceback_lines_logged"] = sum(line.startswith(b"Traceback") for line in f)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", type=Path, help="a multi-year build (default: build DALK)")
    ap.add_argument("--source", type=Path, default=common.DALK_YEARS)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--embed", action="store_true", help="serve with the embedding fallback")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="trust-years-") as tmp:
        wh = args.warehouse
        if wh is None:
            wh = Path(tmp) / "wh"
            _build(args.source, wh)
        out = drill(wh, Path(tmp), args.threads, args.embed)
    out["machine"] = {"cores": len(os.sched_getaffinity(0)), "load_avg": os.getloadavg()[0],
                      "python": platform.python_version()}  # fmt: skip
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
