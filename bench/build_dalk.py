"""Benchmark: the full DALK corpus, co-occurrence extractor, 10 yearly snapshots.

Each run builds into a fresh warehouse in a fresh interpreter (so peak RSS is the build's own),
then re-runs the identical build. Prints per-run figures, then medians, and ends with one JSON
line: docs, unique_docs, docs_with_status, snapshots, triples, wall_s, peak_rss_mb,
rerun_wall_s (+ ratios and the machine).

The user runs ``kgbuild build``, not ``build_kg``. Each run therefore also builds with
the CLI as a process (same settings, fresh warehouse) and reports ``cli_wall_s`` beside
``lib_wall_s`` (the library call alone) and where the difference goes: Python start-up, importing
the CLI (``kgbuild.cli`` pulls typer/rich/pydantic-settings) against importing the library,
and the rest (settings, opening the corpus, progress display).

    .venv/bin/python bench/build_dalk.py [--runs 3] [--source ../shared/data/dalk/by_year]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
t_import = time.perf_counter() - t0
source, warehouse = Path(sys.argv[1]), Path(sys.argv[2])
t = time.perf_counter()
report = build_kg(source, kg="alzheimers", warehouse=warehouse)
wall = time.perf_counter() - t
wh = Warehouse(warehouse)
statuses = dict(wh.query("SELECT status, count(*) FROM doc_status GROUP BY 1"))
head = report.years[-1].snapshot
print(json.dumps({
    "wall_s": wall, "import_s": t_import,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "reused": sum(y.reused for y in report.years), "snapshots": len(report.years),
    "docs": sum(statuses.values()), "unique_docs": statuses.get("built", 0),
    "duplicates": statuses.get("duplicate", 0), "rejected": statuses.get("rejected", 0),
    "docs_with_status": wh.query("SELECT count(*) FROM doc_status")[0][0],
    "triples": head.counts.triples, "evidence": head.counts.evidence,
    "nodes": head.counts.nodes, "content_hash": head.content_hash,
}))
"""


LIB_MODULE = "kgbuild.pipeline.build"
IMPORT_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import importlib
importlib.import_module(sys.argv[1])
print(json.dumps({"import_s": time.perf_counter() - t0}))
"""


def _timed(cmd: list[str]) -> tuple[float, float, str]:
    """Run ``cmd``; (wall seconds, the child's own peak RSS in MB from wait4, its stdout)."""
    wall, rss, status, out = common.run_measured(cmd, common.cli_env())
    if status != 0:
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, rss, out


def run_cli(source: Path, warehouse: Path) -> dict:
    """``kgbuild build`` as a user runs it (the library child's settings: default extractor and
    embedding model), timed as a process."""
    cmd = [str(common.KGBUILD), "build", "--source", str(source), "--kg", "alzheimers", "-w",
           str(warehouse)]  # fmt: skip
    wall, rss, _ = _timed(cmd)
    return {"cli_wall_s": wall, "cli_peak_rss_mb": rss}


def startup_costs() -> dict:
    """Where a process's time goes before any build: bare Python, importing the library's
    build module, importing the CLI module, and ``kgbuild --help`` end to end (medians of 3)."""
    runs: dict[str, list[float]] = {"python": [], "lib_import": [], "cli_import": [], "help": []}
    for _ in range(3):
        runs["python"].append(_timed([sys.executable, "-c", "pass"])[0])
        for key, module in (("lib_import", LIB_MODULE), ("cli_import", "kgbuild.cli")):
            out = _timed([sys.executable, "-c", IMPORT_CHILD, module])[2]
            runs[key].append(common.last_json(out)["import_s"])
        runs["help"].append(_timed([str(common.KGBUILD), "--help"])[0])
    return {k: statistics.median(v) for k, v in runs.items()}


def run_child(source: Path, warehouse: Path) -> dict:
    cmd = [sys.executable, "-c", CHILD, str(source), str(warehouse)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=common.cli_env(), check=True)
    return common.last_json(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--source", type=Path, default=common.DALK_YEARS)
    args = ap.parse_args()
    if not args.source.exists():
        sys.exit(f"corpus not found: {args.source}")
    firsts, reruns, clis = [], [], []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            wh = Path(tmp) / "warehouse"
            t = time.perf_counter()
            first = run_child(args.source, wh)
            first["process_wall_s"] = time.perf_counter() - t
            rerun = run_child(args.source, wh)
            assert rerun["reused"] == rerun["snapshots"], "re-run rebuilt something"
            assert rerun["content_hash"] == first["content_hash"]
            size_mb = sum(p.stat().st_size for p in wh.rglob("*") if p.is_file()) / 2**20
            cli = run_cli(args.source, Path(tmp) / "cli-warehouse")
        firsts.append(first)
        reruns.append(rerun)
        clis.append(cli)
        print(
            f"run {i + 1}: build {first['wall_s']:.2f}s (imports {first['import_s']:.2f}s) "
            f"peak {first['peak_rss_mb']:.0f} MB | re-run {rerun['wall_s']:.2f}s | "
            f"warehouse {size_mb:.1f} MB | kgbuild build {cli['cli_wall_s']:.2f}s "
            f"peak {cli['cli_peak_rss_mb']:.0f} MB"
        )
    wall = statistics.median(r["wall_s"] for r in firsts)
    rerun_wall = statistics.median(r["wall_s"] for r in reruns)
    f = firsts[0]
    print(
        f"\nDALK corpus: {f['docs']:,} records, {f['unique_docs']:,} built, "
        f"{f['duplicates']:,} duplicates, {f['rejected']:,} rejected"
    )
    print(
        f"head snapshot: {f['triples']:,} triples, {f['evidence']:,} evidence rows, "
        f"{f['nodes']:,} nodes; {f['snapshots']} snapshots"
    )
    print(
        f"median build {wall:.2f}s ({f['docs'] / wall:,.0f} records/s), "
        f"re-run {rerun_wall:.2f}s = {rerun_wall / wall:.1%} of the build"
    )
    cli_wall = statistics.median(c["cli_wall_s"] for c in clis)
    lib_process = statistics.median(r["process_wall_s"] for r in firsts)
    start = startup_costs()
    rest = cli_wall - wall - start["python"] - start["cli_import"]
    print(
        f"kgbuild build (process) {cli_wall:.2f}s vs build_kg (call) {wall:.2f}s: "
        f"+{cli_wall - wall:.2f}s = Python start {start['python']:.2f}s + importing the CLI "
        f"{start['cli_import']:.2f}s (the library's build module alone: "
        f"{start['lib_import']:.2f}s) + settings, corpus, progress display {rest:.2f}s; "
        f"`kgbuild --help` {start['help']:.2f}s; library child as a process {lib_process:.2f}s"
    )
    figures = {
        "docs": f["docs"],
        "unique_docs": f["unique_docs"],
        "docs_with_status": f["docs_with_status"],
        "snapshots": f["snapshots"],
        "triples": f["triples"],
        "evidence": f["evidence"],
        "wall_s": round(wall, 3),
        "peak_rss_mb": round(max(r["peak_rss_mb"] for r in firsts), 1),
        "rerun_wall_s": round(rerun_wall, 3),
        "rerun_ratio": round(rerun_wall / wall, 4),
        "docs_per_s": round(f["docs"] / wall, 1),
        "runs": args.runs,
        "warehouse_mb": round(size_mb, 1),
        "cli_wall_s": round(cli_wall, 3),
        "lib_wall_s": round(wall, 3),
        "lib_process_wall_s": round(lib_process, 3),
        "cli_peak_rss_mb": round(max(c["cli_peak_rss_mb"] for c in clis), 1),
        "python_start_s": round(start["python"], 3),
        "cli_import_s": round(start["cli_import"], 3),
        "lib_import_s": round(start["lib_import"], 3),
        "cli_help_s": round(start["help"], 3),
        "cli_other_s": round(rest, 3),
    }
    common.emit(figures)


if __name__ == "__main__":
    main()
