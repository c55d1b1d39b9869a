"""The LLM client against a real loopback OpenAI-compatible server."""

import json
import sqlite3

import pytest

from kgbuild.llm.cache import ResponseCache, cache_key, endpoint_id
from kgbuild.llm.client import LLMClient, LLMError, LLMRequest, LLMSettings
from tests.support.scripted_llm_server import ScriptedLLM, serve

SECRET = "sk-test-SECRET-do-not-store"


def req(text="hello world", tag="1"):
    return LLMRequest([{"role": "user", "content": text}], prompt_version="test/1", tag=tag)


def client(url, tmp_path, **kw):
    settings = LLMSettings(
        model="m", base_url=url, api_key=SECRET, prices={"m": (1.0, 2.0)}, backoff_s=0.05, **kw
    )
    return LLMClient(settings, ResponseCache(tmp_path / "cache.sqlite"))


def test_cache_makes_a_rerun_free_and_never_stores_the_key(tmp_path):
    llm = ScriptedLLM(default=("ok", "A binds B"))
    with serve(llm) as url:
        c = client(url, tmp_path)
        (first,) = c.complete_many([req()])
        assert first.content == "A binds B" and not first.cached and first.attempts == 1
        assert first.prompt_tokens == 2 and first.completion_tokens == 3
        assert first.cost_usd == pytest.approx((2 * 1.0 + 3 * 2.0) / 1e6)
        again = client(url, tmp_path)  # a new process would open the same cache file
        (second,) = again.complete_many([req()])
    assert second.cached and second.content == "A binds B" and len(llm.requests) == 1
    assert again.usage["calls"] == 0 and again.usage["cache_hits"] == 1
    assert llm.requests[0]["headers"]["authorization"] == f"Bearer {SECRET}"
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes()
    assert "SECRET" not in repr(c.settings) and "api_key" not in c.settings.public()


@pytest.mark.slow  # waits out real retry backoffs
def test_429_honours_retry_after(tmp_path):
    llm = ScriptedLLM([("status", 429, 1)], default=("ok", "done"))
    with serve(llm) as url:
        (res,) = client(url, tmp_path).complete_many([req()])
    assert res.content == "done" and res.attempts == 2
    gap = llm.requests[1]["t"] - llm.requests[0]["t"]
    assert gap >= 0.95  # waited for Retry-After (1 s), not the 0.05 s backoff


@pytest.mark.slow  # waits out real retry backoffs
def test_5xx_timeouts_and_garbage_are_retried(tmp_path):
    llm = ScriptedLLM(
        [("status", 500, None), ("sleep", 1.5, "late"), ("garbage",), ("status", 503, None)],
        default=("ok", "finally"),
    )
    with serve(llm) as url:
        c = client(url, tmp_path, timeout_s=0.5)
        (res,) = c.complete_many([req()])
    assert res.content == "finally" and res.attempts == 5
    assert c.usage["retries"] == 4


def test_retries_are_capped_and_failure_says_why(tmp_path):
    llm = ScriptedLLM(default=("status", 500, None))
    with serve(llm) as url:
        c = client(url, tmp_path, max_retries=2)
        (res,) = c.complete_many([req()])
    assert isinstance(res, LLMError) and "after 3 attempts: HTTP 500" in str(res)
    assert len(llm.requests) == 3


def test_permanent_errors_are_not_retried(tmp_path):
    llm = ScriptedLLM(default=("status", 401, None))
    with serve(llm) as url:
        (res,) = client(url, tmp_path).complete_many([req()])
    assert isinstance(res, LLMError) and "HTTP 401" in str(res) and len(llm.requests) == 1


def test_concurrency_is_bounded_and_results_keep_order(tmp_path):
    llm = ScriptedLLM(default=("sleep", 0.2, "ok"))
    with serve(llm) as url:
        c = client(url, tmp_path, concurrency=2)
        results = c.complete_many([req(f"doc {i}", tag=str(i)) for i in range(6)])
    assert [r.tag for r in results] == [str(i) for i in range(6)]
    assert llm.max_in_flight == 2


def test_settings_from_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("KGBUILD_LLM_MODEL", "smollm2")
    s = LLMSettings.from_env(concurrency=3)
    assert (s.api_key, s.base_url, s.model, s.concurrency) == (
        SECRET,
        "http://127.0.0.1:9/v1",
        "smollm2",
        3,
    )
    assert SECRET not in repr(s) and SECRET not in str(s.public())


def test_structured_output_degrades_json_schema_then_json_object_then_text(tmp_path):
    # llama.cpp's server answers json_schema with a 500 naming response_format; some endpoints
    # take no response_format at all. Each refusal moves to the next dialect, not a retry.
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    llm = ScriptedLLM(
        [
            ("status", 500, None, "response_format.type: Input should be 'text' or 'json_object'"),
            ("status", 400, None, "response_format is not supported"),
        ],
        default=("ok", '{"a": 1}'),
    )
    with serve(llm) as url:
        c = client(url, tmp_path)
        (res,) = c.complete_many([LLMRequest([{"role": "user", "content": "q"}], "t/1", fmt)])
        (later,) = c.complete_many([LLMRequest([{"role": "user", "content": "r"}], "t/1", fmt)])
    sent = [r["body"].get("response_format") for r in llm.requests]
    assert sent == [fmt, {"type": "json_object", "schema": {"type": "object"}}, None, None]
    assert res.content == later.content == '{"a": 1}' and c.usage["format_fallbacks"] == 2
    assert c.usage["retries"] == 0


def test_answers_are_cached_under_the_request_as_asked(tmp_path):
    """After a dialect fallback (llama.cpp), a fresh client — and ``--estimate`` — finds the
    answer before it has learnt the fallback: the key is the request as asked."""
    fmt = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    llm = ScriptedLLM(
        [("status", 500, None, "response_format.type: Input should be 'text' or 'json_object'")],
        default=("ok", '{"a": 1}'),
    )
    ask = LLMRequest([{"role": "user", "content": "q"}], "t/1", fmt)
    with serve(llm) as url:
        client(url, tmp_path).complete_many([ask])
        fresh = client(url, tmp_path)
        assert fresh.cached(ask) is not None
        (again,) = fresh.complete_many([ask])
    assert again.cached and len(llm.requests) == 2


def test_another_endpoint_serving_the_same_model_is_asked_again(tmp_path):
    """One cache, one model name, two endpoints: each answers for itself (and
    ``--estimate`` counts nothing as cached for the second); the same endpoint spelled with a
    trailing slash finds its answer. A re-used answer is counted as a cache hit."""
    a, b = ScriptedLLM(default=("ok", "A says")), ScriptedLLM(default=("ok", "B says"))
    with serve(a) as url_a, serve(b) as url_b:
        (first,) = client(url_a, tmp_path).complete_many([req()])
        on_b = client(url_b, tmp_path)
        assert on_b.cached(req()) is None
        (second,) = on_b.complete_many([req()])
        on_a = client(url_a + "/", tmp_path)
        (again,) = on_a.complete_many([req()])
    assert (first.content, second.content) == ("A says", "B says") and len(b.requests) == 1
    assert not second.cached and (on_b.usage["calls"], on_b.usage["cache_hits"]) == (1, 0)
    assert again.cached and again.content == "A says" and len(a.requests) == 1
    assert (on_a.usage["calls"], on_a.usage["cache_hits"]) == (0, 1)
    with sqlite3.connect(tmp_path / "cache.sqlite") as con:
        stored = sorted(r[0] for r in con.execute("SELECT endpoint FROM responses"))
    assert stored == sorted([url_a, url_b])  # loopback URLs name their port already


def test_the_cache_key_holds_everything_that_changes_an_answer():
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    base = {
        "endpoint": endpoint_id("http://127.0.0.1:8000/v1"),
        "model": "m",
        "prompt_version": "p/1",
        "messages": [{"role": "user", "content": "q"}],
        "params": {"temperature": 0.0, "max_tokens": 10, "response_format": schema},
    }
    other_schema = {**schema, "json_schema": {"name": "x", "schema": {"type": "array"}}}
    changes = [
        {"endpoint": endpoint_id("http://127.0.0.1:8001/v1")},
        {"endpoint": endpoint_id("http://127.0.0.2:8000/v1")},
        {"endpoint": endpoint_id("http://127.0.0.1:8000/v2")},
        {"model": "m2"},
        {"prompt_version": "p/2"},
        {"messages": [{"role": "user", "content": "q?"}]},
        {"messages": [{"role": "system", "content": "q"}]},
        {"params": {**base["params"], "temperature": 0.5}},
        {"params": {**base["params"], "max_tokens": 11}},
        {"params": {**base["params"], "response_format": other_schema}},
    ]
    keys = {cache_key(**base)} | {cache_key(**{**base, **c}) for c in changes}
    assert len(keys) == len(changes) + 1
    # one endpoint, however it is spelled; never its credentials
    assert endpoint_id("HTTP://LocalHost:80/v1/") == endpoint_id("http://localhost/v1")
    assert endpoint_id("https://user:pw@Host/v1?api-key=s#f") == "https://host:443/v1"
    assert endpoint_id(None) == "https://api.openai.com:443/v1"


def test_rows_of_an_older_cache_are_kept_but_never_matched(tmp_path):
    path = tmp_path / "cache.sqlite"
    with sqlite3.connect(path) as con:  # the table as it was before the endpoint was a key
        con.execute(
            "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT, prompt_version TEXT, "
            "content TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, created_at TEXT)"
        )
    llm = ScriptedLLM(default=("ok", "fresh"))
    with serve(llm) as url:
        (res,) = client(url, tmp_path).complete_many([req()])
    assert res.content == "fresh" and len(llm.requests) == 1
    with sqlite3.connect(path) as con:
        assert con.execute("SELECT endpoint FROM responses").fetchall() == [(url,)]


@pytest.mark.slow  # waits out real retry backoffs
def test_malformed_bodies_are_retried_but_our_own_bugs_fail_loud(tmp_path, monkeypatch):
    from kgbuild.llm import client as client_module

    shapes = [
        b'{"choices": []}',
        b'{"id": "x"}',
        b"[1, 2]",
        b'{"choices": [{"index": 0, "message": null}]}',
        b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": 5}}]}',
    ]
    llm = ScriptedLLM([("raw", body) for body in shapes], default=("ok", "fine"))
    with serve(llm) as url:
        (res,) = client(url, tmp_path, max_retries=6).complete_many([req()])
    assert res.content == "fine" and res.attempts == 6  # each wrong shape retried

    def buggy(resp):
        raise TypeError("a bug in our own parsing")

    monkeypatch.setattr(client_module, "read_completion", buggy)
    llm = ScriptedLLM(default=("ok", "fine"))
    with serve(llm) as url, pytest.raises(TypeError, match="our own parsing"):
        client(url, tmp_path / "other").complete_many([req()])
    assert len(llm.requests) == 1  # not retried as a "malformed response"


def test_an_answer_cut_off_well_below_max_tokens_is_malformed_not_partial(tmp_path):
    """finish_reason "length" with a fraction of the budget used is a broken body (a proxy cut
    the stream): retried, never cached as the model's answer; a genuine cut-off is kept."""

    def cut(content, tokens):
        return json.dumps(
            {
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "length",
                        "message": {"role": "assistant", "content": content},
                    }
                ],
                "usage": {"prompt_tokens": 2, "completion_tokens": tokens},
            }
        ).encode()

    llm = ScriptedLLM([("raw", cut("half an", 2))], default=("ok", "the whole answer"))
    with serve(llm) as url:
        (res,) = client(url, tmp_path, max_tokens=100).complete_many([req()])
    assert res.content == "the whole answer" and res.attempts == 2 and not res.truncated
    llm = ScriptedLLM(default=("raw", cut("a long answer that used it all", 100)))
    with serve(llm) as url:
        (res,) = client(url, tmp_path / "b", max_tokens=100).complete_many([req()])
    assert res.truncated and res.content.startswith("a long answer")  # kept: genuine
