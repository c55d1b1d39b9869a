"""Benchmark: every judgment the pipeline makes, measured against gold, full run.

Runs the harness of ``kgbuild eval judgments`` (:mod:`kgbuild.evaluate.judgments`) on the
curated train+dev splits beside the checkout (BC5CDR, BioRED: ID checks; their dev splits: the
relation verifier), the blind-judged status sheets given (negated / hypothesis precision) and
the blind-judged audit sheets of the replayed DALK build (confidence: cross-validated Brier,
AUC, reliability; served precision and recall) when ``--warehouse`` holds that build. Prints
the tables, the wall time of each section, and ends with one JSON line whose keys are the
headline figures (``id_false_removal_bc5cdr``, ``biored_pair_f1``, ``cdr_cid_f1``,
``negated_precision``, ``confidence_brier``, ``confidence_auc``, ``served_supported``…).

    .venv/bin/python bench/judgments.py [--limit N] [--warehouse DIR]
        [--status-sheet S.tsv ...] [--audit-sheet A.tsv ...]

Without ``--audit-sheet`` the four blind sheets in tests/fixtures/audit/ are used.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import ROOT
from kgbuild.evaluate.judgments import SECTIONS, evaluate_judgments, headline, render

BLIND = sorted((ROOT / "tests" / "fixtures" / "audit").glob("dalk_blind_seed*.tsv"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=None, help="first N documents of each file")
    ap.add_argument("--warehouse", type=Path, default=None, help="the replayed DALK build")
    ap.add_argument("--status-sheet", type=Path, action="append", default=[])
    ap.add_argument("--audit-sheet", type=Path, action="append", default=[])
    ap.add_argument("--only", action="append", default=[], choices=SECTIONS)
    args = ap.parse_args(argv)
    report, seconds = {}, {}
    for section in args.only or SECTIONS:
        t0 = time.perf_counter()
        report |= evaluate_judgments(
            status_sheets=args.status_sheet,
            audit_sheets=args.audit_sheet or BLIND,
            warehouse=args.warehouse,
            limit=args.limit,
            sections=(section,),
        )
        seconds[f"{section}_s"] = round(time.perf_counter() - t0, 2)
    print(render(report))
    print("section wall times (s):", seconds)
    common.emit(headline(report) | seconds | {"limit": args.limit})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
