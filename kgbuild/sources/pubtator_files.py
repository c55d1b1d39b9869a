"""PubTator text format reader (``PMID|t|title``, ``PMID|a|abstract``, tab-separated annotations).

Format (NCBI PubTator export): a title line, an abstract line, then one line per mention
``PMID\\tstart\\tend\\tmention\\ttype\\tid`` (offsets into title + " " + abstract) and optional
relation lines ``PMID\\ttype\\tid1\\tid2[...]``; a blank line ends a document.

The reader never raises on content: each undecodable byte, malformed line or stray annotation
becomes a Problem attached to its record (or to a placeholder record when no document owns it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from kgbuild.sources.record import SourceRecord, finish, make_mention

_TEXT_LINE = re.compile(r"^([^|\t]+)\|([ta])\|(.*)$")


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
    data = path.read_bytes()
    rec: SourceRecord | None = None
    record_no = 0
    orphans = SourceRecord(pmid="", source_file=source_file, record_no=-1, line_no=0)

    def close() -> Iterator[SourceRecord]:
        if rec is not None:
            yield finish(rec)

    for line_no, raw in enumerate(data.split(b"\n"), start=1):
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


def _annotation_line(rec: SourceRecord, line_no: int, line: str, annotator: str) -> None:
    parts = line.split("\t")
    if rec.record_no < 0:
        rec.problem(line_no, "orphan_line", f"no document before this line: {line[:80]!r}")
        return
    if parts[0].strip() != rec.pmid:
        rec.problem(line_no, "pmid_mismatch", f"line PMID {parts[0]!r} inside {rec.pmid}")
        return
    if len(parts) >= 5 and parts[1].isdigit() and parts[2].isdigit():
        raw_id = parts[5] if len(parts) > 5 else ""
        mention = make_mention(
            rec, line_no, int(parts[1]), int(parts[2]), parts[3], parts[4], raw_id, annotator
        )
        if mention is not None:
            rec.mentions.append(mention)
    elif len(parts) >= 4 and not parts[1].isdigit():
        rec.relations.append(tuple(parts[1:]))
    else:
        rec.problem(line_no, "malformed_line", f"{len(parts)} fields: {line[:80]!r}")
