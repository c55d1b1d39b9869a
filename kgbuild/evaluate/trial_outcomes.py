"""The trial-outcome reading (:func:`kgbuild.corpus.trial_outcomes.outcome`) against sentences
judged blind (``data/judged/trial_outcomes``).

The judged rows are DALK sentences naming a compound, drawn by what the rule read when they
were drawn (benefit, no benefit, silent with outcome words, silent otherwise: the rows carry
their stratum's size), judged by helpers who saw only the guideline and the sentence with the
compound marked. Precision and recall per reading are weighted by stratum back to the corpus;
the rows are split train / dev by PMID (``split``), and the rule was revised on train only.
The rule reads the sentence's abstract too, so the abstracts come from a DALK build:

    python -m kgbuild.evaluate.trial_outcomes --judged data/judged/trial_outcomes --warehouse WH
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from kgbuild.corpus.trial_outcomes import outcome
from kgbuild.store.snapshots import Warehouse

READINGS = ("no benefit", "benefit")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def primary_labels(judged: Path) -> dict[str, str]:
    """row_id → the primary judge's label (round 1; round 2 is the second judge's)."""
    return {r["row_id"]: r["label"] for r in _rows(judged / "judgments.tsv") if r["round"] == "1"}


def abstracts(warehouse: Path, pmids: list[str]) -> dict[str, str]:
    """PMID → title + " " + abstract in the warehouse's newest snapshot."""
    wh = Warehouse(warehouse)
    sid = wh.resolve("latest")
    sql = ("SELECT pmid, coalesce(title, '') || ' ' || coalesce(abstract, '') FROM "
           "documents_at($sid) WHERE list_contains($p, pmid)")  # fmt: skip
    return {str(p): str(t) for p, t in wh.query(sql, {"sid": sid, "p": pmids})}


def measure(judged: Path, warehouse: Path) -> dict[str, Any]:
    rows = _rows(judged / "rows.tsv")
    gold = primary_labels(judged)
    text = abstracts(warehouse, sorted({r["pmid"] for r in rows}))
    out: dict[str, Any] = {"rows": len(rows), "missing_abstracts": 0, "unjudged": 0}
    counts: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for r in rows:
        if r["row_id"] not in gold:  # a row no primary judge labelled: counted, not scored
            out["unjudged"] += 1
            continue
        if r["pmid"] not in text:
            out["missing_abstracts"] += 1
            continue
        weight = int(r["stratum_size"]) / int(r["stratum_taken"])
        said = outcome(r["sentence"], text[r["pmid"]])
        for part in (r["split"], "all"):
            for reading in READINGS:
                c = counts[(part, reading)]
                right = gold[r["row_id"]] == reading
                c["tp"] += weight * (said == reading and right)
                c["fp"] += weight * (said == reading and not right)
                c["fn"] += weight * (said != reading and right)
                c["judged_positive"] += right
    for (part, reading), c in sorted(counts.items()):
        p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else None
        rc = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else None
        out[f"{part}/{reading}"] = {
            "precision": None if p is None else round(p, 3),
            "recall": None if rc is None else round(rc, 3),
            "judged_positive_rows": int(c["judged_positive"]),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--judged", type=Path, required=True)
    ap.add_argument("--warehouse", type=Path, required=True)
    args = ap.parse_args()
    print(json.dumps(measure(args.judged, args.warehouse)))


if __name__ == "__main__":
    main()
