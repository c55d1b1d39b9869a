"""Forecast, measured: does an earlier snapshot anticipate later papers? (``kgbuild eval
forecast``).

A time-split test of literature-based discovery (Swanson's ABC model, measured the way link
prediction is): from the snapshot of year Y, the predictor (:mod:`kgbuild.forecast`) scores every
pair of nodes of that snapshot that is not yet joined, then this module sees where the pairs that
later snapshots (Y+1 … the last one) join rank.

**Candidates and labels.** Candidates at Y: every unordered pair of distinct nodes of snapshot Y
not joined in Y (:data:`kgbuild.forecast.JOINED`). A candidate is *positive* when it is joined in
any later snapshot; its year is the first such snapshot. A pair joined later whose node is not
yet in Y is no candidate (counted apart as ``later_pairs_new_node``). The baseline is the degree
product (preferential attachment) in Y.

**No leakage, by construction.** Training and scoring receive a
:class:`~kgbuild.forecast.SnapshotReader` built from the snapshots of year ≤ Y only: it holds no
id of a later snapshot, so nothing after Y can be read while the model is fit or the candidates
are scored. Only then is a second reader, over the later snapshots, opened to label the
candidates (tests/evaluate/test_forecast.py checks both: the years read, and identical scores
from a warehouse whose later years differ). The name feature (:mod:`kgbuild.forecast.names`) is
the one input that does not honour the split — MiniLM was trained on text written after the
years forecast — so it is off unless asked for (``embed=embed_names``), and the headline figures
are the ones without it.

Design choices were looked at on Y = 2013 only: the recent-document share, new links and
links-to-the-other-type features were added after a 2-fold cross-validated ceiling at 2013, and
LightGBM replaced scikit-learn's histogram GBDT at 2013 for its scoring speed (same AUC there).
The beyond-two-hop families were kept by a validation inside 2013's training windows (fit 2011 →
2012, validate 2012 → 2013): names, co-mention 2 hops, Katz and the co-mention spectrum raised
it; an adjacency SVD, name principal components, temporal growth and type-pair history did not
(docs/evaluation.md, the ablation). 2015 and 2017 were never used to choose anything.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from kgbuild.errors import InputError, StoreError
from kgbuild.forecast import (
    JOINED,
    MODEL_PARAMS,
    N_TREES,
    TRAIN_LAGS,
    TYPES,
    Graph,
    NameEmbedder,
    SnapshotReader,
    TrainingSlice,
    feature_names,
    fit,
    score,
    top_k,
    yearly_snapshots,
)
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: The cut-offs of hits@K.
HITS_AT = (100, 1000)
#: Later yearly snapshots a forecast needs (one year's breakdown says little about a trend).
MIN_LATER_YEARS = 2
#: The served evidence after Y that joins a pair in a later snapshot (a top prediction's PMIDs).
_EVIDENCE_SQL = """
SELECT DISTINCT e.pmid, e.year, t.relation FROM served_evidence_at($sid) e
JOIN triples_at($sid) t USING (triple_id)
WHERE least(t.head_id, t.tail_id) = $a AND greatest(t.head_id, t.tail_id) = $b AND e.year > $y
ORDER BY e.year, e.pmid
"""


# ---- metrics ----------------------------------------------------------------------------------
def auc(scores: np.ndarray, positive: np.ndarray, negative: np.ndarray | None = None) -> float:
    """ROC AUC of ``scores`` for ``positive`` (boolean) against ``negative`` (default: the rest):
    the Mann–Whitney U over ranks, ties counting one half — for each positive, the negatives
    ranked below it, found in the sorted negative scores. Exact; O(n log n)."""
    if negative is None:
        negative = ~positive
    pos, neg = scores[positive], np.sort(scores[negative])
    if not len(pos) or not len(neg):
        return float("nan")
    below = np.searchsorted(neg, pos, side="left")
    at_or_below = np.searchsorted(neg, pos, side="right")
    return float((below + (at_or_below - below) / 2).sum() / (len(pos) * len(neg)))


# ---- the report -------------------------------------------------------------------------------
@dataclass(slots=True)
class Ranking:
    """How the later-joined pairs rank under one scorer (the model or the baseline)."""

    auc: float
    hits: dict[int, int]


@dataclass(slots=True)
class LaterYear:
    """The candidates first joined in one later year, ranked by each scorer among the never
    joined (``hits``: how many of the global top K first joined that year)."""

    year: int
    positives: int
    model: Ranking
    baseline: Ranking


@dataclass(slots=True)
class Prediction:
    """One of the top predictions, and whether (and where) a later snapshot joined the pair."""

    rank: int
    head_id: str
    head: str
    head_type: str
    tail_id: str
    tail: str
    tail_type: str
    score: float
    baseline_rank: int
    first_joined: int | None
    pmids: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class ForecastReport:
    """A forecast from ``kg@year``: the model's and the baseline's rankings of the later pairs."""

    kg: str
    snapshot_id: str
    year: int
    later_years: list[int]
    joined: str
    nodes: int
    candidates: int
    positives: int
    later_pairs_new_node: int
    model: Ranking
    baseline: Ranking
    per_year: list[LaterYear]
    top: list[Prediction]
    training: list[TrainingSlice]
    #: The snapshot years read to fit and score (all ≤ ``year``: the leakage check).
    years_read: list[int]
    features: list[str]
    #: Whether the name feature (MiniLM, trained on text written after ``year``) was used.
    name_feature: bool
    model_params: dict[str, Any]
    seconds: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object (hits keyed by K as strings, as JSON keys are)."""
        d = asdict(self)
        for r in (d["model"], d["baseline"], *(x for y in d["per_year"] for x in
                                               (y["model"], y["baseline"]))):  # fmt: skip
            r["hits"] = {str(k): v for k, v in r["hits"].items()}
            r["auc"] = None if np.isnan(r["auc"]) else r["auc"]  # no positive (or negative)
        return d

    @property
    def hits_ratio(self) -> float:
        """hits@100 of the model over the baseline's (inf when the baseline has none)."""
        b = self.baseline.hits[HITS_AT[0]]
        return self.model.hits[HITS_AT[0]] / b if b else float("inf")


def _ranking(
    scores: np.ndarray, first: np.ndarray, top: np.ndarray, mask: np.ndarray | None = None
) -> Ranking:
    positive = first > 0 if mask is None else mask
    hit = positive[top]
    return Ranking(auc(scores, positive, first == 0), {k: int(hit[:k].sum()) for k in HITS_AT})


def forecast(
    wh: Warehouse, ref: str, top: int = 20, embed: NameEmbedder | None = None
) -> ForecastReport:
    """Score the candidates of snapshot ``ref`` (``KG@YEAR``, an id…) from it and earlier
    snapshots only, then rank the pairs later snapshots join (module docstring). ``embed``, when
    given, embeds node names for the name feature (``kgbuild.forecast.embed_names``: MiniLM,
    trained on later text); by default the forecast goes without it."""
    if top < 0:
        raise InputError("--top must be 0 or more", top=top)
    kg, sid, year, sids = yearly_snapshots(wh, ref)
    later_years = [y for y in sids if y > year]
    if len(later_years) < MIN_LATER_YEARS:
        there = f"there is {len(later_years)}" if len(later_years) == 1 else (
            f"there are {len(later_years)}")  # fmt: skip
        shown = f" ({', '.join(map(str, later_years))})" if later_years else ""
        raise StoreError(
            f"forecast from {kg}@{year} needs at least {MIN_LATER_YEARS} later yearly "
            f"snapshots; {there}{shown}"
        )
    if not any(year - lag in sids for lag in TRAIN_LAGS):
        raise StoreError(
            f"forecast from {kg}@{year} trains on the yearly snapshots before it; there is none "
            f"(the first is {min(sids)})"
        )
    seconds: dict[str, float] = {}
    t0 = time.perf_counter()
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        # Fit and score with a reader that holds no later snapshot: nothing after Y is readable.
        past = SnapshotReader(con, sids, horizon=year)
        model, slices = fit(past, embed)
        seconds["fit"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        keys, model_scores, base_scores = score(past, model, embed)
        seconds["score"] = time.perf_counter() - t1
        g = past.graph(year)
        # Only now the later snapshots, to label what was scored.
        t2 = time.perf_counter()
        future = SnapshotReader(con, sids, horizon=max(sids))
        first = np.zeros(len(keys), dtype=np.int32)
        new_node: set[tuple[str, str]] = set()
        for later in later_years:
            h = future.graph(later)
            joined = g.joined_keys(h)  # pairs of Y's nodes joined in that year
            pos = np.searchsorted(keys, joined)
            ok = pos < len(keys)
            ok[ok] = keys[pos[ok]] == joined[ok]  # a candidate (not joined in Y)
            hit = pos[ok][first[pos[ok]] == 0]
            first[hit] = later
            upper = sp.triu(h.joined, k=1).tocoo()
            gone = (g.positions(h.ids[upper.row]) < 0) | (g.positions(h.ids[upper.col]) < 0)
            new_node |= set(zip(h.ids[upper.row][gone], h.ids[upper.col][gone], strict=True))
        seconds["label"] = time.perf_counter() - t2
        t3 = time.perf_counter()
        top_model = top_k(model_scores, max(max(HITS_AT), top))
        top_base = top_k(base_scores, max(HITS_AT))
        report = ForecastReport(
            kg=kg, snapshot_id=sid, year=year, later_years=later_years, joined=JOINED,
            nodes=g.n, candidates=len(keys), positives=int((first > 0).sum()),
            later_pairs_new_node=len(new_node),
            model=_ranking(model_scores, first, top_model),
            baseline=_ranking(base_scores, first, top_base),
            per_year=[
                LaterYear(
                    y, int((first == y).sum()),
                    _ranking(model_scores, first, top_model, first == y),
                    _ranking(base_scores, first, top_base, first == y),
                )
                for y in later_years
            ],
            top=_predictions(future, g, keys, model_scores, base_scores, first,
                             top_model[:top], max(sids)),
            training=slices, years_read=list(past.read),
            features=list(feature_names(embed is not None)), name_feature=embed is not None,
            model_params={**MODEL_PARAMS, "num_boost_round": N_TREES}, seconds=seconds,
        )  # fmt: skip
        seconds["metrics"] = time.perf_counter() - t3
        seconds["total"] = time.perf_counter() - t0
    return report


def _predictions(
    future: SnapshotReader,
    g: Graph,
    keys: np.ndarray,
    scores: np.ndarray,
    base: np.ndarray,
    first: np.ndarray,
    idx: np.ndarray,
    last_year: int,
) -> list[Prediction]:
    """The top predictions with names and, for those a later snapshot joined, the PMIDs of the
    last snapshot's served evidence after Y that join them."""
    kind = {k: t for k, t in enumerate(TYPES)}
    out = []
    for rank, k in enumerate(idx, start=1):
        i, j = int(keys[k] // g.n), int(keys[k] % g.n)
        base_rank = int((base > base[k]).sum()) + 1
        when = int(first[k]) or None
        pmids: list[dict[str, Any]] = []
        if when is not None:
            rows = future.query(
                _EVIDENCE_SQL, {"a": str(g.ids[i]), "b": str(g.ids[j]), "y": g.year}, last_year
            )
            by_pmid: dict[str, dict[str, Any]] = {}
            for pmid, yr, rel in rows:
                e = by_pmid.setdefault(pmid, {"pmid": pmid, "year": yr, "relations": []})
                e["relations"].append(rel)
            pmids = list(by_pmid.values())
        out.append(
            Prediction(
                rank, str(g.ids[i]), g.names[i], kind.get(int(g.types[i]), ""),
                str(g.ids[j]), g.names[j], kind.get(int(g.types[j]), ""),
                round(float(scores[k]), 4), base_rank, when, pmids,
            )
        )  # fmt: skip
    return out


# ---- text -------------------------------------------------------------------------------------
def render(report: ForecastReport) -> str:
    """The report as markdown tables (what ``kgbuild eval forecast`` prints)."""
    from kgbuild.evaluate.markdown import _table

    r = report
    lines = [
        f"forecast from {r.kg}@{r.year} ({r.snapshot_id[:10]}): {r.nodes:,} nodes, "
        f"{r.candidates:,} candidate pairs, {r.positives:,} joined in "
        f"{r.later_years[0]}–{r.later_years[-1]} ({r.later_pairs_new_node:,} more later pairs "
        "have a node not yet in the snapshot)",
        f"joined: {r.joined}",
        f"features: {len(r.features)}, "
        + (
            "with name_cosine (MiniLM, trained on text written after the year forecast)"
            if r.name_feature
            else "without name_cosine (the MiniLM names: --name-feature)"
        ),
        "",
    ]
    head = ["scorer", "AUC", *(f"hits@{k}" for k in HITS_AT)]
    lines += _table(
        head,
        [
            [f"model (LightGBM, trained ≤ {r.year})", f"{r.model.auc:.4f}",
             *(r.model.hits[k] for k in HITS_AT)],
            ["degree product", f"{r.baseline.auc:.4f}", *(r.baseline.hits[k] for k in HITS_AT)],
        ],
    )  # fmt: skip
    lines += ["", "by the year a pair was first joined:"]
    lines += _table(
        ["year", "pairs", "AUC", "AUC baseline",
         *(f"{w}@{k}" for k in HITS_AT for w in ("hits", "baseline"))],
        [
            [y.year, y.positives, f"{y.model.auc:.4f}", f"{y.baseline.auc:.4f}",
             *(x for k in HITS_AT for x in (y.model.hits[k], y.baseline.hits[k]))]
            for y in r.per_year
        ],
    )  # fmt: skip
    if r.top:
        lines += ["", f"top {len(r.top)} predictions:"]
        lines += _table(
            ["#", "pair", "types", "baseline rank", "joined", "PMIDs"],
            [
                [p.rank, f"{p.head} — {p.tail}", f"{p.head_type}–{p.tail_type}",
                 f"{p.baseline_rank:,}", p.first_joined or "–",
                 ", ".join(f"{e['pmid']} ({e['year']})" for e in p.pmids[:5])
                 + (f" +{len(p.pmids) - 5}" if len(p.pmids) > 5 else "")]
                for p in r.top
            ],
        )  # fmt: skip
    lines += [
        "",
        "trained on: "
        + "; ".join(
            f"{s.year} → {s.label_year}: {s.positives:,} positives, {s.negatives:,} negatives"
            for s in r.training
        ),
        "seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in r.seconds.items()),
    ]
    return "\n".join(lines)
