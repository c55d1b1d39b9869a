"""How soon a fresh build answers: the first ``serve``, ``ask`` and as-of years after a build.

A newcomer ran ``make build`` then ``kgbuild serve`` and waited 126 s (node vectors), then
25–28 s for a first ``kgbuild ask``, then 7–9 s for each as-of year the explorer opened. The
build now leaves what those need in the warehouse (:mod:`kgbuild.search.ready`); this measures
the user's path on a warehouse exactly as a build left it. Each run starts from its own copy
of ``--warehouse`` (so every run is a *first* serve and a *first* ask), never writes into it:

1. ``kgbuild serve`` until ``/health`` answers and a first ``/entities`` search answers
   (``serve_ready_s``, from the process start);
2. the explorer's entity page of the hub node in one as-of year (``first_year_s``) and then in
   another (``second_year_s``), on that server;
3. on a second copy, ``kgbuild ask --no-llm`` of a DALK-style question (``first_ask_s``: the
   process's wall time) and a "side effects" question right after (``second_ask_s``).

Prints the medians over ``--runs`` runs as ONE JSON line (and each run's figures on stderr).

    .venv/bin/python bench/ready_after_build.py --warehouse /tmp/wh --runs 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from tests.support.serve_process import stop_server

CLI = common.CLI
ENV = common.cli_env(HF_HUB_OFFLINE="1", DO_NOT_TRACK="1")
ENV.pop("OPENAI_BASE_URL", None)
NODE = "MESH:D000544"  # Alzheimer disease: the hub
QUESTIONS = (
    "Which gene is associated with an increased risk of late-onset Alzheimer's disease?",
    "What are the side effects of donepezil in Alzheimer's disease?",
)


def _serve(wh: Path, years: tuple[int, int]) -> dict[str, float]:
    t0 = time.perf_counter()
    proc, url = common.start_serve(wh, log=wh.parent / "serve.log", env=ENV, timeout_s=1e9)
    out: dict[str, float] = {}
    try:
        r = httpx.get(f"{url}/entities", params={"q": "APOE"}, timeout=300)
        r.raise_for_status()
        out["serve_ready_s"] = time.perf_counter() - t0
        for key, year in zip(("first_year_s", "second_year_s"), years, strict=True):
            t1 = time.perf_counter()
            while True:  # a 503 (still opening) is retried: the user waits for the page
                r = httpx.get(f"{url}/api/entity/{NODE}", params={"as_of": year}, timeout=300)
                if r.status_code != 503:
                    break
                time.sleep(0.2)
            r.raise_for_status()
            out[key] = time.perf_counter() - t1
    finally:
        stop_server(proc)
    return out


def _ask(wh: Path) -> dict[str, float]:
    out: dict[str, float] = {}
    for key, q in zip(("first_ask_s", "second_ask_s"), QUESTIONS, strict=True):
        out[key], r = common.timed(subprocess.run, [*CLI, "ask", q, "--no-llm", "-w", str(wh)],
                                   env=ENV, capture_output=True, text=True)  # fmt: skip
        if r.returncode not in (0, 1):
            raise SystemExit(f"ask failed ({r.returncode}): {r.stderr[-2000:]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warehouse", type=Path, required=True, help="a warehouse a build left")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--years", default="2013,2016", help="the two as-of years to open")
    ap.add_argument("--label", default="")
    a = ap.parse_args()
    years = tuple(int(y) for y in a.years.split(","))
    assert len(years) == 2
    runs: list[dict[str, float]] = []
    for i in range(a.runs):
        with tempfile.TemporaryDirectory(prefix="ready-bench-") as tmp:
            got = _serve(common.copy_warehouse(a.warehouse, Path(tmp) / "s"), years)  # type: ignore[arg-type]
        with tempfile.TemporaryDirectory(prefix="ready-bench-") as tmp:
            got.update(_ask(common.copy_warehouse(a.warehouse, Path(tmp))))
        print(f"run {i + 1}: " + json.dumps({k: round(v, 3) for k, v in got.items()}),
              file=sys.stderr)  # fmt: skip
        runs.append(got)
    figures = {k: round(statistics.median(r[k] for r in runs), 3) for k in runs[0]}
    common.emit({"bench": "ready_after_build", "label": a.label, "runs": a.runs,
                 "warehouse": str(a.warehouse), "years": list(years), **figures})  # fmt: skip


if __name__ == "__main__":
    main()
