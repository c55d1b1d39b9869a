"""The explorer's reading and navigation views over a real snapshot: an entity's facts filtered
and paged on the server (every fact reachable), both endpoints marked in each sentence, the
abstract with its mentions by kind, paths between two entities, the neighbourhood's specific
neighbours before generic hubs — and hostile parameters refused with a clear 400/404/422, never
a stack trace. The unit tests read the index directly; the served ones talk to a real
``kgbuild serve`` on 127.0.0.1 (tests/support/serve_process.py)."""

import pytest

from kgbuild.errors import InputError
from kgbuild.query.engine import QueryEngine
from kgbuild.records import Entity
from kgbuild.serve.explorer.facts import MAX_PAGE, fact_page, parse_query
from kgbuild.serve.explorer.hubs import hub_share, ranked_neighbours
from kgbuild.serve.explorer.pages import ExplorerData, _edges_of, neighbourhood
from kgbuild.store.snapshots import Warehouse
from tests.support.hostile_kg import (
    HOSTILE_ABSTRACT,
    HOSTILE_ID,
    HOSTILE_PMID,
    HOSTILE_SENTENCE,
    HOSTILE_TITLE,
)
from tests.support.query_kg import publish_year
from tests.support.serve_process import HTTP, start_serve

APOE, AD, ACHE, DEMENTIA = "NCBIGene:348", "MESH:D000544", "NCBIGene:43", "MESH:D003704"
DONEPEZIL, ACH = "MESH:D000077265", "MESH:D000109"
BINDS = f"t:{APOE}|binds|{HOSTILE_ID}"


@pytest.fixture(scope="module")
def opened(hostile):
    engine = QueryEngine(hostile, embeddings=False)
    return engine.state().index, ExplorerData(engine.wh)


def _page(opened, curie=AD, **params):
    idx, data = opened
    return fact_page(idx, data, curie, None, parse_query(idx, params))


def test_paging_reaches_every_fact_once(opened):
    whole = _page(opened)
    assert (
        whole["total"] == whole["entity"]["facts"] == 25
    )  # 4 genes/diseases, 20 fillers, donepezil
    seen = []
    for offset in range(0, 30, 4):
        page = _page(opened, offset=str(offset), limit="4")
        assert page["total"] == 25 and len(page["facts"]) == min(4, max(0, 25 - offset))
        seen += [f["edge"] for f in page["facts"]]
    assert len(seen) == len(set(seen)) == 25  # no "N more, weaker facts" left unreachable
    assert seen == [f["edge"] for f in _page(opened, limit="25")["facts"]]  # the same order


def test_filters_by_relation_status_years_and_belief(opened):
    page = _page(opened, relation="treats")
    assert page["total"] == 1 and page["facts"][0]["other"]["id"] == DONEPEZIL
    assert page["facets"]["relations"]["associates"] == 24  # facets count before the filters
    assert _page(opened, year_from="2020")["total"] == 1  # only donepezil's 2020 evidence
    assert _page(opened, year_to="2019")["total"] == 24
    assert _page(opened, year_from="2019", year_to="2019", relation="treats")["total"] == 0
    assert _page(opened, status="asserted")["total"] == 25
    assert _page(opened, status="negated")["total"] == 0
    beliefs = [f["belief"] for f in _page(opened, limit="100")["facts"]]
    strong = _page(opened, min_belief=".5", limit="100")
    assert strong["total"] == sum(b >= 0.5 for b in beliefs) == 5  # the fillers' 0.285 out
    assert all(f["belief"] >= 0.5 for f in strong["facts"])


def test_both_endpoints_are_marked_in_each_sentence(opened):
    for f in _page(opened, APOE)["facts"]:
        s, ev = f["evidence"]["sentence"], f["evidence"]
        head, tail = ev["head_span"], ev["tail_span"]
        assert head and tail and (head[1] <= tail[0] or tail[1] <= head[0]), f
        assert s[head[0] : head[1]] == "APOE"  # APOE is the subject of all five
    ev = _page(opened, APOE, relation="binds")["facts"][0]["evidence"]
    assert ev["sentence"][slice(*ev["tail_span"])] == "amyloidosis factor"
    ev = _page(opened, AD, relation="treats")["facts"][0]["evidence"]
    assert ev["sentence"][slice(*ev["head_span"])] == "Donepezil"  # the other node is the subject
    assert ev["sentence"][slice(*ev["tail_span"])] == "Alzheimer disease"


@pytest.mark.parametrize(
    "params, says",
    [
        ({"year_from": "²⁰¹⁵"}, "year_from"),
        ({"year_to": "2015.0"}, "year_to"),
        ({"year_from": "2020", "year_to": "2019"}, "after"),
        ({"offset": "-1"}, "offset"),
        ({"limit": "0"}, "limit"),
        ({"limit": str(MAX_PAGE + 1)}, "limit"),
        ({"min_belief": "NaN"}, "min_belief"),
        ({"min_belief": "1e-3"}, "min_belief"),
        ({"min_belief": "1.5"}, "min_belief"),
        ({"relation": "<script>"}, "relation"),
        ({"status": "pwned"}, "status"),
    ],
)
def test_hostile_filter_parameters_are_refused(opened, params, says):
    idx, _ = opened
    with pytest.raises(InputError, match=says):
        parse_query(idx, params)


def test_specific_neighbours_come_before_generic_hubs(tmp_path):
    """A hub in many abstracts with a strong edge to the centre, and a specific node with a
    weaker one found nowhere else: the drawing's one slot goes to the specific node (by
    support alone it went to the hub)."""
    hub, specific, centre = "MESH:D014867", "NCBIGene:1", "MESH:D000544"
    names = [(centre, "Alzheimer disease", "Disease"), (hub, "Water", "Compound"),
             (specific, "GENE1", "Gene")]  # fmt: skip
    names += [(f"MESH:C{i:06d}", f"thing {i}", "Compound") for i in range(30)]
    ev = lambda p, s: (p, 2019, s, 0.7)  # noqa: E731
    edges = [
        (hub, "associates", centre, [ev(f"10{i}", "Water and AD.") for i in range(3)]),
        (specific, "associates", centre, [ev(f"20{i}", "GENE1 in AD.") for i in range(2)]),
    ] + [(hub, "associates", f"MESH:C{i:06d}", [ev(str(300 + i), f"Water and thing {i}.")])
         for i in range(30)]  # fmt: skip
    w = Warehouse(tmp_path / "wh").writer("toy")
    publish_year(w, 2019, edges, [Entity(i, n, t, [n], 2019) for i, n, t in names])
    idx = QueryEngine(tmp_path / "wh", embeddings=False).state().index
    g = neighbourhood(idx, centre, None, limit=1)
    assert [n["id"] for n in g["nodes"]] == [centre, specific]
    assert [n["id"] for n in neighbourhood(idx, centre, None, 1, "support")["nodes"]] == [
        centre,
        hub,
    ]
    es, sup = _edges_of(idx, idx.node_of[centre], None)
    first = ranked_neighbours(idx, idx.node_of[centre], es, sup)[:1]
    assert hub_share(idx, first, 0.95) == 0.0
    assert hub_share(idx, [idx.node_of[hub]], 0.95) == 1.0


@pytest.fixture(scope="module")
def served(hostile):
    proc, url = start_serve(hostile, "--no-embed", timeout_s=60)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _no_trace(r):
    assert "Traceback" not in r.text and r.headers["content-type"] == "application/json"
    return r


@pytest.mark.slow  # a kgbuild serve process
def test_served_facts_page_and_refuse_hostile_parameters(served):
    url = served
    pages = [HTTP.get(f"{url}/api/facts/{AD}", params={"offset": o, "limit": 10}).json()
             for o in (0, 10, 20)]  # fmt: skip
    assert [len(p["facts"]) for p in pages] == [10, 10, 5] and pages[0]["total"] == 25
    r = HTTP.get(f"{url}/api/facts/{AD}", params={"relation": "treats", "as_of": "2019"})
    assert r.status_code == 200 and r.json()["total"] == 0 and r.json()["as_of"] == 2019
    for params, status, says in [
        ({"limit": "100000"}, 400, "limit"),
        ({"offset": "-5"}, 400, "offset"),
        ({"year_from": "1e3"}, 400, "year_from"),
        ({"min_belief": "Infinity"}, 400, "min_belief"),
        ({"relation": "x" * 101}, 422, "invalid"),
        ({"relation": "<script>"}, 400, "relation"),
        ({"status": "' OR 1=1 --"}, 400, "status"),
        ({"as_of": "1999"}, 422, "snapshot years"),
    ]:
        r = _no_trace(HTTP.get(f"{url}/api/facts/{AD}", params=params))
        assert r.status_code == status and says in r.json()["error"], (params, r.text)
    assert _no_trace(HTTP.get(f"{url}/api/facts/NCBIGene:0")).status_code == 404


@pytest.mark.slow  # a kgbuild serve process
def test_served_abstract_has_mentions_by_kind_and_the_fact_sentence(served):
    url = served
    r = _no_trace(HTTP.get(f"{url}/api/abstract/{HOSTILE_PMID}", params={"edge": BINDS}))
    doc = r.json()
    assert r.status_code == 200 and doc["text"] == f"{HOSTILE_TITLE} {HOSTILE_ABSTRACT}"
    assert doc["title_end"] == len(HOSTILE_TITLE)
    assert doc["kinds"] == ["Disease", "Gene", "Species"]
    linked = {doc["text"][m["start"] : m["end"]]: m["id"] for m in doc["mentions"]}
    assert linked == {"APOE": APOE, "amyloidosis factor": HOSTILE_ID, "mouse": None, "Mice": None}
    f = doc["fact"]
    assert doc["text"][slice(*f["sentence_span"])] == HOSTILE_SENTENCE
    assert doc["text"][slice(*f["head_span"])] == "APOE"
    assert doc["text"][slice(*f["tail_span"])] == "amyloidosis factor"
    assert f["evidence_id"] and f["head"]["id"] == APOE and f["tail"]["id"] == HOSTILE_ID
    plain = HTTP.get(f"{url}/api/abstract/{HOSTILE_PMID}").json()
    assert plain["fact"] is None and len(plain["mentions"]) == 4
    for pmid, params, status, says in [
        ("99999999", {}, 404, "no abstract"),
        ("1;DROP TABLE documents", {}, 400, "pmid"),
        ("1 OR 1=1", {}, 400, "pmid"),
        (HOSTILE_PMID, {"edge": f"t:{APOE}|associates|{AD}"}, 400, "not evidence"),
        (HOSTILE_PMID, {"as_of": "²⁰¹⁹"}, 422, "snapshot years"),
    ]:
        r = _no_trace(HTTP.get(f"{url}/api/abstract/{pmid}", params=params))
        assert r.status_code == status and says in r.json()["error"], (pmid, r.text)


@pytest.mark.slow  # a kgbuild serve process
def test_served_paths_with_sentences_bounded_and_as_of(served):
    url = served
    r = HTTP.get(f"{url}/api/paths", params={"from": ACHE, "to": DEMENTIA}).json()
    assert r["found"] == 1 and r["paths"][0]["hops"] == 3
    path = r["paths"][0]
    assert [n["id"] for n in path["nodes"]] == [ACHE, ACH, "free:cholinergic neurons", DEMENTIA]
    for step in path["edges"]:
        ev = step["evidence"]
        assert ev["pmid"] and ev["sentence"] and ev["head_span"] and ev["tail_span"]
    assert HTTP.get(f"{url}/api/paths", params={"from": ACHE, "to": DEMENTIA, "hops": 2}
                     ).json()["found"] == 0  # fmt: skip
    late = {"from": DONEPEZIL, "to": ACH}
    assert HTTP.get(f"{url}/api/paths", params=late).json()["paths"][0]["hops"] == 2
    then = HTTP.get(f"{url}/api/paths", params={**late, "as_of": "2019"}).json()
    assert then["found"] == 0 and then["as_of"] == 2019  # donepezil's facts came in 2020
    for params, status, says in [
        ({"from": ACHE, "to": DEMENTIA, "hops": "9"}, 422, "invalid"),
        ({"from": ACHE, "to": DEMENTIA, "limit": "0"}, 422, "invalid"),
        ({"from": ACHE}, 422, "invalid"),
        ({"from": ACHE, "to": "NCBIGene:0"}, 404, "no entity"),
        ({"from": "x" * 600, "to": ACHE}, 422, "invalid"),
    ]:
        r = _no_trace(HTTP.get(f"{url}/api/paths", params=params))
        assert r.status_code == status and says in r.json()["error"], (params, r.text)


@pytest.mark.slow  # a kgbuild serve process
def test_served_views_say_the_as_of_year_they_show(served):
    url = served
    for path in (f"/api/facts/{APOE}", f"/api/neighbourhood/{APOE}",
                 f"/api/abstract/{HOSTILE_PMID}"):  # fmt: skip
        then = HTTP.get(f"{url}{path}", params={"as_of": "2019"}).json()
        now = HTTP.get(f"{url}{path}").json()
        assert (then["as_of"], then["snapshot_year"]) == (2019, 2019), path
        assert (now["as_of"], now["snapshot_year"]) == (None, 2020), path
