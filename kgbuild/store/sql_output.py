"""What ``kgbuild sql`` prints: strict JSON, CSV or a table, safe for a terminal.

Cells come from the corpus (titles, abstracts, sentences), which is untrusted text: an ESC
sequence in an abstract can recolour, retitle or rewrite a terminal, ``\\r`` and ``\\b`` can
hide what came before, and Unicode bidi overrides reorder what is shown ("Trojan Source",
Boucher & Anderson 2021). Every format therefore shows such characters escaped: JSON as the
``\\uXXXX`` escapes JSON defines (it reads back exactly), CSV and tables as ``\\xNN`` /
``\\uXXXX`` text. JSON is strict (RFC 8259): NaN and infinities become ``null``, and duplicate
column names are made unique (``a``, ``a_1``…) instead of overwriting each other.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

#: DEL, C1 controls, and the Unicode characters that move or reorder text on a terminal (line
#: and paragraph separators, bidi embeddings, overrides and isolates).
_MOVERS = r"\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_MOVING = re.compile(f"[{_MOVERS}]")
#: Those and every C0 control.
_UNSAFE = re.compile(rf"[\x00-\x1f{_MOVERS}]")
#: The same, but newline and tab kept (a table cell and a CSV field may hold them).
_UNSAFE_KEEP_LAYOUT = re.compile(rf"[\x00-\x08\x0b-\x1f{_MOVERS}]")
#: Characters a table cell shows before it is cut with an ellipsis.
TABLE_CELL_CHARS = 1_000


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, keep_layout: bool = True) -> str:
    """``text`` with terminal control characters shown as escapes (see the module doc)."""
    return (_UNSAFE_KEEP_LAYOUT if keep_layout else _UNSAFE).sub(_escape, text)


def unique_names(columns: list[str]) -> list[str]:
    """Column names made unique by suffixes (``a``, ``a_1``…) that collide with no other name:
    ``SELECT 1 AS a, 2 AS a`` keeps both values in JSON."""
    given, used, out = set(columns), set(), []
    for name in columns:
        new, n = name, 0
        while new in used or (new != name and new in given):
            n += 1
            new = f"{name}_{n}"
        used.add(new)
        out.append(new)
    return out


def _strict(value: Any) -> Any:
    """NaN and infinities as None (JSON has no such numbers), recursively."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list):
        return [_strict(v) for v in value]
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    return value


def json_chunks(columns: list[str], rows: Iterable[list[Any]]) -> Iterator[str]:
    """Rows as a strict JSON array of objects, one object per line as the rows arrive;
    terminal controls as ``\\uXXXX`` escapes."""
    names = unique_names(columns)
    yield "["
    for i, row in enumerate(rows):
        record = dict(zip(names, map(_strict, row), strict=True))
        text = json.dumps(record, ensure_ascii=False, allow_nan=False, default=str)
        yield ("," if i else "") + "\n" + _MOVING.sub(_json_escape, text)  # json escaped C0
    yield "\n]\n"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def csv_text(columns: list[str], rows: Iterable[list[Any]]) -> Iterator[str]:
    """CSV lines (header first), cells with terminal controls escaped (newlines and tabs
    stay: CSV quotes them)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    for row in chain([columns], rows):
        writer.writerow(["" if v is None else visible(str(v)) for v in row])
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()


def table_rows(
    columns: list[str], rows: Iterable[Iterable[Any]], width: int = TABLE_CELL_CHARS
) -> tuple[list[str], list[list[str]], int]:
    """Header and cells as display text (escaped; a cell cut to ``width`` characters with an
    ellipsis) and how many cells were cut."""
    out, cut = [], 0
    for row in rows:
        cells = []
        for v in row:
            text = "" if v is None else visible(str(v))
            if len(text) > width:
                text, cut = text[: width - 1] + "…", cut + 1
            cells.append(text)
        out.append(cells)
    return [visible(c) for c in columns], out, cut
