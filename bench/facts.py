"""Benchmark: fact retrieval from gold relations, full run.

Runs ``kgbuild eval facts`` (:mod:`kgbuild.evaluate.facts`) on BioRED Dev and BC5CDR
Development beside the checkout: each file's abstracts are built with the default extractor
with their relation lines hidden, the questions the gold relations answer ("Which chemicals
induce {disease}?", "Which genes are associated with {disease}?"…) are asked through the query
engine, and the ranked answers are scored. Prints each file's tables and ends with one JSON
line of the figures (``biored_dev_recall_at_10``, ``biored_dev_mrr``, ``cdr_dev_recall_at_10``,
``cdr_dev_mrr``, ``stated_share_…``, ``questions_…``). Targets: recall@10 ≥ 0.80 and MRR ≥ 0.60
on both.

    .venv/bin/python bench/facts.py [--limit N] [--docs N] [--biored FILE] [--cdr FILE]
        [--out-dir DIR]

The held-out test splits go through the same code: pass them as ``--biored`` / ``--cdr``. A
figure is named after the split its file holds (:func:`bench.common.split_name`): BioRED's
``Test.BioC.JSON`` gives ``biored_test_…``, never a ``*_dev_*`` figure measured on test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.evaluate.facts import evaluate_facts
from kgbuild.evaluate.facts_report import render, write_rows
from kgbuild.evaluate.markdown import _table


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--biored", type=Path, default=common.BIORED_DEV)
    ap.add_argument("--cdr", type=Path, default=common.CDR_DEV)
    ap.add_argument("--limit", type=int, default=None, help="first N questions of each file")
    ap.add_argument("--docs", type=int, default=None, help="first N documents of each file")
    ap.add_argument("--out-dir", type=Path, default=None, help="per-question TSVs go here")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    line: dict[str, object] = {}
    for dataset, path in (("biored", args.biored), ("cdr", args.cdr)):
        name = f"{dataset}_{common.split_name(path)}"
        report, rows = evaluate_facts(path, docs=args.docs, limit=args.limit)
        for title, header, body in render(report):
            print("\n".join([title, *_table(header, body)]), end="\n\n")
        if args.out_dir:
            args.out_dir.mkdir(parents=True, exist_ok=True)
            write_rows(args.out_dir / f"facts_{name}.tsv", rows)
        o = report["overall"]
        line |= {
            f"{name}_recall_at_10": o.get("recall_at_10"),
            f"{name}_recall_at_10_ci": o.get("recall_at_10_ci"),
            f"{name}_recall_at_10_ceiling": o.get("recall_at_10_ceiling"),
            f"{name}_recall_at_10_with_fact": o.get("recall_at_10_with_fact"),
            f"{name}_mrr": o.get("mrr"),
            f"{name}_mrr_ci": o.get("mrr_ci"),
            f"{name}_hits_at_1": o.get("hits_at_1"),
            f"{name}_co_mention_baseline_recall_at_10": report["co_mention_baseline"].get(
                "recall_at_10"
            ),
            f"{name}_co_mention_baseline_mrr": report["co_mention_baseline"].get("mrr"),
            f"stated_share_{name}": o.get("stated_share"),
            f"questions_{name}": o["questions"],
            f"answers_from_{name}": report["answers_from"],
            f"misses_{name}": o.get("misses"),
            f"found_by_basis_{name}": o.get("found_by_basis"),
            f"build_s_{name}": report["seconds"]["build"],
            f"ask_ms_per_question_{name}": report["seconds"]["per_question_ms"],
        }
    line |= {"seconds": round(time.perf_counter() - t0, 1), "limit": args.limit, "docs": args.docs}
    common.emit(line, load=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
