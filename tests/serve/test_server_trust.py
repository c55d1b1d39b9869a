"""Which KG ``kgbuild serve`` serves, and how it holds up under load.

Real uvicorn processes on 127.0.0.1 and a real HTTP client: a server started on one KG keeps
serving it when another KG is built into the same warehouse; sixty heavy requests at once
(4,000-character questions, ``embed=all``) are bounded per kind and the overflow is turned away
with 503 + ``Retry-After`` while ``/health`` stays instant; every request field has a limit."""

import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from kgbuild.errors import StoreError
from kgbuild.store.snapshots import Warehouse
from tests.conftest import ROOT
from tests.support.query_kg import build_query_kg, publish_year
from tests.support.serve_process import probe_health, start_serve

AD_Q = "Which gene is the main genetic risk factor of Alzheimer's disease?"


def _serve(wh, *args):
    """``kgbuild serve`` on a free loopback port; (process, base url) once /health answers."""
    return start_serve(wh, *args)


def _stop(proc):
    proc.terminate()
    proc.wait(timeout=30)
    proc.stderr.close()


def _kgbuild(wh, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip


# ---- item 9: what a reference names ---------------------------------------------------------
def test_blank_and_ambiguous_references_are_errors(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    toy = build_query_kg(wh.root, kg="toy")
    for ref in ("", "   ", "\t"):
        with pytest.raises(StoreError, match="empty snapshot reference"):
            wh.resolve(ref)
    assert wh.resolve("latest") == toy[1].snapshot_id  # one KG: latest is unambiguous
    other = build_query_kg(wh.root, kg="other")
    with pytest.raises(StoreError, match="several KGs") as exc:
        wh.resolve("latest")
    assert "other, toy" in str(exc.value)
    assert wh.resolve("toy@latest") == toy[1].snapshot_id
    assert wh.resolve("other@latest") == other[1].snapshot_id
    assert wh.resolve("toy@2019") == toy[0].snapshot_id
    with pytest.raises(StoreError, match="no snapshot of that KG"):
        wh.resolve("nope@latest")
    assert wh.pin("toy@2019") == "toy@2019" and wh.pin(toy[0].snapshot_id[:8]) == toy[0].snapshot_id

    blank = _kgbuild(wh.root, "stats", "")
    lines = [ln for ln in blank.stderr.splitlines() if ln.strip()]
    assert blank.returncode == 2 and len(lines) == 1 and "empty snapshot reference" in lines[0]
    two = _kgbuild(wh.root, "stats")
    assert two.returncode == 2 and "several KGs" in two.stderr and "other, toy" in two.stderr
    one = _kgbuild(wh.root, "stats", "--kg", "toy", "--json")
    assert one.returncode == 0, one.stderr
    assert [r["snapshot_id"] for r in json.loads(one.stdout)] == [i.snapshot_id for i in toy]


@pytest.mark.slow  # a kgbuild serve process
def test_a_server_keeps_serving_its_kg_when_another_is_built_beside_it(tmp_path):
    wh = tmp_path / "wh"
    toy = build_query_kg(wh, kg="toy")
    proc, url = _serve(wh, "--no-embed")  # the default reference: latest
    try:
        h = httpx.get(f"{url}/health").json()
        assert (h["kg"], h["snapshot"]) == ("toy", toy[1].snapshot_id)
        build_query_kg(wh, kg="other")  # a second KG, published after the server started
        deadline = time.monotonic() + 4  # the server looks at the catalog once a second
        while time.monotonic() < deadline:
            h = httpx.get(f"{url}/health").json()
            assert (h["kg"], h["snapshot"]) == ("toy", toy[1].snapshot_id), h
            time.sleep(0.2)
        r = httpx.post(f"{url}/retrieve", json={"question": AD_Q, "choices": ["APOE", "APP"]})
        assert r.status_code == 200 and r.json()["snapshot"]["id"] == toy[1].snapshot_id
        assert h["reference"] == "toy@latest"
        # it still follows its own KG: a newer toy snapshot is picked up
        edge = ("MESH:D003704", "associates", "MESH:D008569",
                [("3001", 2021, "Dementia involves memory disorders.", 0.7)])  # fmt: skip
        newer = publish_year(Warehouse(wh).writer("toy", toy[1].snapshot_id), 2021, [edge])
        deadline = time.monotonic() + 30
        while httpx.get(f"{url}/health").json()["snapshot"] != newer.snapshot_id:
            assert time.monotonic() < deadline, "the server did not follow its KG"
            time.sleep(0.2)
    finally:
        _stop(proc)


# ---- item 13: load and limits ---------------------------------------------------------------
@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """A server with the embedding fallback on (what makes ``embed=all`` heavy)."""
    wh = tmp_path_factory.mktemp("load") / "wh"
    build_query_kg(wh)
    proc, url = _serve(wh)
    if not httpx.get(f"{url}/health").json()["embedding"]:
        _stop(proc)
        pytest.skip("the bundled MiniLM model is not installed: embed=all would not be heavy")
    try:
        yield url
    finally:
        _stop(proc)


def _heavy(n: int) -> dict:
    """A question of ~4,000 characters whose words no dictionary knows: with ``embed=all``
    every phrase of it is encoded (about 150 per question, none seen before)."""
    rng = random.Random(n)
    words = ["".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(3))
             for _ in range(700)]  # fmt: skip
    question = f"Does APOE cause Alzheimer's disease through {' '.join(words)}"[:3990] + "?"
    choices = [" ".join(rng.sample(words, 6)) for _ in range(4)]
    return {"question": question, "choices": choices, "embed": "all", "k": 50, "hops": 3}


@pytest.mark.slow  # 60 heavy requests against a real server
@pytest.mark.serial  # the ratios below would also measure other tests' load on the 2 cores
def test_health_stays_instant_while_heavy_requests_are_bounded(loaded):
    """``/health`` is answered beside the heavy work, never behind it (before the gates it
    waited for the thread pool: p50 14 s under this load).

    The bounds are ratios to what one heavy request costs on the machine at hand, not
    milliseconds: a performance target is a benchmark's figure (``health_p99_ms_under_load``
    in ``bench/hostile_scenario.py``, ≤ 100 ms). On this shared 2-core machine the same server
    code gave p99 43-132 ms over 14 runs of this load, and a process that only sleeps 1 ms at a
    time, run beside it, stalled (27 ms) at the moment a probe took 95 ms: the machine's
    stalls land in any fixed bound."""
    url = loaded

    bodies = [_heavy(n) for n in range(60)]
    limits = httpx.Limits(max_connections=60, max_keepalive_connections=60)
    client = httpx.Client(base_url=url, timeout=300, limits=limits)

    def heavy(body: dict):
        t0 = time.perf_counter()
        r = client.post("/retrieve", json=body)
        return r.status_code, r.headers.get("retry-after"), r.text, time.perf_counter() - t0

    stop = threading.Event()
    watcher, health, health_errors = probe_health(url, stop)
    t0 = time.perf_counter()
    with client, ThreadPoolExecutor(60) as pool:
        results = list(pool.map(heavy, bodies))
    wall = time.perf_counter() - t0
    stop.set()
    watcher.join()
    q = statistics.quantiles(health, n=100)
    statuses = [s for s, *_ in results]
    served = min(r[3] for r in results if r[0] == 200)  # one heavy request, alone in its slot
    print(json.dumps({"health_n": len(health), "health_p50_ms": round(q[49] * 1000, 1),
                      "health_p99_ms": round(q[98] * 1000, 1),
                      "health_max_ms": round(max(health) * 1000, 1),
                      "fastest_served_s": round(served, 2), "load_wall_s": round(wall, 1),
                      "statuses": {s: statuses.count(s) for s in set(statuses)}}))  # fmt: skip
    assert not health_errors and len(health) >= 20
    # queued behind the heavy work, /health would take about as long as a heavy request
    assert q[49] <= served / 50, (
        f"/health p50 {q[49] * 1000:.0f} ms, a heavy request {served:.1f} s"
    )
    assert q[98] <= served / 5, f"/health p99 {q[98] * 1000:.0f} ms, a heavy request {served:.1f} s"
    busy = [r for r in results if r[0] == 503]
    assert busy and all(r[1] == "1" and "server busy" in r[2] for r in busy)
    assert min(r[3] for r in busy) < 2  # the overflow is turned away at once…
    from kgbuild.serve.gate import LIMITS

    assert max(r[3] for r in busy) < LIMITS["retrieve"].wait_s + 5  # …the queue after its wait
    assert set(statuses) <= {200, 503} and statuses.count(200) >= 2  # nothing crashed
    assert "Traceback" not in "".join(r[2] for r in results)
    h = httpx.get(f"{url}/health").json()
    assert h["status"] == "ok" and h["load"]["retrieve"]["rejected"] == len(busy)
    assert h["load"]["retrieve"]["running"] == 0 and h["load"]["retrieve"]["waiting"] == 0
    r = httpx.post(f"{url}/retrieve", json={"question": AD_Q, "choices": ["APOE"]}, timeout=60)
    assert r.status_code == 200


#: (method, path, an oversized or out-of-range payload, the field the 422 must name)
OVERSIZED = [
    ("post", "/retrieve", {"question": AD_Q, "filters": {"relations": ["x" * 10_000]}},
     "filters.relations.0"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"kinds": ["Gene" * 1000]}},
     "filters.kinds.0"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"relations": ["treats"] * 51}},
     "filters.relations"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"kinds": ["Gene"] * 21}},
     "filters.kinds"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"min_support": 10**12}},
     "filters.min_support"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"min_confidence": 2}},
     "filters.min_confidence"),
    ("post", "/retrieve", {"question": AD_Q, "filters": {"as_of_year": 10**12}},
     "filters.as_of_year"),
    ("post", "/retrieve", {"question": "x" * 4001}, "question"),
    ("post", "/retrieve", {"question": AD_Q, "choices": ["x" * 501]}, "choices.0"),
    ("post", "/retrieve", {"question": AD_Q, "choices": ["x"] * 11}, "choices"),
    ("post", "/retrieve", {"question": AD_Q, "k": 10**9}, "k"),
    ("post", "/retrieve", {"question": AD_Q, "hops": 4}, "hops"),
    ("post", "/retrieve", {"question": AD_Q, "token_budget": 10**9}, "token_budget"),
    ("post", "/retrieve", {"question": AD_Q, "embed": "everything"}, "embed"),
    ("get", "/entities", {"q": "x" * 201}, "q"),
    ("get", "/entities", {"q": "APOE", "limit": 10**6}, "limit"),
]  # fmt: skip


@pytest.mark.slow  # a kgbuild serve process
def test_every_request_field_is_bounded(loaded):
    url = loaded
    for method, path, payload, field in OVERSIZED:
        if method == "post":
            r = httpx.post(f"{url}{path}", json=payload, timeout=60)
        else:
            r = httpx.get(f"{url}{path}", params=payload, timeout=60)
        assert r.status_code == 422, (field, r.text[:300])
        d = r.json()
        assert d["error"] == "invalid request", d
        assert field in [x["field"] for x in d["details"]], (field, d)
