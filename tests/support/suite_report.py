"""What `make test` printed last: the time of each phase (install, lint, docs, tests), the tests
counted by outcome, and the slowest tests with their CPU time, so every CI run shows where its
time went (a suite that grows slower is seen in the run that made it so, not months later).

Standard library only: it runs with the machine's python even when the install phase failed.

    python3 tests/support/suite_report.py REPORTS [--top 15] [--durations tests/durations.json]

REPORTS is the folder `make test` writes: ``phases.tsv`` (tests/support/phase.sh), the JUnit
files ``*.xml`` of the pytest runs, and ``timings/*.jsonl`` (tests/support/timings.py).
``--durations`` rewrites the module weights that order the modules (tests/conftest.py) from
this run's timings. Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path


def read_phases(folder: Path) -> list[tuple[str, float, int]]:
    path = folder / "phases.tsv"
    if not path.is_file():
        return []
    phases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name, secs, code = line.split("\t")
        phases.append((name, float(secs), int(code)))
    return phases


def read_outcomes(folder: Path) -> Counter[str]:
    """Tests by outcome over every JUnit file of the run (the parallel and the serial part)."""
    counts: Counter[str] = Counter()
    for xml in sorted(folder.glob("*.xml")):
        for case in ET.parse(xml).getroot().iter("testcase"):
            tags = {child.tag for child in case}
            if "failure" in tags:
                counts["failed"] += 1
            elif "error" in tags:
                counts["error"] += 1
            elif "skipped" in tags:
                counts["skipped"] += 1
            else:
                counts["passed"] += 1
    return counts


def read_timings(folder: Path) -> list[dict]:
    rows = []
    for path in sorted((folder / "timings").glob("*.jsonl")):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rows


def module_of(test: str) -> str:
    return test.split("::", 1)[0]


def report(folder: Path, top: int) -> dict:
    phases = read_phases(folder)
    outcomes = read_outcomes(folder)
    timings = read_timings(folder)
    print("\n== make test: where the time went")
    for name, secs, code in phases:
        status = "" if code == 0 else f"  (exit {code})"
        print(f"  {name:<8} {secs:8.1f} s{status}")
    total = sum(secs for _, secs, _ in phases)
    print(f"  {'total':<8} {total:8.1f} s")
    counts = ", ".join(f"{n} {k}" for k, n in sorted(outcomes.items())) or "no test results"
    print(f"== tests: {sum(outcomes.values())} ({counts})")
    slowest = sorted(timings, key=lambda r: -r["wall_s"])[:top]
    if timings:
        cpu = sum(r["cpu_s"] for r in timings)
        workers = len({r["worker"] for r in timings})
        print(f"== the {top} slowest tests (wall s, CPU s: set-up + call + tear-down)")
        for r in slowest:
            print(f"  {r['wall_s']:7.1f} {r['cpu_s']:7.1f}  {r['test']}")
        print(f"   (CPU of all tests {cpu:.0f} s, in {workers} pytest processes)")
    return {
        "phases_s": {name: secs for name, secs, _ in phases},
        "total_s": round(total, 1),
        "tests": dict(outcomes),
        "slowest": [[r["test"], r["wall_s"], r["cpu_s"]] for r in slowest],
    }


def write_durations(folder: Path, path: Path, min_cpu_s: float = 0.25) -> None:
    """The costs tests/conftest.py reads: wall seconds per module (the order in which xdist gets
    the modules) and the CPU seconds of each test that cost at least ``min_cpu_s`` (which tests
    `make test-fast` leaves out)."""
    rows = read_timings(folder)
    per_module: Counter[str] = Counter()
    for r in rows:
        per_module[module_of(r["test"])] += r["wall_s"]
    costs = {
        "modules": {m: round(s, 1) for m, s in per_module.most_common()},
        "tests_cpu": {
            r["test"]: round(r["cpu_s"], 2)
            for r in sorted(rows, key=lambda r: r["test"])
            if r["cpu_s"] >= min_cpu_s
        },
    }
    path.write_text(json.dumps(costs, indent=0) + "\n", encoding="utf-8")
    print(f"wrote the costs of {len(costs['modules'])} modules and "
          f"{len(costs['tests_cpu'])} tests to {path}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", type=Path)
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--durations", type=Path, help="rewrite the module weights file")
    args = ap.parse_args(argv)
    figures = report(args.reports, args.top)
    if args.durations:
        write_durations(args.reports, args.durations)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
