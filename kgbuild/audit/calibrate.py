"""Fit the evidence confidence model on judged audit sheets and measure its calibration.

Why: ``Evidence.confidence`` is a hand-set prior and its noisy-OR across documents says 1.00
for every well-cited edge; a confidence should be a probability — of 100 facts at 0.8, about 80
hold. The label is a judged row's ``triple_supported`` (the stored triple, read by its IDs, is
stated by the sentence); the features come from the snapshot by ``evidence_id``
(:func:`kgbuild.belief.confidence.row_features_sql`), never from the sheet, which stays blind.

Model: L2-penalised logistic regression fitted by Newton-Raphson / IRLS (McCullagh & Nelder
1989, §4.4; ridge penalty as in le Cessie & van Houwelingen 1992), deterministic, numpy only.
Few features for ~800 rows; a feature that never varies in the training rows (a status the
classifier did not yet fill, a single extractor) gets weight 0 from the penalty, i.e. the
baseline's probability, and the model file says which levels it saw.

Calibration is reported out of sample: 10-fold cross-validation with folds drawn by document
(a hash of the PMID, so rows of one abstract never sit on both sides), then a reliability table
(DeGroot & Fienberg 1983: bins of predicted probability, their mean prediction, observed share
and size) and the Brier score (Brier 1950) beside the Brier of the base rate (a constant
prediction fitted on the same folds): a model no better than the base rate is no model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.audit.sheet import read_sheet
from kgbuild.belief.confidence import (
    EPISTEMIC,
    FEATURE_SET,
    FEATURES,
    MODEL_FORMAT,
    ROW_COLUMNS,
    check_model,
    confidence_sql,
    design,
    predict,
    row_features_sql,
)
from kgbuild.errors import InputError
from kgbuild.store.snapshots import Warehouse

__all__ = ["confidence_sql", "fit", "predict"]  # predict/confidence_sql live in the store

L2 = 1.0
FOLDS = 10
BINS = 10
MAX_ITER = 50
#: Decimals kept in the model file: the same numbers in Python and in SQL, on every machine.
DECIMALS = 6
#: Fewer judged rows than this fit nothing worth shipping (cross-validation needs two folds).
MIN_ROWS = 10


def irls(x: np.ndarray, y: np.ndarray, l2: float = L2) -> np.ndarray:
    """Penalised logistic regression by Newton-Raphson: β ← β + (XᵀWX + λI₀)⁻¹(Xᵀ(y−p) − λI₀β),
    W = diag(p(1−p)); the intercept (column 0) is not penalised."""
    pen = np.full(x.shape[1], l2)
    pen[0] = 0.0
    beta = np.zeros(x.shape[1])
    for _ in range(MAX_ITER):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        grad = x.T @ (y - p) - pen * beta
        hess = (x.T * (p * (1 - p))) @ x + np.diag(pen) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta


def fit(
    rows: Sequence[Mapping[str, Any]], labels: Sequence[bool], l2: float = L2
) -> dict[str, Any]:
    """A model (see :mod:`kgbuild.belief.confidence`) from feature rows and their labels."""
    names = list(FEATURES)
    y = np.asarray(labels, dtype=float)
    beta = irls(design(names, rows), y, l2)
    coef = {"intercept": round(float(beta[0]), DECIMALS)}
    coef |= {n: round(float(b), DECIMALS) for n, b in zip(names, beta[1:], strict=True)}
    return {
        "format": MODEL_FORMAT,
        "feature_set": FEATURE_SET,
        "label": "triple_supported",
        "l2": l2,
        "coefficients": coef,
        "methods": sorted({str(r["method"]) for r in rows}),
        "epistemic_seen": [s for s in EPISTEMIC if any(r["epistemic"] == s for r in rows)],
        "base_rate": round(float(y.mean()), 4) if len(y) else 0.0,
        "n": len(y),
    }


def fold_of(pmid: str, folds: int = FOLDS) -> int:
    """The document's cross-validation fold (stable across runs and machines)."""
    return int(hashlib.sha256(str(pmid).encode()).hexdigest()[:8], 16) % folds


def cross_validate(
    rows: Sequence[Mapping[str, Any]], labels: Sequence[bool], folds: int = FOLDS, l2: float = L2
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold predictions of the model and of the base rate, one per row."""
    y = np.asarray(labels, dtype=float)
    fold = np.array([fold_of(r["pmid"], folds) for r in rows])
    p, base = np.zeros(len(y)), np.zeros(len(y))
    for k in range(folds):
        test, train = fold == k, fold != k
        if not test.any() or not train.any():
            continue
        tr = [r for r, keep in zip(rows, train, strict=True) if keep]
        model = fit(tr, y[train], l2)
        p[test] = predict(model, [r for r, keep in zip(rows, test, strict=True) if keep])
        base[test] = y[train].mean()
    return p, base


def reliability(p: Sequence[float], y: Sequence[bool], bins: int = BINS) -> dict[str, Any]:
    """Reliability table (equal-width bins of predicted probability; empty bins left out),
    Brier score, and the expected calibration error (bin-size-weighted |mean p − share|)."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=float)
    idx = np.minimum((p * bins).astype(int), bins - 1)
    table = []
    for b in range(bins):
        m = idx == b
        if m.any():
            table.append(
                {
                    "bin": [b / bins, (b + 1) / bins],
                    "predicted": round(float(p[m].mean()), 4),
                    "observed": round(float(y[m].mean()), 4),
                    "n": int(m.sum()),
                }
            )
    ece = sum(t["n"] * abs(t["predicted"] - t["observed"]) for t in table) / max(len(p), 1)
    return {"bins": table, "n": len(p), "brier": _brier(p, y), "ece": round(float(ece), 4),
            "auc": auc(p, y)}  # fmt: skip


def auc(p: Sequence[float], y: Sequence[bool]) -> float | None:
    """Area under the ROC curve: the probability that a random supported row scores above a
    random unsupported one, ties counting one half (the Mann-Whitney U statistic over
    n₁·n₀; Hanley & McNeil 1982). Brier alone rewards a constant near the base rate; AUC says
    whether the score *separates* (0.5: it does not). None when one class is absent."""
    p, y = np.asarray(p, dtype=float), np.asarray(y, dtype=bool)
    n1, n0 = int(y.sum()), int((~y).sum())
    if not n1 or not n0:
        return None
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    sorted_p = p[order]
    i = 0
    while i < len(p):  # average ranks of ties
        j = i
        while j + 1 < len(p) and sorted_p[j + 1] == sorted_p[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    u = ranks[y].sum() - n1 * (n1 + 1) / 2
    return round(float(u / (n1 * n0)), 4)


def _brier(p: np.ndarray, y: np.ndarray) -> float:
    return round(float(np.mean((p - y) ** 2)), 4) if len(p) else 0.0


# ---- sheets and snapshots ------------------------------------------------------------------
def snapshot_for(wh: Warehouse, meta: Mapping[str, str], ref: str | None = None) -> str:
    """The snapshot to read features from: ``ref`` when given, else the sheet's own snapshot
    when the warehouse holds it, else the newest snapshot of the sheet's KG."""
    if ref:
        return wh.resolve(ref)
    known = {s["snapshot_id"] for s in wh.snapshots()}
    if meta.get("snapshot") in known:
        return meta["snapshot"]
    if meta.get("kg"):
        return wh.resolve(f"{meta['kg']}@latest")
    raise InputError("the sheet names no snapshot or KG of this warehouse; pass --snapshot",
                     warehouse=wh.root)  # fmt: skip


def feature_rows(wh: Warehouse, sid: str, evidence_ids: Sequence[str]) -> dict[str, dict]:
    """Feature rows by evidence_id (ids not in the snapshot are absent)."""
    sql = row_features_sql("'" + sid.replace("'", "''") + "'")
    rows = wh.query(f"SELECT * FROM ({sql}) WHERE list_contains(?, evidence_id)",
                    [list(evidence_ids)])  # fmt: skip
    names = (*ROW_COLUMNS, *FEATURES)
    return {r[0]: dict(zip(names, r, strict=True)) for r in rows}


def judged_labels(path: Path) -> tuple[dict[str, bool], dict[str, Any]]:
    """A sheet's judged rows as {evidence_id: triple_supported}, and its provenance."""
    sheet = read_sheet(path)
    judged, _blank = sheet.judgments()
    ids = {int(r["item"]): r["evidence_id"] for r in sheet.rows}
    labels = {ids[j.item]: j.triple_supported for j in judged}
    info = {
        "sheet": path.name,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "rows": len(sheet.rows),
        "judged": len(judged),
        "snapshot": sheet.meta.get("snapshot", ""),
    }
    return labels, {"info": info, "meta": sheet.meta}


#: Statuses ``kg_edges`` serves (``served_evidence_at``), as the feature rows name them.
SERVED_STATUSES = frozenset({"asserted", "unclassified"})


def served_figures(rows: Sequence[Mapping[str, Any]], y: np.ndarray) -> dict[str, Any]:
    """What the default serving rule does with judged rows: the share of served rows judged
    supported (precision) and of supported rows served (recall)."""
    served = np.array([r["epistemic"] in SERVED_STATUSES and r["verified"] != "no"
                       for r in rows], dtype=bool)  # fmt: skip
    yb = y.astype(bool)
    hit, n_served, n_supported = int((served & yb).sum()), int(served.sum()), int(yb.sum())
    return {
        "served": n_served,
        "supported": n_supported,
        "served_supported": hit,
        "precision": round(hit / n_served, 4) if n_served else None,
        "recall": round(hit / n_supported, 4) if n_supported else None,
    }


def _judged_rows(
    sheets: Sequence[Path], wh: Warehouse, snapshot: str | None
) -> tuple[list[dict], np.ndarray, str, list[dict], int]:
    labels: dict[str, bool] = {}
    sources, sid = [], None
    for path in sheets:
        lab, s = judged_labels(Path(path))
        sid = sid or snapshot_for(wh, s["meta"], snapshot)
        labels.update(lab)
        sources.append(s["info"])
    if not labels or sid is None:
        raise InputError("no judged rows in the sheets")
    found = feature_rows(wh, sid, sorted(labels))
    keys = sorted(found)
    rows = [found[k] for k in keys]
    y = np.array([labels[k] for k in keys], dtype=float)
    if len(rows) < MIN_ROWS or len({fold_of(r["pmid"]) for r in rows}) < 2:
        raise InputError("too few judged rows (or documents) found in the snapshot to fit",
                         found=len(rows), snapshot=sid)  # fmt: skip
    return rows, y, sid, sources, len(labels)


def cross_validated_report(
    sheets: Sequence[Path], wh: Warehouse, snapshot: str | None = None, l2: float = L2
) -> dict[str, Any]:
    """The model's out-of-fold calibration on judged sheets (reliability table, Brier beside
    the base rate's, AUC) and what the serving rule keeps (:func:`served_figures`)."""
    rows, y, sid, sources, labelled = _judged_rows(sheets, wh, snapshot)
    p, base = cross_validate(rows, y, FOLDS, l2)
    cv = reliability(p, y)
    cv["brier_base_rate"] = _brier(base, y)
    cv |= {"snapshot": sid, "sheets": [s["sheet"] for s in sources], "labelled": labelled,
           "served": served_figures(rows, y)}  # fmt: skip
    return cv


def fit_sheets(
    sheets: Sequence[Path], wh: Warehouse, snapshot: str | None = None, l2: float = L2
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(model, report): fit on every judged row found in the snapshot; the report holds the
    cross-validated reliability table and Brier scores, and the rows skipped."""
    rows, y, sid, sources, labelled = _judged_rows(sheets, wh, snapshot)
    p, base = cross_validate(rows, y, FOLDS, l2)
    cv = reliability(p, y)
    cv["brier_base_rate"] = _brier(base, y)
    model = fit(rows, y, l2)
    model["features"] = {n: {"sql": sql, "why": why} for n, (sql, why) in FEATURES.items()}
    model["fitted_on"] = {"snapshot": sid, "sheets": sources, "labelled": labelled,
                          "found": len(rows), "skipped_not_in_snapshot": labelled - len(rows),
                          "cross_validated": {"folds": FOLDS, "by": "pmid", **cv}}  # fmt: skip
    check_model(model)
    return model, model["fitted_on"]


def calibration_of_sheet(
    path: Path, wh: Warehouse, model: Mapping[str, Any], snapshot: str | None = None
) -> dict[str, Any]:
    """The calibration section of ``audit score``: the model's probability of each judged row
    (looked up by evidence_id in the snapshot), reliability table and Brier scores."""
    labels, s = judged_labels(path)
    sid = snapshot_for(wh, s["meta"], snapshot)
    found = feature_rows(wh, sid, sorted(labels))
    keys = sorted(found)
    y = np.array([labels[k] for k in keys], dtype=float)
    p = predict(model, [found[k] for k in keys]) if keys else np.zeros(0)
    out = reliability(p, y)
    share = float(y.mean()) if len(y) else 0.0
    out |= {
        "snapshot": sid,
        "judged": len(labels),
        "not_in_snapshot": len(labels) - len(keys),
        "brier_base_rate": _brier(np.full(len(y), float(model.get("base_rate", share))), y),
        "brier_sheet_share": round(share * (1 - share), 4),
        "model_base_rate": model.get("base_rate"),
        "by_year": calibration_by_year(wh, sid, model, labels),
    }
    return out


def calibration_by_year(
    wh: Warehouse, sid: str, model: Mapping[str, Any], labels: Mapping[str, bool]
) -> list[dict[str, Any]]:
    """The calibration of the belief's inputs year by year: for each snapshot year
    of ``sid``'s lineage, the judged rows that snapshot holds, scored with the probabilities
    that year's snapshot gives them (its support, so its ``log_support``) — what
    ``belief_at(year)`` is built from (:mod:`kgbuild.belief.history`). A year whose snapshot
    holds none of the judged rows is left out."""
    years = wh.query(
        "SELECT s.as_of_year, arg_min(s.snapshot_id, l.distance) FROM snapshot_lineage l "
        "JOIN snapshots s ON s.snapshot_id = l.ancestor_id WHERE l.snapshot_id = ? "
        "GROUP BY s.as_of_year ORDER BY s.as_of_year",
        [sid],
    )
    out = []
    for year, year_sid in years:
        found = feature_rows(wh, year_sid, sorted(labels))
        if not found:
            continue
        keys = sorted(found)
        y = np.array([labels[k] for k in keys], dtype=float)
        p = predict(model, [found[k] for k in keys])
        r = reliability(p, y)
        out.append({"year": int(year), "snapshot": year_sid, "n": r["n"],
                    "mean_predicted": round(float(p.mean()), 4),
                    "observed": round(float(y.mean()), 4), "brier": r["brier"],
                    "ece": r["ece"], "auc": r["auc"]})  # fmt: skip
    return out
