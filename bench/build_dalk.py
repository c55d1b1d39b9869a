"""Benchmark: the full DALK corpus, co-occurrence extractor, 10 yearly snapshots.

Each run builds into a fresh warehouse in a fresh interpreter (so peak RSS is the build's own),
then re-runs the identical build. Prints per-run figures, then medians, and ends with one JSON
line: docs, unique_docs, docs_with_status, snapshots, triples, wall_s, peak_rss_mb,
rerun_wall_s (+ ratios and the machine).

    .venv/bin/python bench/build_dalk.py [--runs 3] [--source ../shared/data/dalk/by_year]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

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


def run_child(source: Path, warehouse: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(source), str(warehouse)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--source", type=Path, default=ROOT.parent / "shared/data/dalk/by_year")
    args = ap.parse_args()
    if not args.source.exists():
        sys.exit(f"corpus not found: {args.source}")
    firsts, reruns = [], []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            wh = Path(tmp) / "warehouse"
            first = run_child(args.source, wh)
            rerun = run_child(args.source, wh)
            assert rerun["reused"] == rerun["snapshots"], "re-run rebuilt something"
            assert rerun["content_hash"] == first["content_hash"]
            size_mb = sum(p.stat().st_size for p in wh.rglob("*") if p.is_file()) / 2**20
        firsts.append(first)
        reruns.append(rerun)
        print(
            f"run {i + 1}: build {first['wall_s']:.2f}s (imports {first['import_s']:.2f}s) "
            f"peak {first['peak_rss_mb']:.0f} MB | re-run {rerun['wall_s']:.2f}s | "
            f"warehouse {size_mb:.1f} MB"
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
        "machine": f"{platform.machine()} {os.cpu_count()} cores, {platform.python_version()}",
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
