"""The explorer's curation routes: a curator marks a fact's sentence from the page.

| route | what |
|---|---|
| ``GET /api/curate/token`` | this server's write token (same-origin readers only) |
| ``POST /api/curations`` | record a curation of one evidence sentence (201) |
| ``GET /api/curations?edge=…`` | the latest curation of each curated sentence of these facts |

The server listens on the curator's own machine, where any web page the curator opens could
try to write through it (a cross-site request forgery: OWASP CSRF Prevention Cheat Sheet;
DNS rebinding: a hostile name resolved to 127.0.0.1). So a write must pass, in order:

- the ``Host`` is a loopback name (``127.0.0.1``, ``localhost``, ``[::1]``): a rebound hostile
  name is refused (421);
- ``Origin`` is this server's own origin and ``Sec-Fetch-Site`` (when the browser sends it) is
  ``same-origin``: another port of 127.0.0.1 is another origin (403);
- the body is ``application/json`` (a form or a ``no-cors`` fetch cannot send that without a
  CORS preflight, which this server never answers with permission) (415);
- the ``X-Curation-Token`` header holds this server's random token, which only a page of this
  origin can read (no CORS header is ever sent, and it is never in a URL) (403);
- the body is at most :data:`MAX_CURATION_BYTES`, strict JSON with a label from
  :data:`~kgbuild.store.curations.LABELS` and a bounded note (413 / 422);
- at most :data:`RATE_PER_MINUTE` writes a minute (429).

Nothing is written but one line of the warehouse's curation log
(:func:`kgbuild.store.curations.append`), and only for a sentence the served snapshot holds.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import deque
from typing import Annotated, Any, Literal

import orjson
from fastapi import FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kgbuild.config import env
from kgbuild.errors import InputError
from kgbuild.query.engine import QueryEngine
from kgbuild.serve.gate import Gate
from kgbuild.store import curations as store

MAX_CURATION_BYTES = 16 * 1024
MAX_SENTENCE = 10_000
MAX_EDGES = 200
RATE_PER_MINUTE = 60
TOKEN_HEADER = "x-curation-token"
#: Set by ``kgbuild serve --workers N`` for its workers (one token per server, not per worker).
TOKEN_ENV = "KGBUILD_CURATION_TOKEN"
LOOPBACK = frozenset({"127.0.0.1", "localhost", "[::1]"})
_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class CurationBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    triple_id: str = Field(min_length=1, max_length=500)
    pmid: str = Field(min_length=1, max_length=40)
    sentence: str = Field(min_length=1, max_length=MAX_SENTENCE)
    label: Literal["states", "does_not_state", "wrong_concept"]
    note: str = Field("", max_length=store.MAX_NOTE)
    curator: str = Field(min_length=1, max_length=store.MAX_CURATOR)


def _json(data: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(data), status, media_type="application/json", headers=_HEADERS)


def _error(status: int, message: str) -> Response:
    return _json({"error": message}, status)


class RateLimit:
    """At most ``per_minute`` events in any 60 s (a sliding window)."""

    def __init__(self, per_minute: int = RATE_PER_MINUTE) -> None:
        self.per_minute = per_minute
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def take(self) -> bool:
        now = time.monotonic()
        with self._lock:
            while self._times and now - self._times[0] > 60:
                self._times.popleft()
            if len(self._times) >= self.per_minute:
                return False
            self._times.append(now)
            return True


def refusal(request: Request, token: str) -> Response | None:
    """Why this write may not go on (the module docstring's checks, in order), or None."""
    host = request.headers.get("host", "")
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    if name not in LOOPBACK:
        return _error(421, "curations are written through a loopback address only")
    origin = request.headers.get("origin")
    if origin != f"{request.url.scheme}://{host}":
        return _error(403, "cross-origin write refused: the Origin is not this server")
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return _error(403, f"cross-origin write refused (Sec-Fetch-Site: {site[:20]})")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return _error(415, "send the curation as application/json")
    given = request.headers.get(TOKEN_HEADER, "")
    if not given or not hmac.compare_digest(given.encode(), token.encode()):
        return _error(403, "missing or wrong curation token (reload the page)")
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_CURATION_BYTES):
        return _error(413, f"curation body over {MAX_CURATION_BYTES} bytes")
    return None


_ROW_SQL = """
    SELECT e.pmid, e.triple_id, t.head_id, t.relation, t.tail_id, e.sentence, e.sent_start,
           e.head_start, e.head_end, e.tail_start, e.tail_end
    FROM evidence_status_at(?) e JOIN triples_at(?) t USING (triple_id)
    WHERE e.pmid = ? AND e.triple_id = ? AND e.sentence = ?
    ORDER BY e.evidence_id LIMIT 1"""
_ROW_COLS = ("pmid", "triple_id", "head_id", "relation", "tail_id", "sentence", "sent_start",
             "head_start", "head_end", "tail_start", "tail_end")  # fmt: skip


def record(engine: QueryEngine, body: CurationBody) -> Response:
    """Store the curation of the served snapshot's sentence ``body`` names (404 when it holds
    none such)."""
    idx = engine.state().index
    sid = idx.snapshot_id
    rows = engine.wh.query(_ROW_SQL, [sid, sid, body.pmid, body.triple_id, body.sentence])
    if not rows:
        return _error(404, f"snapshot {sid} holds no such sentence for that fact and PMID")
    row = dict(zip(_ROW_COLS, rows[0], strict=True))
    try:
        c = store.make(curator=body.curator, label=body.label, note=body.note,
                       snapshot_id=sid, kg=idx.kg, row=row)  # fmt: skip
    except InputError as exc:
        return _error(422, str(exc))
    store.append(engine.wh.root, c)
    return _json(shown(c), 201)


def shown(c: store.Curation) -> dict[str, Any]:
    """What the page shows of a curation."""
    return {"triple_id": c.triple_id, "pmid": c.pmid, "sentence_md5": c.sentence_md5,
            "label": c.label, "curator": c.curator, "note": c.note, "created_at": c.created_at,
            "snapshot_id": c.snapshot_id, "demoted": c.label in store.DEMOTING}  # fmt: skip


def of_edges(engine: QueryEngine, edges: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The latest curation of every curated sentence of ``edges``."""
    wanted = set(edges)
    out: dict[str, list[dict[str, Any]]] = {e: [] for e in edges}
    for c in store.latest(store.read_all(engine.wh.root)).values():
        if c.triple_id in wanted:
            out[c.triple_id].append(shown(c))
    return out


def new_token() -> str:
    """A server's write token: 256 random bits."""
    return secrets.token_urlsafe(32)


def server_token() -> str:
    """This server's token: the one ``kgbuild serve --workers N`` gave all its workers
    (:data:`TOKEN_ENV`, so a page may post to any of them), else a new one."""
    given = env(TOKEN_ENV) or ""
    return given if len(given) >= 43 else new_token()


def add_curation(app: FastAPI, engine: QueryEngine, gate: Gate) -> None:
    """Add the curation routes to ``app``; ``gate`` bounds their work."""
    token = server_token()
    rate = RateLimit()

    @app.get("/api/curate/token")
    async def curate_token(request: Request) -> Response:
        # readable by this origin's pages only: no CORS header, so another origin's script
        # gets an opaque response; a rebound hostile name is refused like a write
        host = request.headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        site = request.headers.get("sec-fetch-site")
        if name not in LOOPBACK or (site is not None and site not in ("same-origin", "none")):
            return _error(403, "the curation token is for this server's own page")
        return _json({"token": token, "header": TOKEN_HEADER, "labels": list(store.LABELS)})

    @app.post("/api/curations")
    async def curate(request: Request) -> Response:
        refused = refusal(request, token)
        if refused is not None:
            return refused
        raw = await request.body()
        if len(raw) > MAX_CURATION_BYTES:
            return _error(413, f"curation body over {MAX_CURATION_BYTES} bytes")
        try:
            body = CurationBody.model_validate_json(raw)
        except ValidationError as exc:
            details = [
                {"field": ".".join(str(p) for p in e["loc"]), "problem": e["msg"]}
                for e in exc.errors()[:10]
            ]
            return _json({"error": "invalid curation", "details": details}, 422)
        if not store.CURATOR_RE.match(body.curator):
            return _error(422, "curator: letters, digits, spaces or ._@- only")
        if not rate.take():
            return _error(429, f"more than {RATE_PER_MINUTE} curations a minute")
        return await gate.run(record, engine, body)

    @app.get("/api/curations")
    async def curations(edge: Annotated[list[str], Query(max_length=MAX_EDGES)]) -> Response:
        if any(len(e) > 500 for e in edge):
            return _error(422, "edge ids longer than 500 characters")
        return await gate.run(lambda: _json(of_edges(engine, edge)))
