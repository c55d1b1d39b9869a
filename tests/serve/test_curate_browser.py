"""Curation in a real browser (Debian's Chromium through Playwright, as
tests/serve/test_explorer_browser.py) against a real ``kgbuild serve`` on 127.0.0.1:

- a curator clicks "does not state it" under a fact's sentence: the fact shows the curation at
  once, the warehouse's log holds it, and once the server has reloaded, the page counts one
  PMID fewer for the fact and marks it as curated;
- a hostile page served from ANOTHER origin (another port of 127.0.0.1, the curator's browser)
  tries every way a page can write there — read the token, a JSON fetch, a ``no-cors`` fetch,
  a form POST — and nothing is stored."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from kgbuild.store import curations as C
from tests.serve.test_explorer_browser import _until, _wait_entity, browser  # noqa: F401
from tests.support.serve_process import start_serve, stop_server

pytestmark = pytest.mark.slow  # a browser and a kgbuild serve process

APOE = "NCBIGene:348"
TRIPLE = "t:NCBIGene:348|associates|MESH:D000544"

#: The attacker's page: its script runs in the curator's browser, on another origin.
HOSTILE_PAGE = """<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink">
  <input type="hidden" id="payload">
</form>
<script>
(async function () {
  const target = new URLSearchParams(location.search).get("target");
  const body = JSON.stringify({triple_id: "TRIPLE_ID", pmid: "1002",
    sentence: "The APOE e4 allele raises the risk of Alzheimer disease.",
    label: "does_not_state", note: "forged", curator: "mallory"});
  const out = {};
  try {
    const r = await fetch(target + "/api/curate/token");
    out.token = (await r.json()).token || "";
  } catch (e) { out.token = "blocked"; }
  try {
    await fetch(target + "/api/curations", {method: "POST", body: body,
      headers: {"Content-Type": "application/json", "X-Curation-Token": out.token}});
    out.cors = "sent";
  } catch (e) { out.cors = "blocked"; }
  try {
    await fetch(target + "/api/curations", {method: "POST", mode: "no-cors", body: body,
      headers: {"Content-Type": "text/plain"}});
    out.nocors = "sent";
  } catch (e) { out.nocors = "blocked"; }
  const f = document.getElementById("f");
  f.action = target + "/api/curations";
  const p = document.getElementById("payload");
  p.name = body.slice(0, -1) + ', "x": "';
  p.value = '"}';
  document.getElementById("sink").addEventListener("load", () => {
    window.__done = out;
  });
  f.submit();
})();
</script></body></html>""".replace("TRIPLE_ID", TRIPLE)


@pytest.fixture(scope="module")
def served(hostile):
    wh = hostile
    proc, url = start_serve(wh, "--no-embed", timeout_s=60)
    try:
        yield wh, url
    finally:
        stop_server(proc)


@pytest.fixture
def attacker():
    """The hostile page on another 127.0.0.1 port (another origin); the requests it gets."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):
            data = HOSTILE_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _fact(page):
    return page.locator(f'article.fact[data-edge="{TRIPLE}"]')


def test_a_curator_marks_a_sentence_and_the_fact_changes(served, browser):  # noqa: F811
    wh, url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    console = []
    page.on("console", lambda m: console.append(m.text))
    page.goto(f"{url}/#/entity/{APOE}")
    _wait_entity(page, APOE)
    fact = _fact(page)
    assert fact.locator(".support").text_content() == "3 PMIDs"
    shown_pmid = fact.locator(".source a.pmid").text_content()
    fact.locator("input.curator").fill("ann")
    fact.locator("input.curation-note").fill("a risk factor, not an association")
    fact.locator("button.curate-does_not_state").click()
    _until(page, "() => document.querySelector(`article.fact.curated-out`) !== null")
    state = fact.locator(".curation-state").text_content()
    assert "does not state it (ann)" in state and "taken out of what is served" in state
    assert fact.locator(".curation-msg").text_content() == "saved"
    log = C.read_all(wh)
    assert [(c.pmid, c.triple_id, c.label, c.curator) for c in log] == [
        (shown_pmid, TRIPLE, "does_not_state", "ann")
    ]
    # reloaded: the server serves the fact without that sentence, and says it was curated
    deadline = time.monotonic() + 30
    while True:
        page.reload()
        _wait_entity(page, APOE)
        if _fact(page).locator(".support").text_content() == "2 PMIDs":
            break
        assert time.monotonic() < deadline, "the curated sentence is still counted"
        time.sleep(0.5)
    _until(page, f"() => document.querySelector('article.fact[data-edge=\"{TRIPLE}\"]')"
                 ".dataset.curatedOut === '1'")  # fmt: skip
    assert shown_pmid not in _fact(page).locator(".pmids").text_content()
    assert not [m for m in console if "Content Security Policy" in m], console
    page.close()


def test_a_page_of_another_origin_cannot_curate(served, browser, attacker):  # noqa: F811
    wh, url = served
    before = C.log_path(wh).read_bytes()
    seen = []
    page = browser.new_page()
    page.on("request", lambda r: seen.append((r.method, r.url)))
    page.goto(f"{attacker}/?target={url}")
    _until(page, "() => window.__done !== undefined", timeout_s=30)
    out = page.evaluate("window.__done")
    assert out["token"] == "blocked"  # the token cannot be read across origins
    assert out["cors"] == "blocked"  # the JSON post's preflight gets no permission
    # the no-cors fetch and the form did reach the server: the server refused them
    posts = [u for m, u in seen if m == "POST" and u.startswith(url)]
    assert len(posts) >= 2, seen
    assert C.log_path(wh).read_bytes() == before  # nothing stored
    listed = httpx.get(f"{url}/api/curations", params={"edge": TRIPLE}).json()[TRIPLE]
    assert all(c["curator"] != "mallory" for c in listed)
    page.close()
