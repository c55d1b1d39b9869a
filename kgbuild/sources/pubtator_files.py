"""PubTator text format reader (``PMID|t|title``, ``PMID|a|abstract``, tab-separated annotations).

Format (NCBI PubTator export): a title line, an abstract line, then one line per mention
``PMID\\tstart\\tend\\tmention\\ttype\\tid`` (offsets into title + " " + abstract) and optional
relation lines ``PMID\\ttype\\tid1\\tid2[...]``; a blank line ends a document.

The reader never raises on content: each undecodable byte, malformed line or stray annotation
becomes a Problem attached to its record (or to a placeholder record when no document owns it).
Line endings (CRLF, CR-only) and byte-order marks (UTF-8, UTF-16) are normalized before lines are
split: a CR-only file read as one line would lose all but its first record, and a BOM glued to
the first PMID makes a second, bogus one. :func:`count_records` counts record starts in the raw
bytes independently of the parser, so a reader that loses a record is caught (see
:func:`kgbuild.sources.local.read_slices`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from kgbuild.sources.record import SourceRecord, finish, make_mention

_TEXT_LINE = re.compile(r"^([^|\t]+)\|([ta])\|(.*)$")
#: A title line in raw bytes (a BOM allowed): what :func:`count_records` counts.
_TITLE_LINE = re.compile(rb"^(?:\xef\xbb\xbf)?[^|\t\r\n]+\|t\|")
_INT = re.compile(r"^[+-]?\d+$")
#: A relation line's type: a word (CID, Association, Positive_Correlation, Bind…).
_REL_TYPE = re.compile(r"^[A-Za-z][\w\-]*$")
_BOM = b"\xef\xbb\xbf"


def normalize_bytes(data: bytes) -> tuple[bytes, list[str]]:
    """UTF-16 → UTF-8, byte-order marks at line starts removed, CRLF/CR line endings → LF;
    returns the bytes and what was changed (each becomes a problem row of the first record)."""
    notes = []
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        data = data.decode("utf-16").encode("utf-8")
        notes.append("UTF-16 file read as UTF-8")
    if b"\n" not in data and b"\r" in data:
        data = data.replace(b"\r", b"\n")
        notes.append("CR-only line endings read as LF")
    if _BOM in data:
        lines = data.split(b"\n")
        n = sum(line.startswith(_BOM) for line in lines)
        if n:
            data = b"\n".join(line.removeprefix(_BOM) for line in lines)
            notes.append(f"{n} byte-order mark(s) removed from line starts")
    return data, notes


def _scan(path: Path) -> tuple[bool, list[str]]:
    """Whether the file can be read line by line as it is (not UTF-16, not CR-only: what
    :func:`normalize_bytes` would rewrite as a whole), and the notes it would make; one pass
    over the file, a line at a time (issue 17: a year file of a large corpus is never held)."""
    with open(path, "rb") as fh:
        if fh.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            return False, []
        fh.seek(0)
        boms, lf, cr = 0, False, False
        for line in fh:
            lf = lf or line.endswith(b"\n")
            cr = cr or b"\r" in line
            boms += line.startswith(_BOM)
    if not lf and cr:
        return False, []
    return True, [f"{boms} byte-order mark(s) removed from line starts"] if boms else []


def _stream_lines(path: Path) -> Iterator[bytes]:
    """The file's lines as ``data.split(b"\n")`` of the normalized bytes gives them (BOMs at
    line starts removed), read one at a time."""
    with open(path, "rb") as fh:
        last = b""
        for line in fh:
            last = line
            yield line.removesuffix(b"\n").removeprefix(_BOM)
        if not last or last.endswith(b"\n"):
            yield b""  # split() gives an empty last element after a final newline


def count_records_in(path: Path) -> int:
    """:func:`count_records` of a file, reading it a line at a time where it can."""
    stream, _ = _scan(path)
    if not stream:
        return count_records(path.read_bytes())
    with open(path, "rb") as fh:
        return sum(bool(_TITLE_LINE.match(line)) for line in fh)


def count_records(data: bytes) -> int:
    """Title lines in the raw ``data`` (LF or CRLF lines, or CR lines in a file without LF; a
    BOM or not): every one starts a record, so a reader yielding fewer records lost some."""
    sep = b"\n" if b"\n" in data else b"\r"
    return sum(bool(_TITLE_LINE.match(line)) for line in data.split(sep))


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
    path: Path, year: int | None = None, annotator: str = "pubtator", label: str | None = None
) -> Iterator[SourceRecord]:
    """Records of one PubTator text file, in file order, each with its problems."""
    source_file = label or path.name
    stream, notes = _scan(path)
    if stream:
        lines: Iterator[bytes] = _stream_lines(path)
    else:
        data, notes = normalize_bytes(path.read_bytes())
        lines = iter(data.split(b"\n"))
    rec: SourceRecord | None = None
    record_no = 0
    # lines that belong to no record still belong to the file's year (the same slice however
    # the build is split into runs)
    orphans = SourceRecord(pmid="", source_file=source_file, record_no=-1, line_no=0, year=year)

    def close() -> Iterator[SourceRecord]:
        if rec is not None:
            yield finish(rec)

    for line_no, raw in enumerate(lines, start=1):
        raw = raw.rstrip(b"\r")
        line, ok = decode_line(raw)
        if not line.strip():
            yield from close()
            rec = None
            continue
        m = _TEXT_LINE.match(line)
        if m:
            pmid, kind, text = m.group(1).strip(), m.group(2), m.group(3)
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
                if kind == "a":
                    rec.problem(line_no, "missing_title", "abstract line without a title line")
                if record_no == 1:
                    for note in notes:
                        rec.problem(0, "normalized", note)
            if not ok:
                rec.problem(line_no, "non_utf8", "line is not UTF-8; decoded as cp1252")
                rec.warnings.append("non-UTF-8 bytes decoded as cp1252")
            if kind == "t":
                rec.title = text
            else:
                rec.abstract = text
            continue
        owner = rec if rec is not None else orphans
        if not ok:
            owner.problem(line_no, "non_utf8", "annotation line is not UTF-8; decoded as cp1252")
        _annotation_line(owner, line_no, line, annotator)
    yield from close()
    if orphans.problems:
        orphans.reject_reason = "lines outside any document"
        yield orphans
    elif record_no == 0:  # nothing in the file was a record: say so rather than say nothing
        orphans.reject_reason = "no PubTator records in file (empty or not PubTator text)"
        yield orphans


def _annotation_line(rec: SourceRecord, line_no: int, line: str, annotator: str) -> None:
    parts = line.split("\t")
    if rec.record_no < 0:
        rec.problem(line_no, "orphan_line", f"no document before this line: {line[:80]!r}")
        return
    if parts[0].strip() != rec.pmid:
        rec.problem(line_no, "pmid_mismatch", f"line PMID {parts[0]!r} inside {rec.pmid}")
        return
    if len(parts) >= 5 and _INT.match(parts[1]) and _INT.match(parts[2]):
        raw_id = parts[5] if len(parts) > 5 else ""
        mention = make_mention(
            rec, line_no, int(parts[1]), int(parts[2]), parts[3], parts[4], raw_id, annotator
        )
        if mention is not None:
            rec.mentions.append(mention)
    elif len(parts) >= 4 and _REL_TYPE.match(parts[1]):
        rec.relations.append(tuple(parts[1:]))
    else:
        rec.problem(line_no, "malformed_line", f"{len(parts)} fields: {line[:80]!r}")
