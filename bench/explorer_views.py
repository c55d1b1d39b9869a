"""How fast each explorer view loads on a real build, and how many drawn neighbours are hubs.

A real ``kgbuild serve --no-embed`` is started on a warehouse (a *copy*: serving writes index
caches into it), then each view is loaded the way the page loads it — its API requests sent
together, as the page's ``Promise.all`` sends them — :data:`REPEATS` times, and the median and
worst wall time per view are reported:

- ``entity``: ``/api/entity?per_relation=1`` + ``/api/facts`` + ``/api/neighbourhood`` for
  Alzheimer disease, APP, APOE and Water (hubs of 428 and 1,034 neighbours on the DALK build);
- ``entity_filtered``: the same with a relation, year range and belief filter, page 3;
- ``entity_as_of``: as of :data:`AS_OF` (the year's snapshot opened once, first: ``open_year_s``);
- ``abstract``: ``/api/abstract/{pmid}?edge=`` for each entity's strongest fact;
- ``paths``: ``/api/paths`` between pairs of entities (≤ 3 hops);
- ``expand``: ``/api/neighbourhood?limit=8`` (a click on a graph node).

With ``--browser`` it also times the page itself in headless Chromium: from setting the
address to the view's ``data-state="ready"`` (everything fetched and drawn).

Then the neighbourhood rule (:mod:`kgbuild.serve.explorer.hubs`) is measured on the index:
over the :data:`TOP` nodes of highest degree, the mean share of their 30 drawn neighbours that
are among the 2 % of nodes found in the most abstracts, by support alone (the old order) and
by the specific-first rule.

    cp -a /tmp/s58/wh /tmp/explorer-wh
    .venv/bin/python bench/explorer_views.py --warehouse /tmp/explorer-wh [--browser]

Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kgbuild.query.engine import QueryEngine
from kgbuild.serve.explorer.hubs import hub_share, ranked_neighbours
from kgbuild.serve.explorer.pages import NEIGHBOURS, _edges_of
from tests.support.serve_process import start_serve, stop_server

ENTITIES = ["MESH:D000544", "NCBIGene:351", "NCBIGene:348", "MESH:D014867"]
PAIRS = [("NCBIGene:348", "MESH:D008055"), ("MESH:D014867", "NCBIGene:4137"),
         ("MESH:D000544", "MESH:D008670"), ("NCBIGene:54209", "MESH:D014867")]  # fmt: skip
AS_OF = 2013
REPEATS = 5
TOP = 50


def _load(client: httpx.Client, urls: list[str]) -> float:
    """Seconds until every one of ``urls`` has answered 200 (sent together)."""
    t = time.perf_counter()
    with ThreadPoolExecutor(len(urls)) as pool:
        for r in pool.map(client.get, urls):
            assert r.status_code == 200, (r.url, r.status_code, r.text[:200])
    return time.perf_counter() - t


def _views(url: str) -> dict[str, list[list[str]]]:
    c = httpx.Client(base_url=url, timeout=60)
    facts = {e: c.get(f"/api/facts/{e}", params={"limit": 1}).json() for e in ENTITIES}
    ent = lambda e, q="": [f"/api/entity/{e}?per_relation=1{q}", f"/api/facts/{e}?limit=25{q}",  # noqa: E731
                           f"/api/neighbourhood/{e}{'?' + q[1:] if q else ''}"]  # fmt: skip
    filtered = "&relation=associates&year_from=2015&year_to=2020&min_belief=0.3&offset=50"
    abstract = []
    for f in facts.values():
        top = f["facts"][0]
        abstract.append([f"/api/abstract/{top['evidence']['pmid']}?edge={top['edge']}"])
    return {
        "entity": [ent(e) for e in ENTITIES],
        "entity_filtered": [ent(e, filtered) for e in ENTITIES],
        "entity_as_of": [ent(e, f"&as_of={AS_OF}") for e in ENTITIES if e != "MESH:D014867"],
        "abstract": abstract,
        "paths": [[f"/api/paths?from={a}&to={b}"] for a, b in PAIRS],
        "expand": [[f"/api/neighbourhood/{e}?limit=8"] for e in ENTITIES],
    }


def _browser(url: str, views: dict[str, list[list[str]]]) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    hashes = {
        "entity": [f"#/entity/{e}" for e in ENTITIES],
        "entity_as_of": [f"#/entity/{e}?as_of={AS_OF}" for e in ENTITIES[:3]],
        "abstract": ["#/abstract/" + u[0].split("/api/abstract/")[1] for u in views["abstract"]],
        "paths": [f"#/paths?from={a}&to={b}" for a, b in PAIRS],
    }
    out: dict[str, float] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = b.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(f"{url}/")
        ready = "() => document.body.dataset.state === 'ready'"
        while not page.evaluate(ready):
            time.sleep(0.02)
        for view, hs in hashes.items():
            times = []
            for _ in range(3):
                for h in hs:
                    page.goto(f"{url}/#/")
                    while not page.evaluate(ready):
                        time.sleep(0.005)
                    t = time.perf_counter()
                    page.evaluate("(h) => { location.hash = h; }", h)
                    while not page.evaluate(
                        "() => document.body.dataset.state === 'ready' && "
                        "document.body.dataset.view !== 'home'"
                    ):
                        time.sleep(0.005)
                    times.append(time.perf_counter() - t)
            out[f"browser_{view}_median_s"] = round(statistics.median(times), 3)
            out[f"browser_{view}_max_s"] = round(max(times), 3)
        b.close()
    return out


def _hubs(wh: Path) -> dict[str, float]:
    idx = QueryEngine(wh, embeddings=False).state().index
    top = sorted(range(idx.n_nodes), key=lambda n: -int(idx.graph.degree[n]))[:TOP]
    shares: dict[str, list[float]] = {"support": [], "specific": []}
    for n in top:
        es, sup = _edges_of(idx, n, None)
        for rule in shares:
            shares[rule].append(
                hub_share(idx, ranked_neighbours(idx, n, es, sup, rule)[:NEIGHBOURS])
            )
    out = {f"hub_share_{rule}": round(statistics.mean(v), 3) for rule, v in shares.items()}
    ad = idx.node_of.get(ENTITIES[0])
    if ad is not None:  # Alzheimer disease itself: the drawing a newcomer opens first
        es, sup = _edges_of(idx, ad, None)
        for rule in shares:
            chosen = ranked_neighbours(idx, ad, es, sup, rule)[:NEIGHBOURS]
            out[f"hub_share_alzheimer_{rule}"] = round(hub_share(idx, chosen), 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--warehouse", type=Path, required=True, help="a copy: serving writes caches")
    ap.add_argument("--browser", action="store_true", help="also time the page in Chromium")
    args = ap.parse_args()
    proc, url = start_serve(args.warehouse, "--no-embed")
    figures: dict[str, float] = {}
    try:
        client = httpx.Client(base_url=url, timeout=60)
        t = time.perf_counter()
        assert client.get(f"/api/years?as_of={AS_OF}").status_code == 200
        _load(client, [f"/api/facts/{ENTITIES[0]}?as_of={AS_OF}"])  # opens the year
        figures["open_year_s"] = round(time.perf_counter() - t, 3)
        views = _views(url)
        for view, loads in views.items():
            for urls in loads:  # warm: each snapshot's status table is read once
                _load(client, urls)
            times = [_load(client, urls) for _ in range(REPEATS) for urls in loads]
            figures[f"{view}_median_s"] = round(statistics.median(times), 3)
            figures[f"{view}_max_s"] = round(max(times), 3)
            print(f"{view:16} median {figures[f'{view}_median_s']:.3f} s, "
                  f"max {figures[f'{view}_max_s']:.3f} s over {len(times)} loads")  # fmt: skip
        if args.browser:
            figures.update(_browser(url, views))
    finally:
        stop_server(proc)
    figures.update(_hubs(args.warehouse))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
