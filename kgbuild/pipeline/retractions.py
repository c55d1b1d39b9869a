"""Papers retracted after they were built: found by each built year, recorded in its snapshot.

Ingest rejects a PubMed record that already carries the publication type "Retracted
Publication" (:mod:`kgbuild.sources.pubmed_xml`). A paper built in an earlier year and retracted
since is still in the lineage; so before a year's snapshot is published, the build asks PubMed
(:func:`kgbuild.sources.pubmed.retracted_pmids`) which PMIDs of the lineage — every document
built so far, this year's included (their EFetch pages may come from an old raw cache) — are now
retracted, and stages one ``retractions`` row for each not recorded yet. The catalog stops serving
their evidence from that snapshot on (:mod:`kgbuild.store.retractions`).

The ids are asked in numeric order, 200 per ESearch, and the answers are cached by query like
every PubMed answer: a re-run, or the repair of a damaged year, gets the same answer and the
same parts; the batches of an older lineage stay the same as it grows (new PMIDs are larger), so
its answers come from the cache. A refresh asks again past the cache (:func:`recheck`), as it
does for the year searches, so the build that follows reads fresh answers.

Local files (PubTator, BioC) carry no publication type and need not be PubMed's: their
retraction status is not checked, and the snapshot config says so (:func:`check_mode`) rather
than implying that none is retracted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb

from kgbuild.records import Retraction
from kgbuild.sources import pubmed
from kgbuild.sources.corpus import Corpus
from kgbuild.sources.pubmed_corpus import PubMedCorpus
from kgbuild.store import catalog
from kgbuild.store.snapshots import SnapshotWriter

#: The snapshot config's ``retractions`` value for a PubMed source, and the row ``source``.
CHECKED = "pubmed-esearch"
#: … and for local files.
NOT_CHECKED = "not checked: local files carry no PubMed publication type"
#: PMIDs per ESearch (PubMed's own guideline for a POSTed id list).
BATCH = pubmed.MAX_PER_REQUEST


def pubmed_source(corpus: Corpus) -> PubMedCorpus | None:
    """The PubMed corpus under ``corpus`` (a kind filter wraps it), or None for local files."""
    inner = getattr(corpus, "inner", corpus)
    return inner if isinstance(inner, PubMedCorpus) else None


def check_mode(corpus: Corpus) -> str:
    """What the snapshot config records about retractions: checked against PubMed, or not."""
    return CHECKED if pubmed_source(corpus) is not None else NOT_CHECKED


def _chunks(cur: duckdb.DuckDBPyConnection) -> Iterator[list[str]]:
    while rows := cur.fetchmany(BATCH):
        yield [r[0] for r in rows]


def recorded(catalog_path: Path, sid: str | None) -> set[str]:
    """The PMIDs snapshot ``sid`` already records as retracted (a handful). A catalog written
    before the table existed has no ``retractions_at``: nothing is recorded there."""
    if sid is None:
        return set()
    with catalog.connect(catalog_path, read_only=True) as con:
        try:
            rows = con.execute("SELECT DISTINCT pmid FROM retractions_at(?)", [sid]).fetchall()
        except duckdb.CatalogException:
            return set()
    return {r[0] for r in rows}


def record_retractions(
    corpus: Corpus,
    writer: SnapshotWriter,
    seen: duckdb.DuckDBPyConnection,
    year: int,
) -> int:
    """Stage a ``retractions`` row for every document of the lineage through ``year`` (the
    build's PMID index ``seen``, a DuckDB connection with table ``seen``) that PubMed now marks
    retracted and the parent snapshot does not record; returns how many. No-op for local files.
    """
    source = pubmed_source(corpus)
    if source is None:
        return 0
    known = recorded(writer.wh.catalog_path, writer.parent_id)
    found: list[str] = []
    cur = seen.cursor()
    try:
        cur.execute("SELECT DISTINCT pmid FROM seen ORDER BY length(pmid), pmid")
        for chunk in _chunks(cur):
            found += pubmed.retracted_pmids(source.eutils, chunk, BATCH)
    finally:
        cur.close()
    rows = [Retraction(p, year, CHECKED, pubmed.RETRACTED) for p in found if p not in known]
    writer.add("retractions", rows)
    return len(rows)


def recheck(corpus: Corpus, catalog_path: Path, head: str) -> list[str]:
    """Ask PubMed again, past the raw cache (which keeps the fresh answers for the build that
    follows), which documents of snapshot ``head`` are retracted; returns those ``head`` does
    not record yet (the next year built records them). ``[]`` for local files."""
    source = pubmed_source(corpus)
    if source is None:
        return []
    known = recorded(catalog_path, head)
    found: list[str] = []
    with catalog.connect(catalog_path, read_only=True) as con:
        cur = con.execute(
            "SELECT DISTINCT pmid FROM documents_at(?) ORDER BY length(pmid), pmid", [head]
        )
        for chunk in _chunks(cur):
            found += pubmed.retracted_pmids(source.eutils, chunk, BATCH, refresh=True)
    return [p for p in found if p not in known]
