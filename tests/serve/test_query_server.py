"""``kgbuild serve`` as a user runs it: a real uvicorn process on 127.0.0.1, a real HTTP client,
hostile input, concurrent clients, and a snapshot published while it serves."""

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES
from tests.support.query_kg import build_query_kg, publish_year
from tests.support.replay_qa_server import serve_replay_qa
from tests.support.serve_process import start_serve

pytestmark = pytest.mark.slow  # kgbuild serve processes

AD_Q = "Which gene is the main genetic risk factor of Alzheimer's disease?"
CHOICES = ["APOE", "ACHE", "dementia", "donepezil"]


def _serve(wh, extra_env=None, *args):
    return start_serve(wh, "--no-embed", *args, extra_env=extra_env, timeout_s=60)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    wh = tmp_path_factory.mktemp("srv") / "wh"
    infos = build_query_kg(wh)
    proc, url = _serve(wh)
    try:
        yield wh, url, infos
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_health_retrieve_and_entities(served):
    _, url, infos = served
    h = httpx.get(f"{url}/health").json()
    assert h["snapshot"] == infos[1].snapshot_id and h["status"] == "ok" and h["llm"] is False
    body = {"question": AD_Q, "choices": CHOICES, "k": 3, "timings": False}
    r = httpx.post(f"{url}/retrieve", json=body)
    assert r.status_code == 200
    d = r.json()
    assert d["triples"][0]["head_id"] == "NCBIGene:348" and len(d["triples"]) == 3
    assert d["triples"][0]["evidence"][0]["pmid"] == "1001" and d["kg_answer"] == 0
    assert httpx.post(f"{url}/retrieve", json=body).json() == d  # deterministic
    filtered = {**body, "filters": {"relations": ["treats"], "as_of_year": 2020}}
    assert {
        t["relation"] for t in httpx.post(f"{url}/retrieve", json=filtered).json()["triples"]
    } == {"treats"}
    ents = httpx.get(f"{url}/entities", params={"q": "apolipo"}).json()["entities"]
    assert ents[0]["id"] == "NCBIGene:348" and ents[0]["match"] == "prefix"
    assert httpx.get(f"{url}/entities", params={"q": "AD"}).json()["entities"][0]["id"] == (
        "MESH:D000544"
    )
    fuzzy = httpx.get(f"{url}/entities", params={"q": "alzheimer desease", "type": "Disease"})
    assert fuzzy.json()["entities"][0]["id"] == "MESH:D000544"
    none = httpx.get(f"{url}/entities", params={"q": "xyzzyq"})  # no match: 200, empty list
    assert none.status_code == 200 and none.json()["entities"] == []


@pytest.mark.parametrize(
    ("method", "path", "payload", "status", "says"),
    [
        ("post", "/retrieve", {"question": "  "}, 400, "empty"),
        ("post", "/retrieve", {"question": "x" * 100_000}, 413, "too large"),
        ("post", "/retrieve", {"question": "What is the capital city of France?"}, 422,
         "no entity of this snapshot"),
        ("post", "/retrieve", {"question": AD_Q, "k": 0}, 422, "invalid request"),
        ("post", "/retrieve", {"question": AD_Q, "choices": ["a"] * 11}, 422, "invalid"),
        ("post", "/retrieve", {"question": AD_Q, "sql": "DROP TABLE x"}, 422, "invalid"),
        ("post", "/retrieve", {"question": AD_Q, "filters": {"min_support": -1}}, 422, "invalid"),
        ("post", "/ask", {"question": AD_Q}, 503, "no LLM endpoint"),
        ("get", "/entities", None, 422, "invalid"),
        ("get", "/nope", None, 404, ""),
    ],
)  # fmt: skip
def test_bad_input_gets_a_clear_4xx_without_traces(served, method, path, payload, status, says):
    _, url, _ = served
    r = httpx.post(f"{url}{path}", json=payload) if method == "post" else httpx.get(f"{url}{path}")
    assert r.status_code == status
    assert says in r.text and "Traceback" not in r.text and 'File "' not in r.text
    if "no entity" in says:
        assert "capital city" in " ".join(r.json()["unlinked"])
        assert '"France"' in r.json()["reason"]  # which words no abstract of it writes


def test_malformed_and_streamed_oversized_bodies(served):
    _, url, _ = served
    bad = httpx.post(
        f"{url}/retrieve", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 422 and "Traceback" not in bad.text

    def chunks():  # no Content-Length: the server counts as it reads
        for _ in range(100):
            yield b" " * 1024

    big = httpx.post(
        f"{url}/retrieve", content=chunks(), headers={"content-type": "application/json"}
    )
    assert big.status_code == 413


def test_concurrent_clients_and_a_snapshot_published_while_serving(served):
    wh, url, infos = served
    questions = [(AD_Q, CHOICES), ("How is ACHE related to dementia?", []),
                 ("Does donepezil treat Alzheimer disease?", ["ACHE", "APP"])]  # fmt: skip
    errors: list[str] = []
    seen: dict[tuple[int, str], set[str]] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def client(n: int) -> int:
        done = 0
        with httpx.Client(base_url=url, timeout=30) as c:
            while not stop.is_set() or done < 20:
                q, ch = questions[(n + done) % len(questions)]
                r = c.post("/retrieve", json={"question": q, "choices": ch, "timings": False})
                if r.status_code != 200:
                    errors.append(f"{r.status_code} {r.text[:200]}")
                else:
                    d = r.json()
                    with lock:
                        seen.setdefault(((n + done) % 3, d["snapshot"]["id"]), set()).add(
                            d["context"]
                        )
                done += 1
                if done >= 200:
                    break
        return done

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(client, n) for n in range(8)]
        time.sleep(0.5)
        w = Warehouse(wh).writer("toy", infos[1].snapshot_id)
        edge = (
            "MESH:D003704",
            "associates",
            "MESH:D008569",
            [("3001", 2021, "Dementia involves memory disorders.", 0.7)],
        )
        new = publish_year(w, 2021, [edge])
        deadline = time.monotonic() + 20
        while httpx.get(f"{url}/health").json()["snapshot"] != new.snapshot_id:
            assert time.monotonic() < deadline, "server did not pick up the new snapshot"
            time.sleep(0.2)
        stop.set()
        total = sum(f.result() for f in futures)
    assert not errors and total >= 160
    assert all(len(contexts) == 1 for contexts in seen.values())  # one answer per snapshot
    assert {sid for _, sid in seen} <= {infos[1].snapshot_id, new.snapshot_id}
    d = httpx.post(f"{url}/retrieve", json={"question": AD_Q, "choices": CHOICES}).json()
    assert d["snapshot"]["id"] == new.snapshot_id
    assert httpx.get(f"{url}/health").json()["reloads"] == 1


def test_ask_answers_with_cited_pmids_through_an_llm_endpoint(tmp_path):
    wh = tmp_path / "wh"
    build_query_kg(wh)
    with serve_replay_qa([FIXTURES / "query" / "adqa" / "medqa_toy.json"]) as (llm_url, qa):
        proc, url = _serve(wh, {"OPENAI_BASE_URL": llm_url, "KGBUILD_LLM_MODEL": "replay"})
        try:
            r = httpx.post(f"{url}/ask", json={"question": AD_Q, "choices": CHOICES}, timeout=60)
            assert r.status_code == 200, r.text
            d = r.json()
            assert d["answer"] == "A" and d["parsed"] and d["choice_text"] == "APOE"
            assert d["cited_pmids"] and not d["invalid_citations"]
            assert all(p in d["context"] for p in d["cited_pmids"])
            assert d["named_entities"]["question"][0] == "Alzheimer's disease"
            # entities, intent (the replay has no recorded reading: the rules' stands), rerank,
            # answer — one call each
            assert d["llm"]["calls"] == 4 and set(qa.stats()["tasks"].values()) == {1, 0}
            assert d["intent_reading"] == {"reading": None}
            again = httpx.post(
                f"{url}/ask", json={"question": AD_Q, "choices": CHOICES}, timeout=60
            )
            assert again.json()["llm"]["cached"] == 4  # the warehouse's LLM cache answered
            assert json.loads(again.text)["answer"] == "A"
        finally:
            proc.terminate()
            proc.wait(timeout=30)
