"""One load per key, however many threads ask for it at once ("single flight").

Opening a snapshot's index takes seconds (the DALK build's years: 1.5–3 s idle, 7 s on a busy
machine). The engine used to make such loads under the lock its ``state()`` also takes, so
ten requests for ten as-of years ran one after another, and ``/health`` — on the event loop —
waited behind all of them (12.7 s measured). Here the lock guards a dictionary look-up only:
the first caller of a key makes the value with no lock held, later callers wait on its
:class:`~concurrent.futures.Future`, and callers of other keys are not held up at all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Flights(Generic[K, V]):
    """Values made once per key and kept; a failed make is not kept (the next caller retries).
    Thread-safe; nothing is ever made while the lock is held."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._futures: dict[K, Future[V]] = {}
        #: Makes started (a failed one included): with no failures, one per key.
        self.started = 0
        self.failed = 0

    def get(self, key: K, make: Callable[[], V]) -> V:
        """The value of ``key``: made by ``make()`` in this thread if no one has made it or is
        making it, else the other maker's result (or its exception)."""
        with self._lock:
            fut = self._futures.get(key)
            mine = fut is None
            if fut is None:
                fut = self._futures[key] = Future()
                self.started += 1
        if mine:
            try:
                value = make()
            except BaseException as exc:
                with self._lock:
                    self._futures.pop(key, None)
                    self.failed += 1
                fut.set_exception(exc)
                raise
            fut.set_result(value)
            return value
        return fut.result()

    def ready(self, key: K) -> V | None:
        """The value of ``key`` if it is made; None if it is not (or is still being made)."""
        fut = self._futures.get(key)
        if fut is None or not fut.done() or fut.exception() is not None:
            return None
        return fut.result()

    def counts(self) -> dict[str, int]:
        """Made (kept), being made, makes started and failed: what ``/health`` reports."""
        with self._lock:
            futures = list(self._futures.values())
        making = sum(not f.done() for f in futures)
        return {
            "open": len(futures) - making,
            "loading": making,
            "loads": self.started,
            "failed": self.failed,
        }
