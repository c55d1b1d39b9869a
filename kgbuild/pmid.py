"""Which strings may name a document: a PMID read back from a spreadsheet can be ``NaN``.

pandas writes a missing PMID as ``NaN`` (and reads ``nan``/``NA``/``null`` back as one); a float
column turns an overflowing number into ``inf``. Such a record names no document: it must be
rejected with its reason, never built as document "nan". One small function, shared by every
reader through :func:`kgbuild.sources.record.finish`.
"""

from __future__ import annotations

import math

#: How missing values are spelled in an ID column by spreadsheets and dataframes (pandas' default
#: NA strings, lower-cased): none of them is a PMID.
MISSING_VALUES = frozenset(
    {"nan", "-nan", "+nan", "na", "n/a", "#n/a", "#n/a n/a", "#na", "<na>", "null", "none",
     "-1.#ind", "1.#ind", "-1.#qnan", "1.#qnan"}
)  # fmt: skip


def document_id_problem(pmid: str) -> str:
    """Why ``pmid`` cannot name a document (a missing-value marker, or a number that is not
    finite: ``NaN``, ``inf``, ``1e999``), or ``""``; other shapes are the readers' business."""
    text = pmid.strip()
    if text.lower() in MISSING_VALUES:
        return f"document id {pmid!r} is a missing-value marker, not a PMID"
    try:
        value = float(text)
    except ValueError:
        return ""
    return "" if math.isfinite(value) else f"document id {pmid!r} is not a finite number"
