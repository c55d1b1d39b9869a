"""BioC XML reader (the BioC DTD: ``collection/document/passage/annotation``), as BioRED ships
its test split (``Test.BioC.XML``) and PubTator3 its downloads (such a file beside a
``.pubtator`` file used to be skipped without a word).

Each ``<document>`` becomes the object the same document is in BioC-JSON and goes through
:func:`kgbuild.sources.bioc.bioc_record`, so the two encodings of one content give the same
records: the same offsets re-based onto title + " " + abstract, the same year rules (the file
name's year, else a passage's ``year`` infon; the collection's ``<date>`` is when the file was
written, not when the article was published, and is not used), the same checks of every id,
offset and length, the same problems. Two XML-only shapes are mapped on the way: relations
inside a passage are the document's relations, and PubTator3's ``role1``/``role2`` infons
written ``Chemical|MESH:D003911`` are the ``{"type", "identifier"}`` objects its JSON has.

The file is untrusted XML. It is parsed by :mod:`defusedxml`, which refuses entity
declarations (a "billion laughs" file is one rejected record in milliseconds, not gigabytes)
and external entities (nothing is read from disk or fetched: ``file:///etc/passwd`` never
reaches a record); the DTD that BioC files name (``<!DOCTYPE collection SYSTEM "BioC.dtd">``)
is accepted and never opened. A file over :data:`MAX_XML_BYTES` is refused unread, as a
BioC-JSON one is. Documents are handed out as they are parsed and then dropped, so a file cut
short keeps the documents before the cut, and the rest is one rejected record saying where.
"""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from kgbuild.errors import InputError
from kgbuild.sources.bioc import bioc_record
from kgbuild.sources.files import open_regular
from kgbuild.sources.record import SourceRecord
from kgbuild.sources.values import shown
from kgbuild.sources.xml_encoding import BadEncoding, utf8_xml

#: Largest BioC XML file read (bytes), the limit of BioC-JSON too
#: (:data:`kgbuild.sources.bioc.MAX_JSON_BYTES`): the bytes are held while their documents are
#: parsed one at a time.
MAX_XML_BYTES = 64 << 20


class _Refused(ValueError):
    """A file that is not read as BioC XML; ``kind`` is its problem row's kind."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind = kind


def read_bioc_xml(
    path: Path,
    year: int | None = None,
    annotator: str = "pubtator3",
    label: str | None = None,
    max_bytes: int = MAX_XML_BYTES,
) -> Iterator[SourceRecord]:
    """Records of one BioC XML file: one per ``<document>`` of its ``<collection>``, and one
    rejected record when the file, or what follows its last good document, cannot be read
    (over ``max_bytes``, unsafe, malformed, not BioC, no documents)."""
    source_file = label or path.name
    n = 0
    try:
        data, note = utf8_xml(_load(path, max_bytes))
        for doc in _documents(data):
            n += 1
            rec = bioc_record(doc, source_file, n, annotator, year)
            if note and n == 1:  # the file's note rides on its first record, as PubTator's do
                rec.problem(0, "bad_encoding", note)
            yield rec
    except BadEncoding as exc:
        yield _bad(source_file, year, "bad_encoding", str(exc), n)
        return
    except _Refused as exc:
        yield _bad(source_file, year, exc.kind, str(exc), n)
        return
    except DefusedXmlException as exc:
        yield _bad(source_file, year, "unsafe_xml", _unsafe(exc), n)
        return
    except ET.ParseError as exc:
        yield _bad(source_file, year, "malformed_file", f"malformed XML: {exc}", n)
        return
    except (InputError, OSError) as exc:
        yield _bad(source_file, year, "unreadable", str(exc)[:200], n)
        return
    if n == 0:
        yield _bad(source_file, year, "no_documents", "no <document> in the <collection>", 0)


def _bad(source_file: str, year: int | None, kind: str, why: str, after: int) -> SourceRecord:
    """The rejected record of a file (or of its end, past document ``after``) not read."""
    where = f" after document {after}" if after else ""
    rec = SourceRecord(pmid="", source_file=source_file, record_no=0, line_no=0, year=year)
    rec.reject_reason = f"unreadable BioC XML{where}: {why}"
    rec.problem(0, kind, f"{why}{where}")
    return rec


def _unsafe(exc: DefusedXmlException) -> str:
    """Why a file was refused by defusedxml, in words (never the entity's expansion)."""
    name = getattr(exc, "name", None)
    sysid = getattr(exc, "sysid", None)
    if type(exc).__name__ == "EntitiesForbidden":
        return f"declares entity {shown(name)}; entities are never expanded, the file not read"
    if type(exc).__name__ == "ExternalReferenceForbidden":
        return f"refers to external entity {shown(sysid)}; nothing is fetched, the file not read"
    return f"{type(exc).__name__}: the file not read"


def _load(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, read only if a regular file of at most ``max_bytes`` (checked on the
    open file, and again by reading at most one byte more)."""
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        data = fh.read(max_bytes + 1) if size <= max_bytes else b""
    if size > max_bytes or len(data) > max_bytes:
        size = max(size, len(data))
        raise _Refused(
            "file_too_large",
            f"file of {size:,} bytes is over the {max_bytes:,}-byte limit for BioC XML; "
            "split it, or give the corpus as PubTator text",
        )
    return data


def _documents(data: bytes) -> Iterator[dict[str, Any]]:
    """Each ``<document>`` child of the root ``<collection>``, as BioC-JSON's document object,
    dropped from the tree once handed out (memory: one document, not the file)."""
    depth = 0
    root: ET.Element | None = None
    for event, el in iterparse(io.BytesIO(data), events=("start", "end")):
        if event == "start":
            if root is None:
                root = el
                if el.tag != "collection":
                    why = f"root element {shown(el.tag)} is not BioC's 'collection'"
                    raise _Refused("not_bioc", why)
            depth += 1
            continue
        depth -= 1
        if depth == 1 and root is not None:
            if el.tag == "document":
                yield _document(el)
            root.clear()  # what was handed out (and <source>, <date>, <key>) is not kept


def _infons(el: ET.Element) -> dict[str, Any]:
    return {i.get("key", ""): i.text or "" for i in el.findall("infon")}


def _document(el: ET.Element) -> dict[str, Any]:
    passages = el.findall("passage")
    relations = el.findall("relation") + [r for p in passages for r in p.findall("relation")]
    return {
        "id": el.findtext("id"),
        "passages": [_passage(p) for p in passages],
        "relations": [_relation(r) for r in relations],
    }


def _passage(el: ET.Element) -> dict[str, Any]:
    return {
        "infons": _infons(el),
        "offset": el.findtext("offset"),
        "text": el.findtext("text"),
        "annotations": [_annotation(a) for a in el.findall("annotation")],
    }


def _annotation(el: ET.Element) -> dict[str, Any]:
    locations = [{"offset": loc.get("offset"), "length": loc.get("length")}
                 for loc in el.findall("location")]  # fmt: skip
    return {"id": el.get("id"), "infons": _infons(el), "text": el.findtext("text"),
            "locations": locations}  # fmt: skip


def _relation(el: ET.Element) -> dict[str, Any]:
    infons = _infons(el)
    for role in ("role1", "role2"):  # PubTator3 XML: "Chemical|MESH:D003911"; its JSON: objects
        kind, bar, identifier = str(infons.get(role, "")).partition("|")
        if bar:
            infons[role] = {"type": kind, "identifier": identifier}
    return {"id": el.get("id"), "infons": infons}
