"""Gather the judges' return files into ``data/judged/judgments.tsv``:
``python -m kgbuild.reader.collect --sheets DIR --rows data/judged/rows.tsv --out …``.

``DIR`` holds ``placements.tsv`` (which row each sheet item shows, written by
:mod:`kgbuild.reader.draw`) and one folder per sheet with the sheet (``sheet.tsv``, whose header
names its guideline version) and the judge's return (``judged.tsv``). Sheets ``s…``/``t…`` are first
judgments, ``d…``/``e…`` second ones; each sheet had its own judge, named after it. A return with a
malformed line or an unknown label stops the collection with one line naming file, line and
column (:func:`kgbuild.reader.sheet.read_judged`); nothing is written.
"""

from __future__ import annotations

import argparse
import csv
from collections import defaultdict
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.reader.draw import ROUNDS
from kgbuild.reader.judged import JUDGMENT_COLUMNS, read_rows
from kgbuild.reader.sheet import LABELS, read_judged

#: Sheet name prefixes of second judgments (``d…`` of round 1, ``e…`` of round 2).
SECOND_PREFIXES = frozenset(prefixes[1] for *_, prefixes in ROUNDS.values())


def _guideline(sheet: Path) -> str:
    for line in sheet.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith("# guideline:"):
            return line.split(":", 1)[1].split()[0]
    raise InputError("sheet names no guideline", path=sheet)


def collect(sheets: Path, rows_path: Path) -> list[list[str]]:
    rows = read_rows(rows_path)
    placed: dict[str, dict[int, str]] = defaultdict(dict)
    with (sheets / "placements.tsv").open(encoding="utf-8") as fh:
        for rec in csv.DictReader(fh, delimiter="\t"):
            placed[rec["sheet"]][int(rec["item"])] = rec["row_id"]
    out = []
    for sheet in sorted(placed):
        items = placed[sheet]
        folder = sheets / sheet
        judged = read_judged(folder / "judged.tsv", n_items=len(items))
        guideline = _guideline(folder / "sheet.tsv")
        rnd = "2" if sheet[0] in SECOND_PREFIXES else "1"
        for item in sorted(items):
            j = judged[item]
            row = rows[items[item]]
            out.append(
                [
                    row.row_id,
                    sheet,
                    str(item),
                    rnd,
                    f"judge-{sheet}",
                    guideline,
                    str(row.seed),
                    *(j[c] for c in LABELS),
                    " ".join(j["note"].split()),
                ]
            )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sheets", type=Path, required=True)
    ap.add_argument("--rows", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    lines = collect(a.sheets, a.rows)
    with a.out.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(
            fh, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_NONE, escapechar="\\"
        )
        w.writerow(JUDGMENT_COLUMNS)
        w.writerows(lines)
    print(f"{len(lines)} judgments from {len({ln[1] for ln in lines})} sheets → {a.out}")


if __name__ == "__main__":
    main()
