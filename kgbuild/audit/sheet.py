"""The audit sheet: a blind TSV of sampled evidence rows with empty verdict columns.

Why a sheet: shares (endpoints with an ID, triples with a Hetionet relation) cannot tell a right
ID from a wrong one; only a person reading the sentence can. The sheet shows what a curator needs
— the sentence, the LLM's raw claim, the stored triple with IDs, names and the ID's most frequent
surface forms in the corpus — and nothing that gives away the expected verdict (no grounding or
resolution method, no confidence, no support count). Rows are in random order.

Format: UTF-8 TSV (tabs and line breaks inside cells become spaces; ``csv`` quoting, so a sheet
saved back by a spreadsheet still reads). Judges open it in a spreadsheet, so the shown text
cells are spreadsheet-safe (:mod:`kgbuild.store.spreadsheet`, OWASP "CSV Injection": a
sentence beginning with ``=`` or ``-`` gets a ``'`` in front); reading the sheet drops the mark.
Leading ``# key: value`` lines carry the sample's metadata (snapshot, seed, population); the
verdict columns are filled by the judge:

- ``claim_supported``: yes | no — the sentence states the raw claim (head, relation, tail, in
  that direction);
- ``faithful``: exact | vaguer | wrong — the stored triple renders the raw claim: same concepts,
  meaning and direction (exact), the same but less specific (vaguer: a broader relation such as
  ``associates`` for "increases the risk of"), or not (wrong);
- ``wrong``: when ``faithful`` is wrong, which parts: head, tail, relation, direction (comma list);
- ``triple_supported``: yes | no — the stored triple, read by what its IDs denote, is stated by
  the sentence (end to end);
- ``note``: free text.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.store.spreadsheet import raw_text, text_cell

FORMAT = "kgbuild-audit-sheet/1"
#: Columns shown to the judge, in order.
SHOWN = (
    "item", "evidence_id", "pmid", "sentence", "claim_head", "claim_relation", "claim_tail",
    "head_id", "head_name", "head_forms", "relation", "tail_id", "tail_name", "tail_forms",
)  # fmt: skip
#: Columns the judge fills.
VERDICTS = ("claim_supported", "faithful", "wrong", "triple_supported", "note")
COLUMNS = SHOWN + VERDICTS
#: Shown columns of text (``item`` is a number): the ones written spreadsheet-safe.
SHOWN_TEXT = SHOWN[1:]
FAITHFUL = ("exact", "vaguer", "wrong")
WRONG_PARTS = ("head", "tail", "relation", "direction")
_YES = {"yes": True, "y": True, "true": True, "1": True, "no": False, "n": False, "false": False,
        "0": False}  # fmt: skip
#: A sheet larger than this is not an audit sheet (100 rows are ≈ 60 kB).
MAX_SHEET_BYTES = 50 * 1024 * 1024

INSTRUCTIONS = (
    "judge each row from its sentence, as a curator would; fill the last five columns:",
    "claim_supported: yes|no — the sentence states the raw claim (claim_head claim_relation "
    "claim_tail, in that direction)",
    "faithful: exact|vaguer|wrong — the stored triple (IDs, relation, direction) renders the raw "
    "claim; vaguer = right concepts and direction, less specific relation or concept",
    "wrong: when faithful=wrong, the wrong parts: head,tail,relation,direction",
    "triple_supported: yes|no — the stored triple, read by what its IDs denote, is stated by the "
    "sentence",
    "head_forms/tail_forms: the ID's most frequent annotated surface forms in the corpus (count)",
)


@dataclass(frozen=True, slots=True)
class Judgment:
    """One judged row."""

    item: int
    claim_supported: bool
    faithful: str
    wrong: tuple[str, ...]
    triple_supported: bool
    note: str = ""


@dataclass(slots=True)
class Sheet:
    meta: dict[str, str]
    rows: list[dict[str, str]]

    def judgments(self) -> tuple[list[Judgment], list[int]]:
        """(judged rows, items left blank); a row judged in part is an error naming it."""
        judged, blank = [], []
        for line, row in enumerate(self.rows, start=1):
            values = [row.get(c, "").strip() for c in VERDICTS[:4]]
            item = _int(row.get("item", ""), f"row {line}: item")
            if not any(values):
                blank.append(item)
                continue
            judged.append(_judgment(item, row))
        return judged, blank


def _clean(value: Any) -> str:
    text = "" if value is None else str(value)
    return " ".join(text.replace("\t", " ").splitlines()) if text else ""


def write_sheet(path: Path, meta: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Write a blank sheet (metadata lines, header, one line per sampled row)."""
    buf = io.StringIO()
    buf.write(f"# format: {FORMAT}\n")
    for k, v in meta.items():
        buf.write(f"# {k}: {_clean(v)}\n")
    for line in INSTRUCTIONS:
        buf.write(f"# {line}\n")
    w = csv.writer(buf, delimiter="\t", lineterminator="\n")
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([text_cell(_clean(r.get(c, ""))) if c in SHOWN_TEXT else _clean(r.get(c, ""))
                    for c in COLUMNS])  # fmt: skip
    path.write_text(buf.getvalue(), encoding="utf-8")


def read_sheet(path: Path) -> Sheet:
    """Read a sheet; anything that is not one is an :class:`InputError` naming what is wrong."""
    if not path.is_file():
        raise InputError("no such audit sheet", path=path)
    if path.stat().st_size > MAX_SHEET_BYTES:
        raise InputError("file too large for an audit sheet", path=path, limit=MAX_SHEET_BYTES)
    raw = path.read_bytes()
    if b"\x00" in raw:
        raise InputError("binary file, not an audit sheet", path=path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError("audit sheet is not UTF-8", path=path, at_byte=exc.start) from exc
    meta: dict[str, str] = {}
    lines = text.splitlines()
    body = 0
    while body < len(lines) and lines[body].startswith("#"):
        key, sep, value = lines[body][1:].partition(":")
        if sep and key.strip() and " " not in key.strip():
            meta.setdefault(key.strip(), value.strip())
        body += 1
    if meta.get("format") != FORMAT:
        raise InputError(f"not an audit sheet (no '# format: {FORMAT}' line)", path=path)
    reader = csv.DictReader(io.StringIO("\n".join(lines[body:])), delimiter="\t")
    missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError("audit sheet lacks columns", path=path, missing=",".join(missing))
    rows = [
        {k: raw_text(v or "") if k in SHOWN_TEXT else (v or "") for k, v in r.items()
         if k is not None}
        for r in reader
    ]  # fmt: skip
    if not rows:
        raise InputError("audit sheet has no rows", path=path)
    return Sheet(meta, rows)


def _int(value: str, what: str) -> int:
    try:
        return int(value.strip())
    except ValueError:
        raise InputError(f"{what} is not a number", value=value[:40]) from None


def _judgment(item: int, row: dict[str, str]) -> Judgment:
    def yes_no(col: str) -> bool:
        v = row.get(col, "").strip().lower()
        if v not in _YES:
            raise InputError(f"item {item}: {col} must be yes or no", value=v[:40])
        return _YES[v]

    faithful = row.get("faithful", "").strip().lower()
    if faithful not in FAITHFUL:
        raise InputError(f"item {item}: faithful must be one of {'|'.join(FAITHFUL)}",
                         value=faithful[:40])  # fmt: skip
    parts = tuple(sorted({p.strip().lower() for p in row.get("wrong", "").split(",") if p.strip()}))
    bad = [p for p in parts if p not in WRONG_PARTS]
    if bad:
        raise InputError(f"item {item}: wrong lists unknown parts (use {','.join(WRONG_PARTS)})",
                         value=",".join(bad)[:60])  # fmt: skip
    if faithful == "wrong" and not parts:
        raise InputError(f"item {item}: faithful=wrong needs the wrong parts in 'wrong'")
    if faithful != "wrong" and parts:
        raise InputError(f"item {item}: 'wrong' is filled but faithful={faithful}")
    return Judgment(
        item,
        yes_no("claim_supported"),
        faithful,
        parts,
        yes_no("triple_supported"),
        row.get("note", "").strip(),
    )
