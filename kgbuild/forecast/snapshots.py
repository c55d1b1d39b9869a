"""The yearly snapshots a forecast reads, and a reader that cannot reach past its horizon.

**No leakage, by construction.** Fitting and scoring receive a :class:`SnapshotReader` built from
the snapshots of year ≤ Y only: it holds no id of a later snapshot, so nothing after Y can be
read while the model is fit or the candidates are scored; asking it for a later year is a
:class:`LeakageError`.
"""

from __future__ import annotations

from typing import Any

import duckdb

from kgbuild.errors import StoreError
from kgbuild.forecast.graph import Graph, load_graph
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse


class LeakageError(RuntimeError):
    """A reader was asked for a snapshot after its horizon: a bug, never a user's error."""


class SnapshotReader:
    """The yearly snapshots of one KG up to ``horizon`` (its ids of later years are dropped on
    construction: a reader cannot reach past its horizon). ``read`` lists the years loaded."""

    def __init__(self, con: duckdb.DuckDBPyConnection, sids: dict[int, str], horizon: int) -> None:
        self._con = con
        self._sids = {y: s for y, s in sids.items() if y <= horizon}
        self.horizon = horizon
        self.read: list[int] = []
        self._cache: dict[int, Graph] = {}

    @property
    def years(self) -> list[int]:
        return sorted(self._sids)

    def snapshot_id(self, year: int) -> str:
        self._check(year)
        return self._sids[year]

    def _check(self, year: int) -> None:
        if year > self.horizon:
            raise LeakageError(f"snapshot of {year} asked for by a reader up to {self.horizon}")
        if year not in self._sids:
            raise KeyError(year)

    def graph(self, year: int) -> Graph:
        self._check(year)
        if year not in self._cache:
            self.read.append(year)
            self._cache[year] = load_graph(self._con, year, self._sids[year])
        return self._cache[year]

    def query(self, sql: str, params: dict[str, Any], year: int) -> list[tuple[Any, ...]]:
        """``sql`` run with ``$sid`` bound to the snapshot of ``year`` (checked as ``graph``)."""
        self._check(year)
        return self._con.execute(sql, {**params, "sid": self._sids[year]}).fetchall()


def yearly_snapshots(wh: Warehouse, ref: str) -> tuple[str, str, int, dict[int, str]]:
    """(kg, snapshot id, year, {year: snapshot id}) for reference ``ref``: the snapshot itself
    and its ancestors for its year and earlier, the KG's current lineage for later years.

    ``KG@YEAR`` must name a year the KG has a snapshot of (``resolve`` alone would take the
    newest snapshot at or before it, and a forecast "from 2025" would silently be from 2020)."""
    ref = ref.strip()
    kg_part, _, year_part = ref.partition("@")
    if year_part.isascii() and year_part.isdigit() and len(year_part) <= 4:
        have = sorted({int(r["as_of_year"]) for r in wh.snapshots(kg_part)})
        if have and int(year_part) not in have:
            raise StoreError(
                f"{kg_part} has no snapshot of {year_part}: its yearly snapshots are "
                f"{', '.join(map(str, have))}"
            )
    sid = wh.resolve(ref)
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        kg, year = con.execute(
            "SELECT kg, as_of_year FROM snapshots WHERE snapshot_id = ?", [sid]
        ).fetchone()
        rows = con.execute(
            """
            SELECT s.as_of_year, s.snapshot_id FROM snapshot_lineage l
            JOIN snapshots s ON s.snapshot_id = l.ancestor_id
            WHERE l.snapshot_id = ? AND s.as_of_year <= ?
            QUALIFY row_number() OVER (PARTITION BY s.as_of_year ORDER BY l.distance) = 1
            """,
            [sid, year],
        ).fetchall()
        later = con.execute(
            """
            SELECT y, snapshot_asof(y, kg_name := ?) FROM (
                SELECT DISTINCT as_of_year AS y FROM snapshots WHERE kg = ? AND as_of_year > ?)
            """,
            [kg, kg, year],
        ).fetchall()
    sids = {int(y): s for y, s in rows if s is not None}
    sids |= {int(y): s for y, s in later if s is not None}
    sids[int(year)] = sid
    return str(kg), sid, int(year), dict(sorted(sids.items()))
