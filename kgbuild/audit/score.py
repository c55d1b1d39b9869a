"""Score a judged audit sheet: precision with bootstrap intervals for three questions.

1. ``claim_supported`` — the LLM's raw claim is stated by the sentence (the extractor's
   precision);
2. ``faithful`` — the stored triple renders the raw claim, exactly or less specifically
   (normalization's precision: grounding, entity resolution, relation mapping, direction);
3. ``end_to_end`` — the stored triple, read by what its IDs denote, is stated by the sentence
   (what a user of the KG gets).

Normalization must never make a true claim false, so the paired difference ``end_to_end −
claim_supported`` is reported with its own interval (a paired bootstrap: the same resampled
rows on both sides), with the counts of rows it lowered and raised.

Intervals: the percentile bootstrap (Efron & Tibshirani 1993, ch. 13) over the judged rows,
:data:`RESAMPLES` resamples from a fixed seed, so the same sheet scores the same everywhere; the
Wilson score interval is given beside it because a percentile bootstrap collapses to a point
when every row agrees (100 of 100), where Wilson still says how little 100 rows prove.

Calibration (:func:`calibration`): the confidence model (``data/confidence_model.json``,
:mod:`kgbuild.audit.calibrate`) gives each judged row P(triple supported) from the snapshot's
features; a reliability table and the Brier score say whether "0.8" holds 8 times in 10 on
these rows, the thing ``kg_edges.confidence`` (the best row's probability) claims.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.audit.sheet import Judgment, Sheet

RESAMPLES = 10_000
BOOTSTRAP_SEED = 16
CONFIDENCE = 0.95
#: Where scored audits are recorded, inside the warehouse (read by ``kgbuild quality``).
AUDITS_DIR = "audits"


def _bootstrap(matrix: np.ndarray) -> np.ndarray:
    """(RESAMPLES, columns) means of rows resampled with replacement (shared across columns)."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    idx = rng.integers(0, len(matrix), size=(RESAMPLES, len(matrix)))
    return matrix[idx].mean(axis=1)


def _interval(samples: np.ndarray) -> list[float]:
    lo, hi = np.quantile(samples, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return [round(float(lo), 4), round(float(hi), 4)]


def wilson(k: int, n: int, z: float = 1.959964) -> list[float]:
    """Wilson score interval of k successes in n (95% by default)."""
    if n == 0:
        return [0.0, 1.0]
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)]


def score_judgments(judged: list[Judgment]) -> dict[str, Any]:
    """Precision figures of judged rows (see the module docstring)."""
    n = len(judged)
    claim = np.array([j.claim_supported for j in judged], dtype=float)
    faithful = np.array([j.faithful != "wrong" for j in judged], dtype=float)
    exact = np.array([j.faithful == "exact" for j in judged], dtype=float)
    end = np.array([j.triple_supported for j in judged], dtype=float)
    boot = _bootstrap(np.column_stack([claim, faithful, end, end - claim, exact]))

    def question(col: int, values: np.ndarray) -> dict[str, Any]:
        k = int(values.sum())
        return {"k": k, "n": n, "precision": round(k / n, 4),
                "bootstrap_95": _interval(boot[:, col]), "wilson_95": wilson(k, n)}  # fmt: skip

    wrong_parts = Counter(p for j in judged for p in j.wrong)
    return {
        "judged": n,
        "claim_supported": question(0, claim),
        "faithful": {
            **question(1, faithful),
            "exact": int(exact.sum()),
            "vaguer": sum(j.faithful == "vaguer" for j in judged),
            "wrong": sum(j.faithful == "wrong" for j in judged),
            "wrong_parts": dict(sorted(wrong_parts.items())),
            "wrong_concept": sum(bool({"head", "tail"} & set(j.wrong)) for j in judged),
            "wrong_relation_or_direction": sum(
                bool({"relation", "direction"} & set(j.wrong)) for j in judged
            ),
        },
        "end_to_end": question(2, end),
        "normalization_delta": {
            "delta": round(float((end - claim).mean()), 4),
            "bootstrap_95": _interval(boot[:, 3]),
            "lowered": sum(j.claim_supported and not j.triple_supported for j in judged),
            "raised": sum(j.triple_supported and not j.claim_supported for j in judged),
        },
    }


def score_sheet(sheet: Sheet, source: Path) -> dict[str, Any]:
    """The sheet's figures plus where it came from (snapshot, seed, digest of the file)."""
    from kgbuild.errors import InputError

    judged, blank = sheet.judgments()
    if not judged:
        raise InputError("no judged rows in the sheet (fill the verdict columns)", path=source)
    meta = sheet.meta
    return {
        "sheet": source.name,
        "sheet_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
        "snapshot": meta.get("snapshot", ""),
        "kg": meta.get("kg", ""),
        "seed": meta.get("seed", ""),
        "population": meta.get("population", ""),
        "rows": len(sheet.rows),
        "unjudged": len(blank),
        **score_judgments(judged),
    }


def record(warehouse: Path, figures: dict[str, Any]) -> Path:
    """Keep a scored audit in ``<warehouse>/audits/`` (one file per sheet content; re-scoring
    the same sheet replaces it) for ``kgbuild quality``."""
    folder = Path(warehouse) / AUDITS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{figures['sheet_sha256'][:16]}.json"
    row = {**figures, "scored_at": datetime.now(UTC).isoformat(timespec="seconds")}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(row, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)
    return path


def latest_audit(warehouse: Path, kg: str, snapshot_id: str | None = None) -> dict[str, Any] | None:
    """The most recently scored audit of ``kg`` — of ``snapshot_id`` itself when there is one."""
    folder = Path(warehouse) / AUDITS_DIR
    if not folder.is_dir():
        return None
    audits = []
    for p in sorted(folder.glob("*.json")):
        try:
            a = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not ours, or half-written by a crash: an audit file is advisory
        if isinstance(a, dict) and a.get("kg") == kg and "end_to_end" in a:
            audits.append(a)
    own = [a for a in audits if a.get("snapshot") == snapshot_id]
    pool = own or audits
    return max(pool, key=lambda a: (str(a.get("scored_at", "")), a["sheet_sha256"]), default=None)


def calibration(
    sheet: Path, wh: Any, snapshot: str | None = None, model_path: Path | None = None
) -> dict[str, Any]:
    """The confidence model's calibration on the sheet's judged rows (reliability table, Brier
    score and the base rate's), features read by evidence_id from the snapshot (the sheet's
    own, else ``snapshot``, else the newest of its KG: ``calibrate.snapshot_for``).
    The sheet itself stays blind: no probability is ever written into it. When there is no
    snapshot or model to read, ``{"skipped": why}`` — precision does not depend on it."""
    from kgbuild.audit.calibrate import calibration_of_sheet
    from kgbuild.belief.confidence import load_model
    from kgbuild.errors import KgbuildError

    try:
        model = load_model(model_path)
    except (OSError, ValueError, KgbuildError) as exc:
        return {"skipped": f"no confidence model ({type(exc).__name__}: {exc})"[:200]}
    if not wh.snapshots():
        return {"skipped": f"no snapshot in {wh.root} to read evidence features from"}
    try:
        return calibration_of_sheet(sheet, wh, model, snapshot)
    except KgbuildError as exc:
        if snapshot:
            raise  # asked for by name: an error, not a silent skip
        return {"skipped": str(exc)[:200]}
