"""Secrets never leave the process: every configured API key is masked in whatever an endpoint
answers and in every log record, before anything is stored or printed.

Why at the boundary and not where things are written: an endpoint may echo the request's
``Authorization`` header back inside its answer (a debugging proxy, a misconfigured gateway, a
hostile server). That answer then flows into the LLM cache, the parsed claims, the
``rejections`` and ``evidence`` parts, the logs and the reports. Masking the answer the moment
it arrives (:meth:`kgbuild.llm.client.LLMClient`) and every HTTP body a source receives
(:mod:`kgbuild.sources.http`) covers all of those writers at once, including ones added later.

What counts as a secret: each key the process was configured with (``OPENAI_API_KEY``,
``NCBI_API_KEY``, an explicit ``api_key``), registered when its settings object is made. A
``Bearer sk-…`` token equal to the key is masked because it contains the key; the key written
the way JSON or a URL would escape it is masked too. Keys shorter than :data:`MIN_SECRET_CHARS`
are not registered: masking a 3-letter "key" everywhere would corrupt the data and protects
nothing (such a key is a placeholder like ``"k"`` or ``"not-needed"``, not a credential).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable
from urllib.parse import quote

#: What a secret is replaced with (the same mask the literature sources use in their logs).
MASK = "***"
#: Shortest value treated as a credential (OpenAI keys are 51+ characters, NCBI's 36).
MIN_SECRET_CHARS = 12

_lock = threading.Lock()
_secrets: set[str] = set()


def _spellings(secret: str) -> set[str]:
    """The secret and the forms an echo may write it in (JSON-escaped, URL-quoted)."""
    return {secret, json.dumps(secret)[1:-1], quote(secret, safe="")} - {""}


def register(secret: str | None) -> None:
    """Remember a configured secret for this process (a placeholder key is ignored)."""
    if not secret or len(secret.strip()) < MIN_SECRET_CHARS:
        return
    with _lock:
        _secrets.update(_spellings(secret))
    _install_log_masking()


def secrets() -> tuple[str, ...]:
    """Registered spellings, longest first (so a longer spelling is masked whole)."""
    with _lock:
        return tuple(sorted(_secrets, key=len, reverse=True))


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """``text`` with every registered secret (and each of ``extra``) replaced by :data:`MASK`."""
    values = list(secrets())
    for value in extra:
        if value and len(value.strip()) >= MIN_SECRET_CHARS:
            values.extend(_spellings(value))
    for value in sorted(set(values), key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def redact_bytes(body: bytes, extra: Iterable[str | None] = ()) -> bytes:
    """:func:`redact` for a raw body (UTF-8 spellings; a body in another encoding that holds
    the key in a multi-byte form is not recognised)."""
    values = [*secrets(), *(v for v in extra if v and len(v.strip()) >= MIN_SECRET_CHARS)]
    for value in sorted(set(values), key=len, reverse=True):
        raw = value.encode()
        if raw in body:
            body = body.replace(raw, MASK.encode())
    return body


_installed = False


def _install_log_masking() -> None:
    """Mask secrets in every log record of this process, from any logger (ours, Prefect's,
    urllib3's, uvicorn's): the record factory rewrites the message — and a traceback's text —
    before any handler formats it. Installed once, when the first secret is registered."""
    global _installed
    with _lock:
        if _installed:
            return
        _installed = True
    previous = logging.getLogRecordFactory()

    def factory(*args: object, **kwargs: object) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        if not _secrets:
            return record
        try:
            text = record.getMessage()
        except Exception:  # a bad format string: leave it to logging's own error path
            return record
        masked = redact(text)
        if masked != text:
            record.msg, record.args = masked, ()
        if record.exc_info and record.exc_info[1] is not None:
            shown = logging.Formatter().formatException(record.exc_info)
            record.exc_text = redact(shown)
        return record

    logging.setLogRecordFactory(factory)
