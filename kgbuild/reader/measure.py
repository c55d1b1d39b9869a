"""The reader's figures on a judged split: what it serves, how well its confidence ranks.

Per row, what a build serves (:func:`kgbuild.reader.model.decide`) is checked against the
judged reading (:func:`kgbuild.reader.judged.supports`): a served row is *supported* when the
sentence states, as a finding, the served relation in the served direction between the two
concepts. Figures, with Wilson (1927) 95% intervals for shares:

- ``precision`` — supported among served; ``kept`` — served and supported among the rows
  that state some fact (what a user would want served);
- ``auc`` and ``brier`` of the confidence against supported (an unserved row is scored for
  ``associates``, the weakest reading it could be served with), ``brier_constant`` the Brier
  score of always saying the split's base rate;
- ``conf90`` — supported among rows with confidence ≥ 0.9;
- ``grounding`` — served rows whose two mentions are both the concepts their IDs say.
"""

from __future__ import annotations

import math

import numpy as np

from kgbuild.reader.judged import Judged, fact, supports
from kgbuild.reader.model import Reader
from kgbuild.reader.train import pair_of


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (round(centre - half, 4), round(centre + half, 4))


def auc(scores: list[float], labels: list[bool]) -> float:
    """Area under the ROC curve (Mann–Whitney, ties counted half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return math.nan
    order = np.argsort(np.array(scores), kind="mergesort")
    ranks = np.empty(len(scores))
    s = np.array(scores)[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and s[j + 1] == s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    r_pos = sum(r for r, y in zip(ranks, labels, strict=True) if y)
    return float((r_pos - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def share(k: int, n: int) -> dict[str, object]:
    return {"k": k, "n": n, "share": round(k / n, 4) if n else None, "ci95": wilson(k, n)}


def figures(
    judged: list[Judged], decided: list[tuple[str, str, float]], confidences: list[float]
) -> dict[str, object]:
    served = [(j, d) for j, d in zip(judged, decided, strict=True) if d[0]]
    ok = [supports(j.label, rel, direction) for j, (rel, direction, _) in served]
    n_fact = sum(fact(j.label) for j in judged)
    lab = [
        supports(j.label, d[0] or "associates", d[1] or "undirected")
        for j, d in zip(judged, decided, strict=True)
    ]
    conf = confidences
    base = sum(lab) / len(lab) if lab else math.nan
    brier = (
        float(np.mean([(c - y) ** 2 for c, y in zip(conf, lab, strict=True)])) if lab else math.nan
    )
    hi = [y for c, y in zip(conf, lab, strict=True) if c >= 0.9]
    grounded = [j.label["a_ok"] == "yes" and j.label["b_ok"] == "yes" for j, _ in served]
    typed = [(j, d) for j, d in served if d[0] != "associates"]
    typed_ok = [supports(j.label, d[0], d[1]) for j, d in typed]
    return {
        "rows": len(judged),
        "facts": n_fact,
        "precision": share(sum(ok), len(ok)),
        "kept": share(sum(ok), n_fact),
        "typed_precision": share(sum(typed_ok), len(typed_ok)),
        "auc": round(auc(conf, lab), 4),
        "brier": round(brier, 4),
        "brier_constant": round(base * (1 - base), 4),
        "conf90": share(sum(hi), len(hi)),
        "grounding": share(sum(grounded), len(grounded)),
    }


def measure(reader: Reader, judged: list[Judged], split: str) -> dict[str, object]:
    """Figures on one split, overall and per source."""
    rows = [j for j in judged if j.row.split == split]
    readings = reader.read([pair_of(j.row) for j in rows])
    decided = [(r.relation, r.direction, r.score) for r in readings]  # what a build serves
    conf = [r.confidence for r in readings]
    out: dict[str, object] = {"split": split, "all": figures(rows, decided, conf)}
    for source in sorted({j.row.source for j in rows}):
        idx = [i for i, j in enumerate(rows) if j.row.source == source]
        out[source] = figures(
            [rows[i] for i in idx], [decided[i] for i in idx], [conf[i] for i in idx]
        )
    return out
