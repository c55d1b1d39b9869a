"""The shared HTTP client against a real loopback server: retries, waits, limits, cache, secrets."""

from __future__ import annotations

import itertools
import json
import logging
import socket
import threading
import time

import pytest

from kgbuild.errors import SourceError
from kgbuild.retry import parse_retry_after
from kgbuild.sources.http import HttpClient, RateLimiter
from tests.support.eutils_server import FakeNCBI, serve

SECRET = "S3CRET-api-key-0123456789"


def client(fake: FakeNCBI, **kw) -> HttpClient:
    kw.setdefault("rate_per_s", 200)
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("timeout_s", 5)
    return HttpClient(fake.url, **kw)


def max_in_window(times: list[float], window: float = 1.0) -> int:
    """The most request starts any closed ``window``-second interval holds."""
    times = sorted(times)
    return max(
        (sum(1 for u in times[i:] if u - t <= window) for i, t in enumerate(times)), default=0
    )


def parse_json(body: bytes) -> None:
    json.loads(body)


def test_get_and_post_send_fields_client_params_and_user_agent():
    with serve(FakeNCBI()) as fake:
        http = client(fake, params={"tool": "kgbuild", "email": "a@b.org"}, user_agent="kgbuild-t")
        assert json.loads(http.get("echo", {"q": "x"})) == {
            "tool": "kgbuild",
            "email": "a@b.org",
            "q": "x",
        }
        assert json.loads(http.post("echo", {"id": "1,2,3"}))["id"] == "1,2,3"
    assert [r["method"] for r in fake.requests] == ["GET", "POST"]
    assert fake.requests[0]["headers"]["User-Agent"] == "kgbuild-t"
    assert http.counters == {"requests": 2, "retries": 0, "cache_hits": 0, "failed": 0}


def test_transient_statuses_are_retried_with_backoff():
    with serve(FakeNCBI(script=[("status", 500), ("status", 503), ("status", 429)])) as fake:
        http = client(fake, backoff_s=0.05)
        assert json.loads(http.get("echo", {"q": "1"})) == {"q": "1"}
    times = [r["t"] for r in fake.requests]
    assert http.counters["requests"] == 4 and http.counters["retries"] == 3
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps[0] >= 0.045 and gaps[1] >= 0.095 and gaps[2] >= 0.19  # 0.05, 0.1, 0.2


@pytest.mark.slow  # waits out real rate limits
def test_retry_after_is_honoured_and_capped():
    with serve(FakeNCBI(script=[("status", 429, 1)])) as fake:
        http = client(fake)
        http.get("echo")
        t = [r["t"] for r in fake.requests]
        assert t[1] - t[0] >= 0.95  # waited the server's Retry-After, not the 0.01 s backoff
    with serve(FakeNCBI(script=[("status", 503, 120)])) as fake:
        http = client(fake, backoff_cap_s=0.3)
        http.get("echo")
        t = [r["t"] for r in fake.requests]
        # Retry-After: 120 capped at 0.3 s. The bound is a margin, not a speed: waiting the
        # server's 120 s would exceed it on any machine, however loaded.
        assert len(t) == 2 and t[1] - t[0] < 30
    assert parse_retry_after("2.5") == 2.5 and parse_retry_after("soon") is None
    assert 0 <= parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") < 0.001  # a date in the past


def test_permanent_4xx_fails_at_once_with_path_and_reason():
    with serve(FakeNCBI()) as fake:
        http = client(fake)
        with pytest.raises(SourceError) as err:
            http.get("status/400", {"q": "1"})
    assert len(fake.requests) == 1
    assert "status/400" in str(err.value) and "HTTP 400" in str(err.value)
    assert "unknown parameter" in str(err.value)  # the server's own reason
    assert http.counters["failed"] == 1 and http.counters["retries"] == 0


def test_retries_exhausted_raise_source_error():
    with serve(FakeNCBI(script=[("status", 502)] * 3)) as fake:
        http = client(fake, max_retries=2)
        with pytest.raises(SourceError, match=r"GET echo failed after 3 attempts: HTTP 502"):
            http.get("echo")
    assert len(fake.requests) == 3 and http.counters == {
        "requests": 3,
        "retries": 2,
        "cache_hits": 0,
        "failed": 1,
    }


def test_timeout_and_cut_connection_are_retried():
    with serve(FakeNCBI(script=[("sleep", 1.5), ("cut",)])) as fake:
        http = client(fake, timeout_s=0.3)
        assert json.loads(http.get("echo", {"q": "2"}, validate=parse_json)) == {"q": "2"}
    assert http.counters["requests"] == 3 and http.counters["retries"] == 2


def test_malformed_body_is_retried_then_reported():
    with serve(FakeNCBI(script=[("truncate",), ("garbage",)])) as fake:
        http = client(fake)
        assert json.loads(http.get("echo", {"q": "long enough to cut"}, validate=parse_json))
        assert http.counters["retries"] == 2
    with serve(FakeNCBI(script=[("truncate",)] * 2)) as fake:
        http = client(fake, max_retries=1)
        with pytest.raises(SourceError, match=r"echo failed after 2 attempts: malformed body"):
            http.get("echo", {"q": "long enough to cut"}, validate=parse_json)


@pytest.mark.slow  # waits out real rate limits
def test_concurrent_threads_share_one_rate_limit():
    with serve(FakeNCBI()) as fake:
        http = client(fake, rate_per_s=5)
        workers = [
            threading.Thread(target=lambda: [http.get("echo") for _ in range(4)]) for _ in range(3)
        ]
        started = time.monotonic()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        elapsed = time.monotonic() - started
    assert len(fake.requests) == 12 and len(http.limiter.starts) == 12
    assert max_in_window(http.limiter.starts) <= 5  # the client's own record of starts
    assert max_in_window([r["t"] for r in fake.requests], 0.99) <= 5  # as the server saw them
    assert elapsed >= 2.0  # 12 starts at <= 5 per second need more than two seconds


@pytest.mark.slow  # waits out real rate limits
def test_rate_limiter_never_lets_a_window_hold_more_than_the_rate():
    limiter = RateLimiter(3)
    for _ in range(7):
        limiter.wait()
    assert max_in_window(limiter.starts) == 3
    assert all(b - a >= 1 / 3 - 1e-3 for a, b in itertools.pairwise(limiter.starts))


def test_disk_cache_rerun_sends_nothing_and_holds_no_secret(tmp_path):
    cache = tmp_path / "cache"
    with serve(FakeNCBI()) as fake:
        first = client(fake, cache_dir=cache, params={"api_key": SECRET, "email": "me@x.org"})
        body = first.get("echo", {"q": "1", "token": "CALL-SECRET"})
        first.post("echo", {"id": "1,2"})
        assert fake.requests[0]["fields"]["api_key"] == SECRET  # it was sent...
        assert json.loads(body)["api_key"] == "***"  # ...and its echo is masked
    with serve(FakeNCBI()) as fake:  # ...a re-run, even with another key, hits the cache
        again = client(fake, cache_dir=cache, params={"api_key": "other-key"})
        assert again.get("echo", {"q": "1", "token": "ANOTHER"}) == body
        again.post("echo", {"id": "1,2"})
        assert fake.requests == [] and again.counters["cache_hits"] == 2
        again.get("echo", {"q": "2"})  # a different request is not a hit
        assert len(fake.requests) == 1
    stored = b"".join(p.read_bytes() for p in cache.rglob("*") if p.suffix == ".json")
    assert stored and b"me@x.org" not in stored and b"CALL-SECRET" not in stored
    assert SECRET.encode() not in stored
    bodies = b"".join(p.read_bytes() for p in cache.rglob("*.body"))
    assert SECRET.encode() not in bodies and b'"api_key": "***"' in bodies
    names = " ".join(str(p) for p in cache.rglob("*"))
    assert SECRET not in names and "CALL-SECRET" not in names


def test_secrets_never_reach_errors_or_logs(caplog):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: connections are refused
    http = HttpClient(
        f"http://127.0.0.1:{port}",
        rate_per_s=100,
        max_retries=1,
        backoff_s=0.01,
        params={"api_key": SECRET},
    )
    with caplog.at_level(logging.DEBUG), pytest.raises(SourceError) as err:
        http.get("esearch.fcgi", {"term": "tau"})
    assert "ConnectionError" in str(err.value) and "esearch.fcgi" in str(err.value)
    assert SECRET not in str(err.value) and SECRET not in caplog.text
    assert "retrying" in caplog.text  # the retry was logged, masked
    with serve(FakeNCBI(script=[("status", 429, 0)] * 2)) as fake:
        limited = client(fake, max_retries=1, params={"api_key": SECRET})
        with caplog.at_level(logging.DEBUG), pytest.raises(SourceError) as err:
            limited.get("echo")
    assert "API rate limit exceeded" in str(err.value) and SECRET not in caplog.text
