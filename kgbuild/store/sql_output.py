"""What ``kgbuild sql`` prints: strict JSON, CSV or a table, safe for a terminal.

Cells come from the corpus (titles, abstracts, sentences), which is untrusted text: an ESC
sequence in an abstract can recolour, retitle or rewrite a terminal, ``\\r`` and ``\\b`` can
hide what came before, and Unicode bidi overrides reorder what is shown ("Trojan Source",
Boucher & Anderson 2021). Every format therefore shows such characters escaped: JSON as the
``\\uXXXX`` escapes JSON defines (it reads back exactly), CSV and tables as ``\\xNN`` /
``\\uXXXX`` text. CSV writes the cells of text columns safe to open in a spreadsheet
(:mod:`kgbuild.store.spreadsheet`, OWASP "CSV Injection": a ``'`` in front of a value that
begins with ``=``, ``+``, ``-``, ``@``, tab or ``'``; number columns as they are); JSON keeps
every value as it is. JSON is strict (RFC 8259): NaN and infinities become ``null``, and duplicate
column names are made unique (``a``, ``a_1``…) instead of overwriting each other.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, islice
from typing import Any

from rich.cells import cell_len, chop_cells, set_cell_size

from kgbuild.store.spreadsheet import text_cell

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
    """Rows as a strict JSON array of objects, one object per line as the rows arrive (head
    ``[``, one chunk per row, tail ``]``); terminal controls as ``\\uXXXX`` escapes."""
    names = unique_names(columns)
    yield "["
    for i, row in enumerate(rows):
        record = dict(zip(names, map(_strict, row), strict=True))
        text = json.dumps(record, ensure_ascii=False, allow_nan=False, default=str)
        yield ("," if i else "") + "\n" + _MOVING.sub(_json_escape, text)  # json escaped C0
    yield "\n]\n"


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(data: Any) -> str:
    """``data`` as indented JSON (the layout ``rich``'s ``print_json`` gave), non-ASCII kept,
    terminal controls as ``\\uXXXX`` escapes (it reads back exactly). Written as is by the
    commands' ``--json``: rich re-parsed and highlighted every token, 0.5 s of a 1.5 s
    ``kgbuild ask --json`` on the DALK KG."""
    text = json.dumps(data, ensure_ascii=False, indent=2, default=str)
    return _MOVING.sub(_json_escape, text)


def print_json(data: Any) -> None:
    """Write :func:`json_text` of ``data`` and a newline to standard output."""
    sys.stdout.write(json_text(data) + "\n")
    sys.stdout.flush()


#: DuckDB types whose values CSV writes as numbers (``DECIMAL(p,s)`` by its base name); every
#: other column is text, and its cells are made spreadsheet-safe.
NUMBER_TYPES = frozenset({
    "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
    "UBIGINT", "UHUGEINT", "FLOAT", "DOUBLE", "DECIMAL", "BOOLEAN", "VARINT", "BIGNUM",
})  # fmt: skip


def is_text_type(duckdb_type: str) -> bool:
    """Whether a column of this DuckDB type holds text in CSV (anything but a number)."""
    return duckdb_type.partition("(")[0].strip().upper() not in NUMBER_TYPES


def csv_text(columns: list[str], types: list[str], rows: Iterable[list[Any]]) -> Iterator[str]:
    """CSV lines (header first, then one chunk per row, then an empty tail), cells with
    terminal controls escaped (newlines and tabs stay: CSV quotes them); the header and the
    cells of text columns (by ``types``, DuckDB's type names) are spreadsheet-safe."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    text = [is_text_type(t) for t in types]
    header = [text_cell(visible(c)) for c in columns]
    for cells in chain([header], (_csv_cells(row, text) for row in rows)):
        writer.writerow(cells)
        yield buf.getvalue()
        buf.seek(0)
        buf.truncate()
    yield ""  # the tail: every format yields head, one chunk per row, tail (sql_print counts)


def _csv_cells(row: list[Any], text: list[bool]) -> list[str]:
    return [
        "" if v is None else text_cell(visible(str(v))) if is_text else visible(str(v))
        for v, is_text in zip(row, text, strict=True)
    ]


class TableText:
    """A table printed as its rows arrive, in memory bounded by a few rows.

    Rich lays a table out only once it holds every row: 300,000 rows took 3 minutes and 800 MB
    before the first line appeared, and a time limit cannot stop one ``print`` call. Here the
    column widths come from the header and the first :data:`TABLE_SAMPLE_ROWS` rows, fitted to
    ``width`` like rich does (the widest columns shrink first). A later row with a wider cell
    widens its column while the table still fits, under a rule drawn at the new widths (as
    ``psql`` re-aligns each batch of a streamed result); a cell that cannot fit folds onto
    more lines within its column. No styles: a table cut off by the time limit leaves no
    colour or attribute switched on in the terminal.
    """

    def __init__(self, columns: list[str], width: int, cell_chars: int = TABLE_CELL_CHARS) -> None:
        self.header = [visible(c) for c in columns]
        self.width, self.cell_chars = width, cell_chars
        #: Cells cut to :attr:`cell_chars` characters (with an ellipsis).
        self.cut = 0

    def cells(self, row: Iterable[Any]) -> list[str]:
        """A row's values as display text: escaped, tabs expanded, cut with an ellipsis."""
        out = []
        for v in row:
            text = "" if v is None else visible(str(v))
            if len(text) > self.cell_chars:
                text, self.cut = text[: self.cell_chars - 1] + "…", self.cut + 1
            out.append(text.expandtabs(8))
        return out

    def chunks(self, rows: Iterable[Iterable[Any]], footer: Callable[[], str]) -> Iterator[str]:
        """The head (top border, header), then one chunk per row, then the tail (bottom
        border and ``footer()``, called once the rows are exhausted)."""
        it = iter(rows)
        first = [self.cells(r) for r in islice(it, TABLE_SAMPLE_ROWS)]
        if not self.header:  # a statement without columns: nothing to draw
            yield ""
            yield from ("" for _ in it)
            yield footer() + "\n"
            return
        widths = self._fit(
            [max(1, *map(_cell_width, col)) for col in zip(self.header, *first, strict=True)]
        )
        yield (_rule("┏━┳┓", widths) + _lines(self.header, widths, "┃┃┃") + _rule("┡━╇┩", widths))
        for cells in chain(first, map(self.cells, it)):
            # ASCII on one line (the common case) is as wide as it is long: 5x faster.
            simple = all(c.isascii() and "\n" not in c for c in cells)
            need = list(map(len if simple else _cell_width, cells))
            fits = all(n <= w for n, w in zip(need, widths, strict=True))
            if not fits:
                grown = self._grow(widths, need)
                if grown != widths:
                    widths = grown
                    yield _rule("├─┼┤", widths) + _lines(cells, widths, "│││")
                    continue
            if simple and fits:
                yield "│ " + " │ ".join(map(str.ljust, cells, widths)) + " │\n"
            else:
                yield _lines(cells, widths, "│││")
        yield _rule("└─┴┘", widths) + footer() + "\n"

    def _room(self, columns: int) -> int:
        """Characters the cells of a table this wide may take (borders and padding apart)."""
        return max(columns, self.width - 3 * columns - 1)

    def _grow(self, widths: list[int], need: list[int]) -> list[int]:
        """Widths that give the columns a row overflows what room the table has left, never
        narrowing another column (two rows could then re-rule the table in turn). A quarter
        more than asked, so a growing id widens its column rarely."""
        free, out = self._room(len(widths)) - sum(widths), list(widths)
        for i, (n, w) in enumerate(zip(need, widths, strict=True)):
            if n > w and free > 0:
                add = min(n + n // 4 - w, free)
                out[i], free = w + add, free - add
        return out

    def _fit(self, natural: list[int]) -> list[int]:
        """Column widths: ``natural`` ones, shrunk (widest columns first) until the table fits
        in :attr:`width`."""
        room = self._room(len(natural))
        if sum(natural) <= room:
            return natural
        widths, left = list(natural), room
        order = sorted(range(len(natural)), key=natural.__getitem__)
        for k, i in enumerate(order):
            widths[i] = max(1, min(natural[i], left // (len(order) - k)))
            left -= widths[i]
        return widths


#: Rows a streamed table measures its column widths on before it prints its first line.
TABLE_SAMPLE_ROWS = 200


def _cell_width(text: str) -> int:
    return max(cell_len(line) for line in text.split("\n"))


def _rule(box: str, widths: list[int]) -> str:
    """A border line: ``box`` is left end, fill, junction, right end."""
    left, fill, join, right = box
    return left + join.join(fill * (w + 2) for w in widths) + right + "\n"


def _lines(cells: list[str], widths: list[int], bars: str) -> str:
    """One table row: each cell folded to its column's width, as many lines as the tallest."""
    left, mid, right = bars
    folded = [
        [part for line in text.split("\n") for part in (chop_cells(line, w) or [""])]
        for text, w in zip(cells, widths, strict=True)
    ]
    height = max(len(f) for f in folded)
    out = []
    for k in range(height):
        parts = (
            set_cell_size(f[k] if k < len(f) else "", w)
            for f, w in zip(folded, widths, strict=True)
        )
        out.append(f"{left} " + f" {mid} ".join(parts) + f" {right}\n")
    return "".join(out)
