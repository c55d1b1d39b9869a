"""Admission control for ``kgbuild serve``: per request kind, a few requests run at once, a few
more wait briefly, and the rest are turned away at once (503 with ``Retry-After``).

Why: FastAPI runs a synchronous handler in anyio's thread pool (40 threads). Sixty heavy
requests at once (4,000-character questions with ``embed=all``, each encoding ~150 phrases)
filled it, 40 threads fought over the GIL and two cores, and ``/health`` — queued behind them
in the same pool — waited about a minute. With a gate per kind, the heavy work that
runs is the work the cores can finish, a client that cannot be served soon learns it at once
(and can retry or go elsewhere), and the event loop stays free to answer ``/health``.

Waiting requests hold no thread: they wait on an :class:`asyncio.Semaphore` on the event loop,
and only a request holding a slot is handed to the thread pool.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool

from kgbuild.errors import Busy

T = TypeVar("T")
#: Seconds a turned-away client is told to wait (``Retry-After``): a queued request of any
#: kind finishes in well under that on an idle server.
RETRY_AFTER_S = 1


@dataclass(frozen=True, slots=True)
class Limit:
    """How many requests of one kind run at once, how many more may wait, and how long."""

    running: int
    queued: int
    wait_s: float


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


#: Per kind. ``retrieve`` is CPU work (linking, MiniLM encoding, graph search): one per core
#: but one, which stays free for the event loop (``/health``, turning requests away). ``ask``
#: mostly waits on the LLM endpoint (no GIL held), plus a retrieval. ``entities`` is a
#: dictionary look-up of ≤ 200 characters: cheap, but still bounded.
LIMITS: dict[str, Limit] = {
    "retrieve": Limit(running=max(1, _cores() - 1), queued=8, wait_s=10.0),
    "ask": Limit(running=4, queued=8, wait_s=30.0),
    "entities": Limit(running=2, queued=16, wait_s=5.0),
}
#: The interpreter's switch interval in a serving process (CPython's default is 5 ms). Why: the
#: event loop lets go of the GIL at every socket call (select, accept, recv, send) and, while a
#: request's Python work runs in the thread pool, waits up to the interval to get it back — the
#: convoy effect (D. Beazley, "Understanding the Python GIL", PyCon 2010). A burst of requests
#: costs the loop hundreds of such waits, and ``/health`` waits behind them. Measured here (2
#: cores; sixty heavy ``/retrieve`` at once, ``/health`` every 50 ms, three runs each):
#: ``/health`` p99 80-88 ms at 5 ms, 49-51 ms at 1 ms, the load's wall time unchanged (10.3-11.6 s).
SERVE_SWITCH_INTERVAL_S = 0.001


def favour_the_event_loop() -> None:
    """Set :data:`SERVE_SWITCH_INTERVAL_S` for this process: call it in a process that serves."""
    sys.setswitchinterval(SERVE_SWITCH_INTERVAL_S)


#: As-of years opening at once (:mod:`kgbuild.serve.years`), not a gate: one per core but one,
#: like ``retrieve`` (a load is CPU work); four more years may wait. A cold DALK year opens
#: in 1.5–3 s on an idle machine and 7 s on a busy one, so 20 s covers the queue.
YEARS = Limit(running=max(1, _cores() - 1), queued=4, wait_s=20.0)


class Gate:
    """At most ``limit.running`` calls at once; ``limit.queued`` more wait up to
    ``limit.wait_s``; any other call raises :class:`~kgbuild.errors.Busy` without waiting.
    Used from one event loop (its counters are not locked)."""

    def __init__(self, kind: str, limit: Limit) -> None:
        if limit.running < 1 or limit.queued < 0 or limit.wait_s <= 0:
            raise ValueError(f"bad limit for {kind}: {limit}")
        self.kind, self.limit = kind, limit
        self._slots = asyncio.Semaphore(limit.running)
        self._inside = 0  # running + waiting
        self.running = 0
        self.rejected = 0

    def full(self) -> bool:
        """No slot and no place in the queue: a request now would be turned away."""
        return self._inside >= self.limit.running + self.limit.queued

    def turn_away(self) -> Busy:
        """The error for a request turned away (counted in :meth:`load`)."""
        self.rejected += 1
        lim = self.limit
        return Busy(
            f"server busy: {self.kind} requests at capacity ({lim.running} running, "
            f"{lim.queued} waiting); retry in {RETRY_AFTER_S} s",
        )

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` in the thread pool once a slot is free."""
        if self.full():
            raise self.turn_away()
        self._inside += 1
        try:
            try:
                await asyncio.wait_for(self._slots.acquire(), self.limit.wait_s)
            except TimeoutError:
                raise self.turn_away() from None
            self.running += 1
            try:
                return await run_in_threadpool(fn, *args, **kwargs)
            finally:
                self.running -= 1
                self._slots.release()
        finally:
            self._inside -= 1

    def load(self) -> dict[str, int]:
        """What ``/health`` reports: running, waiting, turned away so far."""
        return {
            "running": self.running,
            "waiting": self._inside - self.running,
            "rejected": self.rejected,
        }


def gates(limits: dict[str, Limit] | None = None) -> dict[str, Gate]:
    """One gate per request kind, ``limits`` overriding :data:`LIMITS` kind by kind."""
    return {kind: Gate(kind, lim) for kind, lim in {**LIMITS, **(limits or {})}.items()}
