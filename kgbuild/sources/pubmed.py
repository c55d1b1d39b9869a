"""PubMed through NCBI's E-utilities: search a year, then fetch every record it holds.

Follows NCBI's usage guidelines ("A General Introduction to the E-utilities",
https://www.ncbi.nlm.nih.gov/books/NBK25497/): at most 3 requests/s without an API key and 10/s
with one (:func:`rate_for`), ``tool`` and ``email`` on every request, POST for long id lists, and
the Entrez history server: ESearch with ``usehistory=y`` keeps the result set at NCBI
(``WebEnv`` + ``query_key``) and EFetch pages through it with ``retstart``/``retmax``, so ids are
never listed -- ESearch lists at most 9,999 PubMed ids. Since NCBI's 2022 PubMed backend update
one query is reported to yield at most 10,000 records through EFetch as well (NCBI points to
EDirect's batching for more), so :func:`fetch_year` splits a year whose count is over ``cap``
into months, and months into days, and pages each slice.

ESearch is asked for ``retmode=json`` (count, WebEnv and query key are plain keys and errors come
as ``esearchresult.ERROR``); EFetch answers PubMed XML, parsed by :mod:`.pubmed_xml`.

Retractions after the fact: ingest rejects a record PubMed already marks retracted,
but a paper built years ago can be retracted since. :func:`retracted_pmids` asks ESearch which
of a list of PMIDs now carry the publication type "Retracted Publication"
(``(1[uid] OR 2[uid] …) AND "Retracted Publication"[pt]``), a batch of ids per request, POSTed.
"""

from __future__ import annotations

import calendar
import json
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbuild import settings
from kgbuild.errors import SourceError
from kgbuild.sources.http import HttpClient
from kgbuild.sources.pubmed_xml import (
    RETRACTED,
    RETRACTION_NOTICE,
    EutilsError,
    PubMedArticle,
    parse_pubmed_xml,
    to_source_record,
)
from kgbuild.sources.values import normal_pmid

__all__ = [
    "RETRACTED",
    "RETRACTION_NOTICE",
    "EutilsError",
    "PubMedArticle",
    "Search",
    "eutils_client",
    "fetch_history",
    "fetch_pmids",
    "fetch_year",
    "parse_pubmed_xml",
    "rate_for",
    "retracted_pmids",
    "search",
    "search_slices",
    "to_source_record",
]

log = logging.getLogger(__name__)

EUTILS_URL = settings.EUTILS_URL
ESEARCH, EFETCH = "esearch.fcgi", "efetch.fcgi"
ESEARCH_CAP = 9_999  # most PubMed records one query yields (ESearch ids; EFetch since 2022)
MAX_PER_REQUEST = 200  # EFetch records per request, and ids per request
POST_OVER = 50  # id lists longer than this go in a POST body, not the URL
_EFETCH = {"db": "pubmed", "retmode": "xml", "rettype": "abstract"}
#: PubMed's publication type of a retracted paper (the notice is "Retraction of Publication").
RETRACTED_TYPE = '"Retracted Publication"[pt]'


@dataclass(frozen=True, slots=True)
class Search:
    """One ESearch result kept on the history server: what EFetch pages through."""

    term: str
    mindate: str
    maxdate: str
    count: int
    webenv: str
    query_key: str


def rate_for(api_key: str | None) -> float:
    """NCBI's limit: 3 requests/s per IP without an API key, 10/s with one."""
    return 10.0 if api_key else 3.0


def eutils_client(
    *,
    api_key: str | None = None,
    email: str | None = None,
    tool: str = "kgbuild",
    base_url: str = EUTILS_URL,
    cache_dir: Path | None = None,
    send_key: bool = True,
    **options: Any,
) -> HttpClient:
    """A client at NCBI's rate for the key (``NCBI_API_KEY``/``NCBI_EMAIL`` when not given);
    ``options`` go to :class:`HttpClient` (``timeout_s``, ``max_retries``, ``rate_per_s``…).
    ``send_key`` False: ``base_url`` came from a file, so the environment's key stays home."""
    if api_key is None or email is None:  # the settings' (environment: NCBI_API_KEY/_EMAIL)
        s = settings.load_settings()
        secret = s.ncbi_api_key.get_secret_value() if s.ncbi_api_key and send_key else None
        api_key = api_key if api_key is not None else secret
        email = email if email is not None else s.ncbi_email
    key = api_key or None
    params = {"tool": tool, "email": email, "api_key": key}
    options.setdefault("rate_per_s", rate_for(key))  # a lower rate may be asked (a shared IP)
    return HttpClient(base_url, cache_dir=cache_dir, params=params, **options)


def search(client: HttpClient, query: str, year: int, *, refresh: bool = False) -> Search:
    """ESearch ``query`` over one publication year, results kept on the history server."""
    return _esearch(client, query, f"{year}/01/01", f"{year}/12/31", refresh)


def _esearch(
    client: HttpClient, term: str, mindate: str, maxdate: str, refresh: bool = False
) -> Search:
    params = {
        "db": "pubmed",
        "term": term,
        "datetype": "pdat",
        "mindate": mindate,
        "maxdate": maxdate,
        "usehistory": "y",
        "retmax": 0,
        "retmode": "json",
    }
    res = _esearch_result(client.get(ESEARCH, params, validate=_esearch_result, refresh=refresh))
    return Search(term, mindate, maxdate, int(res["count"]), res["webenv"], res["querykey"])


def _esearch_result(body: bytes) -> dict[str, Any]:
    """The ``esearchresult`` of an ESearch JSON body; ValueError when malformed."""
    result = json.loads(body).get("esearchresult")
    if not isinstance(result, dict):
        raise ValueError("no esearchresult in ESearch answer")
    if result.get("ERROR"):
        raise EutilsError(f"ESearch error: {result['ERROR']}", path=ESEARCH)
    count = str(result.get("count", ""))
    if not (count.isascii() and count.isdigit() and len(count) <= 18) or not result.get("webenv"):
        raise ValueError("ESearch answer lacks count or webenv")
    return result


def search_slices(
    client: HttpClient, query: str, year: int, cap: int = ESEARCH_CAP
) -> list[Search]:
    """Searches covering ``year`` with at most ``cap`` records each: the whole year, else its
    months, else a month's days. A shortfall (slices holding fewer records than the whole year,
    e.g. records dated by year alone) is logged."""
    whole = search(client, query, year)
    if whole.count <= cap:
        return [whole] if whole.count else []
    slices: list[Search] = []
    for month in range(1, 13):
        ym, last = f"{year}/{month:02d}", calendar.monthrange(year, month)[1]
        parts = [_esearch(client, query, f"{ym}/01", f"{ym}/{last}")]
        if parts[0].count > cap:
            days = [f"{ym}/{d:02d}" for d in range(1, last + 1)]
            parts = [_esearch(client, query, day, day) for day in days]
        for part in parts:
            if part.count > cap:
                raise SourceError(
                    f"{part.count} records on one day: narrow the query",
                    path=ESEARCH,
                    day=part.mindate,
                )
        slices += [p for p in parts if p.count]
    if (held := sum(s.count for s in slices)) < whole.count:
        log.warning("%r %d: date slices hold %d of %d records", query, year, held, whole.count)
    return slices


def fetch_history(
    client: HttpClient, search: Search, page_size: int = MAX_PER_REQUEST
) -> Iterator[PubMedArticle]:
    """Every record of ``search``: EFetch page by page (``retstart``) from the history server.

    Pages are cached under the search's identity (term, dates, count), not its WebEnv, which
    differs on every run. When NCBI no longer knows a (cached) WebEnv, the search runs again
    once; a changed count means cached pages no longer line up with it, so it stops.
    """
    if not 1 <= page_size <= MAX_PER_REQUEST:
        raise ValueError(f"page_size must be 1..{MAX_PER_REQUEST}, got {page_size}")
    got = 0
    for retstart in range(0, search.count, page_size):
        page = {**_EFETCH, "retstart": retstart, "retmax": page_size}
        key = {
            **page,
            "term": search.term,
            "mindate": search.mindate,
            "maxdate": search.maxdate,
            "count": search.count,
        }
        try:
            body = _history_page(client, search, page, key)
        except EutilsError as exc:
            log.warning("EFetch retstart=%d: %s; searching again", retstart, exc.message)
            fresh = _esearch(client, search.term, search.mindate, search.maxdate, refresh=True)
            if fresh.count != search.count:
                raise SourceError(
                    f"search changed since it was cached ({search.count} -> "
                    f"{fresh.count} records); clear the source cache",
                    path=EFETCH,
                ) from exc
            search = fresh
            body = _history_page(client, search, page, key)
        articles = parse_pubmed_xml(body)
        got += len(articles)
        yield from articles
    if got != search.count:
        log.warning(
            "%r %s-%s: EFetch gave %d of %d records",
            search.term,
            search.mindate,
            search.maxdate,
            got,
            search.count,
        )


def _history_page(
    client: HttpClient, search: Search, page: dict[str, Any], key: dict[str, Any]
) -> bytes:
    params = {**page, "WebEnv": search.webenv, "query_key": search.query_key}
    return client.get(EFETCH, params, validate=parse_pubmed_xml, cache_as=key)


def fetch_year(
    client: HttpClient,
    query: str,
    year: int,
    page_size: int = MAX_PER_REQUEST,
    cap: int = ESEARCH_CAP,
) -> Iterator[PubMedArticle]:
    """Every record of ``query`` in ``year``, past the 9,999 cap. A PMID comes once even when
    its electronic and print dates put it in two slices."""
    seen: set[str] = set()
    for part in search_slices(client, query, year, cap):
        for article in fetch_history(client, part, page_size):
            if article.pmid not in seen:
                seen.add(article.pmid)
                yield article


def fetch_pmids(
    client: HttpClient,
    pmids: Iterable[str | int],
    batch: int = MAX_PER_REQUEST,
    post_over: int = POST_OVER,
) -> Iterator[PubMedArticle]:
    """Records by PMID, ``batch`` ids per EFetch, POSTed when longer than ``post_over`` ids.
    PMIDs EFetch does not return are logged (PubMed omits unknown and deleted ids)."""
    if not 1 <= batch <= MAX_PER_REQUEST:
        raise ValueError(f"batch must be 1..{MAX_PER_REQUEST}, got {batch}")
    ids = list(dict.fromkeys(normal_pmid(str(p).strip()) for p in pmids if str(p).strip()))
    for i in range(0, len(ids), batch):
        chunk = ids[i : i + batch]
        send = client.post if len(chunk) > post_over else client.get
        body = send(EFETCH, {**_EFETCH, "id": ",".join(chunk)}, validate=parse_pubmed_xml)
        articles = parse_pubmed_xml(body)
        if missing := sorted(set(chunk) - {a.pmid for a in articles}):
            log.warning("EFetch returned no record for %d PMIDs: %s", len(missing), missing[:10])
        yield from articles


def retraction_term(pmids: list[str]) -> str:
    """The ESearch term that keeps, of ``pmids``, the ones PubMed marks retracted. Each id is
    field-tagged (``[uid]``) and OR-ed: an untagged number would be searched in every field."""
    return "(" + " OR ".join(f"{p}[uid]" for p in pmids) + f") AND {RETRACTED_TYPE}"


def _id_search_result(body: bytes) -> dict[str, Any]:
    """The ``esearchresult`` of an ESearch JSON body without history (count and idlist);
    ValueError when malformed (retried), EutilsError when ESearch answered an error."""
    result = json.loads(body).get("esearchresult")
    if not isinstance(result, dict):
        raise ValueError("no esearchresult in ESearch answer")
    if result.get("ERROR"):
        raise EutilsError(f"ESearch error: {result['ERROR']}", path=ESEARCH)
    count, ids = str(result.get("count", "")), result.get("idlist")
    if not (count.isascii() and count.isdigit() and len(count) <= 18) or not isinstance(ids, list):
        raise ValueError("ESearch answer lacks count or idlist")
    if not all(isinstance(i, str) and i.isascii() and i.isdigit() for i in ids):
        raise ValueError("ESearch idlist holds something other than PMIDs")
    return result


def retracted_pmids(
    client: HttpClient,
    pmids: Iterable[str | int],
    batch: int = MAX_PER_REQUEST,
    *,
    refresh: bool = False,
) -> list[str]:
    """Those of ``pmids`` PubMed now marks "Retracted Publication", in numeric order.

    ``batch`` ids per ESearch, always POSTed (a term of 200 tagged ids is ~3 KB: too long for
    a URL, and the key then stays out of it). Answers are cached by term like every ESearch, so
    a re-run or the repair of a damaged year gets the same answer; ``refresh`` asks PubMed
    again past the cache (and rewrites it), which is what a scheduled refresh does. An answer
    listing fewer ids than it counts, or ids that were not asked about, means ESearch did not
    read the term as a list of PMIDs: a :class:`SourceError`, never a silent "none retracted".
    """
    if not 1 <= batch <= MAX_PER_REQUEST:
        raise ValueError(f"batch must be 1..{MAX_PER_REQUEST}, got {batch}")
    # only PMIDs go into the term: anything else is no PubMed record, and could not be quoted
    norm = (normal_pmid(str(p).strip()) for p in pmids)
    ids = sorted({p for p in norm if p.isascii() and p.isdigit()}, key=lambda p: (len(p), p))
    found: list[str] = []
    for i in range(0, len(ids), batch):
        chunk = ids[i : i + batch]
        fields = {"db": "pubmed", "term": retraction_term(chunk), "retmax": len(chunk),
                  "retmode": "json"}  # fmt: skip
        body = client.post(ESEARCH, fields, validate=_id_search_result, refresh=refresh)
        res = _id_search_result(body)
        hits = res["idlist"]
        if int(res["count"]) != len(hits) or not set(hits) <= set(chunk):
            raise SourceError(
                f"ESearch did not read the retraction query as a PMID list "
                f"({res['count']} hits for {len(chunk)} PMIDs)",
                path=ESEARCH,
            )
        found.extend(hits)
    return sorted(set(found), key=lambda p: (len(p), p))
