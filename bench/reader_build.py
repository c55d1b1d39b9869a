"""Benchmark: what the sentence reader costs a DALK build, and what it serves.

Each run builds the DALK corpus with the default extractor twice, as a user does (``kgbuild
build`` as a process, a fresh warehouse each): once with the shipped reader, once with the
reader switched off (``KGBUILD_READER_MODEL`` naming a file that is not a model: the build then
reads nothing and serves nothing — the cost of everything but reading). Prints per-run figures
and ends with one JSON line: medians of both wall times, their ratio (the bound is
3× the build without the reader), and what the reader's build serves.

    .venv/bin/python bench/reader_build.py [--runs 1] [--source ../shared/data/dalk/by_year]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

SERVED = (
    "SELECT count(*) FILTER (WHERE epistemic = 'asserted'), count(*) FILTER (WHERE method = "
    "'reader'), count(*), (SELECT count(*) FROM kg_edges) FROM evidence"
)


def build(source: Path, warehouse: Path, reader_off: bool) -> float:
    env = common.cli_env()
    if reader_off:
        off = warehouse.parent / f"{warehouse.name}-no-reader.json"
        off.write_text("{}")
        env["KGBUILD_READER_MODEL"] = str(off)
    cmd = [*common.CLI, "build", "--domain", "alzheimers", "--source",
           str(source), "--extractor", "auto", "-w", str(warehouse)]  # fmt: skip
    return common.timed(subprocess.run, cmd, check=True, env=env, capture_output=True,
                        timeout=3600)[0]  # fmt: skip


def served(warehouse: Path) -> dict[str, int]:
    cmd = [*common.CLI, "sql", "-w", str(warehouse), "--format", "csv",
           SERVED]  # fmt: skip
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=600)
    rows = [ln for ln in out.stdout.splitlines() if ln and ln[0].isdigit()]
    asserted, reader_rows, evidence, edges = map(int, rows[-1].split(","))
    return {"served_rows": asserted, "reader_rows": reader_rows, "evidence": evidence,
            "kg_edges": edges}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--source", type=Path, default=common.DALK_YEARS)
    a = ap.parse_args()
    with_reader, without, figures = [], [], {}
    with tempfile.TemporaryDirectory(prefix="kgbuild-reader-bench-") as tmp:
        for run in range(a.runs):
            on, off = Path(tmp, f"on{run}"), Path(tmp, f"off{run}")
            without.append(build(a.source, off, reader_off=True))
            with_reader.append(build(a.source, on, reader_off=False))
            figures = served(on)
            print(f"run {run + 1}: {without[-1]:.1f} s without the reader, "
                  f"{with_reader[-1]:.1f} s with it; {figures}")  # fmt: skip
    on_s, off_s = statistics.median(with_reader), statistics.median(without)
    common.emit({
        "runs": a.runs, "wall_s_with_reader": round(on_s, 2),
        "wall_s_without_reader": round(off_s, 2), "wall_ratio": round(on_s / off_s, 3), **figures,
    }, python=False)  # fmt: skip


if __name__ == "__main__":
    main()
