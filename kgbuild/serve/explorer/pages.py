"""What the explorer's JSON endpoints return, read from the in-memory snapshot index.

Every answer comes from :class:`~kgbuild.search.index.SnapshotIndex`'s arrays (nodes, edges,
the best sentence per (triple, PMID)) — no DuckDB per request — except two small per-snapshot
tables read once and kept: the KG's snapshot years (the as-of selector's choices) and the
evidence status counts (asserted / hypothesis / negated … PMIDs per triple), which the served
index does not hold because it keeps served evidence only.

"As of YEAR" means what a reader could have known at the end of YEAR: the page reads the
snapshot of YEAR (``QueryEngine.for_year`` — its belief, statuses and contested
marks as they stood then), a fact counts when it was first seen in or before YEAR
(:class:`~kgbuild.query.explore.Filters`' ``as_of_year``, the rule retrieval applies), and its
support, PMIDs, last year, sentence and status counts only use evidence from those years.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.errors import InputError
from kgbuild.query.explore import Filters, edge_mask
from kgbuild.search.aliases import SEP
from kgbuild.search.index import SnapshotIndex
from kgbuild.serve.explorer.hubs import ranked_neighbours
from kgbuild.store.snapshots import Warehouse

#: Facts listed per relation group by default, and at most (a hub such as Alzheimer's disease
#: has thousands; the group's ``total`` says how many there are).
FACTS_PER_RELATION = 25
MAX_FACTS_PER_RELATION = 500
#: PMIDs listed per fact (``support`` counts them all).
PMIDS_PER_FACT = 20
ALIASES_SHOWN = 30
#: Neighbours drawn around a node by default, and at most; edges drawn at most.
NEIGHBOURS = 30
MAX_NEIGHBOURS = 100
MAX_GRAPH_EDGES = 400
#: Snapshots whose years and status counts are kept (the served one and its as-of years).
KEPT_SNAPSHOTS = 32


class UnknownEntity(InputError):
    """No node of the served snapshot has this id (a 404, not a 400)."""


class BadYear(InputError):
    """An as-of year that is not one of the KG's snapshot years (a 422 naming them)."""

    def __init__(self, raw: str, years: list[int]) -> None:
        super().__init__("as_of must be one of the KG's snapshot years", as_of=raw[:20])
        self.years = years


@dataclass(slots=True)
class _PerSnapshot:
    years: list[int]
    #: triple id → (status, year, distinct PMIDs) rows
    statuses: dict[str, list[tuple[str, int, int]]] | None = None


class ExplorerData:
    """The two per-snapshot tables the index lacks, read once per snapshot (thread-safe)."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh
        self._lock = threading.Lock()
        self._cache: dict[str, _PerSnapshot] = {}  # by snapshot id and index folder

    def _entry(self, idx: SnapshotIndex) -> _PerSnapshot:
        # the index's cache folder names the curation log's state too: a curation re-reads
        key = f"{idx.snapshot_id}|{idx.path}"
        with self._lock:
            got = self._cache.get(key)
            if got is None:
                years = sorted(
                    {int(r["as_of_year"]) for r in self.wh.snapshots(idx.kg)
                     if int(r["as_of_year"]) <= idx.as_of_year} | {idx.as_of_year}
                )  # fmt: skip
                # the served snapshot and its as-of years are read in turn: keep each (a
                # clear per new id re-read the status table on every switch of year)
                while len(self._cache) >= KEPT_SNAPSHOTS:
                    self._cache.pop(next(iter(self._cache)))
                got = self._cache[key] = _PerSnapshot(years)
            return got

    def years(self, idx: SnapshotIndex) -> list[int]:
        return self._entry(idx).years

    def statuses(self, idx: SnapshotIndex) -> dict[str, list[tuple[str, int, int]]]:
        entry = self._entry(idx)
        if entry.statuses is None:
            rows = self.wh.query(
                "SELECT triple_id, CASE WHEN verified = 'no' THEN 'refuted' ELSE epistemic END, "
                "coalesce(year, 0), count(DISTINCT pmid) FROM evidence_status_at(?) "
                "GROUP BY ALL ORDER BY ALL",
                [idx.snapshot_id],
            )
            table: dict[str, list[tuple[str, int, int]]] = {}
            for tid, status, year, n in rows:
                table.setdefault(tid, []).append((str(status), int(year), int(n)))
            entry.statuses = table
        return entry.statuses


def parse_year(raw: str | None, years: list[int]) -> int | None:
    """``None`` (the whole snapshot) for a missing or blank ``as_of``; else the year, which must
    be one of ``years`` (:class:`BadYear` otherwise — "²⁰¹⁵", "2015.0" and 1999 alike)."""
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 4) or int(text) not in years:
        raise BadYear(raw, years)
    return int(text)


def node_of(idx: SnapshotIndex, curie: str) -> int:
    node = idx.node_of.get(curie)
    if node is None:
        raise UnknownEntity("no entity with this id in the snapshot", id=curie[:200])
    return node


def _node(idx: SnapshotIndex, n: int) -> dict[str, Any]:
    return {
        "id": idx.nodes["id"][n],
        "name": idx.nodes["display"][n],
        "type": idx.nodes["type"][n] or "Other",
        "degree": int(idx.graph.degree[n]),
    }


def _aliases(idx: SnapshotIndex, n: int) -> list[str]:
    """The surface forms the dictionary links to node ``n``, most weighted first."""
    a = idx.aliases
    rows = np.flatnonzero(a["node"] == n)
    rows = rows[np.argsort(-a["weight"][rows], kind="stable")]
    shown = {idx.nodes["display"][n].casefold(), idx.nodes["name"][n].casefold()}
    out: list[str] = []
    for r in rows.tolist():
        for s in (a["surfaces"][r] or a["key"][r]).split(SEP):
            if s and s.casefold() not in shown:
                shown.add(s.casefold())
                out.append(s)
        if len(out) >= ALIASES_SHOWN:
            break
    return out[:ALIASES_SHOWN]


def _evidence_window(idx: SnapshotIndex, year: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(per-evidence-row "counts as of ``year``" mask, per-edge count of such rows = distinct
    PMIDs: the evidence table holds one best row per (triple, PMID))."""
    ev_year = idx.evidence["year"]
    ok = np.ones(len(ev_year), bool) if year is None else (ev_year > 0) & (ev_year <= year)
    cs = np.concatenate([[0], np.cumsum(ok, dtype=np.int64)])
    return ok, cs[idx.ev_ptr[1:]] - cs[idx.ev_ptr[:-1]]


def _edges_of(idx: SnapshotIndex, n: int, year: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(edge ids, as-of supports) of node ``n``'s facts as of ``year``, strongest first."""
    es, _ = idx.graph.incident(n)
    if year is not None:
        es = es[edge_mask(idx, Filters(as_of_year=year))[es]]
    _, support = _evidence_window(idx, year)
    sup = support[es]
    order = np.lexsort((es, -idx.edges["confidence"][es], -sup))
    keep = sup[order] > 0
    return es[order][keep], sup[order][keep]


def _fact(
    idx: SnapshotIndex,
    n: int,
    e: int,
    support: int,
    ev_ok: np.ndarray,
    statuses: dict[str, list[tuple[str, int, int]]],
    year: int | None,
) -> dict[str, Any]:
    """Fact ``e`` seen from node ``n``, as of ``year`` (``ev_ok``: the evidence rows counted)."""
    E = idx.edges
    head, tail = int(E["head"][e]), int(E["tail"][e])
    other = tail if head == n else head
    rows = np.arange(int(idx.ev_ptr[e]), int(idx.ev_ptr[e + 1]))
    rows = rows[ev_ok[rows]]  # sorted best first: confidence, then newest, then PMID
    ev = idx.evidence
    counts: dict[str, int] = {}
    for status, y, k in statuses.get(E["triple_id"][e], ()):
        if year is None or 0 < y <= year:
            counts[status] = counts.get(status, 0) + k
    years = ev["year"][rows]
    best = int(rows[0]) if len(rows) else None
    return {
        "edge": E["triple_id"][e],
        "relation": E["relation"][e],
        "direction": "self" if head == tail else ("out" if head == n else "in"),
        "other": _node(idx, other),
        "support": int(support),
        "confidence": round(float(E["confidence"][e]), 3),
        # the belief of the snapshot read: the as-of year's own; "" = uncontested
        "belief": round(float(E["belief"][e]), 3) if "belief" in E else None,
        "contested": E["contested"][e] if "contested" in E else "",
        "statuses": counts,
        "first_year": int(E["first_year"][e]) or None,
        "last_year": int(years.max()) if len(years) else (int(E["last_year"][e]) or None),
        "pmids": [ev["pmid"][r] for r in rows[:PMIDS_PER_FACT].tolist()],
        "evidence": None if best is None else {
            "sentence": ev["sentence"][best],
            "pmid": ev["pmid"][best],
            "year": int(ev["year"][best]) or None,
            "confidence": round(float(ev["confidence"][best]), 3),
        },
    }  # fmt: skip


def entity_page(idx: SnapshotIndex, data: ExplorerData, curie: str, year: int | None,
                per_relation: int = FACTS_PER_RELATION) -> dict[str, Any]:  # fmt: skip
    """The node and its facts as of ``year``, grouped by relation (most facts first), each
    group's strongest ``per_relation`` facts listed."""
    n = node_of(idx, curie)
    es, sup = _edges_of(idx, n, year)
    ev_ok, _ = _evidence_window(idx, year)
    statuses = data.statuses(idx)
    groups: dict[str, list[tuple[int, int]]] = {}
    for e, s in zip(es.tolist(), sup.tolist(), strict=True):
        groups.setdefault(idx.edges["relation"][e], []).append((e, s))
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {
        "snapshot": idx.snapshot_id,
        "kg": idx.kg,
        "as_of": year,
        "entity": {
            **_node(idx, n),
            "symbol": idx.nodes["name"][n],
            "first_year": int(idx.nodes["first_year"][n]) or None,
            "aliases": _aliases(idx, n),
            "facts": len(es),
        },
        "relations": [
            {
                "relation": rel,
                "total": len(facts),
                "facts": [
                    _fact(idx, n, e, s, ev_ok, statuses, year) for e, s in facts[:per_relation]
                ],
            }
            for rel, facts in ordered
        ],
    }


def neighbourhood(idx: SnapshotIndex, curie: str, year: int | None,
                  limit: int = NEIGHBOURS, rule: str = "specific") -> dict[str, Any]:  # fmt: skip
    """The node, its first ``limit`` neighbours as of ``year`` by ``rule`` (generic hubs last:
    :mod:`.hubs`) and the strongest edge of each pair among them (at most
    :data:`MAX_GRAPH_EDGES`), for a drawing."""
    n = node_of(idx, curie)
    es, sup = _edges_of(idx, n, year)
    E = idx.edges
    chosen = ranked_neighbours(idx, n, es, sup, rule)[:limit]
    mask = None if year is None else edge_mask(idx, Filters(as_of_year=year))
    _, support = _evidence_window(idx, year)
    nodes = [n, *chosen]
    edges = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1 :]:
            pair = (a, b) if a < b else (b, a)
            passing = [e for e in idx.graph.pair_edges.get(pair, ())
                       if (mask is None or mask[e]) and support[e] > 0]  # fmt: skip
            if not passing:
                continue
            e = max(passing, key=lambda x: (int(support[x]), float(E["confidence"][x]), -x))
            edges.append({
                "source": idx.nodes["id"][int(E["head"][e])],
                "target": idx.nodes["id"][int(E["tail"][e])],
                "relation": E["relation"][e],
                "relations": len(passing),
                "support": int(support[e]),
                "confidence": round(float(E["confidence"][e]), 3),
            })  # fmt: skip
            if len(edges) >= MAX_GRAPH_EDGES:
                break
        if len(edges) >= MAX_GRAPH_EDGES:
            break
    return {
        "snapshot": idx.snapshot_id,
        "as_of": year,
        "snapshot_year": idx.as_of_year,
        "center": idx.nodes["id"][n],
        "rule": rule,
        "nodes": [_node(idx, x) for x in nodes],
        "edges": edges,
    }
