"""Ranking the candidate links of a snapshot: the fitted model's score of every pair not yet
joined at the reader's horizon, the degree product beside it (preferential attachment,
Barabási & Albert 1999; Liben-Nowell & Kleinberg 2007), and the best K of a score.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kgbuild.forecast.features import Features
from kgbuild.forecast.graph import candidate_blocks
from kgbuild.forecast.names import NameEmbedder
from kgbuild.forecast.snapshots import SnapshotReader


def score(
    past: SnapshotReader, model: Any, embed: NameEmbedder | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate keys, model scores, degree-product scores) of every candidate at the horizon."""
    year = past.horizon
    g = past.graph(year)
    prev = past.graph(year - 1) if year - 1 in past.years else None
    feats = Features.of(g, prev, embed)
    deg = g.degree
    keys, model_scores, base = [], [], []
    for i, j in candidate_blocks(g):
        keys.append(i * g.n + j)
        model_scores.append(model.predict(feats.pairs(i, j), raw_score=True))
        base.append(deg[i] * deg[j])
    cat = np.concatenate
    return cat(keys), cat(model_scores).astype(np.float64), cat(base).astype(np.float64)


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` best scores, best first; ties broken by index (the candidates' key
    order, i.e. node ids), so the list never depends on the sort algorithm."""
    k = min(k, len(scores))
    if k <= 0:
        return np.array([], np.int64)
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    above = np.flatnonzero(scores > kth)
    tied = np.flatnonzero(scores == kth)[: k - len(above)]
    idx = np.concatenate([above, tied])
    return idx[np.lexsort((idx, -scores[idx]))]
