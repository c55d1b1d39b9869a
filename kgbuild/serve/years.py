"""Opening as-of years for ``kgbuild serve``: off the event loop, once per year, a few at once.

A request for a year not yet open (``/api/entity/…?as_of=2013``, ``/retrieve {"as_of": …}``)
needs that year's snapshot index: seconds of work. Measured on the DALK build (10 yearly
snapshots, 2 shared cores): the load ran in the thread pool, but under the lock the engine's
``state()`` also takes, so ``/health`` — answered on the event loop — blocked behind it (1.3 s
for one year; 12.7 s of event-loop lag with nine years opening, which ran one after another),
and each loading request held one of the two ``entities`` gate slots, so the other years
queued past their wait and got 503. With no lock shared, nine years loading in nine threads
left the loop's lag under 0.21 s: the loads' GIL use was not the problem.

So a year is opened here, not in a request's thread:

* in a dedicated executor of ``limit.running`` threads (never anyio's pool, never a gate slot);
* once per year, however many requests ask for it at once: they await the same future;
* at most ``limit.running + limit.queued`` years pending; a request for one more, or one that
  waited ``limit.wait_s`` for its year, gets 503 with ``Retry-After`` (the load goes on, so the
  retry finds the year open);
* a year already open (or outside the snapshots, once the lineage is known) is answered from
  memory on the event loop.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from kgbuild.errors import Busy
from kgbuild.query.engine import QueryEngine
from kgbuild.serve.gate import RETRY_AFTER_S, Limit


class YearLoader:
    """``await open(year)``: the engine of ``year``'s snapshot. Used from one event loop."""

    def __init__(self, engine: QueryEngine, limit: Limit) -> None:
        if limit.running < 1 or limit.queued < 0 or limit.wait_s <= 0:
            raise ValueError(f"bad limit for years: {limit}")
        self.engine, self.limit = engine, limit
        self._pool = ThreadPoolExecutor(limit.running, thread_name_prefix="kgbuild-year")
        self._pending: dict[int, asyncio.Future[QueryEngine]] = {}
        self.rejected = 0

    def _busy(self, why: str) -> Busy:
        self.rejected += 1
        return Busy(f"server busy: {why}; retry in {RETRY_AFTER_S} s")

    async def open(self, year: int) -> QueryEngine:
        """The engine of ``year``; :class:`~kgbuild.errors.InputError` for a year outside the
        snapshots, :class:`~kgbuild.errors.Busy` when too many years are pending or this one
        was not open within ``limit.wait_s``."""
        eng = self.engine.opened_year(year)
        if eng is not None:
            return eng
        fut = self._pending.get(year)
        if fut is None:
            lim = self.limit
            if len(self._pending) >= lim.running + lim.queued:
                raise self._busy(f"{len(self._pending)} as-of years are being opened")
            loop = asyncio.get_running_loop()
            fut = loop.run_in_executor(self._pool, self.engine.for_year, year)
            self._pending[year] = fut
            fut.add_done_callback(lambda f, y=year: self._done(y, f))
        try:
            return await asyncio.wait_for(asyncio.shield(fut), self.limit.wait_s)
        except TimeoutError:
            raise self._busy(f"the snapshot of {year} is still being opened") from None

    def _done(self, year: int, fut: asyncio.Future[QueryEngine]) -> None:
        self._pending.pop(year, None)
        if not fut.cancelled():
            fut.exception()  # retrieved: a failure nobody awaits any more is not logged as lost

    def load(self) -> dict[str, int]:
        """What ``/health`` reports: years pending here (running and waiting), turned away, and
        the engine's as-of engines open, loading and loads started."""
        pending = len(self._pending)
        running = min(pending, self.limit.running)
        return {
            "running": running,
            "waiting": pending - running,
            "rejected": self.rejected,
            **self.engine.year_counts(),
        }

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
