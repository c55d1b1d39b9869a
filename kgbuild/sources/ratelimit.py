"""A request-start limiter shared by every thread of one client.

NCBI's E-utilities guidelines (https://www.ncbi.nlm.nih.gov/books/NBK25497/) count requests per
second per IP: 3 without an API key, 10 with one; PubTator3 allows 3. Worker threads of a run
must together stay under it, so one limiter is shared and hands out start times in order.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class RateLimiter:
    """At most ``rate_per_s`` request starts in any 1-second window, across all threads.

    Two rules together: starts are at least ``1/rate`` apart (no bursts), and the start
    ``floor(rate)`` places back lies more than a second (+ ``margin_s``) earlier, since spacing
    alone lets a closed 1-second window hold rate + 1 starts. NCBI counts *arrivals*: a thread
    that takes its slot and is then descheduled sends late, so the margin covers scheduling and
    network delay (50 ms was too little on a loaded 2-core machine: 11 arrivals fell within
    0.99 s); 0.25 s costs a burst at most a fifth of its rate.
    Every granted start time (``time.monotonic()``) is kept in ``starts`` for reporting and tests.
    """

    def __init__(self, rate_per_s: float, margin_s: float = 0.25) -> None:
        if rate_per_s <= 0:
            raise ValueError(f"rate_per_s must be positive, got {rate_per_s}")
        self.rate_per_s = rate_per_s
        self.interval = 1.0 / rate_per_s
        self.margin_s = margin_s
        self.starts: list[float] = []
        self._slots: deque[float] = deque(maxlen=max(1, int(rate_per_s)))
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until this caller may start a request; returns the start time.

        A start is granted, and recorded, under the lock at the moment it is allowed: a thread
        that wakes late from its sleep (a loaded machine) checks again instead of starting on a
        reservation made earlier, which could put more than ``rate`` starts in one window."""
        while True:
            with self._lock:
                now = time.monotonic()
                at = now
                if self._slots:
                    at = max(at, self._slots[-1] + self.interval)
                    if len(self._slots) == self._slots.maxlen:
                        at = max(at, self._slots[0] + 1.0 + self.margin_s)
                if at <= now:
                    self._slots.append(now)
                    self.starts.append(now)
                    return now
            time.sleep(at - now)
