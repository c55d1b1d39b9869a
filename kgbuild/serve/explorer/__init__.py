"""The explorer: a browser page served by ``kgbuild serve`` at ``/``.

| route | what |
|---|---|
| ``GET /`` | the page (``static/index.html``; ``/explorer/app.js``, ``/explorer/style.css``) |
| ``GET /api/years`` | the KG's snapshot years: the as-of selector's choices |
| ``GET /api/entity/{id}?as_of=&per_relation=`` | a node and its facts grouped by relation |
| ``GET /api/neighbourhood/{id}?as_of=&limit=`` | a node, its specific neighbours, their edges |
| ``GET /api/facts/{id}?as_of=&relation=&status=&…`` | a page of a node's filtered facts |
| ``GET /api/abstract/{pmid}?as_of=&edge=`` | an abstract, its mentions, the fact's sentence |
| ``GET /api/paths?from=&to=&as_of=&hops=&limit=`` | the shortest paths between two nodes |

The assets are three hand-written files shipped as package data — nothing is fetched at run
time, so the page works offline and on a machine with no route to a CDN. Every name, alias and
sentence shown comes from abstracts, which anyone can write: the script puts them into the
page with ``textContent`` only, never as markup, and the pages carry a Content-Security-Policy
allowing scripts from this server alone (no inline script), so a ``<script>`` that slipped into
the markup anyway would not run either.

The JSON routes read the in-memory index (:mod:`.pages`) in the thread pool behind the
``entities`` gate, like ``/entities``: cheap look-ups, still bounded. A year not yet open is
opened first by the :class:`~kgbuild.serve.years.YearLoader` (seconds of work that must hold
neither a gate slot nor anything ``/health`` waits for).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from importlib.resources import files
from typing import Any

import orjson
from fastapi import FastAPI, Query
from fastapi.responses import Response

from kgbuild.errors import InputError
from kgbuild.query.engine import QueryEngine
from kgbuild.search.index import SnapshotIndex
from kgbuild.serve.explorer.abstract import UnknownDocument, abstract_page
from kgbuild.serve.explorer.facts import fact_page, parse_query
from kgbuild.serve.explorer.pages import (
    FACTS_PER_RELATION,
    MAX_FACTS_PER_RELATION,
    MAX_NEIGHBOURS,
    NEIGHBOURS,
    BadYear,
    ExplorerData,
    UnknownEntity,
    entity_page,
    neighbourhood,
    parse_year,
)
from kgbuild.serve.explorer.paths import HOPS, MAX_HOPS, MAX_PATHS, PATHS, find_paths
from kgbuild.serve.gate import Gate
from kgbuild.serve.years import YearLoader

#: Scripts, styles, images and requests from this server only; no plugins, no framing, no
#: <base> rewriting, forms post nowhere else.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
_ASSETS = {
    "app.js": "text/javascript; charset=utf-8",
    "curate.js": "text/javascript; charset=utf-8",  # curation (.curate)
    "style.css": "text/css; charset=utf-8",
}
MAX_ID_CHARS = 500
#: Longest relation or status name a filter sends.
MAX_FILTER_CHARS = 100


def _headers() -> dict[str, str]:
    return {
        "Content-Security-Policy": CSP,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }


def _json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status, media_type="application/json", headers=_headers())


def _static(name: str) -> bytes:
    return (files(__package__) / "static" / name).read_bytes()


def add_explorer(app: FastAPI, engine: QueryEngine, gate: Gate, loader: YearLoader) -> None:
    """Add the page and its JSON routes to ``app``; ``gate`` bounds the JSON work, ``loader``
    opens as-of years."""
    page = _static("index.html")
    assets = {name: (_static(name), kind) for name, kind in _ASSETS.items()}
    data = ExplorerData(engine.wh)

    @app.api_route("/", methods=["GET", "HEAD"])
    async def index() -> Response:
        return Response(page, media_type="text/html; charset=utf-8", headers=_headers())

    @app.api_route("/explorer/{name}", methods=["GET", "HEAD"])
    async def asset(name: str) -> Response:
        if name not in assets:
            return _json({"error": "not found"}, 404)
        body, kind = assets[name]
        return Response(body, media_type=kind, headers=_headers())

    def _years() -> Response:
        idx = engine.state().index
        return _json({"snapshot": idx.snapshot_id, "kg": idx.kg, "as_of_year": idx.as_of_year,
                      "nodes": idx.n_nodes, "edges": idx.n_edges,
                      "years": data.years(idx)})  # fmt: skip

    def _answer(build: Callable[[SnapshotIndex, int | None], dict[str, Any]],
                as_of: str | None) -> Response:  # fmt: skip
        idx = engine.state().index  # one snapshot for the whole answer, even across a reload
        try:
            year = parse_year(as_of, data.years(idx))
            if year is not None and year != idx.as_of_year:
                # that year's snapshot: its support, belief and contested marks
                idx = engine.for_year(year).state().index
            return _json(build(idx, year))
        except BadYear as exc:
            return _json({"error": str(exc), "years": exc.years}, 422)
        except (UnknownEntity, UnknownDocument) as exc:
            return _json({"error": str(exc), "snapshot": idx.snapshot_id}, 404)
        except InputError as exc:  # a filter, page, PMID or edge that does not hold
            return _json({"error": str(exc), "snapshot": idx.snapshot_id}, 400)

    async def _page(build: Callable[[SnapshotIndex, int | None], dict[str, Any]],
                    as_of: str | None) -> Response:  # fmt: skip
        raw = (as_of or "").strip()
        if raw.isascii() and raw.isdigit() and len(raw) <= 4:
            # not a year of this KG: _answer's own check says which years are (a 422)
            with contextlib.suppress(InputError):
                await loader.open(int(raw))  # then _answer finds it open
        return await gate.run(_answer, build, as_of)

    @app.get("/api/years")
    async def years() -> Response:
        return await gate.run(_years)

    @app.get("/api/entity/{curie:path}")
    async def entity(
        curie: str,
        as_of: str | None = Query(None, max_length=20),
        per_relation: int = Query(FACTS_PER_RELATION, ge=1, le=MAX_FACTS_PER_RELATION),
    ) -> Response:
        if len(curie) > MAX_ID_CHARS:
            return _json({"error": f"id longer than {MAX_ID_CHARS} characters"}, 422)
        return await _page(lambda idx, y: entity_page(idx, data, curie, y, per_relation), as_of)

    @app.get("/api/neighbourhood/{curie:path}")
    async def graph(
        curie: str,
        as_of: str | None = Query(None, max_length=20),
        limit: int = Query(NEIGHBOURS, ge=1, le=MAX_NEIGHBOURS),
        rule: str = Query("specific", pattern="^(specific|support)$"),
    ) -> Response:
        if len(curie) > MAX_ID_CHARS:
            return _json({"error": f"id longer than {MAX_ID_CHARS} characters"}, 422)
        return await _page(lambda idx, y: neighbourhood(idx, curie, y, limit, rule), as_of)

    @app.get("/api/facts/{curie:path}")
    async def facts(
        curie: str,
        as_of: str | None = Query(None, max_length=20),
        relation: str | None = Query(None, max_length=MAX_FILTER_CHARS),
        status: str | None = Query(None, max_length=MAX_FILTER_CHARS),
        year_from: str | None = Query(None, max_length=20),
        year_to: str | None = Query(None, max_length=20),
        min_belief: str | None = Query(None, max_length=20),
        offset: str | None = Query(None, max_length=20),
        limit: str | None = Query(None, max_length=20),
    ) -> Response:
        if len(curie) > MAX_ID_CHARS:
            return _json({"error": f"id longer than {MAX_ID_CHARS} characters"}, 422)
        raw = {
            "relation": relation,
            "status": status,
            "year_from": year_from,
            "year_to": year_to,
            "min_belief": min_belief,
            "offset": offset,
            "limit": limit,
        }

        def build(idx: SnapshotIndex, y: int | None) -> dict[str, Any]:
            return fact_page(idx, data, curie, y, parse_query(idx, raw))

        return await _page(build, as_of)

    @app.get("/api/abstract/{pmid}")
    async def abstract(
        pmid: str,
        as_of: str | None = Query(None, max_length=20),
        edge: str | None = Query(None, max_length=MAX_ID_CHARS),
    ) -> Response:
        return await _page(lambda idx, y: abstract_page(idx, engine.wh, pmid, y, edge), as_of)

    @app.get("/api/paths")
    async def paths(
        source: str = Query(..., alias="from", min_length=1, max_length=MAX_ID_CHARS),
        target: str = Query(..., alias="to", min_length=1, max_length=MAX_ID_CHARS),
        as_of: str | None = Query(None, max_length=20),
        hops: int = Query(HOPS, ge=1, le=MAX_HOPS),
        limit: int = Query(PATHS, ge=1, le=MAX_PATHS),
    ) -> Response:
        return await _page(lambda idx, y: find_paths(idx, source, target, y, hops, limit), as_of)
