"""Exploration: the candidate subgraph of one question (DALK §3.2, coarse-to-fine sampling).

- **Path-based**: shortest paths of ≤ ``hops`` edges (default 3, HyKGE's hop limit; DALK went
  to 5) between linked entities — question–question and question–choice pairs, never two
  choices — at most ``PATH_CANDIDATES`` per pair here, of which ranking keeps ≤ 5 (DALK's cap).
- **Neighbour-based**: each linked entity's edges — every edge to another linked entity, then
  its strongest ``neighbour_cap`` others; a second hop only from neighbours the question itself
  names a word of (DALK expands a neighbour group a second time only for related diseases).
- **Hubs** (more than ``hub_degree`` distinct neighbours: Alzheimer's disease has thousands)
  are never intermediates of a path — through a hub everything is two hops from everything
  (HyKGE: retrieved chains grow like a power law) — and contribute only their strongest edges:
  capped in a fixed order (support, confidence, edge id), never by sampling or row order.
- **Filters** (relation, node kind, min support/confidence, as-of year) act on edges before any
  of this, so paths only use edges that pass them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, pairwise

import numpy as np

from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import is_content, tokens

#: A node with more distinct neighbours than this is a hub (see module docstring). On the DALK
#: snapshot 14 of 11,877 nodes are hubs (AD 2,286; amyloid-beta 2,039; mouse App 1,008 …).
HUB_DEGREE = 200
#: Shortest paths gathered per entity pair before ranking keeps PATHS_PER_PAIR.
PATH_CANDIDATES = 20
PATHS_PER_PAIR = 5
#: Strongest edges taken per linked entity (besides its edges to other linked entities).
NEIGHBOUR_CAP = 20
#: Edges taken from a second-hop neighbour, and how many such neighbours are expanded.
SECOND_HOP_CAP = 5
SECOND_HOP_NODES = 10


@dataclass(frozen=True, slots=True)
class Filters:
    """Edge filters; the default passes every edge."""

    relations: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()
    min_support: int = 0
    min_confidence: float = 0.0
    as_of_year: int | None = None
    #: Use every evidence row, not only asserted ones: selects the snapshot's
    #: all-evidence index rather than masking edges, so it is not part of ``active``.
    all_evidence: bool = False

    @property
    def active(self) -> bool:
        return bool(
            self.relations
            or self.kinds
            or self.min_support > 1
            or self.min_confidence > 0
            or self.as_of_year is not None
        )


def edge_mask(index: SnapshotIndex, f: Filters) -> np.ndarray:
    """Boolean mask of the edges that pass ``f``."""
    e = index.edges
    mask = np.ones(index.n_edges, bool)
    if f.relations:
        codes = [i for i, r in enumerate(index.relations) if r in f.relations]
        mask &= np.isin(e["rel"], codes)
    if f.min_support > 1:
        mask &= e["support"] >= f.min_support
    if f.min_confidence > 0:
        mask &= e["confidence"] >= f.min_confidence
    if f.as_of_year is not None:
        mask &= (e["first_year"] > 0) & (e["first_year"] <= f.as_of_year)
    if f.kinds:
        types = np.array([t or "Other" for t in index.nodes["type"]], dtype=object)
        ok = np.isin(types, list(f.kinds))
        mask &= ok[e["head"]] & ok[e["tail"]]
    return mask


@dataclass(slots=True)
class Candidates:
    """The sampled subgraph: edges with why they were taken, and the paths found."""

    edges: dict[int, set[str]] = field(default_factory=dict)  # edge id → reasons
    paths: list[tuple[tuple[int, ...], tuple[int, ...], str]] = field(default_factory=list)
    hubs_capped: list[int] = field(default_factory=list)
    second_hop: list[int] = field(default_factory=list)

    def add(self, e: int, reason: str) -> None:
        self.edges.setdefault(e, set()).add(reason)


def best_edge(graph: Graph, mask: np.ndarray | None, u: int, v: int) -> int | None:
    """The strongest edge joining u and v (either direction) that passes the filters."""
    for e in graph.pair_edges.get((u, v) if u < v else (v, u), ()):
        if mask is None or mask[e]:
            return e
    return None


def explore(
    index: SnapshotIndex,
    graph: Graph,
    mask: np.ndarray | None,
    question_nodes: list[int],
    choice_nodes: list[list[int]],
    question_text: str,
    hops: int = 3,
    hub_degree: int = HUB_DEGREE,
    neighbour_cap: int = NEIGHBOUR_CAP,
) -> Candidates:
    """Paths and neighbours around the linked nodes (``graph`` already filtered by ``mask``)."""
    c = Candidates()
    barred = graph.degree > hub_degree
    linked = list(dict.fromkeys([*question_nodes, *(n for ch in choice_nodes for n in ch)]))
    linked_set = set(linked)
    # paths: question–question and question–choice pairs
    pairs = list(combinations(question_nodes, 2))
    for i, ch in enumerate(choice_nodes):
        pairs += [(q, n, i) for q in question_nodes for n in ch if n != q]  # type: ignore[misc]
    for pair in pairs:
        s, t = pair[0], pair[1]
        tag = f"path:choice:{pair[2]}" if len(pair) == 3 else "path:question"
        for nodes in graph.shortest_paths(s, t, hops, barred, PATH_CANDIDATES):
            es = [best_edge(graph, mask, a, b) for a, b in pairwise(nodes)]
            if any(e is None for e in es):
                continue
            c.paths.append((nodes, tuple(es), tag))  # type: ignore[arg-type]
            for e in es:
                c.add(e, tag)  # type: ignore[arg-type]
    # neighbours: edges among linked nodes first, then the strongest others (hubs capped)
    q_tokens = {t for t in tokens(question_text) if is_content(t)}
    relevant: list[int] = []
    linked_arr = np.array(sorted(linked_set), np.int64)
    for u in linked:
        es, others = graph.incident(u)
        if mask is not None:
            keep = mask[es]
            es, others = es[keep], others[keep]
        hit = np.isin(others, linked_arr)
        for e in es[hit].tolist():
            c.add(e, "neighbour:linked")
        rest_e, rest_o = es[~hit][:neighbour_cap], others[~hit][:neighbour_cap]
        for e, o in zip(rest_e.tolist(), rest_o.tolist(), strict=True):
            c.add(e, "neighbour")
            if o not in relevant and _names_question_word(index, o, q_tokens):
                relevant.append(o)
        if graph.degree[u] > hub_degree:
            c.hubs_capped.append(u)
    # second hop, only from neighbours the question names a word of
    for n in relevant[:SECOND_HOP_NODES]:
        es, others = graph.incident(n)
        if mask is not None:
            keep = mask[es]
            es, others = es[keep], others[keep]
        for e in es[:SECOND_HOP_CAP].tolist():
            c.add(e, "neighbour:2hop")
        c.second_hop.append(n)
    return c


def _names_question_word(index: SnapshotIndex, node: int, q_tokens: set[str]) -> bool:
    name_toks = index.name_tokens(node)
    return bool(name_toks & q_tokens)
