"""PubTator text format reader (``PMID|t|title``, ``PMID|a|abstract``, tab-separated annotations).

Format (NCBI PubTator export): a title line, an abstract line, then one line per mention
``PMID\\tstart\\tend\\tmention\\ttype\\tid`` (offsets into title + " " + abstract) and optional
relation lines ``PMID\\ttype\\tid1\\tid2[...]``; a blank line ends a document.

The reader never raises on content: each undecodable byte, malformed line or stray annotation
becomes a Problem attached to its record (or to a placeholder record when no document owns it).
Line endings and byte-order marks (UTF-8, UTF-16) are normalized before lines are split: CR,
CRLF and LF are each one line break, in any mix (a CR-only file read as one line would lose all
but its first record; a lone CR in an LF file glued each title to its abstract), and
a BOM glued to the first PMID makes a second, bogus one. :func:`count_records` counts record
starts in the raw bytes independently of the parser, so a reader that loses a record is caught
(see :func:`kgbuild.sources.local.read_slices`).

A file is read in blocks, never whole: a newline-free multi-GB file costs one line cap
(:data:`MAX_LINE_BYTES`) of memory and ends as one rejected record, and UTF-16 and CR-only files
are converted block by block. Offsets are checked as text before ``int()`` sees them (5,000
digits, ``NaN``, ``1e5``, superscripts are problem rows naming the value), and a PMID that names
no document (5,000 digits, ``-0``) rejects its record (:mod:`kgbuild.sources.values`); a
zero-padded PMID (``0091000001``) is read as PubMed writes it (``91000001``), so it is the same
document as its plain spelling.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kgbuild.sources.files import blocks, bounded_lines, line_breaks, open_regular
from kgbuild.sources.record import SourceRecord, finish, make_mention
from kgbuild.sources.values import (
    normal_pmid,
    padded_pmid_problem,
    pmid_problem,
    shown,
    too_long,
    whole_number,
)

_TEXT_LINE = re.compile(r"^([^|\t]+)\|([ta])\|(.*)$")
#: A title line in raw bytes (a BOM allowed): what :func:`count_records` counts.
_TITLE_LINE = re.compile(rb"^(?:\xef\xbb\xbf)?[^|\t\r\n]+\|t\|")
#: A relation line's type: a word (CID, Association, Positive_Correlation, Bind…); NaN and
#: Infinity are words too, but in that place they are an annotation's unreadable offset.
_REL_TYPE = re.compile(r"^[A-Za-z][\w\-]*$")
_NOT_A_TYPE = re.compile(r"^[+-]?(?:nan|inf|infinity)$", re.IGNORECASE)
_BOM = b"\xef\xbb\xbf"
#: Longest line read (bytes). A title or abstract line over it ends its record ``rejected``
#: (no sensible ``--max-doc-chars`` is near it: the default is 100,000 characters), any other
#: line is a problem; either way only its first bytes are held, whatever its length.
MAX_LINE_BYTES = 8 << 20


@dataclass(frozen=True, slots=True)
class Layout:
    """How a PubTator file must be read: its encoding, and the notes that become problem rows
    of its first record (CR-only files, UTF-16, BOMs, mixed line ends)."""

    utf16: bool
    notes: tuple[str, ...]
    #: Text the decoding could not read (U+FFFD put in its place): a ``bad_encoding`` row.
    undecodable: str | None = None


def survey(path: Path) -> Layout:
    """One pass in blocks over the file (decoded if UTF-16): which line breaks it has (CR,
    CRLF, LF) and how many lines start with a byte-order mark."""
    with open_regular(path) as fh:
        utf16 = _is_utf16(fh)
        breaks: Counter[str] = Counter()
        boms, replaced, tail = 0, 0, b""
        for i, block in enumerate(line_breaks(blocks(fh, utf16), breaks)):
            replaced += block.count(_REPLACEMENT) if utf16 else 0
            if i == 0 and block.startswith(_BOM):
                boms += 1
            window = tail + block  # a line break + BOM may straddle two blocks
            boms += window.count(b"\n" + _BOM)  # 4 bytes: none lies inside tail
            tail = window[-3:]
    cr, crlf, lf = breaks["cr"], breaks["crlf"], breaks["lf"]
    notes = ["UTF-16 file read as UTF-8"] if utf16 else []
    if cr and not (crlf or lf):
        notes.append("CR-only line endings read as LF")
    elif cr:
        notes.append(
            f"mixed line endings ({cr:,} CR, {crlf:,} CRLF, {lf:,} LF): each read as one line break"
        )
    notes += [f"{boms} byte-order mark(s) removed from line starts"] if boms else []
    # undecodable UTF-16 units become U+FFFD: said, not stored silently
    undecodable = f"{replaced:,} U+FFFD replacement character(s) in the decoded UTF-16 text"
    return Layout(utf16, tuple(notes), undecodable if replaced else None)


#: U+FFFD as the UTF-8 the decoded blocks are.
_REPLACEMENT = "\ufffd".encode()


def _is_utf16(fh: BinaryIO) -> bool:
    """Whether the open file starts with a UTF-16 byte-order mark (either order); the file is
    left at its start."""
    utf16 = fh.read(2) in (b"\xff\xfe", b"\xfe\xff")
    fh.seek(0)
    return utf16


def count_records_in(path: Path, cap: int = MAX_LINE_BYTES) -> int:
    """:func:`count_records` of a file, read in blocks (a line's first ``cap`` bytes held),
    UTF-16 decoded as the reader decodes it."""
    with open_regular(path) as fh:
        lines = bounded_lines(line_breaks(blocks(fh, _is_utf16(fh))), b"\n", cap)
        return sum(bool(_TITLE_LINE.match(head)) for head, _ in lines)


def count_records(data: bytes) -> int:
    """Title lines in the raw ``data`` (lines end in CR, CRLF or LF, in any mix; a BOM or
    not): every one starts a record, so a reader yielding fewer records lost some."""
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    return sum(bool(_TITLE_LINE.match(line)) for line in lines)


def decode_line(raw: bytes) -> tuple[str, bool]:
    """UTF-8, else cp1252/latin-1 (one char per byte, so offsets from such tools still line up)."""
    try:
        return raw.decode("utf-8"), True
    except UnicodeDecodeError:
        try:
            return raw.decode("cp1252"), False
        except UnicodeDecodeError:
            return raw.decode("latin-1"), False


def read_pubtator(
    path: Path,
    year: int | None = None,
    annotator: str = "pubtator",
    label: str | None = None,
    max_line: int = MAX_LINE_BYTES,
) -> Iterator[SourceRecord]:
    """Records of one PubTator text file, in file order, each with its problems; the file is
    read in blocks and each line's first ``max_line`` bytes are held, whatever its length."""
    source_file = label or path.name
    layout = survey(path)
    rec: SourceRecord | None = None
    record_no = 0
    # lines that belong to no record still belong to the file's year (the same slice however
    # the build is split into runs)
    orphans = SourceRecord(pmid="", source_file=source_file, record_no=-1, line_no=0, year=year)

    def close() -> Iterator[SourceRecord]:
        if rec is not None:
            yield finish(rec)

    with open_regular(path) as fh:
        lines = bounded_lines(line_breaks(blocks(fh, layout.utf16)), b"\n", max_line)
        for line_no, (raw, size) in enumerate(lines, start=1):
            raw = raw.removeprefix(_BOM)
            overlong = size > max_line
            line, ok = decode_line(raw)
            if not line.strip() and not overlong:
                yield from close()
                rec = None
                continue
            m = _TEXT_LINE.match(line)
            if m:
                raw_pmid, kind, text = m.group(1).strip(), m.group(2), m.group(3)
                pmid = normal_pmid(raw_pmid)
                if kind == "t" or rec is None or rec.pmid != pmid:
                    yield from close()
                    record_no += 1
                    rec = SourceRecord(
                        pmid=pmid,
                        source_file=source_file,
                        record_no=record_no,
                        line_no=line_no,
                        year=year,
                    )
                    rec.reject_reason = pmid_problem(pmid)
                    if padded := padded_pmid_problem(raw_pmid, pmid):
                        rec.problem(line_no, "normalized", padded)
                    if kind == "a":
                        rec.problem(line_no, "missing_title", "abstract line without a title line")
                    if record_no == 1:
                        for note in layout.notes:
                            rec.problem(0, "normalized", note)
                        if layout.undecodable:
                            rec.problem(0, "bad_encoding", layout.undecodable)
                if overlong:
                    what = "title" if kind == "t" else "abstract"
                    why = f"{what} line of {size:,} bytes is over the {max_line:,}-byte line limit"
                    rec.problem(line_no, "overlong_line", why)
                    rec.reject_reason = rec.reject_reason or f"{why}; not read"
                    continue
                if not ok:
                    rec.problem(line_no, "non_utf8", "line is not UTF-8; decoded as cp1252")
                    rec.warnings.append("non-UTF-8 bytes decoded as cp1252")
                if kind == "t":
                    rec.title = text
                else:
                    rec.abstract = text
                continue
            owner = rec if rec is not None else orphans
            if overlong:
                detail = f"line of {size:,} bytes is over the {max_line:,}-byte line limit"
                owner.problem(line_no, "overlong_line", f"{detail}: {line[:80]!r}")
                continue
            if not ok:
                why = "annotation line is not UTF-8; decoded as cp1252"
                owner.problem(line_no, "non_utf8", why)
            _annotation_line(owner, line_no, line, annotator)
    yield from close()
    if orphans.problems:
        orphans.reject_reason = "lines outside any document"
        yield orphans
    elif record_no == 0:  # nothing in the file was a record: say so rather than say nothing
        orphans.reject_reason = "no PubTator records in file (empty or not PubTator text)"
        yield orphans


def _annotation_line(rec: SourceRecord, line_no: int, line: str, annotator: str) -> None:
    """A mention line (``PMID start end text type [id]``) or a relation line (``PMID type id1
    id2 [...]``); a line whose offsets are not whole numbers (``NaN``, ``1e5``, ``²⁰``, 5,000
    digits) is a problem row naming the value, never a relation and never a traceback."""
    parts = line.split("\t")
    if rec.record_no < 0:
        rec.problem(line_no, "orphan_line", f"no document before this line: {line[:80]!r}")
        return
    if normal_pmid(parts[0].strip()) != rec.pmid:
        detail = f"line PMID {shown(parts[0])} inside {shown(rec.pmid)}"
        rec.problem(line_no, "pmid_mismatch", detail)
        return
    if len(parts) >= 4 and _REL_TYPE.match(parts[1]) and not _NOT_A_TYPE.match(parts[1]):
        rec.relations.append(tuple(parts[1:]))
        return
    if len(parts) < 5:
        rec.problem(line_no, "malformed_line", f"{len(parts)} fields: {line[:80]!r}")
        return
    (start, why_start), (end, why_end) = whole_number(parts[1]), whole_number(parts[2])
    if start is None or end is None:
        # a number too long for any text is a wrong offset; anything else, a garbled line
        kind = "bad_offset" if too_long(parts[1]) or too_long(parts[2]) else "malformed_line"
        rec.problem(line_no, kind, f"offset {why_start or why_end}: {line[:80]!r}")
        return
    raw_id = parts[5] if len(parts) > 5 else ""
    mention = make_mention(rec, line_no, start, end, parts[3], parts[4], raw_id, annotator)
    if mention is not None:
        rec.mentions.append(mention)
