"""The model: supervised, time-sliced link prediction (Kastrin, Rindflesch & Hristovski 2016;
Sybrandt et al. 2020, AGATHA) — features of a pair from a snapshot Y' (:mod:`features`), labels =
the pairs first joined in Y'+1 … Y, for Y' = Y−1, Y−2, Y−3 (those that exist); a gradient-boosted
tree ensemble (LightGBM: Ke et al. 2017, NeurIPS) fit on every positive and a seeded uniform
sample of negatives, to be applied to the features of Y itself (:mod:`predict`).

Hyperparameters (:data:`MODEL_PARAMS`, :data:`TRAIN_LAGS`, :data:`NEGATIVES_PER_SNAPSHOT`) were
fixed a priori and are the same at every Y (docs/evaluation.md says which choices were looked at
on which year).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.errors import StoreError
from kgbuild.forecast.features import CATEGORICAL, Features, feature_names
from kgbuild.forecast.names import NameEmbedder
from kgbuild.forecast.snapshots import SnapshotReader

#: Seed of the negative sample and of the model.
SEED = 42
#: Training snapshots: Y − lag for each lag (those that exist and have an earlier year's labels).
TRAIN_LAGS = (1, 2, 3)
#: Negatives sampled (uniformly among the candidates) per training snapshot; every positive kept.
NEGATIVES_PER_SNAPSHOT = 200_000
#: LightGBM settings, fixed a priori (its defaults: 31 leaves, learning rate 0.1; 150 trees,
#: larger leaves and an L2 penalty against noise), never tuned on an evaluation year; two
#: threads and ``deterministic`` so that a run is reproducible bit for bit.
MODEL_PARAMS: dict[str, Any] = {
    "objective": "binary",
    "learning_rate": 0.1,
    "num_leaves": 31,
    "min_data_in_leaf": 100,
    "lambda_l2": 1.0,
    "num_threads": 2,
    "deterministic": True,
    "force_row_wise": True,
    "seed": SEED,
    "verbose": -1,
}
#: Boosting rounds (trees).
N_TREES = 150


@dataclass(slots=True)
class TrainingSlice:
    """One training snapshot: features of ``year``, labels = first joined by ``label_year``."""

    year: int
    label_year: int
    positives: int
    negatives: int
    candidates: int


def training_slice(
    past: SnapshotReader, year: int, rng: np.random.Generator, embed: NameEmbedder | None = None
) -> tuple[np.ndarray, np.ndarray, TrainingSlice]:
    """Features and labels of the candidates of ``year`` (every positive, a uniform sample of
    negatives), the labels being the pairs joined in any snapshot year+1 … ``past.horizon``."""
    g = past.graph(year)
    prev = past.graph(year - 1) if year - 1 in past.years else None
    later: list[np.ndarray] = [g.joined_keys(past.graph(y)) for y in past.years if y > year]
    pos_keys = np.unique(np.concatenate(later)) if later else np.array([], np.int64)
    joined_keys = g.joined_keys(g)
    pos_keys = np.setdiff1d(pos_keys, joined_keys, assume_unique=True)
    n = g.n
    n_cand = n * (n - 1) // 2 - len(joined_keys)
    want = min(NEGATIVES_PER_SNAPSHOT, max(n_cand - len(pos_keys), 0))
    neg_keys = np.array([], np.int64)
    while len(neg_keys) < want:
        i = rng.integers(0, n, size=2 * want)
        j = rng.integers(0, n, size=2 * want)
        keys = np.minimum(i, j) * n + np.maximum(i, j)
        keys = keys[i != j]
        keys = keys[~np.isin(keys, joined_keys) & ~np.isin(keys, pos_keys)]
        neg_keys = np.unique(np.concatenate([neg_keys, keys]))
    if len(neg_keys) > want:
        neg_keys = rng.choice(neg_keys, size=want, replace=False)
    keys = np.concatenate([pos_keys, neg_keys])
    feats = Features.of(g, prev, embed)
    x = feats.pairs(keys // n, keys % n)
    y = np.concatenate([np.ones(len(pos_keys)), np.zeros(len(neg_keys))]).astype(np.int8)
    return x, y, TrainingSlice(year, past.horizon, len(pos_keys), len(neg_keys), n_cand)


def fit(past: SnapshotReader, embed: NameEmbedder | None = None) -> tuple[Any, list[TrainingSlice]]:
    """The model forecasting from ``past.horizon``, fit on the earlier snapshots it holds;
    with the name feature when ``embed`` is given (:mod:`kgbuild.forecast.names`)."""
    import lightgbm

    rng = np.random.default_rng(SEED)
    xs, ys, slices = [], [], []
    for lag in TRAIN_LAGS:
        year = past.horizon - lag
        if year not in past.years:
            continue
        x, y, s = training_slice(past, year, rng, embed)
        xs.append(x)
        ys.append(y)
        slices.append(s)
    y_all = np.concatenate(ys) if ys else np.array([], np.int8)
    if not len(y_all) or y_all.min() == y_all.max():
        raise StoreError(
            f"forecast from {past.horizon} has nothing to learn from: the earlier snapshots "
            f"({', '.join(str(s.year) for s in slices) or 'none'}) join no new pair by "
            f"{past.horizon}, or leave no pair unjoined"
        )
    data = lightgbm.Dataset(
        np.concatenate(xs), y_all, feature_name=list(feature_names(embed is not None)),
        categorical_feature=list(CATEGORICAL), free_raw_data=True,
    )  # fmt: skip
    return lightgbm.train(MODEL_PARAMS, data, num_boost_round=N_TREES), slices
