"""The link forecast's predictor (``kgbuild.forecast``) on a small KG published year by year
(tests/support/forecast_kg.py): what *joined* and the candidates are, the ranking, the planted
future link, and features of Y built from snapshots up to Y only."""

import numpy as np
import pytest

from kgbuild import forecast as fc
from kgbuild.store import catalog
from tests.support.forecast_kg import PLANTED, build_kg, fit_and_score


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return build_kg(tmp_path_factory.mktemp("forecast") / "wh")


# ---- ranking ----------------------------------------------------------------------------------
def test_top_k_is_best_first_and_breaks_ties_by_candidate_order():
    scores = np.array([1.0, 5.0, 3.0, 5.0, 3.0, 3.0, 0.0])
    assert fc.top_k(scores, 4).tolist() == [1, 3, 2, 4]
    assert fc.top_k(scores, 100).tolist() == [1, 3, 2, 4, 5, 0, 6]
    assert fc.top_k(scores, 0).tolist() == []


# ---- definitions ------------------------------------------------------------------------------
def test_joined_pairs_are_the_pairs_of_kg_edges(wh):
    _, _, _, sids = fc.yearly_snapshots(wh, "toy@2014")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        g = fc.load_graph(con, 2014, sids[2014])
        edges = con.execute(
            "SELECT DISTINCT least(head_id, tail_id), greatest(head_id, tail_id) "
            "FROM kg_edges_at(?)",
            [sids[2014]],
        ).fetchall()
    upper = np.argwhere(np.triu(g.joined.toarray(), k=1) > 0)
    mine = {(g.ids[i], g.ids[j]) for i, j in upper}
    assert mine == set(edges)
    assert set(g.ids) == {x for e in edges for x in e}


def test_candidates_are_every_unjoined_pair_once(wh):
    _, _, _, sids = fc.yearly_snapshots(wh, "toy@2013")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        g = fc.load_graph(con, 2013, sids[2013])
    keys = np.concatenate([i * g.n + j for i, j in fc.candidate_blocks(g, block=100)])
    n = g.n
    assert np.all(np.diff(keys) > 0) and np.all(keys // n < keys % n)
    assert len(keys) == n * (n - 1) // 2 - int(g.joined.nnz // 2)
    assert not np.isin(keys, g.joined_keys(g)).any()


# ---- the predictor ---------------------------------------------------------------------------
def test_a_planted_future_link_ranks_above_random_pairs(wh):
    """Nodes 1 and 4 share five neighbours by 2013 but are named together only in 2015: the
    model ranks the pair far above a random candidate, and above where the degree product (their
    degrees are low) puts it."""
    g, keys, scores, base, _ = fit_and_score(wh, 2013)
    i, j = sorted(g.positions(np.array(PLANTED)))
    assert i >= 0
    k = np.searchsorted(keys, i * g.n + j)
    assert keys[k] == i * g.n + j  # a candidate: not joined in 2013
    share_above = (scores > scores[k]).mean()
    share_above_baseline = (base > base[k]).mean()
    assert share_above < 0.2, share_above  # a random candidate: 0.5 on average
    assert share_above < share_above_baseline, (share_above, share_above_baseline)


# ---- leakage ----------------------------------------------------------------------------------
def test_name_embeddings_are_asked_only_for_nodes_of_snapshots_up_to_y(wh):
    """Names are embedded per snapshot read by the past reader: each call is exactly the node
    names of one snapshot of year ≤ Y, never a node first seen later."""
    asked: list[list[str]] = []

    def embed(names):
        asked.append(list(names))
        return fc.embed_names(names)

    _, _, _, sids = fc.yearly_snapshots(wh, "toy@2013")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        past = fc.SnapshotReader(con, sids, horizon=2013)
        model, _ = fc.fit(past, embed)
        fc.score(past, model, embed)
        allowed = [past.graph(y).names for y in past.read]
    assert max(past.read) == 2013 and asked
    assert all(a in allowed for a in asked)


def test_beyond_two_hop_features_of_y_ignore_later_years(wh, tmp_path):
    """The 3-hop, abstract co-mention (2-hop, spectral) and name features of Y are built from
    snapshot Y alone: a warehouse whose later years differ gives identical tables."""
    other = build_kg(tmp_path / "other", variant=1)
    tables = []
    for w in (wh, other):
        _, _, _, sids = fc.yearly_snapshots(w, "toy@2013")
        with catalog.connect(w.catalog_path, read_only=True) as con:
            past = fc.SnapshotReader(con, sids, horizon=2013)
            tables.append(fc.Features.of(past.graph(2013), past.graph(2012), fc.embed_names))
    a, b = tables
    for name in ("katz_2", "katz_3", "log_paths_3", "comention_2hop"):
        assert np.array_equal(a.dense[name], b.dense[name]), name
    for name in ("comention_spectral_cosine", "name_cosine"):
        assert np.array_equal(a.vectors[name], b.vectors[name]), name
    # and they are informative: the planted pair (no abstract together) is 2 hops apart
    g = a.graph
    i, j = g.positions(np.array(PLANTED))
    assert a.dense["katz_2"][i, j] > 0 and a.dense["comention_2hop"][i, j] > 0
