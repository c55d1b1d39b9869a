"""PubTator3 BioC-JSON reader (API responses ``{"PubTator3": [...]}``, BioC collections, lists).

BioC offsets are global to the document; kgbuild's text is title + " " + abstract, so each
annotation is re-based from its passage's offset onto where that passage sits in our text.
Passages other than title and abstract (full-text sections) are not part of an abstract KG and
are recorded as a warning rather than silently mixed in.

Valid JSON can still have the wrong shape (a ``passages`` that is a string, a text that is a
number, absurd nesting). Every field is read through a checked accessor: a document whose
structure is unusable ends ``rejected`` with the reason, a bad annotation is a ``problems`` row,
and the rest of the file and corpus builds. Numbers are checked too: a JSON integer
of thousands of digits, ``NaN``/``Infinity``/``1e5`` where an id or offset belongs, or a year
written in superscripts or outside 1800..next year reject their document (or annotation) with
the value in the reason. A file is parsed whole, so one over :data:`MAX_JSON_BYTES` is refused
with a problem row rather than read into memory.
"""

from __future__ import annotations

import json
import os
import re
import reprlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.sources.files import open_regular
from kgbuild.sources.record import SourceRecord, finish, make_mention
from kgbuild.sources.values import (
    MAX_DIGITS,
    normal_pmid,
    padded_pmid_problem,
    parse_year,
    pmid_problem,
    whole_number,
)

#: Largest BioC-JSON file read (bytes). ``json`` parses a whole file at once, taking several
#: times its size in memory; PubTator3 answers 100 abstracts in well under 1 MB, and a year of
#: a corpus is better split into files (or given as PubTator text, which is streamed).
MAX_JSON_BYTES = 64 << 20
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 2, 60, 60, 4, 4


class Malformed(ValueError):
    """A BioC document whose structure cannot be read (the reason is the message)."""


def short(value: Any) -> str:
    """A bounded, recursion-safe rendering of any JSON value, for reasons and problems."""
    return _REPR.repr(value)


def bioc_documents(payload: Any) -> list[Any]:
    """The document entries of any BioC-JSON shape PubTator3 and BioC tools emit (entries that
    are not objects included: a reader rejects them rather than dropping them)."""
    if isinstance(payload, list):
        return payload
    if isinstance(payload, dict):
        for key in ("PubTator3", "documents"):
            if isinstance(payload.get(key), list):
                return payload[key]
        if "passages" in payload:
            return [payload]
    return []


def _obj(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Malformed(f"{what} is a {type(value).__name__}, not an object")
    return value


def _items(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Malformed(f"{what} is a {type(value).__name__}, not a list")
    return value


def _text(value: Any, what: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Malformed(f"{what} is a {type(value).__name__}, not a string")
    return value


def _int(value: Any, what: str) -> int:
    """An integer field: a JSON integer or a string of one, of at most ``MAX_DIGITS`` digits
    (a float, ``NaN``, ``Infinity``, ``"1e5"`` or superscript digits are not)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise Malformed(f"{what} is not an integer: {short(value)}")
    number = whole_number(value)[0] if isinstance(value, str) else value
    if number is None or abs(number) >= 10**MAX_DIGITS:
        raise Malformed(f"{what} is not an integer of at most {MAX_DIGITS} digits: {short(value)}")
    return number


def _json_int(text: str) -> int | str:
    """A JSON integer literal; one of more than ``MAX_DIGITS`` digits stays text (``int()``
    raises past 4,300 digits, and no offset, length or id is that long), so the field that
    holds it is refused with its value rather than the whole file with a traceback."""
    return int(text) if len(text.lstrip("-")) <= MAX_DIGITS else text


def _scalar(value: Any) -> str:
    """An id-like field: a string or number, else ''."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return str(value).strip()


def _id_text(value: Any) -> str:
    """An id field as text; a JSON float (``1e5``, ``NaN``, ``Infinity``, ``-0.0``) is no id."""
    if isinstance(value, float):
        raise Malformed(f"document id {short(value)} is a JSON number with a fraction or exponent")
    return _scalar(value)


def raw_pmid(doc: dict[str, Any]) -> str:
    """A BioC document's PMID as written: ``pmid``, else the PMID half of PubTator3's ``_id``
    (``"28041912|None"``, kept when ``id`` was replaced by a DOI), else ``id``."""
    pmid = _id_text(doc.get("pmid"))
    if pmid:
        return pmid
    head = _scalar(doc.get("_id")).split("|", 1)[0].strip()
    return head if re.fullmatch(r"[0-9]+", head) else _id_text(doc.get("id"))


def doc_pmid(doc: dict[str, Any]) -> str:
    """A BioC document's PMID (:func:`raw_pmid`) as PubMed writes it: ``0091000001`` is
    ``91000001`` (:func:`kgbuild.sources.values.normal_pmid`), in every reader alike."""
    return normal_pmid(raw_pmid(doc))


def _year(doc: dict[str, Any], passages: list[dict[str, Any]]) -> tuple[int | None, str | None]:
    """The record's own year (a passage's ``year`` infon, else the document's ``date``) and,
    when no field gives a usable one but some field is there (``²⁰¹⁵``, ``NaN``, ``9999``),
    why the first of them is unusable."""
    fields = [("year", _obj(p.get("infons"), "passage infons").get("year")) for p in passages]
    first_bad = None
    for what, value in [*fields, ("date", doc.get("date"))]:
        year, why = parse_year(_scalar(value) if value is not None else "")
        if year is not None:
            return year, None
        first_bad = first_bad or (f"BioC {what}: {why}" if why else None)
    return None, first_bad


def bioc_record(
    doc: Any,
    source_file: str,
    record_no: int,
    annotator: str = "pubtator3",
    file_year: int | None = None,
) -> SourceRecord:
    """One BioC document → a SourceRecord (never raises on bad content: a document of the
    wrong shape is a rejected record saying what is wrong). ``file_year``: the year the file's
    name gives, which wins over the record's own (an unusable own year is then a problem row;
    without a file year, it rejects the record)."""
    rec = SourceRecord(pmid="", source_file=source_file, record_no=record_no, line_no=record_no,
                       year=file_year)  # fmt: skip
    try:
        if not isinstance(doc, dict):
            raise Malformed(f"document is a {type(doc).__name__}, not an object: {short(doc)}")
        written = raw_pmid(doc)
        pmid = normal_pmid(written)
        if not pmid:
            rec.reject_reason = "BioC document without id/pmid"
            return rec
        why = pmid_problem(pmid)
        if why:
            raise Malformed(why)
        rec.pmid = pmid
        if padded := padded_pmid_problem(written, pmid):
            rec.problem(record_no, "normalized", padded)
        _read_document(rec, doc, annotator, file_year)
    except Malformed as exc:
        rec.reject_reason = f"malformed BioC document: {exc}"
        rec.problem(record_no, "malformed_document", str(exc))
        rec.mentions, rec.relations = [], []
        return rec
    return finish(rec)


def _read_document(
    rec: SourceRecord, doc: dict[str, Any], annotator: str, file_year: int | None
) -> None:
    passages = [_obj(p, "passage") for p in _items(doc.get("passages"), "passages")]
    own, why = _year(doc, passages)
    if why:
        rec.problem(rec.record_no, "bad_year", why)
        if file_year is None:
            rec.reject_reason = f"{why}; not built"
    if file_year is None:
        rec.year = own
    journal = doc.get("journal")
    rec.journal = journal if isinstance(journal, str) and journal else None
    roles = _roles([_obj(p.get("infons"), "passage infons").get("type") for p in passages])
    title = [p for p, r in zip(passages, roles, strict=True) if r == "title"]
    abstract = [p for p, r in zip(passages, roles, strict=True) if r == "abstract"]
    other = len(passages) - len(title) - len(abstract)
    if other:
        rec.warnings.append(f"{other} non-abstract passages ignored")
        rec.problem(
            rec.record_no, "extra_passages", f"{other} passages are neither title nor abstract"
        )
    rec.title = " ".join(_text(p.get("text"), "passage text") for p in title[:1])
    rec.abstract = " ".join(_text(p.get("text"), "passage text") for p in abstract)
    # Where each kept passage starts in our text, versus where BioC says it starts.
    placed: list[tuple[dict[str, Any], int]] = [(p, 0) for p in title[:1]]
    pos = len(rec.title) + 1
    for p in abstract:
        placed.append((p, pos))
        pos += len(_text(p.get("text"), "passage text")) + 1
    for passage, ours in placed:
        base = _int(passage.get("offset") or 0, "passage offset")
        try:
            annotations = _items(passage.get("annotations"), "passage annotations")
        except Malformed as exc:  # the text is fine: build it, without these annotations
            rec.problem(rec.record_no, "malformed_annotation", str(exc))
            annotations = []
        for ann in annotations:
            _annotation(rec, ann, base, ours, annotator)
    try:
        relations = _items(doc.get("relations"), "relations")
    except Malformed as exc:
        rec.problem(rec.record_no, "malformed_relation", str(exc))
        relations = []
    for rel in relations:
        try:
            infons = _obj(_obj(rel, "relation").get("infons"), "relation infons")
        except Malformed as exc:
            rec.problem(rec.record_no, "malformed_relation", f"{exc}: {short(rel)}")
            continue
        rec.relations.append(_relation(infons))


def _roles(kinds: list[Any]) -> list[str]:
    """``title``, ``abstract`` or ``other`` per passage, by its ``type`` infon; a collection
    whose passages carry no type at all (BioRED's BioC-JSON) is title first, abstract after."""
    if kinds and all(k is None for k in kinds):
        return ["title", *["abstract"] * (len(kinds) - 1)]
    return [
        "title" if k in ("title", "front") else "abstract" if k == "abstract" else "other"
        for k in kinds
    ]


def _relation(infons: dict[str, Any]) -> tuple[str, ...]:
    """(type, id1, id2, extra): PubTator3's ``role1``/``role2`` (+ ``score``) or BioRED's
    ``entity1``/``entity2`` (+ ``novel``), as PubTator relation lines carry them."""
    r1 = infons.get("role1", infons.get("entity1"))
    r2 = infons.get("role2", infons.get("entity2"))
    id1 = r1.get("identifier") if isinstance(r1, dict) else r1
    id2 = r2.get("identifier") if isinstance(r2, dict) else r2
    extra = infons.get("novel", infons.get("score"))
    return (_scalar(infons.get("type")), _scalar(id1), _scalar(id2), _scalar(extra))


def _annotation(rec: SourceRecord, ann: Any, base: int, ours: int, annotator: str) -> None:
    """One annotation; a malformed one is a problem row, the document is still built."""
    try:
        ann = _obj(ann, "annotation")
        infons = _obj(ann.get("infons"), "annotation infons")
        locations = _items(ann.get("locations"), "annotation locations")
        if not locations:
            raise Malformed("annotation has no location")
        loc = _obj(locations[0], "annotation location")
        start = _int(loc.get("offset"), "annotation offset") - base + ours
        end = start + _int(loc.get("length"), "annotation length")
        text = _text(ann.get("text"), "annotation text")
        source_type = _scalar(infons.get("type"))
        # PubTator/BioRED name the ID "identifier"; BC5CDR's BioC files name it "MESH"
        raw_id = infons.get("identifier", infons.get("MESH"))
    except Malformed as exc:
        rec.problem(rec.record_no, "malformed_annotation", f"{exc}: {short(ann)}")
        return
    raw = "" if raw_id in (None, "None", "-") else _scalar(raw_id)
    mention = make_mention(rec, rec.record_no, start, end, text, source_type, raw, annotator)
    if mention is not None:
        rec.mentions.append(mention)


def read_bioc(
    path: Path,
    year: int | None = None,
    annotator: str = "pubtator3",
    label: str | None = None,
    max_bytes: int = MAX_JSON_BYTES,
) -> Iterator[SourceRecord]:
    """Records of one BioC-JSON file; an unreadable file yields one rejected record saying why
    (a file over ``max_bytes`` is not read at all)."""
    source_file = label or path.name
    try:
        payload = _load(path, max_bytes)
    except (ValueError, RecursionError, InputError, OSError) as exc:
        why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
        kind = "malformed_file"
        if isinstance(exc, _TooLarge | InputError | OSError):
            kind = "file_too_large" if isinstance(exc, _TooLarge) else "unreadable"
        bad = SourceRecord(pmid="", source_file=source_file, record_no=0, line_no=0, year=year)
        bad.reject_reason = f"unreadable BioC-JSON: {why}"
        bad.problem(0, kind, why)
        yield bad
        return
    docs = bioc_documents(payload)
    if not docs:
        bad = SourceRecord(pmid="", source_file=source_file, record_no=0, line_no=0, year=year)
        bad.reject_reason = f"no BioC documents in file (top level: {short(payload)})"
        yield bad
        return
    for i, doc in enumerate(docs, start=1):
        yield bioc_record(doc, source_file, i, annotator, year)


class _TooLarge(ValueError):
    """A BioC-JSON file over the size read whole."""


def _load(path: Path, max_bytes: int) -> Any:
    """The parsed file, read only if a regular file of at most ``max_bytes`` (checked on the
    open file, and again by reading at most one byte more)."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(max_bytes + 1) if size <= max_bytes else b""
    if size > max_bytes or len(data) > max_bytes:
        size = max(size, len(data))
        raise _TooLarge(
            f"file of {size:,} bytes is over the {max_bytes:,}-byte limit for BioC-JSON; "
            "split it, or give the corpus as PubTator text"
        )
    return json.loads(data.decode("utf-8-sig", errors="strict"), parse_int=_json_int)
