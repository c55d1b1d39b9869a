"""Persistent LLM response cache (SQLite in the warehouse): finished work is never paid twice.

Keyed by a hash of everything that can change an answer: the endpoint (who answers), the model,
the prompt-template version, the messages and every decoding parameter sent (temperature,
max_tokens, the response format and its schema). A re-run, a resume after a crash or the next
year slice finds its answers here; a build against another endpoint serving a model of the same
name does not (it asks its own endpoint). Only request content, answers and the endpoint's
public identity (scheme, host, port, path) are stored — never the API key, nor a URL's user
info or query string, where credentials can hide.

Rows written before the endpoint was part of the key (no ``endpoint`` column) are never matched
again: their answers are asked once more, at most once each.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kgbuild.errors import ConfigError
from kgbuild.records import stable_id

#: Where the ``openai`` client sends a request when no base URL is set.
OPENAI_URL = "https://api.openai.com/v1"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def endpoint_id(base_url: str | None) -> str:
    """The endpoint's identity: ``scheme://host:port/path`` (None: OpenAI's), so two spellings
    of one endpoint share answers and two endpoints never do. User info, query and fragment
    are left out: they can hold credentials, and this identity is stored in the cache."""
    parts = urlsplit((base_url or OPENAI_URL).strip())
    try:
        port = parts.port
    except ValueError:
        raise ConfigError("LLM base URL has a bad port", base_url=parts.netloc) from None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if not scheme or not host:
        raise ConfigError("LLM base URL must be scheme://host[:port]/path", base_url=base_url)
    host = f"[{host}]" if ":" in host else host  # IPv6
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS.get(scheme, '')}{parts.path.rstrip('/')}"


def cache_key(
    endpoint: str,
    model: str,
    prompt_version: str,
    messages: list[dict[str, str]],
    params: dict[str, Any],
) -> str:
    """The hash of a request: the endpoint (:func:`endpoint_id`), model, prompt version, the
    full messages and every parameter sent (decoding parameters, response format, schema)."""
    payload = json.dumps([endpoint, model, prompt_version, messages, params], sort_keys=True)
    return stable_id(payload, size=20)


class ResponseCache:
    """A small key-value store; safe to share between threads of one process."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # WAL + NORMAL: an answer is durable once put, against a killed process (what a resume
        # needs); only a power cut can lose the last few, which are then asked again.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, "
            "prompt_version TEXT, content TEXT, prompt_tokens INTEGER, "
            "completion_tokens INTEGER, created_at TEXT DEFAULT CURRENT_TIMESTAMP, "
            "endpoint TEXT)"
        )
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(responses)")}
        if "endpoint" not in columns:  # a cache from before the endpoint was in the key
            try:
                self._db.execute("ALTER TABLE responses ADD COLUMN endpoint TEXT")
            except sqlite3.OperationalError as exc:  # another process (a worker) added it
                if "duplicate column" not in str(exc):
                    raise

    def get(self, key: str) -> tuple[str, int, int] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT content, prompt_tokens, completion_tokens FROM responses WHERE key = ?",
                (key,),
            ).fetchone()
        return (row[0], row[1], row[2]) if row else None

    def put(
        self,
        key: str,
        model: str,
        prompt_version: str,
        content: str,
        prompt_tokens: int,
        completion_tokens: int,
        endpoint: str | None = None,
    ) -> None:
        """Store an answer; ``endpoint`` is :func:`endpoint_id`'s (no credentials)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model, prompt_version, content, "
                "prompt_tokens, completion_tokens, endpoint) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, model, prompt_version, content, prompt_tokens, completion_tokens, endpoint),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
