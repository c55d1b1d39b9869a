"""One build at a time per warehouse.

Two builds on one warehouse would both do all the work (a pair of generative builds paid ~240
duplicate LLM calls) and race to publish. A build therefore holds an exclusive ``flock`` on
``<warehouse>/.build.lock`` from before it decides what to reuse until it has logged its run;
a second build waits for it (and then finds everything published, so it reuses instead of
paying again) or, past its wait, stops with a clear message. The kernel releases the lock when
its holder dies, even by ``kill -9``, so a crashed build never blocks the next one.
Readers (``sql``, ``stats``, the query server) never take it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgbuild.errors import Busy

LOCK_FILE = ".build.lock"
#: How long a build waits for another build on the same warehouse by default (seconds).
DEFAULT_WAIT_S = 6 * 3600.0


def holder(root: Path) -> dict[str, Any]:
    """Who holds (or last held) the warehouse's build lock, as it wrote itself down."""
    try:
        return json.loads((Path(root) / LOCK_FILE).read_text() or "{}")
    except (OSError, ValueError):
        return {}


@contextmanager
def build_lock(
    root: Path,
    build_id: str,
    wait_s: float = DEFAULT_WAIT_S,
    on_wait: Callable[[dict[str, Any]], None] | None = None,
    poll_s: float = 0.5,
) -> Iterator[None]:
    """Hold the warehouse's build lock for the block; wait up to ``wait_s`` for it (telling
    ``on_wait`` once who holds it), then raise :class:`~kgbuild.errors.Busy`."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline, told = time.monotonic() + wait_s, False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                who = holder(root)
                if time.monotonic() >= deadline:
                    raise Busy(
                        "another build holds this warehouse; try again when it has finished",
                        warehouse=root,
                        pid=who.get("pid", "?"),
                        build=who.get("build_id", "?"),
                        since=who.get("started", "?"),
                    ) from None
                if on_wait and not told:
                    on_wait(who)
                    told = True
                time.sleep(poll_s)
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "build_id": build_id,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(me).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
