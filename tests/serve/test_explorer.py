"""The explorer's data (kgbuild/serve/explorer): read from a real snapshot index of the toy KG
with a hostile abstract in it, then served by a real ``kgbuild serve`` on 127.0.0.1 — facts
grouped by relation with their sentence, statuses and years; as-of views; the neighbourhood;
bad ids and years refused with a clear 4xx; the page's assets and its Content-Security-Policy."""

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.serve.explorer.pages import (
    BadYear,
    ExplorerData,
    UnknownEntity,
    entity_page,
    neighbourhood,
    parse_year,
)
from tests.support.hostile_kg import HOSTILE_ID, HOSTILE_SENTENCE
from tests.support.serve_process import HTTP, start_serve

APOE = "NCBIGene:348"


@pytest.fixture(scope="module")
def opened(hostile):
    engine = QueryEngine(hostile, embeddings=False)
    return engine.state().index, ExplorerData(engine.wh)


def _facts(page):
    return {(g["relation"], f["other"]["id"]): f for g in page["relations"] for f in g["facts"]}


def test_entity_page_groups_facts_with_sentence_statuses_and_years(opened):
    idx, data = opened
    page = entity_page(idx, data, APOE, None)
    ent = page["entity"]
    assert (ent["id"], ent["type"], ent["symbol"], ent["facts"]) == (APOE, "Gene", "APOE", 5)
    assert "apolipoprotein e" in " | ".join([ent["name"], *ent["aliases"]]).casefold()
    assert ent["name"].casefold() not in [a.casefold() for a in ent["aliases"]]
    facts = _facts(page)
    assert set(facts) == {("associates", "MESH:D000544"), ("binds", HOSTILE_ID),
                          ("downregulates", "NCBIGene:351"), ("upregulates", "NCBIGene:351"),
                          ("interacts", "NCBIGene:4137")}  # fmt: skip
    ad = facts[("associates", "MESH:D000544")]
    assert ad["direction"] == "out" and ad["support"] == 3 and ad["statuses"] == {"asserted": 3}
    assert ad["pmids"] == ["1001", "1002", "1003"] and (ad["first_year"], ad["last_year"]) == (
        2019,
        2019,
    )
    assert ad["evidence"]["pmid"] in ad["pmids"] and "APOE" in ad["evidence"]["sentence"]
    hostile = facts[("binds", HOSTILE_ID)]
    assert hostile["evidence"]["sentence"] == HOSTILE_SENTENCE  # data, unchanged: the page escapes
    assert hostile["other"]["name"] == idx.nodes["display"][idx.node_of[HOSTILE_ID]]
    # seen from the other end, the same fact points in
    ad_page = entity_page(idx, data, "MESH:D000544", None, per_relation=2)
    group = next(g for g in ad_page["relations"] if g["relation"] == "associates")
    assert group["total"] > 20 and len(group["facts"]) == 2  # a hub: capped, total said
    assert group["facts"][0]["other"]["id"] == APOE and group["facts"][0]["direction"] == "in"


def test_as_of_year_keeps_what_was_known_then(opened):
    idx, data = opened
    assert data.years(idx) == [2019, 2020]
    then = _facts(entity_page(idx, data, APOE, 2019))
    assert ("interacts", "NCBIGene:4137") not in then and len(then) == 4
    donepezil = entity_page(idx, data, "MESH:D000077265", 2019)
    assert donepezil["relations"] == [] and donepezil["entity"]["facts"] == 0
    assert entity_page(idx, data, "MESH:D000077265", 2020)["entity"]["facts"] == 2
    g = neighbourhood(idx, APOE, 2019)
    assert "NCBIGene:4137" not in {n["id"] for n in g["nodes"]}


def test_neighbourhood_has_the_strongest_neighbours_and_their_edges(opened):
    idx, _ = opened
    g = neighbourhood(idx, APOE, None)
    ids = [n["id"] for n in g["nodes"]]
    assert g["center"] == ids[0] == APOE and ids[1] == "MESH:D000544"  # strongest first
    assert set(ids) == {APOE, "MESH:D000544", HOSTILE_ID, "NCBIGene:351", "NCBIGene:4137"}
    pairs = {frozenset((e["source"], e["target"])) for e in g["edges"]}
    assert frozenset(("NCBIGene:4137", "MESH:D000544")) in pairs  # neighbours among themselves
    app = next(e for e in g["edges"] if {e["source"], e["target"]} == {APOE, "NCBIGene:351"})
    assert app["relations"] == 2
    assert len(neighbourhood(idx, "MESH:D000544", None, limit=3)["nodes"]) == 4


def test_bad_ids_and_years_are_refused(opened):
    idx, data = opened
    with pytest.raises(UnknownEntity):
        entity_page(idx, data, "NCBIGene:0", None)
    for raw in ("1999", "2015", "²⁰¹⁹", "2019.0", "-1", "20190"):
        with pytest.raises(BadYear) as err:
            parse_year(raw, [2019, 2020])
        assert err.value.years == [2019, 2020]
    assert parse_year(" 2019 ", [2019, 2020]) == 2019 and parse_year("", [2019]) is None


@pytest.fixture(scope="module")
def served(hostile):
    proc, url = start_serve(hostile, "--no-embed", timeout_s=60)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow  # a kgbuild serve process
def test_served_routes_answer_and_refuse_with_json(served):
    url = served
    years = HTTP.get(f"{url}/api/years").json()
    assert years["years"] == [2019, 2020] and years["kg"] == "toy"
    r = HTTP.get(f"{url}/api/entity/{APOE}", params={"as_of": "2019"})
    assert r.status_code == 200 and r.json()["entity"]["facts"] == 4
    hostile = HTTP.get(f"{url}/api/entity/{HOSTILE_ID}").json()
    assert "amyloidosis" in hostile["entity"]["name"]  # as the index names it: JSON-escaped only
    assert hostile["relations"][0]["facts"][0]["evidence"]["sentence"] == HOSTILE_SENTENCE
    assert r.headers["content-type"] == "application/json"  # never sniffed as HTML
    free = HTTP.get(f"{url}/api/entity/free:cholinergic neurons").json()
    assert free["entity"]["id"] == "free:cholinergic neurons"
    g = HTTP.get(f"{url}/api/neighbourhood/{APOE}", params={"limit": 2}).json()
    assert len(g["nodes"]) == 3
    for path, params, status, says in [
        ("/api/entity/NCBIGene:0", {}, 404, "no entity"),
        ("/api/neighbourhood/NCBIGene:0", {}, 404, "no entity"),
        (f"/api/entity/{APOE}", {"as_of": "1999"}, 422, "snapshot years"),
        (f"/api/neighbourhood/{APOE}", {"as_of": "soon"}, 422, "snapshot years"),
        (f"/api/entity/{APOE}", {"per_relation": "0"}, 422, "invalid"),
        (f"/api/neighbourhood/{APOE}", {"limit": "1000"}, 422, "invalid"),
        (f"/api/entity/{'x' * 600}", {}, 422, "longer than"),
        ("/explorer/../kg.duckdb", {}, 404, ""),
        ("/explorer/secret.txt", {}, 404, "not found"),
    ]:
        r = HTTP.get(f"{url}{path}", params=params)
        assert r.status_code == status, (path, r.text)
        assert says in r.json()["error"] if says else True
        if status == 422 and "years" in says:
            assert r.json()["years"] == [2019, 2020]
        assert "Traceback" not in r.text


@pytest.mark.slow  # a kgbuild serve process
def test_page_and_assets_are_served_with_a_strict_policy(served):
    url = served
    page = HTTP.get(f"{url}/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "default-src 'self'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert '<script src="/explorer/app.js"' in page.text and "<script>" not in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # nothing fetched from elsewhere
    js = HTTP.get(f"{url}/explorer/app.js")
    assert js.status_code == 200 and "javascript" in js.headers["content-type"]
    assert "innerHTML" not in js.text.replace("no innerHTML", "")
    assert HTTP.get(f"{url}/explorer/style.css").headers["content-type"].startswith("text/css")
