"""Where the suite's time goes: a pytest plugin that records, per test, the wall time and the CPU
time (this process and the children it reaped) of its whole protocol (set-up, call,
tear-down), as one JSON line per test in ``$KGBUILD_TEST_TIMINGS/<worker>.jsonl``.

Wall time alone misleads on a 2-core machine running several xdist workers: a test that sleeps
on a server looks as slow as one that computes. CPU time says which tests cost the machine, and
the ratio says which ones only wait. ``python -m tests.support.suite_report`` reads the files.
Nothing is recorded when the variable is unset (a developer's ``pytest`` run).
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    folder = os.environ.get("KGBUILD_TEST_TIMINGS")
    if not folder:
        yield
        return
    wall0, cpu0 = time.monotonic(), _cpu_s()
    yield
    row = {
        "test": item.nodeid,
        "wall_s": round(time.monotonic() - wall0, 3),
        "cpu_s": round(_cpu_s() - cpu0, 3),
        "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"),
    }
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    with (path / f"{row['worker']}-{os.getpid()}.jsonl").open("a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")
