"""How two entities connect: the shortest paths between them, each edge with its best sentence.

Neo4j Browser's ``shortestPath`` and DALK's path step (shortest paths of ≤ 5 hops between the
question's entities) are the anchors; here at most :data:`MAX_HOPS` hops (HyKGE stops at 3:
chains explode past it) over the in-memory graph (:meth:`kgbuild.search.graph.Graph.
shortest_paths`, CSR row intersections). Hubs may sit in the middle, but a path through a
specific node ranks first: paths are ordered by the weakest edge's support (a chain is as
strong as its weakest link), then by the intermediates' summed log degree (through Water or
Lipids last), then by node ids. Each edge of a path is the strongest fact joining its pair as
of the view's year, with the sentence that states it and both endpoints' spans in it.
"""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import numpy as np

from kgbuild.corpus.marks import find_span, node_forms
from kgbuild.query.explore import Filters, edge_mask
from kgbuild.search.index import SnapshotIndex
from kgbuild.serve.explorer.pages import _evidence_window, _node, node_of

#: Hops per path by default and at most; paths returned by default and at most; candidate
#: paths ranked before the cut (the graph lists them by node index, not by strength).
HOPS = 3
MAX_HOPS = 3
PATHS = 10
MAX_PATHS = 50
CANDIDATES = 5000


def _best_edge(
    idx: SnapshotIndex, a: int, b: int, ok: np.ndarray, support: np.ndarray
) -> int | None:
    """The strongest fact joining ``a`` and ``b`` that counts as of the view (``ok``)."""
    pair = (a, b) if a < b else (b, a)
    best = None
    for e in idx.graph.pair_edges.get(pair, ()):
        if ok[e] and support[e] > 0 and (best is None or support[e] > support[best]):
            best = e
    return best


def _step(idx: SnapshotIndex, e: int, ev_ok: np.ndarray, support: np.ndarray,
          forms: dict[int, Any]) -> dict[str, Any]:  # fmt: skip
    E, ev = idx.edges, idx.evidence
    head, tail = int(E["head"][e]), int(E["tail"][e])
    rows = np.arange(int(idx.ev_ptr[e]), int(idx.ev_ptr[e + 1]))
    rows = rows[ev_ok[rows]]
    out: dict[str, Any] = {
        "edge": E["triple_id"][e],
        "relation": E["relation"][e],
        "head": idx.nodes["id"][head],
        "tail": idx.nodes["id"][tail],
        "support": int(support[e]),
        "confidence": round(float(E["confidence"][e]), 3),
        "evidence": None,
    }
    if len(rows):
        r = int(rows[0])
        s = ev["sentence"][r]
        for n in (head, tail):
            if n not in forms:
                forms[n] = node_forms(idx, n)
        hs = find_span(s, forms[head])
        ts = find_span(s, forms[tail], hs) if tail != head else None
        out["evidence"] = {
            "sentence": s, "pmid": ev["pmid"][r], "year": int(ev["year"][r]) or None,
            "head_span": list(hs) if hs else None, "tail_span": list(ts) if ts else None,
        }  # fmt: skip
    return out


def find_paths(idx: SnapshotIndex, source: str, target: str, year: int | None,
               hops: int = HOPS, limit: int = PATHS) -> dict[str, Any]:  # fmt: skip
    """The shortest paths (≤ ``hops`` edges, at most ``limit``) from ``source`` to ``target``
    as of ``year``, strongest first, each a list of nodes and of edges with their sentences."""
    s, t = node_of(idx, source), node_of(idx, target)
    ok = np.ones(idx.n_edges, bool) if year is None else edge_mask(idx, Filters(as_of_year=year))
    ev_ok, support = _evidence_window(idx, year)
    barred = np.zeros(idx.n_nodes, bool)
    degree = idx.graph.degree
    ranked: list[tuple[tuple[Any, ...], list[int], list[int]]] = []
    for h in range(1, min(hops, MAX_HOPS) + 1):  # shortest first: stop at the first length found
        for nodes in idx.graph.shortest_paths(s, t, h, barred, CANDIDATES):
            if len(nodes) - 1 != h:
                continue
            edges = [_best_edge(idx, a, b, ok, support) for a, b in pairwise(nodes)]
            if any(e is None for e in edges):
                continue  # a pair joined only by facts first seen after the view's year
            es = [int(e) for e in edges if e is not None]
            weakest = min(int(support[e]) for e in es)
            hubness = sum(math.log1p(int(degree[m])) for m in nodes[1:-1])
            ranked.append(((-weakest, round(hubness, 6), tuple(nodes)), list(nodes), es))
        if ranked:
            break
    ranked.sort(key=lambda r: r[0])
    forms: dict[int, Any] = {}
    paths = [
        {
            "hops": len(es),
            "weakest_support": -key[0],
            "nodes": [_node(idx, n) for n in nodes],
            "edges": [_step(idx, e, ev_ok, support, forms) for e in es],
        }
        for key, nodes, es in ranked[:limit]
    ]
    return {
        "snapshot": idx.snapshot_id,
        "kg": idx.kg,
        "as_of": year,
        "snapshot_year": idx.as_of_year,
        "source": _node(idx, s),
        "target": _node(idx, t),
        "max_hops": min(hops, MAX_HOPS),
        "found": len(ranked),
        "paths": paths,
    }
