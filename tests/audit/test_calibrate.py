"""The calibrated confidence model: the fit recovers a known relation, the SQL expression
equals ``predict`` on real DuckDB tables, and ``audit fit``/``audit score`` print a
reliability table and Brier scores, deterministically, from a real small warehouse."""

import json

import duckdb
import numpy as np
import pytest

from kgbuild.audit.calibrate import cross_validate, fit, reliability
from kgbuild.belief.confidence import (
    EPISTEMIC,
    FEATURE_SET,
    FEATURES,
    check_model,
    confidence_sql,
    edge_confidence_sql,
    predict,
    row_features_sql,
)
from kgbuild.errors import ConfigError
from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
from tests.audit.test_audit import fill, kgbuild

NAMES = list(FEATURES)


def synthetic(n, beta, seed=3):
    """Rows with random 0/1 features (log_support in 0..3) and labels drawn from the logistic
    model ``beta`` (intercept first, then :data:`FEATURES` in order)."""
    rng = np.random.default_rng(seed)
    x = (rng.random((n, len(NAMES))) < 0.3).astype(float)
    x[:, NAMES.index("log_support")] = np.log(rng.integers(1, 20, n))
    status = rng.choice(EPISTEMIC, n)
    for s in EPISTEMIC[1:]:
        x[:, NAMES.index(f"epistemic_{s}")] = status == s
    p = 1 / (1 + np.exp(-(beta[0] + x @ beta[1:])))
    y = rng.random(n) < p
    rows = [{"pmid": str(i // 3), "method": "generative", "epistemic": str(status[i]),
             "prior": 0.7, **dict(zip(NAMES, map(float, x[i]), strict=True))}
            for i in range(n)]  # fmt: skip
    return rows, y


def test_fit_recovers_a_known_relation():
    rng = np.random.default_rng(1)
    beta = np.round(rng.normal(0, 1, len(NAMES) + 1), 2)
    rows, y = synthetic(60_000, beta)  # six statuses: more rows per status
    model = fit(rows, y, l2=1.0)
    got = np.array([model["coefficients"]["intercept"]] + [model["coefficients"][n] for n in NAMES])
    assert np.max(np.abs(got - beta)) < 0.12, (got - beta).round(3)
    assert model["epistemic_seen"] == list(EPISTEMIC) and model["methods"] == ["generative"]
    # a feature that never varies gets no weight (the penalty), and predictions stay the base
    flat = [{**r, "label_results": 0.0} for r in rows[:500]]
    assert fit(flat, y[:500])["coefficients"]["label_results"] == 0.0
    # calibrated out of sample: 0.8 means about 80 of 100
    p, base = cross_validate(rows[:8000], y[:8000])
    rel = reliability(p, y[:8000])
    assert rel["ece"] < 0.03 and rel["brier"] < float(np.mean((base - y[:8000]) ** 2))
    assert sum(b["n"] for b in rel["bins"]) == 8000


def test_fit_and_cross_validation_are_deterministic():
    rows, y = synthetic(600, np.linspace(-1, 1, len(NAMES) + 1), seed=9)
    assert json.dumps(fit(rows, y)) == json.dumps(fit(rows, y))
    a, b = cross_validate(rows, y), cross_validate(rows, y)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def _model(methods=("generative",)):
    coef = {"intercept": -0.25} | {n: round(0.1 * (i + 1) * (-1) ** i, 3)
                                   for i, n in enumerate(NAMES)}  # fmt: skip
    return {"format": "kgbuild-confidence-model/1", "feature_set": FEATURE_SET,
            "coefficients": coef, "methods": list(methods), "base_rate": 0.5}  # fmt: skip


def test_sql_expression_equals_predict_on_a_duckdb_table(tmp_path):
    rows, _ = synthetic(2000, np.zeros(len(NAMES) + 1), seed=4)
    for i, r in enumerate(rows):  # other methods fall back to their hand-set prior
        r["method"] = ("generative", "generative", "cooccurrence")[i % 3]
        r["prior"] = round(0.3 + (i % 7) / 10, 2)
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    cols = ["pmid", "method", "epistemic", "prior", *NAMES]
    con.execute("CREATE TABLE f (pmid VARCHAR, method VARCHAR, epistemic VARCHAR, prior DOUBLE, "
                + ", ".join(f"{n} DOUBLE" for n in NAMES) + ")")  # fmt: skip
    con.executemany(f"INSERT INTO f VALUES ({', '.join('?' * len(cols))})",
                    [[r[c] for c in cols] for r in rows])  # fmt: skip
    model = _model()
    got = np.array(
        [
            v
            for (v,) in con.execute(
                f"SELECT {confidence_sql(model)} FROM f ORDER BY rowid"
            ).fetchall()
        ]
    )
    want = predict(model, rows)
    assert np.max(np.abs(got - want)) < 1e-12
    assert np.allclose(got[2::3], [r["prior"] for r in rows[2::3]])
    assert got.min() > 0 and got.max() < 1


def test_sql_equals_predict_on_a_real_snapshot_and_edges_take_the_best_row(corpus, warehouse):
    build_kg(corpus, kg="demo", extractor="cooccurrence", warehouse=warehouse)
    wh = Warehouse(warehouse)
    sid = "'" + wh.resolve("latest") + "'"
    model = _model(methods=("cooccurrence",))
    cur_sql = f"SELECT *, {confidence_sql(model)} AS p FROM ({row_features_sql(sid)})"
    with duckdb.connect(str(wh.catalog_path), read_only=True) as con:
        con.execute(f"SET file_search_path = '{warehouse}'")
        cur = con.execute(cur_sql)
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        edges = dict(con.execute(edge_confidence_sql(model, sid)).fetchall())
    assert rows and {r["epistemic"] for r in rows} == {"asserted"}
    assert any(r["title"] for r in rows)  # the corpus has title sentences
    p = predict(model, rows)
    assert np.max(np.abs(p - np.array([r["p"] for r in rows]))) < 1e-12
    best = {}
    for r, v in zip(rows, p, strict=True):
        best[r["triple_id"]] = max(best.get(r["triple_id"], 0.0), v)
    assert edges == pytest.approx({k: round(v, 4) for k, v in best.items()}, abs=1e-9)


def test_models_that_would_inject_or_mismatch_are_refused():
    bad = _model()
    bad["coefficients"]["1); DROP TABLE x; --"] = 1.0
    with pytest.raises(ConfigError, match="unknown features"):
        confidence_sql(bad)
    other = _model() | {"features": {"title": {"sql": "1"}}}
    with pytest.raises(ConfigError, match="other feature definitions"):
        check_model(other)
    nan = _model()
    nan["coefficients"]["title"] = float("nan")
    with pytest.raises(ConfigError, match="non-numeric"):
        check_model(nan)


@pytest.mark.slow  # CLI processes
def test_fit_and_score_print_reliability_and_brier(corpus, warehouse, tmp_path):
    from kgbuild.pipeline.options import ExtractionOptions

    # co-occurrence: the fixture corpus gives it 12+ rows to sample (the classifier fewer)
    cooc = ExtractionOptions("cooccurrence", None, embed_model="none")
    build_kg(corpus, kg="demo", warehouse=warehouse, extractor=cooc)
    blank, judged = tmp_path / "blank.tsv", tmp_path / "judged.tsv"
    kgbuild("audit", "sample", "latest", "--n", "12", "--seed", "1", "--out", str(blank),
            warehouse=warehouse)  # fmt: skip
    assert "confidence" not in blank.read_text().split("\n# judge")[1]  # the sheet stays blind

    def verdicts(row):
        end = "no" if int(row["item"]) % 3 == 0 else "yes"
        return {"claim_supported": end, "faithful": "exact", "triple_supported": end}

    fill(blank, judged, verdicts)
    model_file = tmp_path / "model.json"
    fitted = kgbuild("audit", "fit", str(judged), "--out", str(model_file), warehouse=warehouse)
    assert "cross-validated calibration" in fitted.stdout and "Brier" in fitted.stdout
    first = model_file.read_bytes()
    kgbuild("audit", "fit", str(judged), "--out", str(model_file), warehouse=warehouse)
    assert model_file.read_bytes() == first  # deterministic
    model = json.loads(first)
    assert model["fitted_on"]["found"] == 12 and model["base_rate"] == round(8 / 12, 4)
    assert model["fitted_on"]["sheets"][0]["rows"] == 12
    assert len(model["fitted_on"]["sheets"][0]["sha256"]) == 64

    got = json.loads(kgbuild("audit", "score", str(judged), "--json", "--no-record",
                             "--model", str(model_file), warehouse=warehouse).stdout)  # fmt: skip
    cal = got["calibration"]
    assert cal["n"] == 12 and sum(b["n"] for b in cal["bins"]) == 12
    p = predict(model, [])  # empty input is fine
    assert len(p) == 0
    observed = sum(b["observed"] * b["n"] for b in cal["bins"])
    assert observed == pytest.approx(8, abs=0.01)
    assert 0 <= cal["brier"] <= 1 and cal["brier_base_rate"] == pytest.approx(
        round(8 / 12 * (1 - 8 / 12), 4), abs=1e-4
    )  # model's base rate = this sheet's share
    text = kgbuild("audit", "score", str(judged), "--no-record", "--model", str(model_file),
                   warehouse=warehouse).stdout  # fmt: skip
    assert "confidence calibration on 12 judged rows" in text and "Brier" in text
    assert "observed share" in text
    # no warehouse to read features from: precision still scores, calibration says why not
    empty = kgbuild("audit", "score", str(judged), "--json", "--no-record", "--model",
                    str(model_file), warehouse=tmp_path / "none").stdout  # fmt: skip
    assert "no snapshot" in json.loads(empty)["calibration"]["skipped"]


def test_auc_is_the_mann_whitney_probability_with_ties_as_halves():
    from kgbuild.audit.calibrate import auc

    assert auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]) == 0.75  # one of four pairs misordered
    assert auc([0.5] * 4, [0, 1, 0, 1]) == 0.5  # a constant separates nothing
    assert auc([0.9, 0.1], [0, 1]) == 0.0 and auc([1.0, 2.0], [1, 1]) is None
    rows, y = synthetic(4000, np.r_[0.0, np.full(len(NAMES), 0.8)])
    p, _ = cross_validate(rows, y)
    assert 0.6 < reliability(p, y)["auc"] < 1.0  # features that matter separate out of sample
