"""The in-memory graph: undirected CSR adjacency over scipy.sparse, ordered for hub capping,
and personalized PageRank by rustworkx.

Chosen by measurement (``bench/query_graphlib.py``, README "Querying a snapshot"): retrieval
needs a node's neighbours in a fixed order of strength, shortest paths of ≤ 3 hops between a
few linked nodes with hubs barred as intermediates, and a personalized PageRank over the few
hundred nodes sampled for one question. The first two are a few array operations on CSR rows:
1.1 ms per ADQA question here, against ~50 ms with igraph or rustworkx and ~940 ms with
networkx, whose path routines cannot bar hubs from the middle of a path without a subgraph copy
per question. For the PageRank, rustworkx was fastest (0.19 ms per question; igraph 0.30,
numpy power iteration 1.5, networkx 5.4).

Two adjacency views are kept:

- ``simple``: node × node, one entry per connected pair (either direction), columns sorted —
  for path search (``np.intersect1d`` on sorted rows, sparse row slices);
- ``inc``: a node's incident edges, strongest first (support, then confidence, then edge id) —
  so "the top N neighbours of a hub" is the first N entries of its row: deterministic, never
  the order a database happened to return (HyKGE's hub control; DALK capped neighbours at 5).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp


class PairEdges:
    """(low node, high node) → the edges joining the pair, strongest first: sorted pair keys
    and one edge array, so building it is array work (a dict built edge by edge took 0.12 s of
    a 1.5 s ``kgbuild ask`` process on the DALK KG) and a lookup is a binary search."""

    __slots__ = ("edges", "keys", "n", "ptr")

    def __init__(self, n: int, lo: np.ndarray, hi: np.ndarray, rank: np.ndarray) -> None:
        self.n = max(int(n), 1)
        key = lo.astype(np.int64)[rank] * self.n + hi.astype(np.int64)[rank]
        order = np.argsort(key, kind="stable")  # stable: strongest first within a pair
        self.edges = rank[order].astype(np.int64)
        self.keys, starts = np.unique(key[order], return_index=True)
        self.ptr = np.append(starts, len(key)).astype(np.int64)

    def get(self, pair: tuple[int, int], default: Any = ()) -> Any:
        """The edges of ``pair`` (low, high), strongest first, as a list; ``default`` if none."""
        k = int(pair[0]) * self.n + int(pair[1])
        i = int(np.searchsorted(self.keys, k))
        if i < len(self.keys) and int(self.keys[i]) == k:
            return self.edges[self.ptr[i] : self.ptr[i + 1]].tolist()
        return default

    def remap(self, ids: np.ndarray) -> PairEdges:
        """The same table with edge ``e`` renamed ``ids[e]`` (a filtered graph's edges mapped
        back to the snapshot's)."""
        out = PairEdges.__new__(PairEdges)
        out.n, out.keys, out.ptr, out.edges = self.n, self.keys, self.ptr, ids[self.edges]
        return out


@dataclass(slots=True)
class Graph:
    n: int
    head: np.ndarray
    tail: np.ndarray
    simple: sp.csr_matrix
    inc_ptr: np.ndarray  # incident edges of node i: inc_edge[inc_ptr[i]:inc_ptr[i+1]]
    inc_edge: np.ndarray
    inc_other: np.ndarray  # the other endpoint of each incident edge
    degree: np.ndarray  # distinct neighbours
    #: (low node, high node) → the edges joining them, strongest first
    pair_edges: PairEdges

    @classmethod
    def from_edges(
        cls,
        n: int,
        head: np.ndarray,
        tail: np.ndarray,
        support: np.ndarray,
        confidence: np.ndarray,
    ) -> Graph:
        head = np.asarray(head, np.int32)
        tail = np.asarray(tail, np.int32)
        m = len(head)
        eid = np.arange(m, dtype=np.int32)
        # both directions of every edge, a self-loop once
        loop = head == tail
        src = np.concatenate([head, tail[~loop]])
        dst = np.concatenate([tail, head[~loop]])
        e2 = np.concatenate([eid, eid[~loop]])
        sup = np.asarray(support, np.int64)[e2]
        conf = np.asarray(confidence, np.float64)[e2]
        order = np.lexsort((e2, -conf, -sup, src))  # by node, then strongest first
        src_o = src[order]
        inc_ptr = np.searchsorted(src_o, np.arange(n + 1)).astype(np.int64)
        simple = sp.csr_matrix(
            (np.ones(len(src), np.int8), (src, dst)), shape=(n, n), dtype=np.int8
        )
        simple.sum_duplicates()
        simple.data[:] = 1
        simple.sort_indices()
        degree = np.diff(simple.indptr).astype(np.int32)
        rank = np.lexsort((eid, -np.asarray(confidence, np.float64), -np.asarray(support)))
        pair_edges = PairEdges(n, np.minimum(head, tail), np.maximum(head, tail), rank)
        return cls(n, head, tail, simple, inc_ptr, e2[order], dst[order], degree, pair_edges)

    def neighbours(self, node: int) -> np.ndarray:
        """Distinct neighbours, sorted by node index."""
        s = self.simple
        return s.indices[s.indptr[node] : s.indptr[node + 1]]

    def incident(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """(edge ids, other endpoints) of a node's edges, strongest first."""
        a, b = self.inc_ptr[node], self.inc_ptr[node + 1]
        return self.inc_edge[a:b], self.inc_other[a:b]

    def shortest_paths(
        self, s: int, t: int, max_hops: int, barred: np.ndarray, limit: int
    ) -> list[tuple[int, ...]]:
        """Node sequences of the shortest s–t paths with ≤ ``max_hops`` edges (at most 3).

        ``barred`` is a boolean mask of nodes that may not be intermediates (hubs). At most
        ``limit`` paths, in a fixed order (by intermediate node indices); the caller ranks them.
        """
        if s == t:
            return []
        ns = self.neighbours(s)
        if max_hops >= 1 and _contains(ns, t):
            return [(s, t)]
        if max_hops < 2:
            return []
        nt = self.neighbours(t)
        ns_ok = ns[~barred[ns]]
        nt_ok = nt[~barred[nt]]
        mids = np.intersect1d(ns_ok, nt_ok, assume_unique=True)
        if len(mids):
            return [(s, int(m), t) for m in mids[:limit]]
        if max_hops < 3 or not len(ns_ok) or not len(nt_ok):
            return []
        a, b = self._bridges(ns_ok, nt_ok)
        if not len(a):
            return []
        order = np.lexsort((b, a))[:limit]
        return [(s, int(a[i]), int(b[i]), t) for i in order]

    def _bridges(self, left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """All edges (a, b) with a in ``left`` and b in ``right`` (a ≠ b): the rows of the
        smaller side, gathered with array arithmetic (no sparse slicing), tested against a mask
        of the other side."""
        ptr, idx = self.simple.indptr, self.simple.indices
        swap = int((ptr[left + 1] - ptr[left]).sum()) > int((ptr[right + 1] - ptr[right]).sum())
        rows, other = (right, left) if swap else (left, right)
        starts, lens = ptr[rows], ptr[rows + 1] - ptr[rows]
        total = int(lens.sum())
        if not total:
            return np.empty(0, np.int64), np.empty(0, np.int64)
        owner = np.repeat(rows, lens)
        offsets = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
        cols = idx[np.repeat(starts, lens) + offsets]
        mask = np.zeros(self.n, bool)
        mask[other] = True
        hit = mask[cols] & (cols != owner)
        a, b = owner[hit].astype(np.int64), cols[hit].astype(np.int64)
        return (b, a) if swap else (a, b)

    def within(self, sources: np.ndarray, hops: int, barred: np.ndarray) -> np.ndarray:
        """Boolean mask of nodes reachable from ``sources`` in ≤ ``hops`` steps without passing
        *through* a barred node (a barred node can be reached, not crossed)."""
        seen = np.zeros(self.n, bool)
        seen[sources] = True
        frontier = np.asarray(sources, np.int64)
        for step in range(hops):
            if step:  # sources expand even when they are hubs; nodes reached through them do not
                frontier = frontier[~barred[frontier]]
            if not len(frontier):
                break
            rows = self.simple[frontier]
            nxt = np.unique(rows.indices)
            nxt = nxt[~seen[nxt]]
            seen[nxt] = True
            frontier = nxt
        return seen


def _contains(sorted_arr: np.ndarray, value: int) -> bool:
    i = np.searchsorted(sorted_arr, value)
    return bool(i < len(sorted_arr) and sorted_arr[i] == value)


def personalized_pagerank(
    nodes: np.ndarray,
    edges_u: np.ndarray,
    edges_v: np.ndarray,
    seeds: dict[int, float],
    alpha: float = 0.85,
    tol: float = 1e-6,
    max_iter: int = 100,
) -> dict[int, float]:
    """Personalized PageRank over a subgraph (RoK ranks retrieved paths by PageRank over the
    sampled subgraph; personalization on the question's linked entities makes it *their*
    neighbourhood that ranks high). Undirected (both directions), one link per connected pair.

    rustworkx computes it (measured 8× faster than numpy power iteration on a question's few
    hundred nodes, ``bench/query_graphlib.py``); if its power iteration does not converge, the
    numpy iteration below answers instead."""
    import rustworkx as rx

    nodes = np.unique(np.asarray(nodes, np.int64))
    k = len(nodes)
    if k == 0:
        return {}
    u = np.searchsorted(nodes, np.asarray(edges_u, np.int64)).tolist()
    v = np.searchsorted(nodes, np.asarray(edges_v, np.int64)).tolist()
    pairs = {(a, b) if a < b else (b, a) for a, b in zip(u, v, strict=True) if a != b}
    pers: dict[int, float] = {}
    for n, w in seeds.items():
        i = int(np.searchsorted(nodes, n))
        if i < k and nodes[i] == n and w > 0:
            pers[i] = pers.get(i, 0.0) + w
    g = rx.PyDiGraph(multigraph=False)
    g.add_nodes_from(range(k))
    g.add_edges_from_no_data(sorted(pairs) + sorted((b, a) for a, b in pairs))
    try:
        scores = rx.pagerank(g, alpha=alpha, personalization=pers or None, tol=tol,
                             max_iter=max_iter)  # fmt: skip
        r = [scores[i] for i in range(k)]
    except rx.FailedToConverge:
        r = _pagerank_numpy(k, pairs, pers, alpha, tol, max_iter)
    return dict(zip(nodes.tolist(), r, strict=True))


def _pagerank_numpy(k: int, pairs: set[tuple[int, int]], pers: dict[int, float], alpha: float,
                    tol: float, max_iter: int) -> list[float]:  # fmt: skip
    a = np.zeros((k, k))
    for x, y in pairs:
        a[x, y] = a[y, x] = 1.0
    out_deg = a.sum(axis=1)
    inv = np.divide(1.0, out_deg, out=np.zeros(k), where=out_deg > 0)
    walk = np.ascontiguousarray((a * inv[:, None]).T)
    p = np.zeros(k)
    for i, w in pers.items():
        p[i] = w
    p = p / p.sum() if p.sum() > 0 else np.full(k, 1.0 / k)
    r = p.copy()
    dangling = out_deg == 0
    for _ in range(max_iter * 10):
        nxt = alpha * (walk @ r + r[dangling].sum() * p) + (1 - alpha) * p
        done = np.abs(nxt - r).sum() < tol
        r = nxt
        if done:
            break
    return r.tolist()
