"""Which PMIDs a lineage has built, kept in DuckDB rather than a Python dict (bounded build memory).

Cross-year dedupe (an e-pub/print pair in consecutive year files is built once, in its first
year) needs, for every PMID of a new record, the first record's file, year and text digest.
That bookkeeping grows with the corpus — one entry per document ever built — so it lives in a
DuckDB file in the build's scratch folder of the warehouse and is asked one batch of PMIDs at a
time: a build's memory then follows the batch, not the corpus (85k PMIDs of a 10× DALK corpus
held as a dict were tens of MB and grew without bound; PubMed has 36M).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from kgbuild.sources.local import text_digest
from kgbuild.store import catalog

#: DuckDB's own memory for the index; it spills to its file beyond this.
MEMORY_LIMIT = "128MB"
#: Documents of a parent snapshot digested per fetch while the index is seeded.
SEED_ROWS = 5_000

Seen = tuple[str, int, str]


class SeenIndex:
    """PMID → (first file, first year, text digest) of every document built on this lineage."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
        self.con = catalog.quiet(
            duckdb.connect(str(path), config={"memory_limit": MEMORY_LIMIT, "threads": 1})
        )
        self.con.execute(
            "CREATE TABLE seen (pmid VARCHAR, source VARCHAR, year INTEGER, digest VARCHAR)"
        )

    def seed(self, catalog_path: Path, snapshot_id: str) -> None:
        """Every document of a published snapshot, digested a fetch at a time."""
        with catalog.connect(catalog_path, read_only=True) as con:
            cur = con.execute(
                "SELECT pmid, source, year, title, abstract FROM documents_at(?)", [snapshot_id]
            )
            while rows := cur.fetchmany(SEED_ROWS):
                self.add((p, s, y, text_digest(t, a)) for p, s, y, t, a in rows)

    def lookup(self, pmids: Iterable[str]) -> dict[str, Seen]:
        """The entries of those of ``pmids`` that were built before."""
        wanted = sorted(set(pmids))
        if not wanted:
            return {}
        rows = self.con.execute(
            "SELECT pmid, source, year, digest FROM seen WHERE pmid IN (SELECT unnest(?))",
            [wanted],
        ).fetchall()
        return {p: (s, y, d) for p, s, y, d in rows}

    def add(self, entries: Iterable[tuple[str, str, int, str]]) -> None:
        """Append entries in one columnar insert (``executemany`` is a statement per row)."""
        rows = list(entries)
        if not rows:
            return
        pmid, source, year, digest = (list(c) for c in zip(*rows, strict=True))
        batch = pa.table(
            {
                "pmid": pa.array(pmid, pa.string()),
                "source": pa.array(source, pa.string()),
                "year": pa.array(year, pa.int32()),
                "digest": pa.array(digest, pa.string()),
            }
        )
        self.con.register("_batch", batch)
        try:
            self.con.execute("INSERT INTO seen SELECT * FROM _batch")
        finally:
            self.con.unregister("_batch")

    def count(self) -> int:
        return self.con.execute("SELECT count(*) FROM seen").fetchone()[0]  # type: ignore[index]

    def close(self) -> None:
        self.con.close()

    def view(self) -> SeenView:
        """A dict-like view for sources that ask one PMID at a time (PubMed year slices)."""
        return SeenView(self)


class SeenView:
    """The mapping :func:`kgbuild.sources.local.make_slice` expects, over a :class:`SeenIndex`:
    membership and reads ask the index; writes go to it. One query per record: for sources
    that hand out a whole year at once, where reading the year dominates anyway."""

    def __init__(self, index: SeenIndex) -> None:
        self.index = index

    def __contains__(self, pmid: object) -> bool:
        return isinstance(pmid, str) and pmid in self.index.lookup([pmid])

    def __getitem__(self, pmid: str) -> Seen:
        return self.index.lookup([pmid])[pmid]

    def __setitem__(self, pmid: str, value: Seen) -> None:
        self.index.add([(pmid, *value)])

    def __iter__(self) -> Iterator[str]:  # pragma: no cover - not used by make_slice
        raise TypeError("a SeenView is not iterable: ask for PMIDs")


class Prefetched(dict[str, Seen]):
    """The entries of one batch's PMIDs, fetched in one query; what :func:`make_slice` adds
    is collected and written back to the index by :meth:`flush`."""

    def __init__(self, index: SeenIndex, pmids: Iterable[str]) -> None:
        super().__init__(index.lookup(pmids))
        self.index = index
        self.new: list[tuple[str, str, int, str]] = []

    def __setitem__(self, pmid: str, value: Any) -> None:
        super().__setitem__(pmid, value)
        self.new.append((pmid, *value))

    def flush(self) -> None:
        self.index.add(self.new)
        self.new = []
