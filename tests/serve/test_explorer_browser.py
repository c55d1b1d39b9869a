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

from tests.support.hostile_kg import (
    HOSTILE_ABSTRACT,
    HOSTILE_ID,
    HOSTILE_PMID,
    HOSTILE_SENTENCE,
    HOSTILE_TITLE,
)
from tests.support.serve_process import start_serve

pytestmark = pytest.mark.slow  # a browser and a kgbuild serve process

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
APOE = "NCBIGene:348"
AD = "MESH:D000544"
ACHE, DEMENTIA, DONEPEZIL = "NCBIGene:43", "MESH:D003704", "MESH:D000077265"


@pytest.fixture(scope="module")
def served(hostile):
    wh = hostile
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

    # a double-click on a graph node opens it: back to APOE, then to Alzheimer disease
    page.locator(f'#graph g.node[data-id="{APOE}"]').dblclick()
    _wait_entity(page, APOE, "2019")
    page.locator(f'#graph g.node[data-id="{AD}"]').dblclick()
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


def _watch(page):
    """Record what a hostile text could set off: dialogs, requests and console messages."""
    seen = {"dialogs": [], "requests": [], "console": []}
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("console", lambda m: seen["console"].append(m.text))
    return seen


def _nothing_ran(page, seen, url):
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert seen["dialogs"] == []
    assert page.evaluate("document.querySelectorAll('#main img, #main script').length") == 0
    assert all(r.startswith(url) for r in seen["requests"]), seen["requests"]
    assert not any(r.rstrip("/").endswith("/x") for r in seen["requests"])
    assert not [m for m in seen["console"] if "Content Security Policy" in m], seen["console"]


def _wait_view(page, view):
    _until(
        page,
        "(v) => document.body.dataset.state === 'ready' && document.body.dataset.view === v",
        view,
    )


def _texts(page, selector):
    return page.locator(selector).all_text_contents()


def test_abstract_view_marks_mentions_by_kind_and_both_entities(served, browser, tmp_path):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    seen = _watch(page)
    page.goto(f"{url}/#/entity/{APOE}")
    _wait_entity(page, APOE)
    # both endpoints marked in every sentence, subject and object styled apart
    for fact in page.locator("article.fact").all():
        assert fact.locator("blockquote mark.subject").count() == 1
        assert fact.locator("blockquote mark.object").count() == 1
    fact = page.locator(f'article.fact[data-edge="t:{APOE}|binds|{HOSTILE_ID}"]')
    assert fact.locator("mark.subject").text_content() == "APOE"
    assert fact.locator("mark.object").text_content() == "amyloidosis factor"
    colours = page.evaluate(
        "() => ['subject', 'object'].map((c) => getComputedStyle("
        "document.querySelector('blockquote mark.' + c)).backgroundColor)"
    )
    assert colours[0] != colours[1]
    hook = fact.locator(f'.curation[data-edge="t:{APOE}|binds|{HOSTILE_ID}"]')
    assert hook.count() == 1 and hook.get_attribute("data-pmid") == HOSTILE_PMID
    assert hook.inner_html() == ""  # empty: the curation control's to fill

    # from the evidence row to the annotated abstract
    fact.locator("a.abstract-link").click()
    _wait_view(page, "abstract")
    assert page.locator("#abstract-title").text_content() == HOSTILE_TITLE
    assert page.locator("#abstract-text").text_content() == HOSTILE_ABSTRACT
    assert "".join(_texts(page, "#abstract-text .in-sentence")) == HOSTILE_SENTENCE
    assert _texts(page, "#abstract-text .subject") == ["APOE"]
    assert _texts(page, "#abstract-text .object") == ["amyloidosis factor"]
    gene = page.locator("#abstract-text a.mention.kind-Gene")
    assert gene.text_content() == "APOE" and gene.get_attribute("href").startswith("#/entity/")
    disease = page.locator("#abstract-text a.mention.kind-Disease")
    assert disease.text_content() == "amyloidosis factor"
    species = page.locator("#abstract-text span.mention.kind-Species")  # no node: no link
    assert _texts(page, "#abstract-text span.mention.kind-Species") == ["mouse", "Mice"]
    assert species.first.get_attribute("href") is None
    legend = page.locator("#abstract-legend .legend-item")
    assert [x.get_attribute("data-kind") for x in legend.all()] == ["Disease", "Gene", "Species"]
    backgrounds = page.evaluate(
        "() => ['Gene', 'Disease'].map((k) => getComputedStyle("
        "document.querySelector('#abstract-text .mention.kind-' + k)).backgroundColor)"
    )
    assert backgrounds[0] != backgrounds[1]
    hook = page.locator("#abstract-fact .curation")
    assert hook.get_attribute("data-evidence-id") and hook.inner_html() == ""
    page.screenshot(path=str(tmp_path / "abstract.png"), full_page=True)

    # a mention is a link to its entity
    disease.click()
    _wait_entity(page, HOSTILE_ID)
    _nothing_ran(page, seen, url)
    page.close()


def test_filters_and_paging_reach_every_fact(served, browser):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.goto(f"{url}/#/entity/{AD}?limit=10")
    _wait_entity(page, AD)
    edges = []
    for expected in (10, 10, 5):
        assert page.locator("article.fact").count() == expected
        edges += [a.get_attribute("data-edge") for a in page.locator("article.fact").all()]
        if expected == 5:
            break
        info = page.locator("#page-info").text_content()
        page.click("#page-next")
        _until(page, "(t) => document.getElementById('page-info').textContent !== t", info)
        _wait_entity(page, AD)
    assert len(edges) == len(set(edges)) == 25  # every fact reachable, none twice
    assert page.locator("#page-next").is_disabled()
    assert page.locator("#page-info").text_content() == "page 3 of 3"
    assert "more, weaker facts" not in page.locator("#facts").text_content()
    page.click("#page-prev")
    _until(page, "() => document.getElementById('page-info').textContent === 'page 2 of 3'")

    options = page.locator("#f-relation option").all_text_contents()
    assert options == ["any", "associates (24)", "treats (1)"]
    page.select_option("#f-relation", "treats")
    page.click("#f-apply")
    _until(page, "() => document.querySelectorAll('article.fact').length === 1")
    assert page.locator("article.fact a.entity-link").text_content() == "donepezil"
    assert "relation=treats" in page.evaluate("location.hash")
    page.click("#f-reset")
    _until(page, "() => document.querySelectorAll('article.fact').length === 25")
    page.fill("#f-year-from", "2020")
    page.click("#f-apply")
    _until(page, "() => document.querySelectorAll('article.fact').length === 1")
    page.fill("#f-year-from", "")
    page.fill("#f-min-belief", "0.5")
    page.click("#f-apply")
    _until(page, "() => document.querySelectorAll('article.fact').length === 5")
    assert "asserted (25)" in page.locator("#f-status option").all_text_contents()
    page.select_option("#f-status", "asserted")
    page.fill("#f-min-belief", "")
    page.click("#f-apply")
    _until(page, "() => document.querySelectorAll('article.fact').length === 25")
    page.fill("#f-year-to", "1999")
    page.click("#f-apply")
    _until(page, "() => document.querySelectorAll('article.fact').length === 0")
    assert page.locator("#facts-count").text_content().startswith("No fact matches")
    page.goto(f"{url}/#/entity/{AD}?min_belief=7")  # refused by the server: said, page kept
    _until(page, "() => document.getElementById('facts-count').textContent.includes('min_belief')")
    assert page.locator("#entity-name").text_content() == "Alzheimer disease"
    assert page.locator("article.fact").count() == 0
    page.close()


def test_paths_form_finds_paths_with_their_sentences(served, browser):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    seen = _watch(page)
    page.goto(f"{url}/")
    _until(page, "() => document.body.dataset.state === 'ready'")
    page.click("#paths-link")
    _wait_view(page, "paths")
    for field, query, node in (("path-from", "ACHE", ACHE), ("path-to", "dementia", DEMENTIA)):
        page.fill(f"#{field}", query)
        hit = page.locator(f'#{field}-suggestions li.suggestion[data-id="{node}"]')
        hit.wait_for(timeout=10_000)
        hit.click()
        assert page.locator(f"#{field}").get_attribute("data-id") == node
    page.click("#path-go")
    _until(page, "() => document.querySelectorAll('#path-list li.path').length === 1")
    _wait_view(page, "paths")
    path = page.locator("#path-list li.path")
    names = path.locator(".chain a.entity-link").all_text_contents()
    assert names[0] == "ACHE" and names[-1] == "dementia" and len(names) == 4
    assert path.locator(".step").count() == 3
    for step in path.locator(".step").all():
        assert (
            step.locator("mark.subject").count() == 1 and step.locator("mark.object").count() == 1
        )
        assert step.locator("a.abstract-link").count() == 1
    assert "3 hops" in page.locator("#paths-summary").text_content()

    # donepezil's facts came in 2020: no path as of 2019
    page.goto(f"{url}/#/paths?from={DONEPEZIL}&to={ACHE}")
    _until(page, "() => document.querySelectorAll('#path-list li.path').length === 1")
    page.select_option("#as-of", "2019")
    _until(page, "() => document.getElementById('paths-summary').textContent.startsWith('No path')")
    assert "as of 2019" in page.locator("#paths-summary").text_content()
    _nothing_ran(page, seen, url)
    page.close()


_LABEL_BOXES = """() => {
  const out = [];
  for (const t of document.querySelectorAll('#graph text')) {
    if (t.getAttribute('visibility') === 'hidden') continue;
    const b = t.getBBox();
    out.push([b.x, b.y, b.width, b.height, t.textContent]);
  }
  return out;
}"""


def _no_overlap(boxes):
    for i, (x, y, w, h, text) in enumerate(boxes):
        assert x >= 0 and y >= 0 and x + w <= 900 and y + h <= 560, (text, x, y, w, h)  # unclipped
        for x2, y2, w2, h2, text2 in boxes[i + 1 :]:
            apart = x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y
            assert apart, (text, text2)


def test_graph_expands_on_click_with_legend_edge_labels_and_unclipped_labels(served, browser):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    seen = _watch(page)
    page.goto(f"{url}/#/entity/{AD}")
    _wait_entity(page, AD)
    legend = [
        x.get_attribute("data-kind") for x in page.locator("#graph-legend .legend-item").all()
    ]
    assert legend == ["Compound", "Disease", "Gene"]
    shown = page.evaluate(
        "() => Array.from(document.querySelectorAll('#graph text.edge-label'),"
        " (t) => t.firstChild.nodeValue)"
    )  # the label's own text (its <title> tooltip is a child too)
    assert shown and set(shown) == {"associates", "treats"}
    boxes = page.evaluate(_LABEL_BOXES)
    assert len(boxes) > 10
    _no_overlap(boxes)
    before = page.locator("#graph g.node").count()
    page.locator(f'#graph g.node[data-id="{APOE}"]').click()  # expand, stay on the page
    _until(page, "() => document.body.dataset.graph === 'expanded'")
    assert page.locator(f'#graph g.node.expanded[data-id="{APOE}"]').count() == 1
    assert page.locator(f'#graph g.node[data-id="{HOSTILE_ID}"]').count() == 1
    assert page.locator("#graph g.node").count() > before
    assert page.locator("#entity-name").text_content() == "Alzheimer disease"  # not navigated
    assert page.locator(f'#graph line[data-source="{APOE}"][data-target="{HOSTILE_ID}"]').count()
    hostile = page.locator(f'#graph g.node[data-id="{HOSTILE_ID}"]')
    label = hostile.locator("text").text_content()
    assert len(label) <= 24 and label.endswith("…")  # truncated, the full name in its tooltip
    assert hostile.locator("title").text_content().startswith("amyloidosis factor <script>")
    _no_overlap(page.evaluate(_LABEL_BOXES))
    assert "NCBIGene%3A348" in page.locator("#graph-selected a.open-node").get_attribute("href")
    page.locator("#graph-selected a.open-node").click()
    _wait_entity(page, APOE)
    _nothing_ran(page, seen, url)
    page.close()


def test_every_view_says_the_as_of_year_it_shows(served, browser):
    url = served
    page = browser.new_page(viewport={"width": 1280, "height": 1100})
    page.goto(f"{url}/#/entity/{APOE}?as_of=2019")
    _wait_entity(page, APOE, "2019")
    assert page.locator("#as-of-shown").text_content() == "showing as of 2019"
    assert "(2019)" in page.locator("#kg-info").text_content()
    assert "2020" not in page.locator("#as-of-shown").text_content()
    assert "as of 2019" in page.locator("#entity-meta").text_content()
    for text in _texts(page, "#entity .view-as-of"):
        assert text == "— as of 2019"
    page.locator(f'article.fact[data-edge="t:{APOE}|binds|{HOSTILE_ID}"] a.abstract-link').click()
    _wait_view(page, "abstract")
    assert "as of 2019" in page.locator("#abstract-meta").text_content()
    assert page.locator("#as-of-shown").text_content() == "showing as of 2019"
    page.select_option("#as-of", "")
    _until(page, "() => !location.hash.includes('as_of=')")
    _wait_view(page, "abstract")
    assert page.locator("#as-of-shown").text_content() == "showing latest (2020)"
    assert "(2020)" in page.locator("#kg-info").text_content()
    page.goto(f"{url}/#/?as_of=2019")  # home: no view has answered, the header still says 2019
    _until(page, "() => document.body.dataset.view === 'home'")
    assert page.locator("#kg-info").text_content() == "toy · snapshot of 2019"
    assert page.locator("#as-of-shown").text_content() == "showing as of 2019"
    assert page.locator("#as-of").input_value() == "2019"
    page.close()
