"""The one retry policy of every network call (literature sources and LLM endpoints).

Transient failures — 408, 409, 425, 429 and every 5xx, timeouts, connection resets, bodies that
are malformed or cut off — are tried again with capped exponential backoff; the wait is never
shorter than the server's ``Retry-After`` (RFC 9110 §10.2.3: seconds or an HTTP date). Anything
else fails at once. Both clients build their tenacity ``Retrying``/``AsyncRetrying`` from
:func:`policy`, so the rule cannot drift between them.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from typing import Any

from tenacity import RetryCallState, retry_if_exception_type, stop_after_attempt

#: Statuses worth retrying besides every 5xx: timeouts, conflicts, too early, rate limiting.
TRANSIENT_STATUS = frozenset({408, 409, 425, 429})


class Transient(Exception):
    """One failed attempt that may succeed when tried again (``retry_after`` in seconds, from
    the server, when it said)."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


def is_transient_status(status: int) -> bool:
    return status >= 500 or status in TRANSIENT_STATUS


def parse_retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def backoff(backoff_s: float, cap_s: float) -> Callable[[RetryCallState], float]:
    """Tenacity wait: ``backoff_s * 2^(attempt-1)``, at least the failure's ``Retry-After``,
    at most ``cap_s``."""

    def wait(state: RetryCallState) -> float:
        delay = backoff_s * 2 ** (state.attempt_number - 1)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after is not None:
            delay = max(delay, retry_after)
        return min(delay, cap_s)

    return wait


def policy(
    max_retries: int,
    backoff_s: float,
    cap_s: float,
    before_sleep: Callable[[RetryCallState], None] | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``tenacity.Retrying`` / ``AsyncRetrying``: retry :class:`Transient`
    only, ``max_retries`` times, then re-raise the last one."""
    return {
        "stop": stop_after_attempt(max_retries + 1),
        "wait": backoff(backoff_s, cap_s),
        "retry": retry_if_exception_type(Transient),
        "before_sleep": before_sleep,
        "reraise": True,
    }
