"""One abstract with its annotated mentions, PubTator3's core page: title and abstract, every
mention the annotators found (its kind, and the node of the snapshot it names), and — when the
page is opened from a fact — the sentence that states the fact with its subject and object.

The index holds sentences, not abstracts or mention offsets, so this page reads three small
slices of the snapshot from DuckDB (the document, its mentions, the fact's evidence rows for
that PMID: a few tens of milliseconds each on the DALK build, through one read-only connection —
opening one costs ~0.12 s there, more than the three reads). Offsets index the document's
text, title + space + abstract (:class:`kgbuild.records.Document`), as PubTator's BioC does.

An evidence row's offsets are trusted only where they hold: its sentence must sit at
``sent_start`` (else it is looked up in the text), and an endpoint span must lie inside the
sentence and spell the extractor's ``head_text``/``tail_text`` (else it is found again by the
node's names, :func:`kgbuild.corpus.marks.find_span`). Title, abstract and mention texts are
untrusted: the page puts them in as text only.
"""

from __future__ import annotations

from typing import Any

from kgbuild.corpus.marks import find_span, node_forms
from kgbuild.errors import InputError
from kgbuild.search.index import SnapshotIndex
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: Mentions listed per abstract at most (PubTator annotates ~20 per abstract; a document with
#: thousands would be an attack or a corrupt file, not an abstract).
MAX_MENTIONS = 2000
#: Characters of a document's text shown at most.
MAX_TEXT = 100_000
MAX_PMID_CHARS = 20


class UnknownDocument(InputError):
    """No document with this PMID in the snapshot (a 404)."""


def check_pmid(raw: str) -> str:
    """A PMID is digits (PubMed's) or a local id of letters, digits, ``_.:-``; nothing else
    reaches a query."""
    text = raw.strip()
    if (
        not text
        or len(text) > MAX_PMID_CHARS
        or not all(c.isascii() and (c.isalnum() or c in "_.:-") for c in text)
    ):
        raise InputError("pmid must be 1–20 letters, digits or _.:-", pmid=raw[:40])
    return text


def _span(text: str, a: Any, b: Any, lo: int, hi: int, spelt: str | None) -> list[int] | None:
    """``[a, b]`` when it lies in ``[lo, hi]`` and (if known) spells ``spelt``."""
    if a is None or b is None or not lo <= int(a) < int(b) <= hi:
        return None
    if spelt and text[int(a) : int(b)] != spelt:
        return None
    return [int(a), int(b)]


def _fact(idx: SnapshotIndex, con: Any, text: str, pmid: str, tid: str) -> dict[str, Any]:
    """The fact ``tid`` as this abstract states it: its best sentence's span in ``text`` and
    its endpoints' spans (either may be ``None`` when it cannot be placed)."""
    rows = _rows(
        con,
        "SELECT evidence_id, sentence, sent_start, sent_end, head_start, head_end, tail_start, "
        "tail_end, head_text, tail_text, confidence FROM evidence_status_at(?) "
        "WHERE pmid = ? AND triple_id = ? ORDER BY confidence DESC, length(sentence), evidence_id "
        "LIMIT 1",
        [idx.snapshot_id, pmid, tid],
    )
    e = idx.edges
    edge = next((i for i, t in enumerate(e["triple_id"]) if t == tid), None)
    if not rows or edge is None:
        raise InputError("this abstract is not evidence of that fact", pmid=pmid, edge=tid[:200])
    ev_id, sentence, s0, s1, h0, h1, t0, t1, htext, ttext, conf = rows[0]
    sentence = sentence or ""
    if s0 is None or text[int(s0) : int(s1 or 0)] != sentence:
        found = text.find(sentence) if sentence else -1
        s0, s1 = (found, found + len(sentence)) if found >= 0 else (None, None)
    head, tail = int(e["head"][edge]), int(e["tail"][edge])
    hs = ts = None
    if s0 is not None:
        hs = _span(text, h0, h1, s0, s1, htext)
        ts = _span(text, t0, t1, s0, s1, ttext)
        if hs is None:
            got = find_span(sentence, node_forms(idx, head), None)
            hs = [s0 + got[0], s0 + got[1]] if got else None
        if ts is None and tail != head:
            avoid = (hs[0] - s0, hs[1] - s0) if hs else None
            got = find_span(sentence, node_forms(idx, tail), avoid)
            ts = [s0 + got[0], s0 + got[1]] if got else None
    node = lambda n: {"id": idx.nodes["id"][n], "name": idx.nodes["display"][n],  # noqa: E731
                      "type": idx.nodes["type"][n] or "Other"}  # fmt: skip
    return {
        "edge": tid,
        "evidence_id": ev_id,
        "relation": e["relation"][edge],
        "head": node(head),
        "tail": node(tail),
        "sentence": sentence,
        "sentence_span": None if s0 is None else [int(s0), int(s1)],
        "head_span": hs,
        "tail_span": ts,
        "confidence": round(float(conf or 0), 3),
    }


def abstract_page(idx: SnapshotIndex, wh: Warehouse, pmid: str, year: int | None,
                  edge: str | None = None) -> dict[str, Any]:  # fmt: skip
    """The document ``pmid`` of the snapshot, its mentions (non-overlapping, in order; each
    with its kind and, when it names a node of the snapshot, that node) and, given ``edge``
    (a triple id), the fact's sentence and endpoints."""
    pmid = check_pmid(pmid)
    # one read-only connection for the three reads: opening one costs more than each read
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        return _page(idx, con, pmid, year, edge)


def _rows(con: Any, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    return con.execute(sql, params).fetchall()


def _page(idx: SnapshotIndex, con: Any, pmid: str, year: int | None,
          edge: str | None) -> dict[str, Any]:  # fmt: skip
    docs = _rows(
        con,
        "SELECT year, title, abstract, journal FROM documents_at(?) WHERE pmid = ? LIMIT 1",
        [idx.snapshot_id, pmid],
    )
    if not docs or (year is not None and (docs[0][0] or 0) > year):
        raise UnknownDocument("no abstract with this PMID in the snapshot", pmid=pmid)
    doc_year, title, abstract, journal = docs[0]
    title, abstract = title or "", abstract or ""
    text = f"{title} {abstract}"[:MAX_TEXT]
    rows = _rows(
        con,
        "SELECT start, \"end\", coalesce(hetionet_type, ''), concept_id, source_type "
        'FROM mentions_at(?) WHERE pmid = ? ORDER BY start, "end" DESC LIMIT ?',
        [idx.snapshot_id, pmid, MAX_MENTIONS],
    )
    mentions, last = [], 0
    for start, end, kind, cid, source_type in rows:
        if start is None or end is None or start < last or not 0 <= start < end <= len(text):
            continue  # overlapping (PubTator nests some) or off the text: the first wins
        node = idx.node_of.get(cid or "")
        mentions.append({
            "start": int(start), "end": int(end), "kind": kind or source_type or "Other",
            "concept": cid, "id": None if node is None else idx.nodes["id"][node],
            "name": None if node is None else idx.nodes["display"][node],
        })  # fmt: skip
        last = int(end)
    return {
        "snapshot": idx.snapshot_id,
        "kg": idx.kg,
        "as_of": year,
        "snapshot_year": idx.as_of_year,
        "pmid": pmid,
        "year": int(doc_year or 0) or None,
        "journal": journal,
        "text": text,
        "title_end": min(len(title), len(text)),
        "mentions": mentions,
        "kinds": sorted({m["kind"] for m in mentions}),
        "fact": None if not edge else _fact(idx, con, text, pmid, edge),
    }
