"""Score a judged epistemic sheet (``bench/epistemic_sample.py``): the status's precision.

Precision = rows judged ``really_<status> = yes`` among rows judged yes or no, with the Wilson
score 95% interval (:func:`kgbuild.audit.score.wilson`); also the share of judged rows whose
sentence states a positive relation between the two concepts (``relation_stated_positive``),
the rows a wrong ``negated`` takes out of the served KG. Blank rows are counted and left out;
a verdict other than yes/no is an error naming the item. Ends with one JSON line.

    .venv/bin/python bench/epistemic_score.py negated.tsv
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import read_tsv_sheet
from bench.epistemic_sample import FORMAT
from kgbuild.audit.score import wilson

YES, NO = {"yes", "y", "1", "true"}, {"no", "n", "0", "false"}


def read(path: Path) -> tuple[dict[str, str], list[dict[str, str]]]:
    meta, rows = read_tsv_sheet(path, "utf-8-sig")
    if meta.get("format") != FORMAT:
        raise SystemExit(f"{path}: not an epistemic sheet (no '# format: {FORMAT}')")
    return meta, rows


def verdict(row: dict[str, str], col: str) -> bool | None:
    v = (row.get(col) or "").strip().lower()
    if not v:
        return None
    if v not in YES | NO:
        raise SystemExit(f"item {row.get('item')}: {col} must be yes or no, not {v!r}")
    return v in YES


def score(meta: dict[str, str], rows: list[dict[str, str]]) -> dict[str, object]:
    status = meta.get("status", "negated")
    got = [verdict(r, f"really_{status}") for r in rows]
    judged = [g for g in got if g is not None]
    k, n = sum(judged), len(judged)
    positive = [verdict(r, "relation_stated_positive") for r, g in zip(rows, got, strict=True)
                if g is not None]  # fmt: skip
    return {
        "status": status,
        "snapshot": meta.get("snapshot", ""),
        "seed": meta.get("seed", ""),
        "rows": len(rows),
        "judged": n,
        "blank": len(rows) - n,
        "yes": k,
        "precision": round(k / n, 4) if n else None,
        "wilson95": wilson(k, n),
        "relation_stated_positive": sum(1 for p in positive if p),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sheet", type=Path)
    args = ap.parse_args(argv)
    meta, rows = read(args.sheet)
    out = score(meta, rows)
    lo, hi = out["wilson95"]  # type: ignore[misc]
    print(f"{out['status']}: {out['yes']} of {out['judged']} judged really {out['status']} "
          f"(precision {out['precision']}, Wilson 95% {lo}–{hi}); {out['blank']} blank; "
          f"{out['relation_stated_positive']} state a positive relation")  # fmt: skip
    print(json.dumps(out | {"sheet": str(args.sheet)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
