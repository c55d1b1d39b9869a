"""The one HTTP behaviour every live source shares: rate limit, retries, raw-body cache, secrets.

NCBI's E-utilities guidelines ("A General Introduction to the E-utilities",
https://www.ncbi.nlm.nih.gov/books/NBK25497/) allow 3 requests/s per IP without an API key and
10/s with one; PubTator3 asks for at most 3/s. Going over earns 429s and, persistently, a blocked
IP -- and a limit only holds if every thread passes the same limiter, so it lives in the client.
Transient failures (429, 408, 5xx, timeouts, connection resets, bodies a validator rejects, e.g.
truncated XML or JSON) are retried with capped exponential backoff, waiting at least
``Retry-After``; permanent 4xx fail at once; the last failure is a :class:`SourceError` naming the
path and the reason. Raw bodies can be cached on disk by (method, path, fields minus secrets), so
a re-run downloads nothing. Client-wide ``params`` (tool, email, api_key) identify the caller and
never change an answer: sent with every request, never in a cache key or file; secret values are
masked in every message and log line (urllib3's debug lines included).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict, Unpack

import requests
from tenacity import RetryCallState, Retrying

from kgbuild.errors import SourceError
from kgbuild.redact import redact_bytes, register
from kgbuild.retry import Transient, is_transient_status, parse_retry_after, policy
from kgbuild.sources.ratelimit import RateLimiter

__all__ = ["BodyCache", "HttpClient", "RateLimiter", "SourceError"]

log = logging.getLogger(__name__)

#: Parameter names whose values are credentials: never cached, logged or put in a message.
SECRET_PARAMS = frozenset({"api_key", "apikey", "key", "token", "access_token"})
#: Failures below HTTP that may pass when tried again.
TRANSIENT_ERRORS = (
    requests.Timeout,
    requests.ConnectionError,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)

Validator = Callable[[bytes], None]
Fields = Mapping[str, Any]


class CallOptions(TypedDict, total=False):
    """Per call: ``validate`` raises ValueError for a malformed body (retried, then SourceError);
    ``cache_as`` replaces the request fields in the cache key (for fields, like a WebEnv, that
    differ between runs for the same content); ``refresh`` skips reading the cache (still writes).
    """

    validate: Validator | None
    cache_as: Fields | None
    refresh: bool


class _MaskSecrets(logging.Filter):
    """Masks API keys in urllib3's debug lines, which print every GET URL with its query."""

    def __init__(self) -> None:
        super().__init__()
        self.secrets: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if any(s in text for s in self.secrets):
            for secret in self.secrets:
                text = text.replace(secret, "***")
            record.msg, record.args = text, ()
        return True


_MASK = _MaskSecrets()


class BodyCache:
    """Raw response bodies on disk, one file per request key (plus a small JSON of what it was)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.body"

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        return path.read_bytes() if path.exists() else None

    def put(self, key: str, body: bytes, meta: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        meta_text = json.dumps(meta, sort_keys=True, default=str).encode()
        for target, data in ((path.with_suffix(".json"), meta_text), (path, body)):
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)  # atomic: a killed run never leaves half a body


class HttpClient:
    """Rate-limited, retrying, optionally caching GET/POST against one base URL; thread-safe."""

    def __init__(
        self,
        base_url: str,
        *,
        rate_per_s: float,
        timeout_s: float = 30,
        max_retries: int = 5,
        backoff_s: float = 1.0,
        backoff_cap_s: float = 60,
        cache_dir: Path | None = None,
        params: dict[str, Any] | None = None,
        user_agent: str = "kgbuild",
        secret_params: frozenset[str] = SECRET_PARAMS,
    ) -> None:
        self.base_url = base_url.rstrip("/") + "/"
        self.limiter = RateLimiter(rate_per_s)
        self.timeout_s, self.max_retries = timeout_s, max_retries
        self.backoff_s, self.backoff_cap_s = backoff_s, backoff_cap_s
        self.cache = BodyCache(cache_dir) if cache_dir is not None else None
        self.user_agent = user_agent
        self._params = {k: v for k, v in (params or {}).items() if v is not None}
        self._secret_names = secret_params
        self._secrets = [str(v) for k, v in self._params.items() if k.lower() in secret_params]
        for secret in self._secrets:
            register(secret)  # masked in every log line of this process (kgbuild.redact)
        if self._secrets:
            _MASK.secrets.update(self._secrets)
            logging.getLogger("urllib3.connectionpool").addFilter(_MASK)
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._local = threading.local()
        self._sessions: list[requests.Session] = []

    def get(self, path: str, params: Fields | None = None, **opts: Unpack[CallOptions]) -> bytes:
        """GET ``path`` with ``params`` (query string)."""
        return self._request("GET", path, dict(params or {}), **opts)

    def post(self, path: str, data: Fields | None = None, **opts: Unpack[CallOptions]) -> bytes:
        """POST ``data`` as a form (client params too, so no key appears in the URL)."""
        return self._request("POST", path, dict(data or {}), **opts)

    @property
    def counters(self) -> dict[str, int]:
        """Requests sent (every attempt), retries, cache hits and final failures so far."""
        with self._lock:
            return {k: self._counts[k] for k in ("requests", "retries", "cache_hits", "failed")}

    def close(self) -> None:
        for session in self._sessions:
            session.close()

    # -- internals -------------------------------------------------------------------------

    def _count(self, name: str) -> None:
        with self._lock:
            self._counts[name] += 1

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        return text

    def _public(self, fields: Fields) -> dict[str, str]:
        return {k: str(v) for k, v in fields.items() if k.lower() not in self._secret_names}

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:  # requests.Session is not thread-safe: one per thread
            session = self._local.session = requests.Session()
            session.headers["User-Agent"] = self.user_agent
            with self._lock:
                self._sessions.append(session)
        return session

    def _request(
        self,
        method: str,
        path: str,
        fields: dict[str, Any],
        validate: Validator | None = None,
        cache_as: Fields | None = None,
        refresh: bool = False,
    ) -> bytes:
        public = self._public(cache_as if cache_as is not None else fields)
        request = json.dumps([method, path, sorted(public.items())])
        key = hashlib.sha256(request.encode()).hexdigest()
        if self.cache is not None and not refresh:
            body = self.cache.get(key)
            if body is not None and _passes(body, validate):
                self._count("cache_hits")
                return body
        log.debug("%s %s %s", method, path, self._public(fields))
        retrying = Retrying(
            **policy(
                self.max_retries,
                self.backoff_s,
                self.backoff_cap_s,
                lambda state: self._before_sleep(method, path, state),
            )
        )
        try:
            body = retrying(self._attempt, method, path, fields, validate)
        except Transient as exc:
            self._count("failed")
            attempts = self.max_retries + 1
            raise SourceError(
                f"{method} {path} failed after {attempts} attempts: {exc.reason}", path=path
            ) from None
        body = redact_bytes(body, self._secrets)  # a service that echoes the key: masked
        if self.cache is not None:
            self.cache.put(key, body, {"method": method, "path": path, "fields": public})
        return body

    def _attempt(
        self, method: str, path: str, fields: dict[str, Any], validate: Validator | None
    ) -> bytes:
        self.limiter.wait()
        self._count("requests")
        sent = {**self._params, **fields}
        try:
            resp = self._session().request(
                method,
                self.base_url + path.lstrip("/"),
                params=sent if method == "GET" else None,
                data=sent if method == "POST" else None,
                timeout=self.timeout_s,
            )
            body = resp.content
        except TRANSIENT_ERRORS as exc:
            raise Transient(self._redact(f"{type(exc).__name__}: {exc}")) from None
        except requests.RequestException as exc:
            self._count("failed")
            raise SourceError(f"{method} {path}: {self._redact(str(exc))}", path=path) from None
        status = resp.status_code
        if status >= 400:
            snippet = self._redact(" ".join(body[:200].decode("utf-8", "replace").split()))
            reason = f"HTTP {status} {resp.reason}: {snippet}".rstrip(": ")
            if is_transient_status(status):
                raise Transient(reason, parse_retry_after(resp.headers.get("Retry-After")))
            self._count("failed")
            raise SourceError(f"{method} {path}: {reason}", path=path, status=status)
        if validate is not None:
            try:
                validate(body)
            except ValueError as exc:
                raise Transient(f"malformed body ({len(body)} bytes): {exc}") from None
        return body

    def _before_sleep(self, method: str, path: str, state: RetryCallState) -> None:
        self._count("retries")
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        log.warning(
            "%s %s attempt %d: %s; retrying in %.2fs", method, path, state.attempt_number, exc, wait
        )


def _passes(body: bytes, validate: Validator | None) -> bool:
    """A cached body is used only if it still validates (a validator may have become stricter)."""
    if validate is None:
        return True
    try:
        validate(body)
    except ValueError:
        return False
    return True
