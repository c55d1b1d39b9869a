"""PubTator3 BioC-JSON reader (API responses ``{"PubTator3": [...]}``, BioC collections, lists).

BioC offsets are global to the document; kgbuild's text is title + " " + abstract, so each
annotation is re-based from its passage's offset onto where that passage sits in our text.
Passages other than title and abstract (full-text sections) are not part of an abstract KG and
are recorded as a warning rather than silently mixed in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgbuild.sources.record import SourceRecord, finish, make_mention


def bioc_documents(payload: Any) -> list[dict[str, Any]]:
    """The documents of any BioC-JSON shape PubTator3 and BioC tools emit."""
    if isinstance(payload, list):
        return [d for d in payload if isinstance(d, dict)]
    if isinstance(payload, dict):
        for key in ("PubTator3", "documents"):
            if isinstance(payload.get(key), list):
                return [d for d in payload[key] if isinstance(d, dict)]
        if "passages" in payload:
            return [payload]
    return []


def doc_pmid(doc: dict[str, Any]) -> str:
    """A BioC document's PMID: ``pmid``, else the PMID half of PubTator3's ``_id``
    (``"28041912|None"``, kept when ``id`` was replaced by a DOI), else ``id``."""
    pmid = str(doc.get("pmid") or "").strip()
    if pmid:
        return pmid
    head = str(doc.get("_id") or "").split("|", 1)[0].strip()
    return head if head.isdigit() else str(doc.get("id") or "").strip()


def _year(doc: dict[str, Any]) -> int | None:
    for p in doc.get("passages") or []:
        y = str((p.get("infons") or {}).get("year") or "")
        if y[:4].isdigit():
            return int(y[:4])
    date = str(doc.get("date") or "")
    return int(date[:4]) if date[:4].isdigit() else None


def bioc_record(
    doc: dict[str, Any], source_file: str, record_no: int, annotator: str = "pubtator3"
) -> SourceRecord:
    """One BioC document → a SourceRecord (never raises on bad content)."""
    pmid = doc_pmid(doc)
    rec = SourceRecord(
        pmid=pmid,
        source_file=source_file,
        record_no=record_no,
        line_no=record_no,
        year=_year(doc),
        journal=doc.get("journal") or None,
    )
    if not pmid:
        rec.reject_reason = "BioC document without id/pmid"
        return rec
    passages = [p for p in doc.get("passages") or [] if isinstance(p, dict)]
    title = [p for p in passages if _role(p, passages) == "title"]
    abstract = [p for p in passages if _role(p, passages) == "abstract"]
    other = len(passages) - len(title) - len(abstract)
    if other:
        rec.warnings.append(f"{other} non-abstract passages ignored")
        rec.problem(record_no, "extra_passages", f"{other} passages are neither title nor abstract")
    rec.title = " ".join(str(p.get("text") or "") for p in title[:1])
    rec.abstract = " ".join(str(p.get("text") or "") for p in abstract)
    # Where each kept passage starts in our text, versus where BioC says it starts.
    placed: list[tuple[dict[str, Any], int]] = [(p, 0) for p in title[:1]]
    pos = len(rec.title) + 1
    for p in abstract:
        placed.append((p, pos))
        pos += len(str(p.get("text") or "")) + 1
    for passage, ours in placed:
        base = int(passage.get("offset") or 0)
        for ann in passage.get("annotations") or []:
            _annotation(rec, ann, base, ours, annotator)
    for rel in doc.get("relations") or []:
        rec.relations.append(_relation(rel.get("infons") or {} if isinstance(rel, dict) else {}))
    return finish(rec)


def _role(passage: dict[str, Any], passages: list[dict[str, Any]]) -> str:
    """``title``, ``abstract`` or ``other``: the passage's ``type`` infon; a collection whose
    passages carry no type at all (BioRED's BioC-JSON) is title first, abstract after."""
    kind = (passage.get("infons") or {}).get("type")
    if kind in ("title", "front"):
        return "title"
    if kind == "abstract":
        return "abstract"
    if kind is None and not any((p.get("infons") or {}).get("type") for p in passages):
        return "title" if passage is passages[0] else "abstract"
    return "other"


def _relation(infons: dict[str, Any]) -> tuple[str, ...]:
    """(type, id1, id2, extra): PubTator3's ``role1``/``role2`` (+ ``score``) or BioRED's
    ``entity1``/``entity2`` (+ ``novel``), as PubTator relation lines carry them."""
    r1 = infons.get("role1", infons.get("entity1"))
    r2 = infons.get("role2", infons.get("entity2"))
    id1 = r1.get("identifier") if isinstance(r1, dict) else r1
    id2 = r2.get("identifier") if isinstance(r2, dict) else r2
    extra = infons.get("novel", infons.get("score", ""))
    return (str(infons.get("type")), str(id1), str(id2), str(extra))


def _annotation(rec: SourceRecord, ann: Any, base: int, ours: int, annotator: str) -> None:
    try:
        infons = ann.get("infons") or {}
        loc = (ann.get("locations") or [])[0]
        start = int(loc["offset"]) - base + ours
        end = start + int(loc["length"])
        text, source_type = str(ann["text"]), str(infons.get("type") or "")
        raw_id = infons.get("identifier")
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
        rec.problem(rec.record_no, "malformed_annotation", f"{type(exc).__name__}: {ann!r:.80}")
        return
    raw = "" if raw_id in (None, "None", "-") else str(raw_id)
    mention = make_mention(rec, rec.record_no, start, end, text, source_type, raw, annotator)
    if mention is not None:
        rec.mentions.append(mention)


def read_bioc(
    path: Path, year: int | None = None, annotator: str = "pubtator3", label: str | None = None
) -> Iterator[SourceRecord]:
    """Records of one BioC-JSON file; an unreadable file yields one rejected record saying why."""
    source_file = label or path.name
    try:
        payload = json.loads(path.read_bytes().decode("utf-8", errors="strict"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        bad = SourceRecord(pmid="", source_file=source_file, record_no=0, line_no=0)
        bad.reject_reason = f"unreadable BioC-JSON: {exc}"
        bad.problem(0, "malformed_file", str(exc)[:200])
        yield bad
        return
    docs = bioc_documents(payload)
    if not docs:
        bad = SourceRecord(pmid="", source_file=source_file, record_no=0, line_no=0)
        bad.reject_reason = "no BioC documents in file"
        yield bad
        return
    for i, doc in enumerate(docs, start=1):
        rec = bioc_record(doc, source_file, i, annotator)
        if year is not None:
            rec.year = year
        yield rec
