"""A local corpus: a folder of per-year PubTator / BioC-JSON / BioC XML files, or single files.

The year of a record comes from its file name (``2014.pubtator``, as in DALK's ``by_year``
folder) or, failing that, from the record itself (BioC ``year`` infon / ``date``) or a default.
Records are grouped into year slices and handed out in year order; a PMID seen before (an
e-pub/print pair in consecutive year files, as 1,245 DALK PMIDs are) is a ``duplicate`` of its
first record: built once, in its first year, and never counted twice.

A year is published only if it is within 1800..next year (:mod:`kgbuild.sources.values`): the
records of ``0000.pubtator``, ``9999.pubtator`` or ``2099.pubtator`` end ``rejected`` with the
reason, and so do records whose own year is out of range. The folder is walked as
:func:`kgbuild.sources.files.walk` does: no link followed out of it, no FIFO or device opened
(each is one rejected record with a problem row), no warehouse read as input. Every other entry
of the folder (a file of no corpus format, a folder named ``2018.pubtator``) is one rejected
record too, read with the first year like any file that is never opened.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgbuild.errors import InputError, IntegrityError, KgbuildError
from kgbuild.records import DocStatus, Document, Mention, Problem, SourceRelation
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.bioc_xml import read_bioc_xml
from kgbuild.sources.files import Refusal, open_regular, walk
from kgbuild.sources.pubtator_files import count_records_in, read_pubtator
from kgbuild.sources.record import MAX_DOCUMENT_CHARS, SourceRecord
from kgbuild.sources.values import year_problem

_YEAR_IN_NAME = re.compile(r"(?<![0-9])((?:19|20)[0-9][0-9])(?![0-9])")
#: A name that is only a number of four digits (``0000.pubtator``) names a year too.
_YEAR_NAME = re.compile(r"^([0-9]{4})(?:\.|$)")
_PUBTATOR_SUFFIXES = {".pubtator", ".txt", ".pubtator.txt"}
_BIOC_SUFFIXES = {".json", ".bioc", ".biocjson"}
#: BioC XML (BioRED's ``Test.BioC.XML``, PubTator3's downloads); names are compared lower-cased.
_BIOC_XML_SUFFIXES = {".xml"}
#: What the walk reads, for the reason a file of any other name is not read.
FORMATS = "PubTator (.pubtator, .txt), BioC-JSON (.json, .bioc, .biocjson) or BioC XML (.xml)"


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: Path
    fmt: str  # pubtator | bioc | bioc-xml
    year: int | None
    #: Why the file is not read at all (problem kind, detail): it is one rejected record.
    refused: Refusal | None = None
    #: Why the year its name gives is unusable: each of its records is rejected with it.
    bad_year: str | None = None

    @property
    def rejected_anyway(self) -> bool:
        """Whether every record of the file ends ``rejected`` whatever year it is read in:
        such a file needs no year of its own (it is read with the corpus's first year). A file
        never opened is one, whatever year its name gives: a folder named ``2018.pubtator``
        or a FIFO makes no 2018 snapshot."""
        return self.refused is not None or (self.year is None and self.bad_year is not None)

    def digest(self) -> str:
        if self.refused:  # never opened: it may be a FIFO, a device, a link out of the source
            return f"refused: {self.refused[0]}"
        digest = hashlib.blake2b(digest_size=16)
        with open_regular(self.path) as fh:  # in blocks: a large year file is never held whole
            while block := fh.read(1 << 20):
                digest.update(block)
        return digest.hexdigest()


@dataclass(slots=True)
class YearSlice:
    """What one publication year adds: new unique documents, their mentions, every status."""

    year: int
    files: list[SourceFile]
    documents: list[Document] = field(default_factory=list)
    mentions: list[Mention] = field(default_factory=list)
    relations: list[SourceRelation] = field(default_factory=list)
    statuses: list[DocStatus] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _format(path: Path) -> str | None:
    name = path.name.lower()
    if any(name.endswith(s) for s in _PUBTATOR_SUFFIXES) and not name.startswith("pmid-"):
        return "pubtator"
    if any(name.endswith(s) for s in _BIOC_SUFFIXES):
        return "bioc"
    if any(name.endswith(s) for s in _BIOC_XML_SUFFIXES):
        return "bioc-xml"
    return None


def name_year(name: str) -> tuple[int | None, str | None]:
    """The year a file name gives (``2014.pubtator``, ``2015_good.json``), and why it is
    unusable when it is out of range (``0000.pubtator``, ``2099.pubtator``)."""
    m = _YEAR_NAME.match(name) or _YEAR_IN_NAME.search(Path(name).stem)
    if not m:
        return None, None
    year = int(m.group(1))
    why = year_problem(year)
    return (None, f"{why} (the year in the file name); not built") if why else (year, None)


def discover(source: Path, exclude: Iterable[Path] = ()) -> list[SourceFile]:
    """Corpus files under ``source`` (a folder or one file), with the year their name gives;
    folders in ``exclude`` (the warehouse) and anything that looks like a warehouse are not
    searched, and links out of ``source``, FIFOs and devices are refused (see
    :func:`kgbuild.sources.files.walk`)."""
    if not source.exists():
        raise InputError("source path does not exist", path=source)
    if source.is_dir():
        if any(Path(p).resolve() == source.resolve() for p in exclude):
            raise InputError("the warehouse is the source folder; give it a folder of its own")
        found = walk(source, lambda name: _format(Path(name)) is not None, exclude, FORMATS)
    elif source.is_file():  # named by the user: a link is followed, but it must be a file
        found = [(source, None)]
    else:
        raise InputError("source is neither a folder nor a regular file", path=source)
    files = []
    for p, refused in found:
        year, bad_year = name_year(p.name)
        fmt = _format(p) or "pubtator"  # a folder link out of the source: refused anyway
        files.append(SourceFile(p, fmt, year, refused, bad_year))
    if all(f.refused and f.refused[0] == "unknown_format" for f in files):  # none, or no corpus
        raise InputError(f"no {FORMATS} files found", path=source)
    return files


def read_file(sf: SourceFile, root: Path) -> Iterator[SourceRecord]:
    """The records of one file; a PubTator file's record count is checked against the title
    lines in its bytes (counted apart from the parser), so a record cannot vanish silently."""
    label = str(sf.path.relative_to(root)) if root.is_dir() else sf.path.name
    for rec in _records(sf, label):
        if sf.bad_year:
            rec.reject_reason = rec.reject_reason or sf.bad_year
        yield rec


def _refused(sf: SourceFile, label: str, kind: str, detail: str) -> SourceRecord:
    """The one record of an entry that is not read: rejected with why, and year-less, so it
    rides with the first year slice (:attr:`SourceFile.rejected_anyway`)."""
    rec = SourceRecord(pmid="", source_file=label, record_no=0, line_no=0, year=None)
    rec.problem(0, kind, detail)
    rec.reject_reason = f"file not read: {detail}"
    return rec


def _records(sf: SourceFile, label: str) -> Iterator[SourceRecord]:
    if sf.refused:
        yield _refused(sf, label, *sf.refused)
        return
    if sf.fmt == "bioc":  # one record per document entry, by construction
        yield from read_bioc(sf.path, year=sf.year, label=label)
        return
    if sf.fmt == "bioc-xml":  # one record per <document>, and one for a bad end of file
        yield from read_bioc_xml(sf.path, year=sf.year, label=label)
        return
    try:
        expected, n = count_records_in(sf.path), 0
    except (OSError, KgbuildError) as exc:  # gone, unreadable, or swapped since the walk
        yield _refused(sf, label, "unreadable", str(exc)[:200])
        return
    for rec in read_pubtator(sf.path, year=sf.year, label=label):
        n += rec.record_no > 0
        yield rec
    if n < expected:
        raise IntegrityError(
            f"{expected - n} of {expected} records were lost reading {label}; nothing was built"
        )


def parse_years(spec: str | None) -> tuple[int, int] | None:
    """``2011-2020`` / ``2015`` → inclusive bounds; None means every year present."""
    if not spec:
        return None
    m = re.fullmatch(r"\s*([0-9]{4})\s*(?:[-:]\s*([0-9]{4}))?\s*", spec)
    if not m:
        raise InputError("years must look like 2011-2020 or 2015", years=spec)
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if lo > hi:
        raise InputError("year range is reversed", years=spec)
    for year in (lo, hi):
        if why := year_problem(year):
            raise InputError(f"--years: {why}", years=spec)
    return lo, hi


def read_slices(
    source: Path,
    years: tuple[int, int] | None = None,
    default_year: int | None = None,
    seen: dict[str, tuple[str, int, str]] | None = None,
    files: Iterable[SourceFile] | None = None,
    max_chars: int = MAX_DOCUMENT_CHARS,
) -> Iterator[YearSlice]:
    """Year slices in year order; ``seen`` (PMID → (file, year, text digest)) carries dedupe.

    Files whose name gives a year outside ``years`` are not read at all; records of year-less
    files that fall outside ``years`` get status ``rejected`` with the reason, so the status
    table still accounts for them.
    """
    files = list(files) if files is not None else discover(source)
    if years:
        files = [f for f in files if f.year is None or years[0] <= f.year <= years[1]]
    by_year: dict[int, list[SourceRecord]] = defaultdict(list)
    files_by_year: dict[int, list[SourceFile]] = defaultdict(list)
    unplaced: list[SourceRecord] = []
    read: Counter[str] = Counter()
    for sf in files:
        for rec in read_file(sf, source):
            read[rec.source_file] += 1
            year = rec.year if rec.year is not None else default_year
            if year is None:
                rec.reject_reason = (
                    rec.reject_reason or "no publication year (none in the file name or record)"
                )
                unplaced.append(rec)
            elif why := year_problem(year):
                rec.reject_reason = rec.reject_reason or f"{why}; not built"
                rec.year = None
                unplaced.append(rec)
            elif years and not years[0] <= year <= years[1]:
                rec.reject_reason = (
                    rec.reject_reason or f"year {year} outside requested {years[0]}-{years[1]}"
                )
                unplaced.append(rec)
            else:
                rec.year = year
                by_year[year].append(rec)
                if sf not in files_by_year[year]:
                    files_by_year[year].append(sf)
    if not by_year and not unplaced:
        raise InputError(
            "no input records for the requested years",
            path=source,
            years=f"{years[0]}-{years[1]}" if years else "all",
        )
    if not by_year:
        raise InputError(
            "no record has a publication year in the requested range",
            hint="name files by year (2014.pubtator), or pass --default-year",
        )
    placed = Counter(r.source_file for recs in (*by_year.values(), unplaced) for r in recs)
    if placed != read:
        raise IntegrityError("records read but not placed in a year slice", files=read - placed)
    seen = {} if seen is None else seen
    ordered = sorted(by_year)
    for i, year in enumerate(ordered):
        extra = unplaced if i == 0 else []
        yield make_slice(year, files_by_year[year], by_year[year] + extra, seen, max_chars)


def text_digest(title: str, abstract: str) -> str:
    return hashlib.blake2b(f"{title} {abstract}".encode(), digest_size=12).hexdigest()


def make_slice(
    year: int,
    files: list[SourceFile],
    records: list[SourceRecord],
    seen: dict[str, tuple[str, int, str]],
    max_chars: int = MAX_DOCUMENT_CHARS,
) -> YearSlice:
    """One year's slice: every record gets exactly one status (built, duplicate, rejected)."""
    out = YearSlice(year=year, files=files)
    for rec in records:
        out.problems.extend(rec.problems)
        status, reason = "built", "; ".join(rec.warnings) or "ok"
        size = len(rec.title) + 1 + len(rec.abstract)
        if not rec.reject_reason and size > max_chars:
            rec.reject_reason = (
                f"document of {size:,} characters is over the {max_chars:,}-character limit "
                "(--max-doc-chars); not built"
            )
        if rec.reject_reason:
            status, reason = "rejected", rec.reject_reason
        elif rec.pmid in seen:
            first_file, first_year, digest = seen[rec.pmid]
            same = digest == text_digest(rec.title, rec.abstract)
            status = "duplicate"
            reason = (
                f"PMID first built from {first_file} ({first_year}); "
                f"{'identical text' if same else 'text differs, first kept'}"
            )
        else:
            seen[rec.pmid] = (rec.source_file, year, text_digest(rec.title, rec.abstract))
            out.documents.append(rec.document(year, rec.source_file))
            out.mentions.extend(rec.mentions)
            out.relations.extend(
                SourceRelation(
                    rec.pmid,
                    r[0],
                    r[1] if len(r) > 1 else "",
                    r[2] if len(r) > 2 else "",
                    "\t".join(r[3:]),
                    rec.source_file,
                )
                for r in rec.relations
            )
        out.statuses.append(
            DocStatus(
                pmid=rec.pmid,
                source_file=rec.source_file,
                record_no=rec.record_no,
                year=rec.year,
                status=status,
                reason=reason,
                n_mentions=len(rec.mentions),
                n_problems=len(rec.problems),
            )
        )
    if len(out.statuses) != len(records):
        raise IntegrityError("a record of the slice has no status", year=year)
    return out
