"""Issue 42, item 5: the time-split forecast (``kgbuild eval forecast``).

A small KG is published year by year (2011–2016) through the real snapshot writer: documents,
mentions, triples and evidence, each abstract naming a few nodes of one of four topics, so a
pair that shares neighbours and abstracts is more likely to be joined later. One pair is planted:
its two nodes share many neighbours by 2013 but are first named in one sentence in 2015.
"""

import itertools
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from kgbuild.errors import StoreError
from kgbuild.evaluate import forecast as fc
from kgbuild.records import Document, Entity, Evidence, Mention, SnapshotCounts, Triple
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse
from tests.conftest import ROOT

YEARS = range(2011, 2017)
KINDS = ("Gene", "Compound", "Disease")
N_NODES = 48


def _node(k: int) -> tuple[str, str]:
    kind = KINDS[k % 3]
    return (f"NCBIGene:{k}" if kind == "Gene" else f"MESH:D{k:06d}"), kind


#: Nodes 1 and 4 (both in topic 0: see _topic): never named together before 2015.
PLANTED = (_node(1)[0], _node(4)[0])


def _topic(k: int) -> int:
    return 0 if k in (1, 4) else k % 4


def _year_docs(rng: random.Random, year: int, variant: int) -> list[list[int]]:
    """The node lists of one year's abstracts (``variant`` changes only years after 2013)."""
    docs = []
    for _ in range(14):
        topic = rng.randrange(4)
        members = [k for k in range(N_NODES) if _topic(k) == topic and k not in (1, 4)]
        docs.append(sorted(rng.sample(members, 3)))
    if year <= 2013:  # the planted pair: many shared neighbours, never in one abstract
        for friend in (0, 8, 12, 16, 20):
            docs.append([1, friend])
            docs.append([4, friend])
    if year == 2015:
        docs.append([1, 4])
    if year > 2013 and variant:
        docs = [sorted(rng.sample(range(N_NODES), 3)) for _ in range(20)]
    return docs


def build_kg(root, variant: int = 0, years=YEARS) -> Warehouse:
    """Publish one snapshot per year; ``variant`` ≠ 0 rewrites the years after 2013 only."""
    wh = Warehouse(root)
    w = wh.writer("toy")
    rng = random.Random(7)
    seen: set[int] = set()
    seen_triples: set[str] = set()
    for year in years:
        docs, mentions, triples, evidence, entities = [], [], [], [], []
        for d, nodes in enumerate(_year_docs(rng, year, variant)):
            pmid = f"{year}{d:03d}"
            docs.append(Document(pmid, year, f"title {pmid}", "abstract"))
            for k in nodes:
                nid, kind = _node(k)
                mentions.append(Mention(pmid, k, k + 1, f"n{k}", kind, kind, nid, [nid]))
                if k not in seen:
                    seen.add(k)
                    entities.append(Entity(nid, f"node {k}", kind, [f"node {k}"], year))
            for a, b in itertools.combinations(nodes, 2):
                h, t = _node(a)[0], _node(b)[0]
                tid = f"t:{h}|co_mentioned|{t}"
                if tid not in seen_triples:
                    seen_triples.add(tid)
                    triples.append(Triple(tid, h, "co_mentioned", t, "co_mentioned", "classifier"))
                evidence.append(
                    Evidence(f"e:{tid}:{pmid}", tid, pmid, year, "s", 0, 1, 0, 1, 0, 1,
                             "classifier", "classifier", None, None, "co_mentioned")
                )  # fmt: skip
        if entities:
            w.add("entities", entities)
        w.add("documents", docs)
        w.add("mentions", mentions)
        w.add("triples", triples)
        w.add("evidence", evidence)
        counts = SnapshotCounts(documents=len(docs), triples=len(triples), evidence=len(evidence))
        w.commit(year, f"b{year}", {}, f"in-{year}-{variant}", "test", counts)
    return wh


@pytest.fixture(scope="module")
def wh(tmp_path_factory):
    return build_kg(tmp_path_factory.mktemp("forecast") / "wh")


def _kgbuild(wh_root, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh_root)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=180)  # fmt: skip


def _fit_and_score(wh, year):
    _, _, _, sids = fc.yearly_snapshots(wh, f"toy@{year}")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        past = fc.SnapshotReader(con, sids, horizon=year)
        model, _ = fc.fit(past)
        keys, scores, base = fc.score(past, model)
        g = past.graph(year)
        return g, keys, scores, base, past.read


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


# ---- the forecast -----------------------------------------------------------------------------
def test_a_planted_future_link_ranks_above_random_pairs(wh):
    """Nodes 1 and 4 share five neighbours by 2013 but are named together only in 2015: the
    model ranks the pair far above a random candidate, and above where the degree product (their
    degrees are low) puts it."""
    g, keys, scores, base, _ = _fit_and_score(wh, 2013)
    i, j = sorted(g.positions(np.array(PLANTED)))
    assert i >= 0
    k = np.searchsorted(keys, i * g.n + j)
    assert keys[k] == i * g.n + j  # a candidate: not joined in 2013
    share_above = (scores > scores[k]).mean()
    share_above_baseline = (base > base[k]).mean()
    assert share_above < 0.2, share_above  # a random candidate: 0.5 on average
    assert share_above < share_above_baseline, (share_above, share_above_baseline)


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
    *_, read = _fit_and_score(wh, 2013)
    assert read and max(read) == 2013
    assert max(fc.forecast(wh, "toy@2013", top=0).years_read) == 2013
    _, _, _, sids = fc.yearly_snapshots(wh, "toy@2013")
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        past = fc.SnapshotReader(con, sids, horizon=2013)
        with pytest.raises(fc.LeakageError):
            past.graph(2014)
        assert 2014 not in past.years


def test_scores_at_y_do_not_change_when_later_years_do(wh, tmp_path):
    """The same snapshots up to 2013 and other years after: the same model and the same scores
    (only the labels differ)."""
    other = build_kg(tmp_path / "other", variant=1)
    a = _fit_and_score(wh, 2013)
    b = _fit_and_score(other, 2013)
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
            tables.append(fc.Features.of(past.graph(2013), past.graph(2012)))
    a, b = tables
    for name in ("katz_2", "katz_3", "log_paths_3", "comention_2hop"):
        assert np.array_equal(a.dense[name], b.dense[name]), name
    for name in ("comention_spectral_cosine", "name_cosine"):
        assert np.array_equal(a.vectors[name], b.vectors[name]), name
    # and they are informative: the planted pair (no abstract together) is 2 hops apart
    g = a.graph
    i, j = g.positions(np.array(PLANTED))
    assert a.dense["katz_2"][i, j] > 0 and a.dense["comention_2hop"][i, j] > 0
