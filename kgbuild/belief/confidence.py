"""Evidence features and the calibrated confidence model applied to them.

Why here, in ``store``: ``kg_edges`` (:mod:`kgbuild.store.catalog`) computes an edge's
confidence in SQL, and the store may not import :mod:`kgbuild.audit`, where the model is fitted
(:mod:`kgbuild.audit.calibrate`). This module holds what both need — the feature definitions,
the model file, ``predict`` and the SQL expression — and nothing that fits or judges.

The model: a logistic regression (Cox 1958) giving P(the stored triple is stated by this
evidence row's sentence) from features any snapshot has. The features are computed once, in
SQL (:func:`row_features_sql`): the audit looks rows up with that query and ``kg_edges`` runs the
same query, so a judged row and an edge see the same numbers. ``predict`` (numpy) and
:func:`confidence_sql` (DuckDB) are the same formula; tests hold them equal.

Edge confidence = the probability of the edge's *best* row (max over its rows): "the
probability that this edge's cited sentence supports it". Not a noisy-OR of rows: rows of one
triple are not independent (the same model misreads the same phrase in many abstracts, one
wrong grounding repeats in every document), so 1 − ∏(1 − p) overclaims, and an audit of
sampled rows can check a row's probability but not an independence assumption. Picking the
best row by its features keeps calibration (the model is calibrated given the features), so a
row-level audit measures exactly what ``kg_edges.confidence`` says. Agreement across documents
enters as a feature (``log_support``) instead.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy is imported where the model predicts, not by every catalog reader
    import numpy as np

#: Version of the feature definitions below; a model fitted on other definitions is refused.
FEATURE_SET = "kgbuild-evidence-features/2"
MODEL_FORMAT = "kgbuild-confidence-model/1"
#: Where the shipped model lives, under ``data/``.
MODEL_FILE = "confidence_model.json"
EPISTEMIC = (
    "asserted", "hypothesis", "negated", "background", "not_in_sentence", "unstated",
    "unsupported",
)  # fmt: skip

# Structured-abstract labels (NLM's structured abstract categories: BACKGROUND, OBJECTIVE,
# METHODS, RESULTS, CONCLUSIONS; the label opens the first sentence of its section).
_LABELS = {
    "label_background": r"^(BACKGROUND|INTRODUCTION|OBJECTIVES?|PURPOSE|AIMS?|IMPORTANCE|"
    r"RATIONALE|CONTEXT|HYPOTHESIS)\b[A-Z ,/&-]*:",
    "label_methods": r"^(METHODS?|MATERIALS?|DESIGN|PARTICIPANTS|SETTING|SUBJECTS|PATIENTS|"
    r"MAIN OUTCOME|MEASUREMENTS?|INTERVENTIONS?|EXPERIMENTAL)\b[A-Z ,/&-]*:",
    "label_results": r"^(RESULTS?|KEY RESULTS|FINDINGS|MAIN RESULTS)\b[A-Z ,/&-]*:",
    "label_conclusion": r"^(CONCLUSIONS?|INTERPRETATION|DISCUSSION|SIGNIFICANCE|IMPLICATIONS?)"
    r"\b[A-Z ,/&-]*:",
}
#: The verifier's probability clipped to [0.005, 0.995] (a finite logit), 0.5 when unscored.
_VERIFIER_P = "greatest(least(coalesce(e.verifier_score, 0.5), 0.995), 0.005)"
#: Numeric features: name → (SQL over the row-features query's base columns, why).
#: Base columns: e = evidence row, t = its triple, d = its document, s.support.
FEATURES: dict[str, tuple[str, str]] = {
    "title": ("(e.sent_start = 0)::DOUBLE", "the sentence is the title (no context, terse)"),
    "first_sentence": (
        "(e.sent_start > 0 AND e.sent_start <= coalesce(length(d.title), 0) + 1)::DOUBLE",
        "first sentence of the abstract (often background, stated as known)",
    ),
    "last_sentence": (
        "(e.sent_end >= coalesce(length(d.title), 0) + 1 + coalesce(length(d.abstract), 0) - 1"
        " AND e.sent_start > 0)::DOUBLE",
        "last sentence (the conclusion of an unstructured abstract)",
    ),
    **{
        k: (f"regexp_matches(e.sentence, '{v}')::DOUBLE", "structured-abstract section label")
        for k, v in _LABELS.items()
    },
    "free_endpoints": (
        "(starts_with(t.head_id, 'free:')::INT + starts_with(t.tail_id, 'free:')::INT)::DOUBLE",
        "endpoints left as free text nodes (0-2): ungrounded names are vaguer",
    ),
    "typed_relation": (
        "(t.metaedge IS NOT NULL)::DOUBLE",
        "the relation is a Hetionet metaedge (type-checked), not a free predicate",
    ),
    "log_support": (
        "ln(greatest(coalesce(t.support, 0), 1))",
        "ln of the triple's distinct documents with asserted evidence (agreement)",
    ),
    "verifier_logit": (
        f"ln({_VERIFIER_P} / (1 - {_VERIFIER_P}))",
        "logit of the relation verifier's P(the abstract states a relation between the pair), "
        "trained on BioRED and BC5CDR (issue 39); 0 when the row was not scored",
    ),
    "verifier_missing": (
        "(e.verifier_score IS NULL)::DOUBLE",
        "the verifier did not score the row (an endpoint it cannot place; older parts)",
    ),
    "long_sentence": (
        "(length(e.sentence) > 300)::DOUBLE",
        "long sentences hold more entities to confuse",
    ),
    **{
        f"epistemic_{x}": (
            f"(e._epistemic = '{x}')::DOUBLE",
            f"the sentence's status is {x} (vs asserted)",
        )
        for x in EPISTEMIC[1:]
    },
}


def _q(text: str) -> str:
    return "'" + str(text).replace("'", "''") + "'"


#: The leading columns of :func:`row_features_sql`, before one column per :data:`FEATURES`.
ROW_COLUMNS = ("evidence_id", "triple_id", "pmid", "method", "epistemic", "verified", "prior")


#: An evidence row's status as the model sees it: unclassified rows count as asserted.
_ASSERTED_STATUS = "CASE WHEN epistemic = 'unclassified' THEN 'asserted' ELSE epistemic END"


def triple_support_sql(sid: str) -> str:
    """Every triple of snapshot ``sid`` with ``support``: its distinct documents with asserted
    (or unclassified) evidence — the triple side of :func:`row_features_sql`."""
    return f"""
SELECT tr.*, s.support FROM triples_at({sid}) tr LEFT JOIN (
    SELECT triple_id, count(DISTINCT pmid) FILTER (WHERE {_ASSERTED_STATUS} = 'asserted')
           AS support
    FROM evidence_status_at({sid}) GROUP BY triple_id) s USING (triple_id)"""


def row_features_sql(sid: str, extra: tuple[str, ...] = (), triples: str | None = None) -> str:
    """A SELECT of every evidence row of snapshot ``sid`` (an SQL expression: a quoted id or
    the ``sid`` parameter of a macro) with :data:`ROW_COLUMNS` (``prior``: the row's hand-set
    ``Evidence.confidence``), the columns named in ``extra`` (``e.<col>`` of the evidence,
    ``t.<col>`` of the triple; kgbuild's own names, never a user's: an export reads rows,
    triples and probabilities in one pass) and one column per :data:`FEATURES`.

    It reads ``evidence_status_at`` (every status column present, 'unclassified' for rows of
    parts written before statuses existed), the triples with their support
    (:func:`triple_support_sql`, or ``triples``: a table an export made of it beforehand) and
    ``documents_at``. Unclassified rows count as asserted: that is how ``kg_edges`` serves them.

    The triples and their support are one relation, joined once (two 1M-row hash
    tables beside an export's sort did not fit its memory), and the support scans the evidence
    itself rather than the CTE ``e`` (a CTE read twice is buffered whole by DuckDB)."""
    cols = ",\n  ".join(f"{sql} AS {name}" for name, (sql, _) in FEATURES.items())
    t = triples or f"({triple_support_sql(sid)})"
    return f"""
WITH e AS (SELECT *, {_ASSERTED_STATUS} AS _epistemic FROM evidence_status_at({sid})),
d AS (SELECT pmid, any_value(title) AS title, any_value(abstract) AS abstract
      FROM documents_at({sid}) GROUP BY pmid)
SELECT e.evidence_id, e.triple_id, e.pmid, e.method, e._epistemic AS epistemic,
  e.verified, e.confidence AS prior,{"".join(f" {c}," for c in extra)}
  {cols}
FROM e JOIN {t} t ON t.triple_id = e.triple_id LEFT JOIN d ON d.pmid = e.pmid"""


def check_model(model: Mapping[str, Any]) -> None:
    """Refuse a model this code cannot apply (another format, feature set or unknown names)."""
    from kgbuild.errors import ConfigError

    if model.get("format") != MODEL_FORMAT or model.get("feature_set") != FEATURE_SET:
        raise ConfigError(
            "confidence model of another format or feature set",
            format=model.get("format"),
            feature_set=model.get("feature_set"),
        )
    unknown = set(model.get("coefficients", {})) - set(FEATURES) - {"intercept"}
    if unknown:
        raise ConfigError(
            "confidence model names unknown features", names=",".join(sorted(unknown))
        )
    defs = model.get("features")
    if defs is not None and {n: f.get("sql") for n, f in defs.items()} != {
        n: sql for n, (sql, _) in FEATURES.items()
    }:
        raise ConfigError("confidence model was fitted on other feature definitions")
    for v in model["coefficients"].values():
        if not isinstance(v, int | float) or not math.isfinite(v):
            raise ConfigError("confidence model has a non-numeric coefficient", value=str(v)[:40])


def load_model(path: Path | None = None) -> dict[str, Any]:
    """The model file (default ``data/confidence_model.json``), checked."""
    from kgbuild.schema import data_dir

    model = json.loads(Path(path or data_dir() / MODEL_FILE).read_text(encoding="utf-8"))
    check_model(model)
    return model


def design(names: Iterable[str], rows: Iterable[Mapping[str, Any]]) -> np.ndarray:
    """Design matrix: a column of ones, then the named feature columns of each row."""
    import numpy as np

    names = list(names)
    return np.array([[1.0] + [float(r[n] or 0.0) for n in names] for r in rows]).reshape(
        -1, len(names) + 1
    )


def predict(model: Mapping[str, Any], rows: Iterable[Mapping[str, Any]]) -> np.ndarray:
    """P(supported) per feature row (rows of :func:`row_features_sql`). A row whose method the
    model was not fitted on gets its hand-set prior instead (no data, no claim to calibration)."""
    import numpy as np

    rows = list(rows)
    coef = model["coefficients"]
    names = [n for n in coef if n != "intercept"]
    beta = np.array([coef["intercept"]] + [coef[n] for n in names])
    p = 1.0 / (1.0 + np.exp(-(design(names, rows) @ beta)))
    known = np.array([r["method"] in model["methods"] for r in rows], dtype=bool)
    prior = np.array([float(r.get("prior") or 0.0) for r in rows])
    return np.where(known, p, prior)


def confidence_sql(model: Mapping[str, Any]) -> str:
    """A DuckDB expression equal to :func:`predict` over the columns of :func:`row_features_sql`
    (``method``, ``prior`` and the feature columns the model names). Coefficients are written
    with ``repr`` (exact round trip of the float), names checked against :data:`FEATURES`."""
    check_model(model)
    coef = model["coefficients"]
    terms = [repr(float(coef["intercept"]))]
    terms += [f"{float(v)!r} * {n}" for n, v in coef.items() if n != "intercept"]
    methods = ", ".join(_q(m) for m in model["methods"]) or "NULL"
    logit = " + ".join(terms)
    return f"(CASE WHEN method IN ({methods}) THEN 1 / (1 + exp(-({logit}))) ELSE prior END)"


def edge_confidence_sql(
    model: Mapping[str, Any], sid: str = "sid", served: bool = False, triples: str | None = None
) -> str:
    """The ``conf`` CTE body for ``kg_edges_at(sid)``: each triple's best row's probability
    (``triple_id, confidence``); see the module docstring for why the max, not a noisy-OR.
    ``served``: only the rows ``kg_edges`` serves (asserted, not refuted by verification);
    ``triples``: as in :func:`row_features_sql`."""
    where = "WHERE epistemic = 'asserted' AND verified <> 'no'" if served else ""
    return (
        f"SELECT triple_id, round(max({confidence_sql(model)}), 4) AS confidence "
        f"FROM ({row_features_sql(sid, triples=triples)}) {where} GROUP BY triple_id"
    )


def model_digest(path: Path | None = None) -> str:
    """A short digest of the model file: part of the catalog's views version and of the query
    index's cache name, so views and caches made with another model's coefficients are rebuilt.
    Every catalog connection asks; the file is hashed again only when its size or mtime moves."""
    from kgbuild.schema import data_dir

    file = Path(path or data_dir() / MODEL_FILE)
    st = file.stat()
    return _digest(file, st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=8)
def _digest(file: Path, size: int, mtime_ns: int) -> str:
    del size, mtime_ns  # the cache key: the file's state
    return hashlib.sha256(file.read_bytes()).hexdigest()[:12]
