"""PubTator3 export API client against the loopback server, serving real captured responses."""

from __future__ import annotations

import json

import pytest

from kgbuild.annotate.pubtator_api import (
    EXPORT,
    PUBTATOR_RATE,
    annotate_pmids,
    parse_export,
    pubtator_client,
)
from tests.conftest import FIXTURES, shared
from tests.support.eutils_server import FakeNCBI, serve


def docs_by_pmid(payload: object) -> dict[str, dict]:
    """Documents of a captured response, by PMID (as the server must know them)."""
    if isinstance(payload, dict) and "PubTator3" in payload:
        docs = payload["PubTator3"]
    else:
        docs = payload if isinstance(payload, list) else [payload]
    return {str(d.get("pmid") or d.get("_id", d.get("id")).split("|")[0]): d for d in docs}


def client(fake: FakeNCBI, **kw):
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("rate_per_s", 200)
    return pubtator_client(base_url=fake.pubtator_url, **kw)


@pytest.fixture
def small() -> dict[str, dict]:
    return docs_by_pmid(json.loads((FIXTURES / "pubtator3_small.json").read_text()))


def test_real_captured_responses_through_the_api():
    folder = shared("pubtator3")
    docs: dict[str, dict] = {}
    for path in sorted(folder.glob("*.json")):
        if "_full_" not in path.name:  # full text answers a different request (full=true)
            docs |= docs_by_pmid(json.loads(path.read_text()))
    expected = {
        pmid: sum(
            len(p.get("annotations") or [])
            for p in doc["passages"]
            if p["infons"].get("type") in ("title", "front", "abstract")
        )
        for pmid, doc in docs.items()
    }
    asked = [*docs, "99999999"]
    with serve(FakeNCBI(pubtator_docs=docs)) as fake:
        result = annotate_pmids(client(fake), asked, batch=3)
    assert len(fake.requests) == -(-len(asked) // 3)
    assert all(r["route"].endswith("/" + EXPORT) for r in fake.requests)
    assert fake.requests[0]["fields"]["pmids"] == ",".join(asked[:3])
    assert result.missing == ["99999999"] and result.errors == {}
    assert sorted(r.pmid for r in result.records) == sorted(docs)  # PMIDs, also from "_id"
    for rec in result.records:
        assert rec.title and rec.year and rec.source_file == "pubtator3-api"
        assert len(rec.mentions) == expected[rec.pmid], rec.pmid
        for m in rec.mentions:
            assert rec.text[m.start : m.end] == m.text and m.pmid == rec.pmid
        assert not [p for p in rec.problems if p.kind in ("bad_offset", "malformed_annotation")]
    assert sum(expected.values()) > 200


def test_fixture_response_parses_like_a_local_file(small):
    with serve(FakeNCBI(pubtator_docs=small)) as fake:
        result = annotate_pmids(client(fake), [2001, "2001", " 2002 "])
    assert len(fake.requests) == 1 and fake.requests[0]["fields"]["pmids"] == "2001,2002"
    first = result.records[0]
    assert first.pmid == "2001" and first.year == 2018
    assert {m.concept_id for m in first.mentions} >= {"MESH:D003474", "NCBIGene:351"}
    assert [r.pmid for r in result.records] == list(small)


def test_a_batch_that_stays_malformed_gives_per_document_errors(small):
    pmids = [*small, "404404"]
    script = [("truncate",), None, ("truncate",), ("garbage",)]  # batch 1 recovers, 2 does not
    with serve(FakeNCBI(pubtator_docs=small, script=script)) as fake:
        http = client(fake, max_retries=1)
        result = annotate_pmids(http, pmids, batch=1)
    first, second = list(small)[:2]
    assert [r.pmid for r in result.records] == [first]
    assert set(result.errors) == {second}
    assert "malformed body" in result.errors[second] and EXPORT in result.errors[second]
    assert result.missing == ["404404"]  # the run went on after the failed batch
    assert http.counters["retries"] == 2 and http.counters["failed"] == 1


def test_retry_after_and_server_errors_are_retried(small):
    with serve(FakeNCBI(pubtator_docs=small, script=[("status", 429, 0.3), ("status", 502)])) as fk:
        result = annotate_pmids(client(fk), list(small))
    times = [r["t"] for r in fk.requests]
    assert len(result.records) == len(small) and not result.errors and not result.missing
    assert len(times) == 3 and times[1] - times[0] >= 0.28


def test_cache_makes_a_rerun_free(small, tmp_path):
    with serve(FakeNCBI(pubtator_docs=small)) as fake:
        first = annotate_pmids(client(fake, cache_dir=tmp_path), list(small))
    with serve(FakeNCBI(pubtator_docs=small)) as fake:
        http = client(fake, cache_dir=tmp_path)
        again = annotate_pmids(http, list(small))
    assert fake.requests == [] and http.counters["cache_hits"] == 1
    assert [r.pmid for r in again.records] == [r.pmid for r in first.records]


def test_parse_export_shapes():
    doc = {"pmid": 1, "passages": []}
    assert parse_export(json.dumps({"PubTator3": [doc]}).encode()) == [doc]
    assert parse_export(json.dumps({"PubTator3": []}).encode()) == []
    assert parse_export(b"") == []
    lines = (json.dumps(doc) + "\n" + json.dumps({**doc, "pmid": 2}) + "\n").encode()
    assert [d["pmid"] for d in parse_export(lines)] == [1, 2]  # PubTator Central's JSON lines
    for bad in (b'{"PubTator3": [{"pmid": 1, "pass', b"<html>502</html>", b'"text"', b"{}"):
        with pytest.raises(ValueError):
            parse_export(bad)
    with pytest.raises(ValueError):
        annotate_pmids(pubtator_client(), ["1"], batch=101)
    assert pubtator_client().limiter.rate_per_s == PUBTATOR_RATE == 3.0
