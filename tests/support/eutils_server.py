"""A loopback NCBI on 127.0.0.1: E-utilities (ESearch, EFetch) and PubTator3's export API.

- ``…/entrez/eutils/esearch.fcgi``: filters the fixture articles by ``mindate``/``maxdate``
  (``datetype=pdat``), keeps the result on a history server (``usehistory=y`` → WebEnv,
  query_key) and answers JSON for ``retmode=json`` -- what kgbuild asks for, since count, WebEnv
  and query key are plain keys there -- else ESearch XML. Like PubMed it lists at most
  ``id_cap`` ids; a term starting with ``!`` gets an ``ERROR``.
- ``…/entrez/eutils/efetch.fcgi`` (GET or POST): by ``id=1,2,3`` (unknown ids are left out, as
  PubMed does) or by ``WebEnv``/``query_key``/``retstart``/``retmax``; an unknown WebEnv, or a
  ``retstart`` at or past ``history_cap``, gets E-utilities' ``<eFetchResult><ERROR>`` answer.
- ``…/research/pubtator3-api/publications/export/biocjson?pmids=…``: ``{"PubTator3": [docs]}``
  for the PMIDs it knows (``pubtator_docs``), leaving the others out.
- ``…/echo`` answers the request's fields as JSON; ``…/status/<code>`` answers that status.

Faults, per request in arrival order: the next step of ``script``, then (with ``fault_rate``) a
seeded random one of ``fault_kinds``. Steps: ``None`` (serve), ``("status", code[, retry_after])``,
``("sleep", seconds)`` (then serve), ``("truncate",)`` (half the body, consistent headers),
``("cut",)`` (half the body, full Content-Length, connection closed), ``("garbage",)`` (an HTML
proxy page with status 200). Every request is recorded with its time, method, route and fields.
"""

from __future__ import annotations

import calendar
import contextlib
import json
import random
import re
import threading
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "eutils"
MONTHS = {m: i for i, m in enumerate(calendar.month_abbr[1:], 1)}
SET_HEAD = (
    '<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    '1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
    "<PubmedArticleSet>\n"
)
RATE_LIMITED = b'{"error":"API rate limit exceeded","api-key":"127.0.0.1","count":"4","limit":"3"}'


def _date(el: ET.Element) -> tuple[int, int, int]:
    """An article's publication date as PubMed's [dp] search sees it (missing parts → 1)."""
    pub = el.find(".//Article/Journal/JournalIssue/PubDate")
    if pub is None:
        return (0, 1, 1)
    if pub.findtext("Year"):
        month = (pub.findtext("Month") or "1").strip().lower()
        m = int(month) if month.isdigit() else MONTHS.get(month[:3].title(), 1)
        return (int(pub.findtext("Year")), m, int(pub.findtext("Day") or 1))
    text = pub.findtext("MedlineDate") or ""
    year = re.search(r"\d{4}", text)
    month = re.search(r"[A-Za-z]{3}", text)
    return (
        int(year.group()) if year else 0,
        MONTHS.get(month.group().title(), 1) if month else 1,
        1,
    )


def _day(text: str, end: bool) -> tuple[int, int, int]:
    """``YYYY[/MM[/DD]]`` as a date; missing parts are the range's first or last day."""
    parts = [int(p) for p in text.split("/") if p]
    month = parts[1] if len(parts) > 1 else (12 if end else 1)
    return (parts[0], month, parts[2] if len(parts) > 2 else (31 if end else 1))


RETRACTED_PT = '"Retracted Publication"[pt]'


class FakeNCBI:
    def __init__(
        self,
        articles: Path = FIXTURES / "pubmed_articles.xml",
        pubtator_docs: dict[str, dict[str, Any]] | None = None,
        *,
        history_cap: int = 9999,
        id_cap: int = 9999,
        script: list[Any] | None = None,
        fault_rate: float = 0.0,
        fault_kinds: tuple[str, ...] = ("500", "429", "truncate"),
        seed: int = 0,
        retracted_later: tuple[str, ...] = (),
    ) -> None:
        root = ET.parse(articles).getroot()
        self.articles: dict[str, str] = {}
        self.dates: dict[str, tuple[int, int, int]] = {}
        for el in root.findall("PubmedArticle"):
            pmid = el.findtext("MedlineCitation/PMID").strip()
            self.articles[pmid] = ET.tostring(el, encoding="unicode")
            self.dates[pmid] = _date(el)
        #: PMIDs PubMed now marks "Retracted Publication" (the fixture's own, and any retracted
        #: after the fixture was written): what a PMID-list ESearch term finds
        self.retracted = {
            p for p, xml in self.articles.items() if ">Retracted Publication<" in xml
        } | set(retracted_later)
        self.pubtator = dict(pubtator_docs or {})
        self.history_cap, self.id_cap = history_cap, id_cap
        self.script = list(script or [])
        self.fault_rate, self.fault_kinds, self.rng = fault_rate, fault_kinds, random.Random(seed)
        self.histories: dict[str, list[str]] = {}
        self.requests: list[dict[str, Any]] = []
        self.faults = self.searches = 0
        self.lock = threading.Lock()
        self.url = self.eutils_url = self.pubtator_url = ""

    def calls(self, route: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["route"].endswith(route)]

    def next_fault(self) -> Any:
        with self.lock:
            if self.script:
                step = self.script.pop(0)
            elif self.fault_rate and self.rng.random() < self.fault_rate:
                kind = self.rng.choice(self.fault_kinds)
                step = ("status", int(kind), 0.01) if kind.isdigit() else (kind,)
            else:
                step = None
            self.faults += step is not None and step[0] != "sleep"
            return step

    # -- answers -----------------------------------------------------------------------------

    def answer(self, route: str, f: dict[str, str]) -> tuple[int, str, bytes]:
        if route.endswith("/esearch.fcgi"):
            return self.esearch(f)
        if route.endswith("/efetch.fcgi"):
            return self.efetch(f)
        if route.endswith("/publications/export/biocjson"):
            pmids = [p for p in f.get("pmids", "").split(",") if p in self.pubtator]
            body = {"PubTator3": [self.pubtator[p] for p in pmids]}
            return 200, "application/json", json.dumps(body).encode()
        if route.endswith("/echo"):
            return 200, "application/json", json.dumps(f).encode()
        if "/status/" in route:
            return int(route.rsplit("/", 1)[1]), "text/plain", b"Bad Request: unknown parameter"
        return 404, "text/plain", b"not found"

    def _esearch_uids(self, f: dict[str, str], term: str) -> tuple[int, str, bytes]:
        """ESearch over a PMID-list term (``(1[uid] OR 2[uid]) AND "Retracted
        Publication"[pt]``) as PubMed answers it: the listed records that carry the publication
        type, ids unknown to PubMed in ``errorlist.phrasesnotfound``, no history."""
        listed = re.findall(r"(\d+)\[uid\]", term)
        known = [p for p in listed if p in self.articles]
        hits = [p for p in known if RETRACTED_PT not in term or p in self.retracted]
        hits.sort(key=int, reverse=True)  # PubMed lists newest (largest) first
        shown = hits[: int(f.get("retmax", 20))]
        if f.get("retmode") == "json":
            shown_term = term.replace(RETRACTED_PT, '"retracted publication"[Publication Type]')
            res: dict[str, Any] = {"count": str(len(hits)), "retmax": str(len(shown)),
                                   "retstart": "0", "idlist": shown, "translationset": [],
                                   "querytranslation": shown_term}  # fmt: skip
            if missing := [f"{p}[uid]" for p in listed if p not in self.articles]:
                res["errorlist"] = {"phrasesnotfound": missing, "fieldsnotfound": []}
            if not hits:
                res["warninglist"] = {"phrasesignored": [], "quotedphrasesnotfound": [],
                                      "outputmessages": ["No items found."]}  # fmt: skip
            body = {"header": {"type": "esearch", "version": "0.3"}, "esearchresult": res}
            return 200, "application/json", json.dumps(body).encode()
        ids = "".join(f"<Id>{i}</Id>" for i in shown)
        xml = (f"<?xml version='1.0'?><eSearchResult><Count>{len(hits)}</Count><RetMax>"
               f"{len(shown)}</RetMax><RetStart>0</RetStart><IdList>{ids}</IdList>"
               "</eSearchResult>")  # fmt: skip
        return 200, "text/xml", xml.encode()

    def esearch(self, f: dict[str, str]) -> tuple[int, str, bytes]:
        term = f.get("term", "")
        if "[uid]" in term:
            return self._esearch_uids(f, term)
        lo, hi = _day(f.get("mindate", "1000"), False), _day(f.get("maxdate", "3000"), True)
        ids = sorted((p for p, d in self.dates.items() if lo <= d <= hi), reverse=True)
        webenv = ""
        if f.get("usehistory") == "y":
            with self.lock:
                self.searches += 1
                webenv = f"MCID_loopback_{self.searches}"
                self.histories[webenv] = ids
        retstart, retmax = int(f.get("retstart", 0)), int(f.get("retmax", 20))
        shown = ids[retstart : min(retstart + retmax, self.id_cap)]
        if f.get("retmode") == "json":
            payload = json.loads((FIXTURES / "esearch.json").read_text())
            res = payload["esearchresult"]
            res.update(
                count=str(len(ids)),
                retmax=str(len(shown)),
                retstart=str(retstart),
                webenv=webenv,
                idlist=shown,
                querytranslation=term,
            )
            if term.startswith("!"):
                payload["esearchresult"] = {"ERROR": f"Invalid query: {term}"}
            return 200, "application/json", json.dumps(payload).encode()
        id_xml = "".join(f"<Id>{i}</Id>" for i in shown)
        xml = (
            f"<?xml version='1.0'?><eSearchResult><Count>{len(ids)}</Count><RetMax>{len(shown)}"
            f"</RetMax><RetStart>{retstart}</RetStart><QueryKey>1</QueryKey><WebEnv>{webenv}"
            f"</WebEnv><IdList>{id_xml}</IdList></eSearchResult>"
        )
        return 200, "text/xml", xml.encode()

    def efetch(self, f: dict[str, str]) -> tuple[int, str, bytes]:
        if "id" in f:
            ids = [i for i in f["id"].split(",") if i in self.articles]
        else:
            retstart, retmax = int(f.get("retstart", 0)), int(f.get("retmax", 20))
            history = self.histories.get(f.get("WebEnv", ""))
            if history is None or f.get("query_key") != "1":
                return self.efetch_error(f"Cannot retrieve history data. WebEnv: {f.get('WebEnv')}")
            if retstart >= self.history_cap:
                return self.efetch_error(
                    f"Search Backend failed: retstart cannot be larger than {self.history_cap - 1}"
                )
            ids = history[retstart : retstart + retmax]
        body = SET_HEAD + "".join(self.articles[i] for i in ids) + "</PubmedArticleSet>\n"
        return 200, "text/xml", body.encode()

    def efetch_error(self, message: str) -> tuple[int, str, bytes]:
        body = (FIXTURES / "efetch_error.xml").read_text().replace("MESSAGE", message)
        return 200, "text/xml", body.encode()


@contextmanager
def serve(fake: FakeNCBI) -> Iterator[FakeNCBI]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.handle_request({})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            self.handle_request({k: v[-1] for k, v in parse_qs(raw).items()})

        def handle_request(self, form: dict[str, str]) -> None:
            url = urlsplit(self.path)
            fields = {k: v[-1] for k, v in parse_qs(url.query).items()} | form
            step = fake.next_fault()
            with fake.lock:
                fake.requests.append(
                    {
                        "t": time.monotonic(),
                        "method": self.command,
                        "route": url.path,
                        "fields": fields,
                        "fault": step,
                        "headers": dict(self.headers),
                    }
                )
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.respond(step, url.path, fields)  # the client may have given up (timeout)

        def respond(self, step: Any, route: str, fields: dict[str, str]) -> None:
            if step and step[0] == "status":
                retry_after = step[2] if len(step) > 2 else None
                self.send(step[1], "application/json", RATE_LIMITED, retry_after)
                return
            if step and step[0] == "sleep":
                time.sleep(step[1])
            if step and step[0] == "garbage":
                self.send(200, "text/html", b"<html><body>502 Proxy Error</body></html>")
                return
            status, ctype, body = fake.answer(route, fields)
            if step and step[0] == "truncate":
                body = body[: len(body) // 2]
            if step and step[0] == "cut":
                self.send(status, ctype, body[: len(body) // 2], length=len(body))
                return
            self.send(status, ctype, body)

        def send(
            self, status: int, ctype: str, body: bytes, retry_after: Any = None, length: int = 0
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(length or len(body)))
            if retry_after is not None:
                self.send_header("Retry-After", str(retry_after))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    fake.eutils_url = fake.url + "/entrez/eutils/"
    fake.pubtator_url = fake.url + "/research/pubtator3-api/"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
