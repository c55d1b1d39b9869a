"""Forecast bench: does an earlier snapshot anticipate later papers?

For Y = 2013, 2015, 2017 (or --years), ``kgbuild.evaluate.forecast.forecast`` scores every
unjoined pair of snapshot Y's nodes from snapshots ≤ Y only and ranks the pairs later
snapshots join, against the degree product; prints a table per year and ends with ONE JSON line
of the figures (AUC, hits@100/1000 of model and baseline, their hits@100 ratio, seconds).

    .venv/bin/python bench/forecast.py WAREHOUSE [--kg alzheimers] [--years 2013,2015,2017]

e.g. ``.venv/bin/python bench/forecast.py /tmp/f46/dalk`` on a built DALK warehouse (read
only). Targets per year: AUC ≥ 0.95 and hits@100 ≥ 1.5 × the baseline's.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from kgbuild.evaluate.forecast import forecast, render
from kgbuild.store.snapshots import Warehouse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("warehouse", type=Path, help="a built warehouse folder (read only)")
    ap.add_argument("--kg", default="alzheimers")
    ap.add_argument("--years", default="2013,2015,2017")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    wh = Warehouse(args.warehouse).require()
    figures: dict[str, object] = {"cores": os.cpu_count()}
    rows = []
    for year in (int(y) for y in args.years.split(",")):
        t0 = time.perf_counter()
        r = forecast(wh, f"{args.kg}@{year}", top=args.top)
        wall = time.perf_counter() - t0
        print(render(r), flush=True)
        print(flush=True)
        m, b = r.model, r.baseline
        figures |= {
            f"forecast_auc_{year}": round(m.auc, 4),
            f"baseline_auc_{year}": round(b.auc, 4),
            f"forecast_hits100_{year}": m.hits[100],
            f"baseline_hits100_{year}": b.hits[100],
            f"forecast_hits1000_{year}": m.hits[1000],
            f"baseline_hits1000_{year}": b.hits[1000],
            f"hits100_ratio_{year}": round(r.hits_ratio, 3),
            f"positives_{year}": r.positives,
            f"candidates_{year}": r.candidates,
            f"seconds_{year}": round(wall, 1),
            f"seconds_fit_{year}": round(r.seconds["fit"], 1),
            f"seconds_score_{year}": round(r.seconds["score"], 1),
        }
        ok = m.auc >= 0.95 and r.hits_ratio >= 1.5
        rows.append(
            f"| {year} | {r.candidates:,} | {r.positives:,} | {m.auc:.4f} | {b.auc:.4f} | "
            f"{m.hits[100]} | {b.hits[100]} | {r.hits_ratio:.2f} | {m.hits[1000]} | "
            f"{b.hits[1000]} | {wall:.0f} | {'met' if ok else 'missed'} |"
        )
    print("| Y | candidates | joined later | AUC | AUC deg·deg | hits@100 | deg·deg | ratio | "
          "hits@1000 | deg·deg | s | target |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
