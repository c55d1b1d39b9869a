"""``kgbuild serve``: a small read-only JSON API over one snapshot reference (FastAPI/uvicorn,
the ASGI stack Prefect already installs; LightRAG ships the same kind of server).

| route | what |
|---|---|
| ``POST /retrieve`` | retrieval without an LLM: links, paths, ranked triples, context |
| ``POST /ask`` | the LLM pipeline (entities, rerank, answer citing PMIDs); 503 without LLM |
| ``GET /entities?q=&type=`` | find a node by name, symbol or synonym (exact, prefix, fuzzy) |
| ``GET /health`` | the KG and snapshot being served, its size, reloads, load per kind |

Hostile input gets a clear 4xx and never a stack trace: bodies over :data:`MAX_BODY_BYTES` are
refused (413) before they are read whole, every field is typed strictly and bounded (422 naming
the field: ``"k": true`` or ``"k": "10"`` is refused, never read as 1 or 10), a question with
no entity of the snapshot is a 422 naming the unlinked mentions, and any unexpected failure is
a 500 saying only "internal error". Nothing is written but the caches inside the warehouse.
Slow and idle connections, and more of them than the process has descriptors for, are
:mod:`kgbuild.serve.connections`' concern.

Load: each kind of heavy request passes a :mod:`gate <kgbuild.serve.gate>` (a few run, a few
wait, the rest get 503 with ``Retry-After`` at once), and ``/health`` runs on the event loop,
never queued behind them. An as-of year not yet open is opened first, in the
:mod:`year loader <kgbuild.serve.years>` (a few at once, once each), holding no gate slot and
nothing ``/health`` waits for. The server follows one KG for good (:meth:`Warehouse.pin`): a KG
built into the same warehouse later is never served in its place.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

import orjson
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from kgbuild.config import env
from kgbuild.corpus.unwritten import unwritten_note
from kgbuild.errors import Busy, InputError, KgbuildError, StoreError
from kgbuild.llm.client import LLMClient, LLMSettings
from kgbuild.llm.options import make_client
from kgbuild.query.answer import answer_question
from kgbuild.query.engine import QueryEngine
from kgbuild.query.explore import Filters
from kgbuild.query.limits import (
    DEFAULT_K,
    DEFAULT_TOKEN_BUDGET,
    MAX_CHOICE_CHARS,
    MAX_CHOICES,
    MAX_HOPS,
    MAX_K,
    MAX_QUESTION_CHARS,
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    NO_ENTITY,
)
from kgbuild.query.retrieval import Retrieval
from kgbuild.search.entities import find_entities
from kgbuild.serve.explorer import add_explorer
from kgbuild.serve.explorer.curate import add_curation
from kgbuild.serve.gate import RETRY_AFTER_S, YEARS, Gate, Limit, favour_the_event_loop, gates
from kgbuild.serve.years import YearLoader

#: Largest request body read (bytes): a question, its choices and options fit in a few KB.
MAX_BODY_BYTES = 64 * 1024
MAX_ENTITY_QUERY = 200
#: Longest relation label / node kind a filter names (labels are words, not paragraphs).
MAX_FILTER_VALUE = 200
log = logging.getLogger("kgbuild.serve")


#: Unknown fields and lax coercion are both refused: a client that sends ``"k": true`` or
#: ``"hops": "2"`` has a bug, and a 422 naming the field tells it so (pydantic's lax mode would
#: quietly answer as if it had asked for k=1 or hops=2). Numbers stay numbers: an integer is a
#: valid ``min_confidence``.
STRICT = ConfigDict(extra="forbid", strict=True)


class FilterBody(BaseModel):
    model_config = STRICT
    relations: list[Annotated[str, Field(max_length=MAX_FILTER_VALUE)]] = Field(
        default_factory=list, max_length=50
    )
    kinds: list[Annotated[str, Field(max_length=MAX_FILTER_VALUE)]] = Field(
        default_factory=list, max_length=20
    )
    min_support: int = Field(0, ge=0, le=1_000_000)
    min_confidence: float = Field(0.0, ge=0.0, le=1.0)
    as_of_year: int | None = Field(None, ge=1000, le=9999)
    #: Every evidence row, not only asserted ones (hedged, negated, background…).
    all_evidence: bool = False


class RetrieveBody(BaseModel):
    model_config = STRICT
    question: str = Field(max_length=MAX_QUESTION_CHARS)
    choices: list[Annotated[str, Field(max_length=MAX_CHOICE_CHARS)]] = Field(
        default_factory=list, max_length=MAX_CHOICES
    )
    k: int = Field(DEFAULT_K, ge=1, le=MAX_K)
    hops: int = Field(3, ge=1, le=MAX_HOPS)
    token_budget: int = Field(DEFAULT_TOKEN_BUDGET, ge=MIN_TOKEN_BUDGET, le=MAX_TOKEN_BUDGET)
    embed: str = Field("mentions", pattern="^(mentions|all|off)$")
    filters: FilterBody = Field(default_factory=FilterBody)
    #: Answer with the KG as it stood in this year: that year's snapshot; the same
    #: as ``filters.as_of_year``, which older clients send.
    as_of: int | None = Field(None, ge=1000, le=9999)
    timings: bool = True


class AskBody(RetrieveBody):
    llm_entities: bool = True
    llm_intent: bool = True
    rerank: bool = True


def _json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status, media_type="application/json")


def _error(status: int, message: str, **extra: Any) -> Response:
    return _json({"error": message, **extra}, status)


def _no_entity(engine: QueryEngine, r: Retrieval) -> Response:
    """422: nothing linked; ``reason`` says which words no abstract of the snapshot writes."""
    why = unwritten_note(engine.wh, r.snapshot_id, r.unlinked(), r.as_of_year)
    return _error(422, NO_ENTITY, unlinked=r.unlinked(), snapshot=r.snapshot_id, reason=why)


def _busy_response(exc: Busy) -> Response:
    response = _error(503, str(exc), retry_after_s=RETRY_AFTER_S)
    response.headers["Retry-After"] = str(RETRY_AFTER_S)
    return response


class ShedWhenFull:
    """ASGI middleware: a POST to a gated route whose gate is already full gets its 503 before
    its body is read, parsed or validated. Why: sixty heavy requests arriving at once cost the
    event loop ~1 ms each to read and validate, and ``/health`` probes due in that burst waited
    for all of them (p99 113-173 ms here, every stall at the burst); turning the overflow away
    unread is how a load balancer sheds load, and the answer is the gate's own 503."""

    def __init__(self, app: Any, gates_by_path: dict[str, Gate]) -> None:
        self.app, self.gates = app, gates_by_path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            gate = self.gates.get(scope["path"])
            if gate is not None and gate.full():
                await _busy_response(gate.turn_away())(scope, receive, send)
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """ASGI middleware: refuse bodies over ``limit`` bytes — by Content-Length at once, and by
    counting when the client streams without one — so a huge POST is never read into memory."""

    def __init__(self, app: Any, limit: int = MAX_BODY_BYTES) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        too_big = _error(413, f"request body too large (at most {self.limit:,} bytes)")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await too_big(scope, receive, send)
            return
        seen = 0
        refused = False

        async def guarded_send(msg: dict[str, Any]) -> None:
            if not refused:  # after a 413, whatever the app still sends is dropped
                await send(msg)

        async def limited() -> dict[str, Any]:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit:
                    await too_big(scope, receive, send)
                    refused = True
                    return {"type": "http.disconnect"}
            return msg

        try:
            await self.app(scope, limited, guarded_send)
        except Exception:
            if not refused:
                raise


def create_app(
    engine: QueryEngine, llm: LLMSettings | None = None, limits: dict[str, Limit] | None = None
) -> FastAPI:
    """The API over ``engine`` (built with ``background_reload``, so no request ever waits for
    an index); ``llm`` (an endpoint configured) enables ``POST /ask``; ``limits`` overrides
    the gates' :data:`~kgbuild.serve.gate.LIMITS` per kind, and ``"years"`` the as-of years
    opening at once (:data:`~kgbuild.serve.gate.YEARS`)."""
    app = FastAPI(
        title="kgbuild query", version="1", docs_url=None, redoc_url=None, openapi_url=None
    )
    limits = dict(limits or {})
    years = YearLoader(engine, limits.pop("years", YEARS))
    app.router.on_shutdown.append(years.close)
    gate = gates(limits)
    client: LLMClient | None = None
    if llm is not None and llm.endpoint_configured:
        client = make_client(llm, engine.wh.root)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> Response:
        errors = [
            {"field": ".".join(str(p) for p in e.get("loc", ())[1:]), "problem": e.get("msg", "")}
            for e in exc.errors()
        ]
        return _error(422, "invalid request", details=errors[:20])

    @app.exception_handler(Busy)
    async def _busy(_: Request, exc: Busy) -> Response:
        return _busy_response(exc)

    @app.exception_handler(KgbuildError)
    async def _user_error(_: Request, exc: KgbuildError) -> Response:
        status = 404 if isinstance(exc, StoreError) and "snapshot" in exc.message else 400
        return _error(status, str(exc))

    @app.exception_handler(Exception)
    async def _bug(_: Request, exc: Exception) -> Response:
        log.exception("internal error", exc_info=exc)
        return _error(500, "internal error")

    @app.get("/health")
    async def health() -> Response:
        # async: answered on the event loop, never queued behind requests in the thread pool
        # (state() costs one stat per second at most and shares no lock with any load; a
        # reload runs in its own thread, an as-of year in the year loader's)
        st = engine.state()
        idx = st.index
        return _json(
            {
                "status": "ok",
                "snapshot": idx.snapshot_id,
                "kg": idx.kg,
                "as_of_year": idx.as_of_year,
                "nodes": idx.n_nodes,
                "edges": idx.n_edges,
                "reference": engine.ref,
                "reloads": engine.reloads,
                "embedding": st.linker.vectors is not None,
                "llm": client is not None,
                "load": {**{kind: g.load() for kind, g in gate.items()}, "years": years.load()},
            }
        )

    @app.get("/entities")
    async def entities(
        q: str = Query(..., min_length=1, max_length=MAX_ENTITY_QUERY),
        limit: int = Query(10, ge=1, le=50),
        types: Annotated[list[str] | None, Query(alias="type", max_length=40)] = None,
    ) -> Response:
        found = await gate["entities"].run(lookup_entities, engine, q, limit, types)
        return _json(found)

    def _retrieve(body: RetrieveBody) -> Response:
        r = engine.retrieve(body.question, body.choices, **_options(body))
        if not r.found:
            return _no_entity(engine, r)
        return _json(r.to_dict(timings=body.timings))

    def _ask(body: AskBody, client: LLMClient) -> Response:
        a = answer_question(
            engine,
            client,
            body.question,
            body.choices,
            llm_entities=body.llm_entities,
            llm_intent=body.llm_intent,
            rerank=body.rerank,
            **_options(body),
        )
        if not a.retrieval.found:
            return _no_entity(engine, a.retrieval)
        return _json(a.to_dict())

    async def _open_year(body: RetrieveBody) -> None:
        """An as-of year opens in the year loader before the request takes a gate slot."""
        year = _options(body)["filters"].as_of_year
        if year is not None:
            await years.open(year)

    # The work, and turning its result into JSON, runs in the thread pool behind a gate.
    @app.post("/retrieve")
    async def retrieve(body: RetrieveBody) -> Response:
        await _open_year(body)
        return await gate["retrieve"].run(_retrieve, body)

    @app.post("/ask")
    async def ask(body: AskBody) -> Response:
        if client is None:
            return _error(
                503,
                "no LLM endpoint configured for this server "
                "(set OPENAI_BASE_URL / KGBUILD_LLM_BASE_URL or OPENAI_API_KEY)",
            )
        await _open_year(body)
        return await gate["ask"].run(_ask, body, client)

    add_explorer(app, engine, gate["entities"], years)  # the browser page at /
    add_curation(app, engine, gate["entities"])  # curators mark sentences from the page
    app.add_middleware(BodyLimit)
    app.add_middleware(
        ShedWhenFull, gates_by_path={"/retrieve": gate["retrieve"], "/ask": gate["ask"]}
    )
    return app


def _options(body: RetrieveBody) -> dict[str, Any]:
    f = body.filters
    if body.as_of is not None and f.as_of_year not in (None, body.as_of):
        raise InputError(
            f"as_of {body.as_of} and filters.as_of_year {f.as_of_year} differ: send one"
        )
    as_of = body.as_of if body.as_of is not None else f.as_of_year
    return {
        "k": body.k,
        "hops": body.hops,
        "token_budget": body.token_budget,
        "embed": body.embed,
        "filters": Filters(
            frozenset(f.relations),
            frozenset(f.kinds),
            f.min_support,
            f.min_confidence,
            as_of,
            f.all_evidence,
        ),
    }


def lookup_entities(
    engine: QueryEngine, q: str, limit: int = 10, types: list[str] | None = None
) -> dict[str, Any]:
    """``GET /entities``: find a node by name, symbol or synonym
    (:mod:`kgbuild.search.entities`)."""
    return find_entities(engine.state().index, q, types or (), limit)


#: Environment variable carrying ``kgbuild serve``'s settings to each uvicorn worker process.
SERVE_ENV = "KGBUILD_SERVE_CONFIG"


def app_from_env() -> FastAPI:
    """The app of one worker of ``kgbuild serve --workers N`` (uvicorn starts workers from an
    import string): each opens the snapshot from the cached index and warms up on its own."""
    from pathlib import Path

    cfg = orjson.loads(env(SERVE_ENV) or "{}")
    engine = QueryEngine(cfg["warehouse"], cfg["snapshot"],
                         Path(cfg["index_dir"]) if cfg.get("index_dir") else None,
                         embeddings=cfg["embed"], background_reload=True,
                         all_evidence=cfg.get("all_evidence", False))  # fmt: skip
    engine.prepare()
    favour_the_event_loop()
    return create_app(engine, LLMSettings.from_env(**cfg.get("llm", {})))
