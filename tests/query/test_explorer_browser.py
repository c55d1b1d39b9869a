"""The explorer in a real browser: Debian's headless Chromium (`make test` installs it:
tests/support/install_chromium.sh), driven by Playwright, against a real ``kgbuild serve`` on
127.0.0.1 over a KG with a hostile abstract (tests/support/hostile_kg.py). A user searches,
opens an entity, reads a fact's evidence, changes the as-of year and follows the graph; the
hostile ``<script>`` / ``<img onerror>`` in a name and a sentence must show as text and never
run (no ``window.__pwned``, no dialog, no request for the image, no CSP violation)."""

import os
import shutil
import time

import httpx
import pytest

from tests.support.hostile_kg import HOSTILE_ID, HOSTILE_SENTENCE, build_hostile_kg
from tests.support.serve_process import start_serve

pytestmark = pytest.mark.slow  # a browser and a kgbuild serve process

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
APOE = "NCBIGene:348"
AD = "MESH:D000544"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    wh = tmp_path_factory.mktemp("explorer-browser") / "wh"
    build_hostile_kg(wh)
    proc, url = start_serve(wh, "--no-embed", timeout_s=60)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    # A check CI never runs checks nothing: a missing browser or driver fails, never skips.
    assert os.path.exists(CHROMIUM), (
        "Debian's chromium is not installed: `make test` installs it as root "
        "(tests/support/install_chromium.sh), or run `apt-get install -y chromium`"
    )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - the test extra is missing
        pytest.fail("playwright is not installed: `make install-test` (pip install -e '.[dev]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()


def _until(page, predicate, arg=None, timeout_s=20.0):
    """Poll ``predicate`` (a JS function) until true. Not ``page.wait_for_function``: that
    evaluates a string in the page, which the explorer's CSP (no 'unsafe-eval') refuses —
    as it should; ``page.evaluate`` runs through the DevTools protocol instead."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(predicate, arg):
        assert time.monotonic() < deadline, f"timed out waiting for {predicate}"
        time.sleep(0.05)


def _wait_entity(page, node_id, as_of=""):
    """Until the entity page of ``node_id`` (as of ``as_of``) has rendered."""
    _until(
        page,
        """([id, asOf]) => document.body.dataset.state === 'ready'
             && document.getElementById('entity-meta').textContent.startsWith(id + ' ·')
             && (asOf === '' ? !location.hash.includes('as_of=')
                             : location.hash.endsWith('as_of=' + asOf))""",
        [node_id, as_of],
    )


def test_search_entity_evidence_as_of_and_graph_never_run_hostile_text(served, browser, tmp_path):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    dialogs, requests, console = [], [], []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(m.text))
    page.goto(f"{url}/")
    _until(page, "() => document.body.dataset.state === 'ready'")
    assert page.locator("#as-of option").all_inner_texts() == ["latest", "2020", "2019"]

    # search → entity page
    page.fill("#search", "apoe")
    hit = page.locator(f'#suggestions li.suggestion[data-id="{APOE}"]')
    hit.wait_for(timeout=10_000)
    page.screenshot(path=str(tmp_path / "1-search.png"))
    hit.click()
    _wait_entity(page, APOE)
    shown = httpx.get(f"{url}/api/entity/{APOE}").json()["entity"]["name"]
    assert page.locator("#entity-name").text_content() == shown
    assert page.locator("article.fact").count() == 5
    assert page.locator('section.relation[data-relation="interacts"]').count() == 1

    # the hostile fact: its sentence shown as the text it is, its markup never run
    fact = page.locator(f'article.fact[data-edge="t:{APOE}|binds|{HOSTILE_ID}"]')
    sentence = fact.locator("blockquote.sentence")
    assert sentence.is_visible() and sentence.text_content() == HOSTILE_SENTENCE
    assert fact.locator("a.pmid").first.get_attribute("href") == (
        "https://pubmed.ncbi.nlm.nih.gov/3001/"
    )
    hostile_name = fact.locator("a.entity-link").text_content()
    # the name exactly as the API gives it (markup and all, unless cleaned at build time)
    assert hostile_name == httpx.get(f"{url}/api/entity/{HOSTILE_ID}").json()["entity"]["name"]
    page.screenshot(path=str(tmp_path / "2-entity.png"), full_page=True)

    # as of 2019: APOE's 2020 fact is gone, and the graph's node with it
    page.select_option("#as-of", "2019")
    _wait_entity(page, APOE, "2019")
    assert page.locator("article.fact").count() == 4
    assert page.locator('section.relation[data-relation="interacts"]').count() == 0
    assert page.locator("#graph g.node").count() == 4
    page.screenshot(path=str(tmp_path / "3-as-of-2019.png"), full_page=True)

    # follow the hostile entity's link: its name as the page title, as text
    fact.locator("a.entity-link").click()
    _wait_entity(page, HOSTILE_ID, "2019")
    assert page.locator("#entity-name").text_content() == hostile_name
    page.screenshot(path=str(tmp_path / "4-hostile.png"), full_page=True)

    # the graph's nodes are links: back to APOE, then to Alzheimer disease
    page.locator(f'#graph g.node[data-id="{APOE}"]').click()
    _wait_entity(page, APOE, "2019")
    page.locator(f'#graph g.node[data-id="{AD}"]').click()
    _wait_entity(page, AD, "2019")
    assert page.locator("#graph g.node").count() > 20

    # nothing ran, nothing was fetched for the injected <img>, no policy was violated
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []
    assert page.evaluate("document.querySelectorAll('#main img, #main script').length") == 0
    assert page.evaluate("document.scripts.length") == 2  # app.js, curate.js
    assert all(r.startswith(url) for r in requests), [r for r in requests if not r.startswith(url)]
    assert not any(r.rstrip("/").endswith("/x") for r in requests)
    assert not [m for m in console if "Content Security Policy" in m], console
    page.close()


def test_unknown_entity_and_bad_year_in_the_address_say_so(served, browser):
    url = served
    page = browser.new_page()
    page.goto(f"{url}/#/entity/NCBIGene%3A0")
    _until(page, "() => document.body.dataset.state === 'error'")
    assert "no entity with this id" in page.locator("#status").inner_text()
    page.goto(f"{url}/#/entity/{APOE}?as_of=1999")  # not a snapshot year: the latest is shown
    _wait_entity(page, APOE)
    assert page.locator("#as-of").input_value() == ""
    page.fill("#search", "zzzzqqq")
    page.locator("#suggestions li.empty").wait_for(timeout=10_000)
    assert page.locator("#suggestions li.empty").inner_text() == "no entity matches"
    page.close()
