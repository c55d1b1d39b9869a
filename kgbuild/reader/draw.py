"""Draw the sentence corpus and write its blind sheets: ``python -m kgbuild.reader.draw``.

Rows come from the two DALK builds (offline default and replayed LLM) and from BioRED and
BC5CDR Train (:mod:`kgbuild.reader.rows`), drawn per source with its own seed
(:mod:`kgbuild.reader.sample`), deduplicated across sources (a pair in both builds is judged
once), shuffled, and dealt into sheets of equal size, one judge each; a seeded share is dealt
again into second-judge sheets for agreement. ``rows.tsv`` keeps every row once;
``placements.tsv`` (beside the sheets) says which sheet and item shows it, for
:mod:`kgbuild.reader.collect`.
"""

from __future__ import annotations

import argparse
import csv
import random
from pathlib import Path

from kgbuild.reader.rows import ROW_FIELDS, Row, build_rows, gold_rows
from kgbuild.reader.sample import draw
from kgbuild.reader.sheet import write_sheet

#: Per round: (source, rows drawn, seed), and the seeds of the shuffle and the second-judge
#: draw. Round 2 drew more rows (excluding round 1's) once round 1 showed how much a reader
#: gains from more of them.
ROUNDS = {
    1: (
        (
            ("dalk_default", 1600, 5001),
            ("dalk_llm", 1400, 5002),
            ("biored_train", 1000, 5003),
            ("bc5cdr_train", 400, 5004),
        ),
        5005,
        5006,
        ("s", "d"),
    ),
    2: (
        (
            ("dalk_default", 1600, 6001),
            ("dalk_llm", 1400, 6002),
            ("biored_train", 1000, 6003),
            ("bc5cdr_train", 400, 6004),
        ),
        6005,
        6006,
        ("t", "e"),
    ),
}
SHEET_SIZE = 200
SECOND_SHARE = 0.11
SECOND_SHEETS = 3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--default-warehouse", type=Path, required=True)
    ap.add_argument("--llm-warehouse", type=Path, required=True)
    ap.add_argument("--biored-train", type=Path, required=True)
    ap.add_argument("--bc5cdr-train", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="rows.tsv")
    ap.add_argument("--sheets", type=Path, required=True, help="folder for the blind sheets")
    ap.add_argument("--round", type=int, default=1, choices=sorted(ROUNDS))
    a = ap.parse_args()
    plan, shuffle_seed, second_seed, (first_prefix, second_prefix) = ROUNDS[a.round]
    earlier: dict[str, Row] = {}
    if a.round > 1:
        from kgbuild.reader.judged import read_rows

        earlier = read_rows(a.out)
    pools = {
        "dalk_default": lambda: build_rows(a.default_warehouse, "dalk_default"),
        "dalk_llm": lambda: build_rows(a.llm_warehouse, "dalk_llm"),
        "biored_train": lambda: gold_rows(a.biored_train, "biored_train"),
        "bc5cdr_train": lambda: gold_rows(a.bc5cdr_train, "bc5cdr_train"),
    }
    taken: dict[str, Row] = {}
    for source, n, seed in plan:
        pool = [r for r in pools[source]() if r.row_id not in taken and r.row_id not in earlier]
        for row in draw(pool, n, seed):
            taken[row.row_id] = row
    rows = sorted(taken.values(), key=lambda r: r.row_id)
    random.Random(shuffle_seed).shuffle(rows)
    a.sheets.mkdir(parents=True, exist_ok=True)
    placed: list[tuple[Row, str, int]] = []
    for k in range(0, len(rows), SHEET_SIZE):
        sheet = f"{first_prefix}{k // SHEET_SIZE + 1:02d}"
        chunk = rows[k : k + SHEET_SIZE]
        write_sheet(a.sheets / f"{sheet}.tsv", sheet, chunk)
        placed += [(r, sheet, i) for i, r in enumerate(chunk, 1)]
    second = random.Random(second_seed).sample(rows, round(len(rows) * SECOND_SHARE))
    size = -(-len(second) // SECOND_SHEETS)
    for k in range(SECOND_SHEETS):
        sheet = f"{second_prefix}{k + 1:02d}"
        chunk = second[k * size : (k + 1) * size]
        write_sheet(a.sheets / f"{sheet}.tsv", sheet, chunk)
        placed += [(r, sheet, i) for i, r in enumerate(chunk, 1)]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        w.writerow(ROW_FIELDS)
        for row in sorted([*earlier.values(), *rows], key=lambda r: r.row_id):
            w.writerow([getattr(row, f) for f in ROW_FIELDS])
    placements = a.sheets / "placements.tsv"
    old = placements.read_text(encoding="utf-8") if a.round > 1 and placements.is_file() else ""
    with placements.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh, delimiter="\t", lineterminator="\n")
        if old:
            fh.write(old)
        else:
            w.writerow(("row_id", "sheet", "item"))
        for row, sheet, item in placed:
            w.writerow((row.row_id, sheet, item))
    print(f"{len(rows)} rows, {len(second)} for a second judge, in {a.sheets}")


if __name__ == "__main__":
    main()
