"""Which neighbours a drawing shows: the specific ones first, generic hubs (Water, Metals,
Lipids, Reactive Oxygen Species …) after them.

Ordering a node's neighbours by support alone fills the slots with whatever the literature
mentions everywhere: on the DALK build, 19 of Alzheimer disease's 30 drawn neighbours were among
the 2 % of nodes found in the most abstracts (``bench/explorer_views.py`` counts them). The
rule here is the association-rule confidence of the pair seen from the neighbour — the share of
the neighbour's abstracts that state a fact with this node, ``support / (docs(o) + k)`` with
additive smoothing ``k`` so a node seen once does not win on 1/1 — weighted by ``log(1 +
support)`` so a well-attested pair still beats a single mention (Lift and confidence as
interestingness measures: Tan, Kumar & Srivastava, KDD 2002; TF-IDF's damping of frequent
terms is the same idea). ``docs(o)`` is the index's count of distinct PMIDs with evidence per
node (:attr:`~kgbuild.search.index.SnapshotIndex.node_docs`).
"""

from __future__ import annotations

import math

import numpy as np

from kgbuild.search.index import SnapshotIndex

#: Additive smoothing of a neighbour's abstract count (a node in one abstract scores as one in
#: six: it needs support from several abstracts to lead).
SMOOTHING = 5
RULES = ("specific", "support")


def ranked_neighbours(idx: SnapshotIndex, n: int, es: np.ndarray, support: np.ndarray,
                      rule: str = "specific") -> list[int]:  # fmt: skip
    """Node ``n``'s distinct neighbours over its edges ``es`` (strongest first, with their
    as-of ``support``), ordered by ``rule``: ``specific`` (the smoothed confidence above) or
    ``support`` (the strongest edge's support, the old order); ties by node index."""
    E = idx.edges
    best: dict[int, int] = {}
    for e, s in zip(es.tolist(), support.tolist(), strict=True):
        h, t = int(E["head"][e]), int(E["tail"][e])
        o = t if h == n else h
        if o != n and o not in best:
            best[o] = int(s)
    if rule == "support":
        return list(best)  # es is strongest first already
    docs = idx.node_docs

    def score(o: int) -> float:
        s = best[o]
        return s * math.log1p(s) / (int(docs[o]) + SMOOTHING)

    return sorted(best, key=lambda o: (-score(o), o))


def hub_share(idx: SnapshotIndex, chosen: list[int], quantile: float = 0.98) -> float:
    """The share of ``chosen`` among the nodes found in the most abstracts (the top
    ``1 - quantile`` by abstract count): the figure the rule lowers."""
    docs = idx.node_docs
    if not chosen or not (docs > 0).any():
        return 0.0
    cut = float(np.quantile(docs[docs > 0], quantile))
    return sum(int(docs[o]) >= cut for o in chosen) / len(chosen)
