"""PubMed E-utilities client against the loopback E-utilities server, and PubMed XML parsing."""

from __future__ import annotations

import json
import logging
import threading

import pytest

from kgbuild.errors import SourceError
from kgbuild.sources import pubmed
from kgbuild.sources.http import HttpClient
from kgbuild.sources.pubmed import (
    RETRACTED,
    RETRACTION_NOTICE,
    EutilsError,
    eutils_client,
    fetch_history,
    fetch_pmids,
    fetch_year,
    parse_pubmed_xml,
    rate_for,
    search,
    to_source_record,
)
from tests.sources.test_http import max_in_window
from tests.support.eutils_server import FIXTURES, FakeNCBI, serve

KEY = "ncbi-key-abcdef0123456789"
YEAR_2015 = [f"990000{i:02d}" for i in range(1, 12)]


def fast(fake: FakeNCBI, **kw) -> HttpClient:
    """A client for the loopback server: NCBI's parameters, quick retries, no real rate."""
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("rate_per_s", 500)
    return eutils_client(base_url=fake.eutils_url, api_key=KEY, email="t@example.org", **kw)


@pytest.fixture(scope="module")
def articles():
    return {a.pmid: a for a in parse_pubmed_xml((FIXTURES / "pubmed_articles.xml").read_bytes())}


# -- parsing ----------------------------------------------------------------------------------


def test_parse_structured_abstract_title_markup_mesh(articles):
    a = articles["99000001"]
    assert a.title == "Curcumin lowers APP processing in transgenic mice."
    assert a.abstract == (
        "BACKGROUND: Amyloid beta accumulates in Alzheimer disease. METHODS: APP/PS1 mice "
        "received curcumin for 12 weeks. RESULTS: Curcumin reduced plaque load by 40%. "
        "CONCLUSIONS: Curcumin may slow amyloid deposition."
    )
    assert (a.year, a.journal) == (2015, "Journal of Loopback Neuroscience")
    assert a.mesh == ["Alzheimer Disease", "Mice, Transgenic", "Curcumin"]
    assert a.publication_types == ["Journal Article", "Research Support, Non-U.S. Gov't"]
    assert not a.is_retracted and not a.is_retraction_notice
    assert articles["99000002"].abstract.endswith("tau spreading & cognitive decline.")


def test_parse_years_retractions_and_missing_abstract(articles):
    assert len(articles) == 12
    assert articles["99000012"].year == 1998  # MedlineDate "1998 Dec-1999 Jan"
    assert articles["99000011"].year == 2015  # PubDate wins over the 2014 ArticleDate
    assert articles["99000008"].year == 2015  # numeric month
    notice, retracted = articles["99000003"], articles["99000004"]
    assert notice.is_retraction_notice and not notice.is_retracted and notice.abstract == ""
    assert retracted.is_retracted and not retracted.is_retraction_notice
    assert articles["99000007"].is_retracted  # only a CommentsCorrections RetractionIn
    assert articles["99000005"].abstract == "" and articles["99000005"].publication_types == [
        "Comment",
        "Letter",
    ]
    flagged = {p for p, a in articles.items() if a.is_retracted or a.is_retraction_notice}
    assert flagged == {"99000003", "99000004", "99000007"}


def test_year_falls_back_to_article_date_and_unlabelled_has_no_label():
    xml = (
        b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article><Journal>"
        b"<JournalIssue><PubDate><MedlineDate>Spring</MedlineDate></PubDate></JournalIssue>"
        b"</Journal><ArticleTitle>T</ArticleTitle><Abstract><AbstractText Label='UNLABELLED'>"
        b"Plain.</AbstractText></Abstract><ArticleDate><Year>2016</Year></ArticleDate>"
        b"</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"
    )
    (a,) = parse_pubmed_xml(xml)
    assert (a.pmid, a.year, a.title, a.abstract, a.journal) == ("1", 2016, "T", "Plain.", None)


def test_malformed_xml_is_value_error_and_eutils_error_is_not():
    data = (FIXTURES / "pubmed_articles.xml").read_bytes()
    with pytest.raises(ValueError, match="malformed PubMed XML"):
        parse_pubmed_xml(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a PubmedArticleSet"):
        parse_pubmed_xml(b"<html><body>502</body></html>")
    error = (FIXTURES / "efetch_error.xml").read_bytes().replace(b"MESSAGE", b"Unknown WebEnv")
    with pytest.raises(EutilsError, match="Unknown WebEnv") as err:
        parse_pubmed_xml(error)
    assert not isinstance(err.value, ValueError)  # so the client does not retry it


def test_to_source_record_flags_retractions_and_keeps_title_only(articles):
    recs = {p: to_source_record(a, i, "pubmed:2015") for i, (p, a) in enumerate(articles.items())}
    assert recs["99000003"].reject_reason == RETRACTION_NOTICE
    assert recs["99000004"].reject_reason == RETRACTED == recs["99000007"].reject_reason
    letter = recs["99000005"]
    assert letter.reject_reason is None and letter.warnings == ["empty abstract (title only)"]
    ok = recs["99000001"]
    assert ok.reject_reason is None and ok.text.startswith("Curcumin lowers APP processing")
    assert (ok.year, ok.journal, ok.source_file) == (
        2015,
        "Journal of Loopback Neuroscience",
        "pubmed:2015",
    )


# -- E-utilities ------------------------------------------------------------------------------


def test_rate_and_client_parameters(monkeypatch):
    assert rate_for(None) == rate_for("") == 3.0 and rate_for("k") == 10.0
    monkeypatch.setenv("NCBI_API_KEY", KEY)
    monkeypatch.setenv("NCBI_EMAIL", "env@example.org")
    with_key = eutils_client()
    assert with_key.limiter.rate_per_s == 10.0 and with_key.base_url == pubmed.EUTILS_URL
    monkeypatch.delenv("NCBI_API_KEY")
    assert eutils_client().limiter.rate_per_s == 3.0
    with serve(FakeNCBI()) as fake:
        eutils_client(base_url=fake.eutils_url, tool="kg-test").get("echo")
    assert fake.requests[0]["fields"] == {"tool": "kg-test", "email": "env@example.org"}


def test_search_keeps_results_on_the_history_server():
    with serve(FakeNCBI()) as fake:
        found = search(fast(fake), "alzheimer", 2015)
    assert (found.count, found.query_key, found.mindate, found.maxdate) == (
        11,
        "1",
        "2015/01/01",
        "2015/12/31",
    )
    assert found.webenv.startswith("MCID_")
    (call,) = fake.calls("esearch.fcgi")
    assert call["fields"] == {
        "db": "pubmed",
        "term": "alzheimer",
        "datetype": "pdat",
        "mindate": "2015/01/01",
        "maxdate": "2015/12/31",
        "usehistory": "y",
        "retmax": "0",
        "retmode": "json",
        "tool": "kgbuild",
        "email": "t@example.org",
        "api_key": KEY,
    }


def test_history_paging_past_the_esearch_id_cap():
    with serve(FakeNCBI(id_cap=5)) as fake:
        client = fast(fake)
        listed = client.get(
            "esearch.fcgi", {"db": "pubmed", "term": "x", "retmax": 100, "retmode": "json"}
        )
        assert len(json.loads(listed)["esearchresult"]["idlist"]) == 5  # ESearch lists only the cap
        got = list(fetch_history(client, search(client, "alzheimer", 2015), page_size=3))
    assert sorted(a.pmid for a in got) == YEAR_2015  # all 11, none twice
    pages = fake.calls("efetch.fcgi")
    assert [(c["fields"]["retstart"], c["fields"]["retmax"]) for c in pages] == [
        ("0", "3"),
        ("3", "3"),
        ("6", "3"),
        ("9", "3"),
    ]
    assert all(c["fields"]["WebEnv"].startswith("MCID_") for c in pages)
    assert all(c["fields"]["query_key"] == "1" for c in pages)
    with pytest.raises(ValueError):
        next(fetch_history(client, pubmed.Search("x", "", "", 1, "W", "1"), page_size=201))


def test_fetch_year_splits_into_months_and_days_when_over_the_cap():
    with serve(FakeNCBI(history_cap=2)) as fake:
        client = fast(fake)
        with pytest.raises(SourceError, match="retstart cannot be larger"):
            list(fetch_history(client, search(client, "alzheimer", 2015), page_size=2))
        fake.requests.clear()
        got = [a.pmid for a in fetch_year(client, "alzheimer", 2015, page_size=2, cap=2)]
    assert sorted(got) == YEAR_2015 and len(got) == len(set(got))
    spans = [(c["fields"]["mindate"], c["fields"]["maxdate"]) for c in fake.calls("esearch.fcgi")]
    assert spans[:2] == [("2015/01/01", "2015/12/31"), ("2015/01/01", "2015/01/31")]
    assert ("2015/03/15", "2015/03/15") in spans  # March (3 records) went by days
    assert ("2015/02/03", "2015/02/03") not in spans  # February (1 record) did not
    assert len(spans) == 1 + 12 + 31


def test_fetch_pmids_batches_and_posts_long_lists(caplog):
    ids = [*YEAR_2015, "99000012", "12345"]
    with serve(FakeNCBI()) as fake, caplog.at_level(logging.WARNING):
        got = list(fetch_pmids(fast(fake), [*ids, ids[0]], batch=5, post_over=3))
    assert [a.pmid for a in got] == ids[:-1]  # in order, once each; the unknown id left out
    calls = fake.calls("efetch.fcgi")
    assert [c["method"] for c in calls] == ["POST", "POST", "GET"]
    assert calls[0]["fields"]["id"] == ",".join(ids[:5]) and "id=" not in calls[0]["route"]
    assert calls[0]["fields"]["api_key"] == KEY  # client parameters travel in the form too
    assert "no record for 1 PMIDs" in caplog.text and "12345" in caplog.text


def test_rerun_from_the_disk_cache_sends_nothing(tmp_path):
    cache = tmp_path / "raw"
    with serve(FakeNCBI()) as fake:
        first = [a.pmid for a in fetch_year(fast(fake, cache_dir=cache), "ad", 2015, 4)]
        first_ids = list(fetch_pmids(fast(fake, cache_dir=cache), ["99000001", "99000012"]))
        assert len(fake.requests) == 1 + 3 + 1
    with serve(FakeNCBI()) as fake:
        client = fast(fake, cache_dir=cache)
        again = [a.pmid for a in fetch_year(client, "ad", 2015, 4)]
        again_ids = list(fetch_pmids(client, ["99000001", "99000012"]))
    assert again == first and again_ids == first_ids
    assert fake.requests == [] and client.counters["cache_hits"] == 5
    for path in cache.rglob("*"):
        if path.is_file():
            assert (
                KEY.encode() not in path.read_bytes() and b"t@example.org" not in path.read_bytes()
            )


def test_a_forgotten_webenv_searches_again(tmp_path, caplog):
    with serve(FakeNCBI()) as fake:
        client = fast(fake, cache_dir=tmp_path)
        found = search(client, "ad", 2015)  # cached, with its WebEnv
        fake.histories.clear()  # NCBI forgets it (expired)
        with caplog.at_level(logging.WARNING):
            got = list(fetch_history(client, search(client, "ad", 2015), page_size=6))
    assert sorted(a.pmid for a in got) == YEAR_2015
    assert len(fake.calls("esearch.fcgi")) == 2 and "searching again" in caplog.text
    assert fake.calls("efetch.fcgi")[-1]["fields"]["WebEnv"] != found.webenv


def test_esearch_error_fails_at_once():
    with serve(FakeNCBI()) as fake, pytest.raises(EutilsError, match="Invalid query"):
        search(fast(fake), "!broken((", 2015)
    assert len(fake.requests) == 1


def test_scripted_faults_are_retried():
    script = [("status", 429, 0.2), None, ("status", 500), ("truncate",), ("garbage",), ("cut",)]
    with serve(FakeNCBI(script=script)) as fake:
        client = fast(fake)
        got = list(fetch_history(client, search(client, "ad", 2015), page_size=6))
    assert sorted(a.pmid for a in got) == YEAR_2015
    assert client.counters == {"requests": 8, "retries": 5, "cache_hits": 0, "failed": 0}


def test_faults_at_a_seeded_rate_lose_nothing():
    with serve(FakeNCBI(fault_rate=0.4, seed=7, fault_kinds=("500", "429", "truncate"))) as fake:
        client = fast(fake, max_retries=8)
        got = list(fetch_history(client, search(client, "ad", 2015), page_size=2))
        got += fetch_pmids(client, ["99000012"])
    assert sorted(a.pmid for a in got) == [*YEAR_2015, "99000012"]
    assert fake.faults >= 3 and client.counters["retries"] == fake.faults


def test_a_page_that_stays_malformed_names_the_path():
    with serve(FakeNCBI(script=[None, ("truncate",), ("truncate",)])) as fake:
        client = fast(fake, max_retries=1)
        with pytest.raises(SourceError, match=r"efetch.fcgi failed after 2 attempts: malformed"):
            list(fetch_history(client, search(client, "ad", 2015), page_size=6))


@pytest.mark.slow  # waits out real rate limits
@pytest.mark.parametrize(("key", "rate", "threads"), [(None, 3, 2), (KEY, 10, 4)])
def test_threads_sharing_a_client_keep_ncbi_rate(key, rate, threads, monkeypatch):
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    with serve(FakeNCBI()) as fake:
        client = eutils_client(base_url=fake.eutils_url, api_key=key)
        assert client.limiter.rate_per_s == rate
        per_thread = 4 if rate == 3 else 6

        def work() -> None:
            for _ in range(per_thread):
                list(fetch_pmids(client, ["99000001"]))

        workers = [threading.Thread(target=work) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    assert len(fake.requests) == threads * per_thread
    assert max_in_window(client.limiter.starts) <= rate
    assert max_in_window([r["t"] for r in fake.requests], 0.99) <= rate
