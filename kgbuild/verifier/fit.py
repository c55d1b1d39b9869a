"""Fitting the heads (scikit-learn's logistic regression) and choosing thresholds on dev.

Hyper-parameters were chosen on the development splits (BioRED Dev, BC5CDR Development) and
are fixed here, named, so a retrain is deterministic: L2 strength ``C`` per head (a sweep over
0.3–100 peaked at or near 10 for each), the vocabulary's minimum count (2: a feature seen once is an
accident of one abstract). Thresholds are chosen on dev by :func:`best_threshold` over a fixed
grid. BLAS runs on one thread while fitting, so floating-point sums are taken in one order and
the same inputs give the same coefficients, bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kgbuild.verifier.corpus import CID
from kgbuild.verifier.examples import Example, design, vocabulary
from kgbuild.verifier.features import FEATURE_SET
from kgbuild.verifier.model import TYPES
from kgbuild.verifier.weights import Weights, text_blob

#: The marker feature of BioRED's Compound–Disease pairs in the CID head's training set.
CID_MARKER = "ds:biored"
#: Threshold grid (probabilities) searched on dev.
GRID = tuple(round(x, 2) for x in np.arange(0.05, 0.951, 0.01))


@dataclass(frozen=True, slots=True)
class Hyper:
    c_pair: float = 10.0
    c_type: float = 10.0
    c_cid: float = 10.0
    min_count: int = 2
    max_iter: int = 5000

    def to_dict(self) -> dict[str, float | int]:
        return {"c_pair": self.c_pair, "c_type": self.c_type, "c_cid": self.c_cid,
                "min_count": self.min_count, "max_iter": self.max_iter}  # fmt: skip


def cid_rows(cdr: list[Example], biored_chem_dis: list[Example]) -> list[tuple[Example, bool]]:
    """The CID head's training rows: BC5CDR pairs (CID or not) and BioRED Compound–Disease
    pairs (CID when Positive_Correlation), the latter with :data:`CID_MARKER`."""
    rows = [(e, CID in e.types) for e in cdr]
    for e in biored_chem_dis:
        marked = Example(e.pmid, e.a, e.b, e.kinds, (*e.features, CID_MARKER), e.types)
        rows.append((marked, "Positive_Correlation" in e.types))
    return rows


def _logreg(c: float, max_iter: int) -> object:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, max_iter=max_iter)


def fit_weights(biored: list[Example], cdr: list[Example], hyper: Hyper) -> Weights:
    """Fit the three heads; thresholds are set later (:func:`with_thresholds`)."""
    from threadpoolctl import threadpool_limits

    chem_dis = [e for e in biored if e.kinds == "Compound|Disease"]
    cid = cid_rows(cdr, chem_dis)
    vocab = vocabulary(biored + [e for e, _ in cid], hyper.min_count)
    index = {f: i for i, f in enumerate(vocab)}
    x_pair = design(biored, index)
    y_pair = np.array([bool(e.types) for e in biored])
    related = [e for e in biored if e.types]
    y_type = np.array([min(TYPES.index(t) for t in e.types if t in TYPES) for e in related])
    x_cid = design([e for e, _ in cid], index)
    y_cid = np.array([y for _, y in cid])
    with threadpool_limits(limits=1):
        pair = _logreg(hyper.c_pair, hyper.max_iter).fit(x_pair, y_pair)  # type: ignore[attr-defined]
        typ = _logreg(hyper.c_type, hyper.max_iter).fit(x_pair[y_pair], y_type)  # type: ignore[attr-defined]
        cidm = _logreg(hyper.c_cid, hyper.max_iter).fit(x_cid, y_cid)  # type: ignore[attr-defined]
    arrays = {
        "vocab": text_blob(vocab),
        "pair_coef": pair.coef_[0].astype(np.float32),
        "pair_bias": np.asarray(pair.intercept_, dtype=np.float64).reshape(-1)[:1],
        "type_coef": typ.coef_.astype(np.float32),
        "type_bias": typ.intercept_.astype(np.float64),
        "cid_coef": cidm.coef_[0].astype(np.float32),
        "cid_bias": np.asarray(cidm.intercept_, dtype=np.float64).reshape(-1)[:1],
    }
    meta = {
        "feature_set": FEATURE_SET,
        "types": [TYPES[k] for k in typ.classes_],
        "thresholds": {"pair": 0.5, "cid": 0.5},
    }
    return Weights(arrays, meta)


def with_thresholds(weights: Weights, pair: float, cid: float) -> Weights:
    meta = {**weights.meta, "thresholds": {"pair": pair, "cid": cid}}
    return Weights(weights.arrays, meta, weights.digest)


def best_threshold(objective: Callable[[float], float]) -> float:
    """The grid value with the highest objective (the lowest such value on ties)."""
    best = max(GRID, key=lambda t: (objective(t), -t))
    return float(best)
