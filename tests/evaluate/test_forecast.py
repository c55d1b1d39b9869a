"""The time-split forecast, measured (``kgbuild eval forecast``), on a small KG published year by
year (tests/support/forecast_kg.py): AUC, the report, no later snapshot read while fitting and
scoring, and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kgbuild import forecast as predictor
from kgbuild.errors import StoreError
from kgbuild.evaluate import forecast as fc
from kgbuild.store import catalog
from tests.conftest import ROOT
from tests.support.forecast_kg import build_kg, fit_and_score


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return build_kg(tmp_path_factory.mktemp("forecast") / "wh")


def _kgbuild(wh_root, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh_root)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=180)  # fmt: skip


# ---- metrics ----------------------------------------------------------------------------------
def test_auc_via_ranks_equals_brute_force_with_ties():
    rng = np.random.default_rng(0)
    for _ in range(20):
        scores = rng.integers(0, 6, size=40).astype(float)  # many ties
        positive = rng.random(40) < 0.3
        pos, neg = scores[positive], scores[~positive]
        brute = np.mean([(p > q) + 0.5 * (p == q) for p in pos for q in neg])
        assert fc.auc(scores, positive) == pytest.approx(brute, abs=1e-12)
    # a subset of negatives (the per-year AUC: positives of one year against the never joined)
    scores = np.array([3.0, 1.0, 2.0, 2.0, 0.0])
    assert fc.auc(scores, np.array([1, 0, 0, 0, 0], bool), np.array([0, 0, 1, 1, 1], bool)) == 1.0
    assert fc.auc(scores, np.array([0, 0, 1, 0, 0], bool), np.array([0, 1, 0, 1, 1], bool)) == (
        pytest.approx((1 + 0.5 + 1) / 3)
    )


def test_the_report_ranks_later_pairs_and_names_the_pmids(wh):
    r = fc.forecast(wh, "toy@2013", top=5)
    assert r.year == 2013 and r.later_years == [2014, 2015, 2016]
    assert r.positives == sum(y.positives for y in r.per_year) > 0
    assert r.model.auc > 0.6 and 0 <= r.baseline.auc <= 1
    assert all(0 <= r.model.hits[k] <= min(k, r.positives) for k in fc.HITS_AT)
    assert len(r.top) == 5 and [p.rank for p in r.top] == [1, 2, 3, 4, 5]
    for p in r.top:
        assert (p.first_joined is None) == (not p.pmids)
        assert all(int(e["year"]) > 2013 for e in p.pmids)
    json.dumps(r.to_dict(), allow_nan=False)
    assert "co_mentioned included" in r.joined


# ---- leakage ----------------------------------------------------------------------------------
def test_fitting_and_scoring_read_no_later_snapshot(wh):
    *_, read = fit_and_score(wh, 2013)
    assert read and max(read) == 2013
    assert max(fc.forecast(wh, "toy@2013", top=0).years_read) == 2013
    _, _, _, sids = predictor.yearly_snapshots(wh, "toy@2013")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        past = predictor.SnapshotReader(con, sids, horizon=2013)
        with pytest.raises(predictor.LeakageError):
            past.graph(2014)
        assert 2014 not in past.years


def test_scores_at_y_do_not_change_when_later_years_do(wh, tmp_path):
    """The same snapshots up to 2013 and other years after: the same model and the same scores
    (only the labels differ)."""
    other = build_kg(tmp_path / "other", variant=1)
    a = fit_and_score(wh, 2013)
    b = fit_and_score(other, 2013)
    assert np.array_equal(a[1], b[1])
    assert np.array_equal(a[2], b[2]) and np.array_equal(a[3], b[3])
    ra, rb = fc.forecast(wh, "toy@2013", top=3), fc.forecast(other, "toy@2013", top=3)
    assert [(p.head_id, p.tail_id, p.score) for p in ra.top] == [
        (p.head_id, p.tail_id, p.score) for p in rb.top
    ]
    assert ra.positives != rb.positives  # what came later did change


# ---- bad input --------------------------------------------------------------------------------
def test_too_few_later_years_or_none_earlier_is_one_clear_error(wh):
    with pytest.raises(StoreError, match=r"toy@2015 needs at least 2 later yearly snapshots; "
                       r"there is 1 \(2016\)"):  # fmt: skip
        fc.forecast(wh, "toy@2015")
    with pytest.raises(StoreError, match=r"there are 0$"):
        fc.forecast(wh, "toy@2016")
    with pytest.raises(StoreError, match=r"toy@2011 trains on the yearly snapshots before it"):
        fc.forecast(wh, "toy@2011")
    with pytest.raises(StoreError, match=r"toy has no snapshot of 2030: its yearly snapshots are "
                       r"2011, 2012, 2013, 2014, 2015, 2016"):  # fmt: skip
        fc.forecast(wh, "toy@2030")


@pytest.mark.parametrize(
    ("ref", "needle"),
    [
        ("toy@2015", "needs at least 2 later yearly snapshots; there is 1 (2016)"),
        ("toy@2030", "its yearly snapshots are 2011, 2012, 2013, 2014, 2015, 2016"),
        ("toy@2009", "toy has no snapshot of 2009: its yearly snapshots are 2011, 2012"),
        ("nope@2015", "KGs here: toy"),
    ],
)
def test_the_command_refuses_bad_input_in_one_line(wh, ref, needle):
    run = _kgbuild(wh.root, "eval", "forecast", ref)
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert run.returncode == 2, run.stderr
    assert len(lines) == 1 and needle in lines[0], lines


def test_the_command_prints_json(wh):
    run = _kgbuild(wh.root, "eval", "forecast", "toy@2013", "--json", "--top", "3")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["year"] == 2013 and len(d["top"]) == 3 and set(d["model"]["hits"]) == {"100", "1000"}
    text = _kgbuild(wh.root, "eval", "forecast", "toy@2013", "--top", "2")
    assert text.returncode == 0 and "degree product" in text.stdout, text.stderr
