"""``ask --as-of YEAR`` and ``/retrieve {"as_of": YEAR}`` answer from the KG
as it stood in that year — that year's snapshot, its support and belief, its contested marks —
not today's facts filtered by first year; a year outside the snapshots is one line naming them.

The KG of tests/cli/test_diff.py (2019, then 2020: APOE gains papers, APP a negated sentence),
served by a real ``kgbuild serve`` on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from kgbuild.errors import InputError
from kgbuild.query.engine import QueryEngine
from kgbuild.query.explore import Filters
from kgbuild.records import Document, Entity, SnapshotCounts, Triple
from kgbuild.store.diff import diff_snapshots
from kgbuild.store.snapshots import Warehouse
from tests.belief import test_conflicts as tc
from tests.cli.test_diff import APOE, build_diff_kg
from tests.support.serve_process import start_serve

QUESTION = "Is APOE associated with Alzheimer's disease and APP?"


@pytest.fixture(scope="module")
def wh_root(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("asof") / "wh"
    build_diff_kg(root)
    return root


def _facts(r) -> dict[str, object]:
    return {(t.head_id, t.relation): t for t in r.triples}


def test_as_of_reads_that_years_snapshot_its_support_and_belief(wh_root):
    engine = QueryEngine(wh_root, embeddings=False)
    now = engine.retrieve(QUESTION, embed="off")
    then = engine.retrieve(QUESTION, embed="off", filters=Filters(as_of_year=2019))
    assert (now.as_of_year, then.as_of_year) == (2020, 2019)
    assert then.snapshot_id == engine.wh.resolve("diffkg@2019") != now.snapshot_id
    apoe_now, apoe_then = _facts(now)[(APOE, "associates")], _facts(then)[(APOE, "associates")]
    assert (apoe_then.support, apoe_now.support) == (2, 5)  # that year's papers, not today's
    assert 0 < apoe_then.belief < apoe_now.belief
    assert engine.for_year(2020) is engine and engine.for_year(2019) is engine.for_year(2019)


@pytest.fixture(scope="module")
def conflict_root(tmp_path_factory: pytest.TempPathFactory):
    """The planted documents of tests/belief/test_conflicts.py, published as two years: 2014
    (alpha raises beta, one paper) and 2020 (papers of 2015–2018: alpha lowers beta too)."""
    root = tmp_path_factory.mktemp("asof-conflicts") / "wh"
    w = Warehouse(root).writer("toy")
    year_of = {p: y for p, y, *_ in tc.DOCS}
    w.add("entities", [Entity(i, n, "Gene", display_name=n.title()) for i, n in tc.NAMES.items()])
    for upto, later in ((2014, False), (2020, True)):
        docs = [d for d in tc.DOCS if (d[1] > 2014) == later]
        w.add("documents", [Document(p, y, t, a) for p, y, t, a in docs])
        w.add("mentions", [m for p, _, t, a in docs for m in tc._mentions(p, t, a)])
        cited = [(t, p) for t, p in tc.CITED if (year_of[p] > 2014) == later]
        new = {t for t, _ in cited} - ({t for t, p in tc.CITED if year_of[p] <= 2014}
                                        if later else set())  # fmt: skip
        w.add("triples", [Triple(t, h, r, x, r, "classifier") for t, h, r, x in tc.TRIPLES
                          if t in new])  # fmt: skip
        w.add("evidence", [tc._evidence(t, p) for t, p in cited])
        w.commit(upto, f"b{upto}", {}, f"i{upto}", "test", SnapshotCounts())
    return root


def test_a_contested_fact_is_marked_and_was_not_before(conflict_root):
    """Alpha raises beta (2012); in 2015–2016 papers say it lowers beta: from the 2020
    snapshot the fact is contested — marked in retrieval, a status change in the diff — and as
    of 2014 it was not."""
    engine = QueryEngine(conflict_root, embeddings=False)
    question = "Does alpha regulate beta?"
    now = {t.triple_id: t for t in engine.retrieve(question, embed="off").triples}
    r2014 = engine.retrieve(question, embed="off", filters=Filters(as_of_year=2014))
    then = {t.triple_id: t for t in r2014.triples}
    assert now["up_ab"].contested == "opposite_direction" == now["down_ab"].contested
    assert now["up_ab"].to_dict()["contested"] == "opposite_direction"
    assert then["up_ab"].contested == "" and "down_ab" not in then
    d = diff_snapshots(engine.wh, engine.wh.resolve("toy@2014"), engine.wh.resolve("toy@2020"))
    flips = {(f.head_id, f.relation, f.tail_id): f for f in d.facts["status_changed"]}
    assert (flips[("A", "upregulates", "B")].status_before,
            flips[("A", "upregulates", "B")].status_after) == ("asserted", "contested")  # fmt: skip


@pytest.mark.parametrize("year", [2018, 2021])
def test_a_year_outside_names_the_years(wh_root, year):
    engine = QueryEngine(wh_root, embeddings=False)
    with pytest.raises(InputError, match=f"as of {year}; the years there are: 2019, 2020"):
        engine.retrieve(QUESTION, embed="off", filters=Filters(as_of_year=year))


@pytest.mark.slow  # a server process
def test_retrieve_endpoint_takes_as_of(wh_root):
    proc, url = start_serve(wh_root, "--no-embed", timeout_s=90)
    try:
        body = {"question": QUESTION, "embed": "off"}
        then = httpx.post(f"{url}/retrieve", json={**body, "as_of": 2019}, timeout=60)
        assert then.status_code == 200, then.text
        got = then.json()
        assert got["snapshot"]["as_of_year"] == 2019
        apoe = next(t for t in got["triples"] if t["head_id"] == APOE)
        assert apoe["support"] == 2 and apoe["contested"] == "" and apoe["belief"] > 0
        now = httpx.post(f"{url}/retrieve", json=body, timeout=60).json()
        assert now["snapshot"]["as_of_year"] == 2020
        assert next(t for t in now["triples"] if t["head_id"] == APOE)["support"] == 5
        bad = httpx.post(f"{url}/retrieve", json={**body, "as_of": 2005}, timeout=60)
        assert bad.status_code == 400 and "the years there are: 2019, 2020" in bad.json()["error"]
        mixed = {**body, "as_of": 2019, "filters": {"as_of_year": 2020}}
        both = httpx.post(f"{url}/retrieve", timeout=60, json=mixed)
        assert both.status_code == 400 and "differ" in both.json()["error"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)
