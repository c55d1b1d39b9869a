"""Opening as-of years in a running server: ``/health`` keeps answering, a year is loaded once
however many ask for it, and only a bounded number of years load at once.

A KG of six yearly snapshots (2011, 2013–2017: 2012 has none of its own) is published through
the real snapshot writer, and served by a real uvicorn process on 127.0.0.1 running
``create_app`` as ``kgbuild serve`` does. The one thing changed in that process: opening a
snapshot's index first sleeps :data:`LOAD_S`, standing in for a snapshot of the DALK build's
size (1.5–3 s per year on an idle 2-core machine, 7 s on a busy one; this KG's open in
milliseconds), and logs each open to a file — the count of loads is read from there, not from
what the server says about itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import ROOT
from tests.support.serve_process import free_port, probe_health, stop_server, wait_healthy
from tests.support.synthetic_kg import publish_synthetic

pytestmark = [pytest.mark.slow, pytest.mark.serial]  # server processes; /health latency

YEARS = (2011, 2013, 2014, 2015, 2016, 2017)
#: Seconds each snapshot open takes in the served process (see the module docstring).
LOAD_S = 2.5
#: The bound this suite holds ``/health`` to, at any time (probes every 50 ms).
HEALTH_S = 1.0
NODE = "MESH:D1"  # in the first snapshot, so in every one

SERVER = """
import json, sys, threading, time
import uvicorn
from kgbuild.query import engine as engine_module
from kgbuild.serve.connections import GuardedConfig
from kgbuild.query.engine import QueryEngine
from kgbuild.serve.gate import Limit
from kgbuild.serve.server import create_app

wh, index_dir, port, log, load_s = sys.argv[1:6]
running, queued, wait_s = int(sys.argv[6]), int(sys.argv[7]), float(sys.argv[8])
engine = QueryEngine(wh, "latest", index_dir, embeddings=False, background_reload=True)
real_open, lock = engine_module.open_index, threading.Lock()

def slow_open(wh_, sid, *args, **kwargs):
    start = time.time()
    time.sleep(float(load_s))
    index = real_open(wh_, sid, *args, **kwargs)
    with lock, open(log, "a") as f:
        f.write(json.dumps([sid, start, time.time()]) + "\\n")
    return index

engine_module.open_index = slow_open  # the served snapshot is open: only as-of years now
app = create_app(engine, None, {"years": Limit(running, queued, wait_s)})
config = GuardedConfig(app, host="127.0.0.1", port=int(port), log_level="warning",
                       access_log=False)
uvicorn.Server(config).run(sockets=[config.listening_socket()])
"""


@pytest.fixture(scope="module")
def years_kg(tmp_path_factory):
    root = tmp_path_factory.mktemp("years") / "wh"
    ids = publish_synthetic(root, 600, 200, kg="syn", years=YEARS)
    return root, dict(zip(YEARS, ids, strict=True))


class Served:
    def __init__(self, tmp, root, limit: tuple[int, int, float]) -> None:
        self.log = tmp / "loads.jsonl"
        self.err = (tmp / "server.err").open("w")
        port = free_port()
        args = [str(root), str(tmp / "index"), str(port), str(self.log), str(LOAD_S)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        env.pop("OPENAI_BASE_URL", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, *args, *map(str, limit)],
            env=env, stdout=subprocess.DEVNULL, stderr=self.err,
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{port}"
        if wait_healthy(self.proc, self.url, 120, 0.2) is not None:
            self.stop()
            pytest.fail(f"server did not start: {(tmp / 'server.err').read_text()[-2000:]}")

    def loads(self) -> list[tuple[str, float, float]]:
        if not self.log.exists():
            return []
        return [tuple(json.loads(line)) for line in self.log.read_text().splitlines()]

    def stop(self) -> None:
        stop_server(self.proc)
        self.err.close()


@pytest.fixture
def serve(years_kg, tmp_path):
    started: list[Served] = []

    def start(running: int, queued: int, wait_s: float = 30.0) -> Served:
        started.append(Served(tmp_path, years_kg[0], (running, queued, wait_s)))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def _get(url: str, path: str, **params) -> tuple[int, str | None, float, str]:
    t0 = time.perf_counter()
    r = httpx.get(f"{url}{path}", params=params, timeout=120)
    return r.status_code, r.headers.get("retry-after"), time.perf_counter() - t0, r.text


def _while_probed(url: str, work):
    """``work()`` while ``/health`` is probed every 50 ms; (its result, probe latencies,
    probe errors)."""
    stop = threading.Event()
    watcher, health, errors = probe_health(url, stop)
    time.sleep(0.3)
    try:
        result = work()
        time.sleep(0.3)
    finally:
        stop.set()
        watcher.join()
    return result, health, errors


def test_health_answers_while_every_year_opens_at_once(serve):
    """Five cold years requested at once (all admitted, two loading at a time): every page is
    served, and ``/health`` — and the cheap routes — answer within a second throughout."""
    s = serve(running=2, queued=3)
    cheap: list[float] = []

    def work():
        with ThreadPoolExecutor(len(YEARS)) as pool:
            pages = [pool.submit(_get, s.url, f"/api/entity/{NODE}", as_of=str(y),
                                 per_relation="500") for y in YEARS[:-1]]  # fmt: skip
            time.sleep(LOAD_S / 2)  # the first years are loading now
            for path in ("/api/years", f"/api/entity/{NODE}"):  # no year: nothing to load
                status, _, took, _ = _get(s.url, path)
                assert status == 200
                cheap.append(took)
            return [p.result() for p in pages]

    pages, health, errors = _while_probed(s.url, work)
    assert [p[0] for p in pages] == [200] * 5, [p[3][:200] for p in pages]
    assert not errors and len(health) >= 20
    assert max(health) <= HEALTH_S, f"/health took {max(health):.2f} s while years opened"
    assert max(cheap) <= HEALTH_S, cheap  # never queued behind a loading year
    assert len(s.loads()) == 5
    h = httpx.get(f"{s.url}/health").json()["load"]["years"]
    assert h["open"] == 5 and h["loads"] == 5 and h["loading"] == 0 and h["rejected"] == 0


def test_concurrent_first_requests_for_a_snapshot_share_one_load(serve, years_kg):
    """Eight first requests for 2011's snapshot at once — explorer pages of 2011, and
    retrievals as of 2012, a year that has no snapshot of its own and so reads 2011's — load
    it once; all are answered, and ``/health`` stays within a second meanwhile."""
    s = serve(running=2, queued=3)
    question = {"question": "Is vuli feta related to anything?", "embed": "off", "as_of": 2012}

    def retrieve():
        t0 = time.perf_counter()
        r = httpx.post(f"{s.url}/retrieve", json=question, timeout=120)
        return r.status_code, r.headers.get("retry-after"), time.perf_counter() - t0, r.text

    def work():
        with ThreadPoolExecutor(8) as pool:
            calls = [pool.submit(_get, s.url, f"/api/entity/{NODE}", as_of="2011")
                     for _ in range(3)]  # fmt: skip
            calls += [pool.submit(_get, s.url, f"/api/neighbourhood/{NODE}", as_of="2011")
                      for _ in range(3)]  # fmt: skip
            calls += [pool.submit(retrieve) for _ in range(2)]
            return [c.result() for c in calls]

    results, health, errors = _while_probed(s.url, work)
    assert [r[0] for r in results] == [200] * 8, [r[3][:200] for r in results]
    assert json.loads(results[-1][3])["snapshot"]["as_of_year"] == 2011
    assert [sid for sid, *_ in s.loads()] == [years_kg[1][2011]]  # one load, of 2011's
    assert not errors and max(health) <= HEALTH_S, max(health)
    assert httpx.get(f"{s.url}/health").json()["load"]["years"]["loads"] == 1


def test_too_many_cold_years_are_turned_away_at_once_with_retry_after(serve):
    """One year loads at a time and one more may wait: of five cold years asked for at once,
    three get 503 with ``Retry-After`` at once, two are served, no two loads overlap, and a
    turned-away year asked again later is served."""
    s = serve(running=1, queued=1)

    def work():
        with ThreadPoolExecutor(5) as pool:
            return list(pool.map(lambda y: _get(s.url, f"/api/neighbourhood/{NODE}",
                                                as_of=str(y)), YEARS[:5]))  # fmt: skip

    results, health, errors = _while_probed(s.url, work)
    busy = [r for r in results if r[0] == 503]
    assert sorted(r[0] for r in results) == [200, 200, 503, 503, 503], results
    assert all(r[1] == "1" and "server busy" in r[3] for r in busy)
    assert max(r[2] for r in busy) < HEALTH_S  # at once, not after a wait
    spans = sorted((a, b) for _, a, b in s.loads())
    assert len(spans) == 2 and spans[0][1] <= spans[1][0], spans  # one at a time
    assert not errors and max(health) <= HEALTH_S, max(health)
    h = httpx.get(f"{s.url}/health").json()["load"]["years"]
    assert h["rejected"] == 3 and h["open"] == 2
    turned_away = YEARS[[r[0] for r in results].index(503)]
    assert _get(s.url, f"/api/neighbourhood/{NODE}", as_of=str(turned_away))[0] == 200


def test_a_year_that_takes_too_long_is_a_503_and_its_load_goes_on(serve):
    """A request that waited ``wait_s`` for its year gets 503 with ``Retry-After``; the load
    is not abandoned, so the retry finds the year open."""
    s = serve(running=1, queued=1, wait_s=LOAD_S / 5)
    first = _get(s.url, f"/api/entity/{NODE}", as_of="2013")
    assert first[0] == 503 and first[1] == "1" and "still being opened" in first[3]
    time.sleep(LOAD_S + 1)
    assert _get(s.url, f"/api/entity/{NODE}", as_of="2013")[0] == 200
    assert len(s.loads()) == 1


def test_bad_years_are_answered_without_a_load(serve):
    """A year outside the snapshots is refused as before (explorer: 422 naming the years;
    ``/retrieve``: 400) and loads nothing."""
    s = serve(running=1, queued=0)
    for _ in range(2):  # the second time from the lineage in memory
        r = _get(s.url, f"/api/entity/{NODE}", as_of="1999")
        assert r[0] == 422 and json.loads(r[3])["years"] == list(YEARS)
        bad = httpx.post(f"{s.url}/retrieve", json={"question": "Is vuli feta?", "as_of": 2030})
        assert bad.status_code == 400 and "the years there are: 2011, 2013" in bad.text
    assert s.loads() == []
