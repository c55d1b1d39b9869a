"""Which PMIDs PubMed now marks retracted: ESearch with a PMID list and the
publication type, against a loopback E-utilities server that reads the term as PubMed does."""

from __future__ import annotations

import json
import logging

import pytest

from kgbuild.errors import SourceError
from kgbuild.sources import pubmed
from tests.sources.test_pubmed import KEY, fast
from tests.support.eutils_server import FIXTURES, FakeNCBI, serve


class RetractionNCBI(FakeNCBI):
    """The loopback NCBI (:class:`FakeNCBI` answers a PMID-list ESearch term the way PubMed
    does); named here for what these tests use it for."""


def test_the_term_tags_every_pmid_and_the_publication_type():
    term = pubmed.retraction_term(["99000001", "99000004"])
    assert term == '(99000001[uid] OR 99000004[uid]) AND "Retracted Publication"[pt]'


def test_retracted_pmids_batches_posts_and_keeps_the_key_out_of_urls(caplog):
    ids = [f"990000{i:02d}" for i in range(1, 13)]
    with (
        serve(RetractionNCBI(retracted_later=("99000002", "99000011"))) as fake,
        caplog.at_level(logging.DEBUG),
    ):
        got = pubmed.retracted_pmids(fast(fake), [*ids, "0099000002", "not-a-pmid", "77"], 5)
    # 99000004 carries the type; 99000007 only a RetractionIn comment (not the [pt] search)
    assert got == ["99000002", "99000004", "99000011"]
    calls = fake.calls("esearch.fcgi")
    assert [c["method"] for c in calls] == ["POST"] * 3  # 13 PMIDs, 5 per request
    first = calls[0]["fields"]
    assert first["term"] == pubmed.retraction_term(["77", *ids[:4]])  # numeric order
    assert first["retmax"] == "5" and first["retmode"] == "json" and "usehistory" not in first
    assert first["api_key"] == KEY and all("api_key" not in c["route"] for c in calls)
    assert "not-a-pmid" not in " ".join(c["fields"]["term"] for c in calls)
    assert KEY not in caplog.text


def test_answers_are_cached_by_term_and_refresh_asks_again(tmp_path):
    ids = ["99000001", "99000002", "99000004"]
    with serve(RetractionNCBI()) as fake:
        client = fast(fake, cache_dir=tmp_path)
        assert pubmed.retracted_pmids(client, ids) == ["99000004"]
    with serve(RetractionNCBI(retracted_later=("99000001",))) as fake:
        client = fast(fake, cache_dir=tmp_path)
        assert pubmed.retracted_pmids(client, ids) == ["99000004"]  # the cached answer
        assert fake.requests == []
        fresh = pubmed.retracted_pmids(client, ids, refresh=True)
        assert fresh == ["99000001", "99000004"] and len(fake.requests) == 1
        assert pubmed.retracted_pmids(client, ids) == fresh  # the refresh rewrote the cache
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes()


def test_none_retracted_and_no_ids_ask_nothing_wrong():
    with serve(RetractionNCBI()) as fake:
        assert pubmed.retracted_pmids(fast(fake), ["99000001", "12345"]) == []
        assert pubmed.retracted_pmids(fast(fake), []) == []
        assert len(fake.requests) == 1


class Misreading(RetractionNCBI):
    """An ESearch that ignored the PMID list: every retracted publication it knows."""

    def esearch(self, f: dict[str, str]) -> tuple[int, str, bytes]:
        res = {"count": "12000", "retmax": f.get("retmax", "20"), "retstart": "0",
               "idlist": ["1", "2"], "translationset": [], "querytranslation": ""}  # fmt: skip
        return 200, "application/json", json.dumps({"esearchresult": res}).encode()


def test_an_answer_that_is_not_about_the_pmids_is_an_error_not_none_retracted():
    with serve(Misreading()) as fake, pytest.raises(SourceError, match="PMID list"):
        pubmed.retracted_pmids(fast(fake), ["99000001", "99000004"])


def test_esearch_errors_and_malformed_answers():
    with serve(RetractionNCBI()) as fake:
        error = json.dumps({"esearchresult": {"ERROR": "bad"}}).encode()
        fake.esearch = lambda f: (200, "application/json", error)  # type: ignore[method-assign]
        with pytest.raises(pubmed.EutilsError, match="bad"):
            pubmed.retracted_pmids(fast(fake), ["99000001"])
        assert len(fake.requests) == 1  # a well-formed error is not retried
    script = [("truncate",), ("status", 503), ("garbage",)]
    with serve(RetractionNCBI(script=script)) as fake:
        client = fast(fake)
        assert pubmed.retracted_pmids(client, ["99000004"]) == ["99000004"]
        assert client.counters["retries"] == 3


def test_the_fixture_marks_what_the_server_calls_retracted():
    fixture = (FIXTURES / "pubmed_articles.xml").read_text()
    assert fixture.count(">Retracted Publication<") == 1
