"""A year slice handed out in bounded batches of records, read as a stream (bounded build memory).

:meth:`Corpus.slices <kgbuild.sources.corpus.Corpus.slices>` hands out whole year slices, and a
local corpus reads every requested year's records before the first slice: a build's memory then
grew with the corpus (1.73 GB for DALK ×10 against 0.37 GB for ×1). For a local folder of
per-year files — DALK's layout, and every corpus whose years are known before reading — this
module reads one year's files record by record and cuts them into batches of at most
:data:`BATCH_RECORDS` records, each deduplicated against the lineage's
:class:`~kgbuild.pipeline.seen.SeenIndex` exactly as the whole slice would be
(:func:`kgbuild.sources.local.make_slice`, same statuses and reasons). Other corpora (PubMed, or
files without a year in their name) keep their whole-slice path, dedupe included.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import fields
from itertools import chain, islice
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyarrow import ipc

from kgbuild.errors import InputError
from kgbuild.pipeline.seen import Prefetched, SeenIndex
from kgbuild.records import RECORD_TYPES, TABLES, Document, Mention, schema_for, to_arrow
from kgbuild.sources.corpus import Corpus, KeptKinds, LocalCorpus
from kgbuild.sources.local import YearSlice, make_slice, read_file

#: Records per batch: the unit a build holds in memory (documents, mentions, sentences, claims)
#: and the unit of work a Dask worker gets. DALK's largest year has 1,318 records.
BATCH_RECORDS = 1_000


def year_batches(
    corpus: Corpus, years: list[int], seen: SeenIndex
) -> Iterator[tuple[int, Iterator[YearSlice]]]:
    """(year, its batches) in year order; consume a year's batches before the next year."""
    local, keep = _streamable(corpus)
    if local is None:
        for ys in corpus.slices(years, seen.view()):  # type: ignore[arg-type]
            yield ys.year, iter([ys])
        return
    yielded = False
    for year in years:
        batches = _stream_year(local, year, seen, keep)
        first = next(batches, None)
        if first is None:  # a year file without records publishes nothing, as before
            continue
        yielded = True
        yield year, chain([first], batches)
    if not yielded:
        raise InputError("no input records for the requested years", path=local.source)


def _streamable(corpus: Corpus) -> tuple[LocalCorpus | None, KeptKinds | None]:
    """The local corpus to stream (and the kinds kept), or None for the whole-slice path."""
    keep = None
    if isinstance(corpus, KeptKinds):
        corpus, keep = corpus.inner, corpus
    if isinstance(corpus, LocalCorpus) and not corpus.yearless:
        return corpus, keep
    return None, None


def _stream_year(
    corpus: LocalCorpus, year: int, seen: SeenIndex, keep: KeptKinds | None
) -> Iterator[YearSlice]:
    files = corpus.by_year[year]
    records = chain.from_iterable(read_file(f, corpus.source) for f in files)
    while chunk := list(islice(records, BATCH_RECORDS)):
        for rec in chunk:
            if rec.year is None:
                rec.year = year
        known = Prefetched(seen, (r.pmid for r in chunk))
        ys = make_slice(year, files, chunk, known, corpus.max_doc_chars)
        known.flush()
        if keep is not None:  # as KeptKinds does for a whole slice
            for m in ys.mentions:
                keep.rewrite(m)
        yield ys


def doc_batches(
    documents: list[Document], mentions: list[Mention]
) -> Iterator[tuple[list[Document], dict[str, list[Mention]]]]:
    """A slice's documents in batches of :data:`BATCH_RECORDS`, each with its mentions by PMID
    (one batch for a streamed batch; several for a whole slice of another corpus)."""
    by_doc: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        by_doc[m.pmid].append(m)
    for i in range(0, len(documents), BATCH_RECORDS):
        docs = documents[i : i + BATCH_RECORDS]
        yield docs, {d.pmid: by_doc[d.pmid] for d in docs if d.pmid in by_doc}


class Spill:
    """Numbered Arrow IPC files of record lists in the build's scratch folder of the warehouse:
    a year's claims wait there, not in memory, until the year's free nodes are resolved.

    Each list is written with its record's own schema (:func:`kgbuild.records.to_arrow`) and
    read back column by column — data, never code: unlike a pickle, a file swapped into the
    scratch folder (a shared file system, a hostile user) can at worst fail the schema check."""

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)

    def put(self, kind: str, n: int, *lists: list[Any]) -> None:
        for j, records in enumerate(lists):
            table = _TABLE_OF.get(type(records[0])) if records else None
            data = to_arrow(table, records) if table else pa.table({})
            tmp = self.root / f".{kind}-{n:06d}-{j}.tmp"
            with pa.OSFile(str(tmp), "wb") as sink, ipc.new_file(sink, data.schema) as writer:
                writer.write_table(data)
            tmp.replace(self.root / f"{kind}-{n:06d}-{j}.arrow")

    def take(self, kind: str, n: int) -> list[list[Any]]:
        """The lists put under (kind, n), in order; the files are removed."""
        out = []
        for path in sorted(self.root.glob(f"{kind}-{n:06d}-*.arrow"), key=_list_no):
            with pa.memory_map(str(path)) as source:
                data = ipc.open_file(source).read_all()
            path.unlink()
            out.append(_records(data))
        return out


def _list_no(path: Path) -> int:
    return int(path.stem.rsplit("-", 1)[1])


#: Record class → its table name (the spill's schema is the warehouse's own).
_TABLE_OF = {spec.cls: name for name, spec in TABLES.items()}


def _records(data: pa.Table) -> list[Any]:
    """Records back from a spilled table, checked against the schema their record declares."""
    table = (data.schema.metadata or {}).get(b"kgbuild.record", b"").decode()
    if not table:
        return []
    if table not in RECORD_TYPES or not data.schema.equals(schema_for(table)):
        raise InputError("a spill file does not hold the records it was written with")
    cls = RECORD_TYPES[table]
    columns = [data.column(f.name).to_pylist() for f in fields(cls)]
    return [cls(*row) for row in zip(*columns, strict=True)]
