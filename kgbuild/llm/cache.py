"""Persistent LLM response cache (SQLite in the warehouse): finished work is never paid twice.

Keyed by a hash of (model, prompt-template version, messages, parameters): a re-run, a resume
after a crash or the next year slice finds its answers here. Only request content and answers
are stored — never the API key or the endpoint's credentials.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from kgbuild.records import stable_id


def cache_key(
    model: str, prompt_version: str, messages: list[dict[str, str]], params: dict[str, Any]
) -> str:
    payload = json.dumps([model, prompt_version, messages, params], sort_keys=True)
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
            "completion_tokens INTEGER, created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
        )

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
    ) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model, prompt_version, content, "
                "prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?)",
                (key, model, prompt_version, content, prompt_tokens, completion_tokens),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        self._db.close()
