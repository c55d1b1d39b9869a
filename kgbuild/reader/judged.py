"""The judged sentence corpus: rows (``data/judged/rows.tsv``) and judgments
(``data/judged/judgments.tsv``), read strictly, with the labels the reader learns.

A judgment is one judge's reading of one row under a guideline version; the first judge's
reading (``round`` 1) is the row's label, a second judge's (``round`` 2) only measures agreement.
Reading is strict: a malformed line or a label outside :data:`kgbuild.reader.sheet.LABELS` is an
:class:`~kgbuild.errors.InputError` naming the file, line and field, so nothing is trained on a
damaged corpus.

``supported`` is what a KG user needs from a served row: the sentence states, as a finding
(``asserted``), the relation in that direction between the two concepts the IDs name.
``associates`` (and ``related_to``) is implied by any stated relation; ``interacts`` by
``binds``.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.reader.rows import ROW_FIELDS, Row
from kgbuild.reader.sheet import LABELS

JUDGMENT_COLUMNS = (
    "row_id",
    "sheet",
    "item",
    "round",
    "judge",
    "guideline",
    "seed",
    *LABELS,
    "note",
)
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "data" / "judged"
#: Relations any stated relation implies (unsigned, undirected).
UNSIGNED = frozenset({"associates", "related_to"})
_INT_FIELDS = {"a_start", "a_end", "b_start", "b_end", "seed"}
#: Row fields a rows file may leave out (their defaults hold).
_OPTIONAL = frozenset({"doc_score"})


@dataclass(slots=True)
class Judged:
    row: Row
    label: dict[str, str]
    second: dict[str, str] | None = None


def _lines(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise InputError("no such judged file", path=path)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t")
        header = next(reader, None)
        if not header:
            raise InputError("empty judged file", path=path)
        out = []
        for line_no, cells in enumerate(reader, 2):
            if len(cells) != len(header):
                raise InputError(
                    f"line {line_no}: {len(cells)} fields, expected {len(header)}", path=path
                )
            rec = dict(zip(header, cells, strict=True))
            rec["_line"] = str(line_no)
            out.append(rec)
    return out


def read_rows(path: Path) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for rec in _lines(path):
        missing = [f for f in ROW_FIELDS if f not in rec and f not in _OPTIONAL]
        if missing:
            raise InputError(f"line {rec['_line']}, field {missing[0]}: missing", path=path)
        values: dict[str, object] = {}
        for f in ROW_FIELDS:
            if f not in rec:
                continue
            try:
                if f in _INT_FIELDS:
                    values[f] = int(rec[f])
                elif f in ("weight", "doc_score"):
                    values[f] = float(rec[f])
                else:
                    values[f] = rec[f]
            except ValueError:
                raise InputError(
                    f"line {rec['_line']}, field {f}: not a number: {rec[f]!r}", path=path
                ) from None
        row = Row(**values)  # type: ignore[arg-type]
        if not (0 <= row.a_start < row.a_end <= row.b_start < row.b_end <= len(row.sentence)):
            raise InputError(
                f"line {rec['_line']}, field a_start: spans outside the sentence", path=path
            )
        rows.setdefault(row.row_id, row)
    return rows


def read_judgments(path: Path, rows: dict[str, Row]) -> list[dict[str, str]]:
    out = []
    for rec in _lines(path):
        for col in JUDGMENT_COLUMNS:
            if col not in rec:
                raise InputError(f"line {rec['_line']}, field {col}: missing", path=path)
        if rec["row_id"] not in rows:
            raise InputError(
                f"line {rec['_line']}, field row_id: unknown row {rec['row_id']!r}", path=path
            )
        for col, allowed in LABELS.items():
            if rec[col] not in allowed:
                raise InputError(
                    f"line {rec['_line']}, field {col}: unknown label {rec[col]!r}", path=path
                )
        if rec["round"] not in ("1", "2"):
            raise InputError(
                f"line {rec['_line']}, field round: {rec['round']!r} is not 1 or 2", path=path
            )
        out.append(rec)
    return out


def load(folder: Path = DEFAULT_DIR) -> list[Judged]:
    """Every judged row: its first judgment as label, the second (if any) beside it."""
    rows = read_rows(folder / "rows.tsv")
    first: dict[str, dict[str, str]] = {}
    second: dict[str, dict[str, str]] = {}
    for rec in read_judgments(folder / "judgments.tsv", rows):
        (first if rec["round"] == "1" else second).setdefault(rec["row_id"], rec)
    return [Judged(rows[rid], lab, second.get(rid)) for rid, lab in sorted(first.items())]


def claimed(label: dict[str, str]) -> bool:
    """The sentence states some relation between the two mentions as a finding."""
    return label["stated"] == "yes" and label["status"] == "asserted"


def fact(label: dict[str, str]) -> bool:
    """The sentence states some relation between the two concepts as a finding."""
    return (
        label["stated"] == "yes"
        and label["status"] == "asserted"
        and label["a_ok"] == "yes"
        and label["b_ok"] == "yes"
    )


def relation_class(label: dict[str, str]) -> str:
    """The judged relation with its direction when it has one: ``upregulates:A>B``."""
    rel = label["relation"]
    if label["direction"] in ("A>B", "B>A"):
        return f"{rel}:{label['direction']}"
    return rel


def supports(label: dict[str, str], relation: str, direction: str) -> bool:
    """Does the judged reading support serving ``relation`` (A>B / B>A / undirected)?"""
    if not fact(label):
        return False
    if relation in UNSIGNED:
        return True
    judged = label["relation"]
    if relation == "interacts" and judged in ("interacts", "binds"):
        return True
    if judged != relation:
        return False
    return direction == "undirected" or label["direction"] in ("undirected", direction)


def cohen_kappa(pairs: list[tuple[str, str]]) -> float:
    """Cohen's κ (1960) of two judges' labels over the same items."""
    n = len(pairs)
    if not n:
        return math.nan
    agree = sum(a == b for a, b in pairs) / n
    ca, cb = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    chance = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (agree - chance) / (1 - chance) if chance < 1 else 1.0


def agreement(judged: list[Judged]) -> dict[str, dict[str, float]]:
    """Per label (and for ``fact``): items judged twice, raw agreement and Cohen's κ."""
    twice = [j for j in judged if j.second]
    out: dict[str, dict[str, float]] = {}
    cols = {
        **{c: (lambda lab, c=c: lab[c]) for c in LABELS},
        "relation_dir": relation_class,
        "fact": lambda lab: str(fact(lab)),
    }
    for name, get in cols.items():
        pairs = [(get(j.label), get(j.second)) for j in twice]  # type: ignore[arg-type]
        agree = sum(a == b for a, b in pairs) / len(pairs) if pairs else math.nan
        out[name] = {
            "n": len(pairs),
            "agreement": round(agree, 4),
            "kappa": round(cohen_kappa(pairs), 4),
        }
    return out
