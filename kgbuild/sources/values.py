"""Numbers, years and identifiers from untrusted files, checked before anything uses them.

Each helper returns the value or says why it is unusable, so a reader turns a bad value into a
rejected record or a ``problems`` row rather than a traceback that stops the whole build.
What the checks guard against: Python's ``int()`` takes any run of Unicode decimal
digits but raises past 4,300 of them; ``str.isdigit()`` is True for superscripts (``²⁰¹⁵``)
that ``int()`` refuses; JSON gives ``NaN``, ``Infinity``, ``-0.0`` and ``1e5`` where an integer
belongs; Arrow and DuckDB columns hold int64; and a publication year of 0000 or 9999 would
publish a snapshot for it.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime

#: The earliest publication year accepted. MEDLINE's oldest citations are from the 1780s-1800s;
#: anything earlier is a typo or a placeholder (0000), never a year to publish a snapshot for.
MIN_YEAR = 1800
#: Longest whole number read from a file: 18 digits always fit an int64 column.
MAX_DIGITS = 18
#: A document id we accept: what PubMed, PMC and DOI-style ids look like, bounded in length.
_ID = re.compile(r"^[\w.:/()\-]{1,64}$")
_WHOLE = re.compile(r"^[+-]?[0-9]+$", re.ASCII)
_DIGITS = re.compile(r"^[0-9]+$", re.ASCII)
#: How missing values are spelled in an ID column by spreadsheets and dataframes (pandas'
#: default NA strings, lower-cased): a PMID read back from a spreadsheet can be ``NaN``.
MISSING_VALUES = frozenset(
    {"nan", "-nan", "+nan", "na", "n/a", "#n/a", "#n/a n/a", "#na", "<na>", "null", "none",
     "-1.#ind", "1.#ind", "-1.#qnan", "1.#qnan"}
)  # fmt: skip
#: A year at the start of a BioC ``year`` infon or ``date`` (``2015``, ``2015-03-01``).
_YEAR_PREFIX = re.compile(r"^([0-9]{4})(?![0-9])", re.ASCII)


def max_year() -> int:
    """The latest publication year accepted: next year (journals date issues ahead)."""
    return datetime.now(UTC).year + 1


def shown(value: object, limit: int = 40) -> str:
    """``repr`` of a value, cut to ``limit`` characters with its full length, for reasons."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value) if isinstance(value, str) else len(text)
    return f"{text[:limit]}… ({size:,} characters)"


def too_long(text: str) -> bool:
    """Whether ``text`` is a whole number of more than :data:`MAX_DIGITS` digits."""
    text = text.strip()
    return bool(_WHOLE.match(text)) and len(text.lstrip("+-")) > MAX_DIGITS


def whole_number(text: str) -> tuple[int | None, str]:
    """An offset or length written as text: ASCII digits, an optional sign, at most
    :data:`MAX_DIGITS` of them; else (None, why)."""
    text = text.strip()
    if too_long(text):
        return None, f"{shown(text)} has more than {MAX_DIGITS} digits"
    if not _WHOLE.match(text):
        return None, f"{shown(text)} is not a whole number"
    return int(text), ""


def year_problem(year: int) -> str | None:
    """Why ``year`` cannot be a publication year (outside :data:`MIN_YEAR`..next year), or None."""
    if MIN_YEAR <= year <= max_year():
        return None
    return f"year {year:04d} is outside {MIN_YEAR}-{max_year()}"


def parse_year(value: str) -> tuple[int | None, str | None]:
    """A year field (``2015``, ``2015-03-01``): (year, None); (None, why) when it is present
    but not a sane year; (None, None) when empty."""
    text = value.strip()
    if not text:
        return None, None
    m = _YEAR_PREFIX.match(text)
    if not m:
        return None, f"{shown(text)} is not a year"
    year = int(m.group(1))
    why = year_problem(year)
    return (None, why) if why else (year, None)


def pmid_problem(pmid: str) -> str | None:
    """Why ``pmid`` cannot identify a document, or None. Ids need not be numbers (PMC, DOI),
    but a number must be a positive one without a sign: ``-0``, ``+5`` and ``0`` name no
    document, and two spellings of one number would make two documents (leading zeros are
    dropped before: :func:`normal_pmid`)."""
    if not _ID.match(pmid):
        return f"document id {shown(pmid)} is not an identifier (1-64 letters, digits, .:/()-)"
    if _WHOLE.match(pmid) and (pmid[0] in "+-" or not pmid.strip("0")):
        return f"document id {shown(pmid)} is not a positive number"
    return None


def normal_pmid(pmid: str) -> str:
    """``pmid`` as PubMed writes it: a PMID of ASCII digits without its leading zeros
    (``0091000001`` → ``91000001``), so two spellings of one record are one document and the
    second a ``duplicate``. Anything else (an id that is not a number, all zeros,
    a sign, 5,000 digits) is returned as given, for :func:`pmid_problem` to judge."""
    text = pmid.strip()
    if len(text) > 1 and text[0] == "0" and _DIGITS.match(text) and text.strip("0"):
        return text.lstrip("0")
    return pmid


def padded_pmid_problem(raw: str, pmid: str) -> str | None:
    """The detail of the ``normalized`` problem row a zero-padded PMID gets, or None."""
    if raw.strip() == pmid or not pmid:
        return None
    return f"PMID {shown(raw.strip())} read as {pmid!r} (leading zeros dropped)"


def missing_pmid_problem(pmid: str) -> str | None:
    """Why an id of identifier shape still names no document, or None: a missing-value marker
    (``NaN``, ``NA``, ``null``: a PMID read back from a spreadsheet) or a number that is not
    finite (``inf``, ``1e999``). Checked on every record (:func:`kgbuild.sources.record.finish`),
    after :func:`pmid_problem`, so the record keeps its id and says why it is rejected."""
    text = pmid.strip()
    if text.lower() in MISSING_VALUES:
        return f"document id {pmid!r} is a missing-value marker, not a PMID"
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isfinite(value) else f"document id {pmid!r} is not a finite number"
