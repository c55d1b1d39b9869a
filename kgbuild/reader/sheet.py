"""Blind judging sheets for the sentence corpus, and the judgments read back from them.

A sheet shows only what a judge needs to read the sentence (the sentence with both mentions
marked, each mention's concept), never the source, the candidate relation, a status or a score
(the developers' audits found a judge who sees the expected answer about ten points more
lenient). Judges return one line per item with the columns of :data:`JUDGED_COLUMNS`; the
values are checked against :data:`LABELS` when read. The sheet's text cells are
spreadsheet-safe (:mod:`kgbuild.store.spreadsheet`, OWASP "CSV Injection"): judges open it in a
spreadsheet, and only the returned judgments are read back.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.reader.rows import Row
from kgbuild.store.spreadsheet import text_cell

GUIDELINE = "reader-judging/3"
SHEET_COLUMNS = ("item", "sentence", "A_text", "A_concept", "B_text", "B_concept")
JUDGED_COLUMNS = ("item", "stated", "relation", "direction", "status", "a_ok", "b_ok", "note")
#: The allowed values of each judged column (``docs/judging.md``).
LABELS: dict[str, frozenset[str]] = {
    "stated": frozenset({"yes", "no"}),
    "relation": frozenset(
        {
            "upregulates",
            "downregulates",
            "treats",
            "binds",
            "interacts",
            "associates",
            "other",
            "none",
        }
    ),
    "direction": frozenset({"A>B", "B>A", "undirected", "none"}),
    "status": frozenset({"asserted", "negated", "hedged", "background", "none"}),
    "a_ok": frozenset({"yes", "no"}),
    "b_ok": frozenset({"yes", "no"}),
}


def marked(row: Row) -> str:
    """The sentence with ``<A>…</A>`` and ``<B>…</B>`` around the two mentions."""
    s = row.sentence
    return (
        s[: row.a_start]
        + "<A>"
        + s[row.a_start : row.a_end]
        + "</A>"
        + s[row.a_end : row.b_start]
        + "<B>"
        + s[row.b_start : row.b_end]
        + "</B>"
        + s[row.b_end :]
    )


def _clean(text: str) -> str:
    return " ".join(text.split())


def write_sheet(path: Path, sheet_id: str, rows: Sequence[Row]) -> None:
    """A blind TSV: a header naming the guideline and the sheet, then one line per row."""
    buf = io.StringIO()
    buf.write(f"# sheet: {sheet_id}\n# guideline: {GUIDELINE} (judging.md beside this sheet)\n")
    buf.write("# return: one line per item, tab-separated: " + "\t".join(JUDGED_COLUMNS) + "\n")
    w = csv.writer(buf, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    w.writerow(SHEET_COLUMNS)
    for i, row in enumerate(rows, 1):
        w.writerow(
            [
                i,
                *map(
                    text_cell,
                    (
                        _clean(marked(row)),
                        row.a_text,
                        f"{row.a_name} ({row.a_type}, {row.a_id})",
                        row.b_text,
                        f"{row.b_name} ({row.b_type}, {row.b_id})",
                    ),
                ),
            ]
        )
    path.write_text(buf.getvalue(), encoding="utf-8")


def read_judged(path: Path, n_items: int | None = None) -> dict[int, dict[str, str]]:
    """{item: judgment} of a judge's return file; an InputError naming the file, line and
    column for a malformed line or a value outside :data:`LABELS`."""
    out: dict[int, dict[str, str]] = {}
    text = path.read_text(encoding="utf-8")
    for line_no, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#") or line.startswith("item\t"):
            continue
        cells = line.split("\t")
        if len(cells) < len(JUDGED_COLUMNS) - 1:
            raise InputError(
                f"line {line_no}: {len(cells)} columns, expected {len(JUDGED_COLUMNS)}", path=path
            )
        rec = dict(zip(JUDGED_COLUMNS, [c.strip() for c in cells], strict=False))
        rec.setdefault("note", "")
        try:
            item = int(rec["item"])
        except ValueError:
            raise InputError(
                f"line {line_no}: item {rec['item']!r} is not a number", path=path
            ) from None
        for col, allowed in LABELS.items():
            if rec[col] not in allowed:
                raise InputError(
                    f"line {line_no}, column {col}: unknown label {rec[col]!r}", path=path
                )
        out[item] = rec
    if n_items is not None:
        missing = sorted(set(range(1, n_items + 1)) - set(out))
        if missing:
            raise InputError(f"items not judged: {missing[:10]}", path=path)
    return out
