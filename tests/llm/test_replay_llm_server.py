"""The DALK replay server over real HTTP on 127.0.0.1: answers, decisions, usage and faults."""

import json
import math
import subprocess
import sys
import time

import openai
import pytest
import requests

from kgbuild.extract.prompts import load
from tests.conftest import ROOT, shared
from tests.support.replay_llm_server import (
    FAULT_KINDS,
    ReplayLLM,
    load_recordings,
    normalize,
    serve_llm,
    serve_replay,
)

ABSTRACT = (
    "Telmisartan  treats Alzheimer's disease\n in mice. APP regulates APOE, and TREM2 interacts "
    "with APOE. Amyloid-beta is a risk factor for cognitive decline."
)
TRIPLES = [
    ("telmisartan", "treats", "AD (Alzheimer's disease)"),
    ("APP", "regulates", "APOE"),
    ("TREM2", "interacts", "APOE"),
    ("Amyloid-beta", "is a risk factor for", "cognitive decline"),
]
TITLE_ONLY = "A recorded item with no abstract"
OPTIONS_CD = ["treats", "palliates", "no-relation", "others"]
OPTIONS_GG = ["covaries", "interacts", "regulates", "is regulated by", "no-relation", "others"]
OPTIONS_GD = ["associates", "upregulates", "downregulates", "no-relation", "others"]


def item(title, abstract, triples):
    rows = [
        {"entity1": {"entity_name": h}, "entity2": {"entity_name": t}, "relation": r}
        for h, r, t in triples
    ]
    return {"title": title, "abstract": abstract, "triplet": rows}


@pytest.fixture
def recordings(tmp_path):
    folder = tmp_path / "recordings"
    folder.mkdir()
    files = {
        "2011_s2s.json": [item(TITLE_ONLY, "", [("IL-6", "binds", "IL6R")])],
        "2012_s2s.json": [item("Telmisartan in AD", ABSTRACT, TRIPLES)],
        # The same abstract again (other whitespace) in a later year: the earlier file wins.
        "2013_s2s.json": [item("Telmisartan in AD", " ".join(ABSTRACT.split()), [("a", "b", "c")])],
    }
    for name, items in files.items():
        (folder / name).write_text(json.dumps(items), encoding="utf-8")
    return folder


def generative(title="Telmisartan in AD", abstract=ABSTRACT, structured=True):
    prompt = load("generative")
    body = {
        "model": "m",
        "messages": prompt.messages(title=title, abstract=abstract, entities="- APP [Gene]"),
    }
    if structured:
        body["response_format"] = prompt.response_format()
    return body


def options_text(options):
    return "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))


def pairwise(head, tail, options, kinds=("gene", "gene"), structured=True, abstract=ABSTRACT):
    prompt = load("pairwise")
    texts = [
        o if o != "others" else "others, please specify by generating a short predicate in 5 words"
        for o in options
    ]
    messages = prompt.messages(
        title="Telmisartan in AD",
        abstract=abstract,
        head_kind=kinds[0],
        head=head,
        tail_kind=kinds[1],
        tail=tail,
        options=options_text(texts),
    )
    body = {"model": "m", "messages": messages}
    if structured:
        body["response_format"] = prompt.response_format()
    return body


def batched(pairs, structured=True, abstract=ABSTRACT):
    prompt = load("pairwise_batched")
    lines = [
        f'{n}. "{h}" ({hk}) and "{t}" ({tk}): '
        + "; ".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))
        for n, (h, hk, t, tk, options) in enumerate(pairs, 1)
    ]
    messages = prompt.messages(title="Telmisartan in AD", abstract=abstract, pairs="\n".join(lines))
    body = {"model": "m", "messages": messages}
    if structured:
        body["response_format"] = prompt.response_format()
    return body


def post(url, body, **kw):
    return requests.post(f"{url}/chat/completions", json=body, timeout=kw.pop("timeout", 10), **kw)


def content(url, body):
    r = post(url, body)
    assert r.status_code == 200, r.text
    return r.json()["choices"][0]["message"]["content"]


# -- index and lookup ------------------------------------------------------------------------------


def test_index_collapses_whitespace_uses_titles_for_empty_abstracts_and_earliest_file(recordings):
    index = load_recordings(recordings)
    assert set(index) == {normalize(ABSTRACT), TITLE_ONLY}
    assert index[normalize(ABSTRACT)]["triplet"][0]["relation"] == "treats"  # 2012, not 2013
    llm = ReplayLLM(recordings)
    assert llm.find("Some preamble. " + " ".join(ABSTRACT.split()) + " trailing") is not None
    assert llm.find("Title: x\nAbstract: something never recorded\n\n") is None


# -- generative ------------------------------------------------------------------------------------


def test_generative_json_with_the_openai_client(recordings):
    with serve_replay(recordings) as url:
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
        body = generative()
        out = client.chat.completions.create(
            model="gpt-test", messages=body["messages"], response_format=body["response_format"]
        )
    assert out.model == "gpt-test" and out.choices[0].finish_reason == "stop"
    triples = json.loads(out.choices[0].message.content)["triples"]
    assert [(t["head"], t["relation"], t["tail"]) for t in triples] == TRIPLES


def test_generative_lines_and_the_title_only_recording(recordings):
    with serve_replay(recordings) as url:
        text = content(url, generative(structured=False))
        assert text.splitlines() == [" | ".join(t) for t in TRIPLES]
        title_only = content(url, generative(title=TITLE_ONLY, abstract="", structured=False))
        assert title_only == "IL-6 | binds | IL6R"


def test_no_recorded_document_gets_an_empty_answer(recordings):
    other = "A different abstract that nobody recorded, long enough to be scanned for prefixes."
    with serve_replay(recordings) as url:
        assert json.loads(content(url, generative(abstract=other))) == {"triples": []}
        assert content(url, generative(abstract=other, structured=False)) == ""
        empty = {"reasoning": "", "answer": "", "predicate": ""}
        assert (
            json.loads(content(url, pairwise("APP", "APOE", OPTIONS_GG, abstract=other))) == empty
        )
        pairs = [("APP", "Gene", "APOE", "Gene", OPTIONS_GG)]
        assert json.loads(content(url, batched(pairs, abstract=other))) == {"answers": []}
        assert content(url, batched(pairs, structured=False, abstract=other)) == ""
        assert content(url, generative()) != ""
        stats = requests.get(url.removesuffix("/v1") + "/stats", timeout=5).json()
    assert stats["requests"] == 6
    assert stats["empty_answers"] == 5 and stats["answered_with_recording"] == 1
    assert stats["tasks"] == {"generative": 3, "pairwise": 1, "pairwise_batched": 2}


# -- pairwise decisions ----------------------------------------------------------------------------

CASES = [
    # head, tail, options, expected letter, expected predicate
    ("telmisartan", "AD", OPTIONS_CD, "A", ""),  # forward, alias X of "X (Y)"
    ("telmisartan", "Alzheimer's disease", OPTIONS_CD, "A", ""),  # alias Y of "X (Y)"
    ("Telmisartan", "alzheimers disease", OPTIONS_CD, "A", ""),  # case and apostrophe
    ("APP", "APOE", OPTIONS_GG, "C", ""),  # forward regulates
    ("APOE", "APP", OPTIONS_GG, "D", ""),  # reversed regulates → is regulated by
    ("APOE", "TREM2", OPTIONS_GG, "B", ""),  # reversed symmetric relation
    ("amyloid beta", "cognitive decline", OPTIONS_GD, "E", "is a risk factor for"),  # free
    ("telmisartan", "cognitive decline", OPTIONS_CD, "C", ""),  # no recorded triple
]


@pytest.mark.parametrize(("head", "tail", "options", "letter", "predicate"), CASES)
def test_pairwise_decisions_without_http(recordings, head, tail, options, letter, predicate):
    llm = ReplayLLM(recordings)
    answer = json.loads(llm.answer(pairwise(head, tail, options)))
    assert (answer["answer"], answer["predicate"]) == (letter, predicate)
    assert answer["reasoning"].endswith(".")


def test_pairwise_over_http_json_and_text(recordings):
    with serve_replay(recordings) as url:
        answer = json.loads(content(url, pairwise("APOE", "APP", OPTIONS_GG)))
        assert answer["answer"] == "D" and answer["predicate"] == ""
        text = content(url, pairwise("telmisartan", "AD", OPTIONS_CD, structured=False))
        assert text.startswith("1. ") and text.endswith("So the answer is: A.")
        free = pairwise("Amyloid-beta", "cognitive decline", OPTIONS_GD, structured=False)
        assert content(url, free).endswith("So the answer is: E. is a risk factor for")
        none = pairwise("TREM2", "AD", OPTIONS_GD, ("gene", "disease"), structured=False)
        assert content(url, none).endswith("So the answer is: D.")


def test_batched_answers_every_pair_in_json_and_lines(recordings):
    pairs = [
        ("telmisartan", "Compound", "AD", "Disease", OPTIONS_CD),
        ("APOE", "Gene", "APP", "Gene", OPTIONS_GG),
        ("Amyloid-beta", "Gene", "cognitive decline", "Disease", OPTIONS_GD),
        ("APP", "Gene", "TREM2", "Gene", OPTIONS_GG),
        ("Alzheimer's disease", "Disease", "telmisartan", "Compound", OPTIONS_CD),
    ]
    with serve_replay(recordings) as url:
        answers = json.loads(content(url, batched(pairs)))["answers"]
        lines = content(url, batched(pairs, structured=False)).splitlines()
    assert answers == [
        {"pair": 1, "answer": "A", "predicate": ""},
        {"pair": 2, "answer": "D", "predicate": ""},
        {"pair": 3, "answer": "E", "predicate": "is a risk factor for"},
        {"pair": 4, "answer": "E", "predicate": ""},
        {"pair": 5, "answer": "D", "predicate": "treats"},  # reversed, not symmetric → others
    ]
    assert lines == ["1: A", "2: D", "3: E (is a risk factor for)", "4: E", "5: D (treats)"]


def test_task_comes_from_the_schema_name_before_the_text(recordings):
    llm = ReplayLLM(recordings)
    body = generative()
    assert llm.reply(body).task == "generative"
    body["response_format"]["json_schema"]["name"] = "pairwise_batched"
    assert llm.reply(body).task == "pairwise_batched"
    assert llm.reply(pairwise("APP", "APOE", OPTIONS_GG, structured=False)).task == "pairwise"
    assert llm.reply(batched([], structured=False)).task == "pairwise_batched"


# -- protocol --------------------------------------------------------------------------------------


def test_usage_is_deterministic_and_routes_answer(recordings):
    body = generative()
    with serve_replay(recordings) as url:
        base = url.removesuffix("/v1")
        first = post(url, body).json()
        again = requests.post(f"{base}/chat/completions", json=body, timeout=5).json()
        models = requests.get(f"{url}/models", timeout=5).json()
        missing = requests.get(f"{base}/nowhere", timeout=5)
    chars = sum(len(m["content"]) for m in body["messages"])
    text = first["choices"][0]["message"]["content"]
    assert first["usage"] == {
        "prompt_tokens": math.ceil(chars / 4),
        "completion_tokens": math.ceil(len(text) / 4),
        "total_tokens": math.ceil(chars / 4) + math.ceil(len(text) / 4),
    }
    assert again["usage"] == first["usage"] and again["choices"] == first["choices"]
    assert first["object"] == "chat.completion" and first["created"] == 0 and first["model"] == "m"
    assert first["choices"][0]["message"]["role"] == "assistant"
    assert models == {"object": "list", "data": [{"id": "dalk-replay", "object": "model"}]}
    assert missing.status_code == 404


# -- faults ----------------------------------------------------------------------------------------


def only(kind, **kw):
    return {"fault_rate": 1.0, "fault_kinds": [kind], "seed": 1, **kw}


def test_fault_429_has_retry_after(recordings):
    with serve_replay(recordings, **only("429", retry_after_s=2)) as url:
        r = post(url, generative())
        client = openai.OpenAI(base_url=url, api_key="x", max_retries=0)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="m", messages=generative()["messages"])
    assert r.status_code == 429 and r.headers["Retry-After"] == "2"
    assert r.json()["error"]["type"] == "rate_limit_error"


def test_fault_500_has_an_error_body(recordings):
    with serve_replay(recordings, **only("500")) as url:
        r = post(url, generative())
    assert r.status_code == 500 and "message" in r.json()["error"]


def test_fault_malformed_body_does_not_parse(recordings):
    with serve_replay(recordings, **only("malformed")) as url:
        r = post(url, generative())
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.text.startswith('{"id"')
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.text)


def test_fault_truncated_is_half_the_content_with_finish_reason_length(recordings):
    body = generative()
    full = ReplayLLM(recordings).answer(body)
    with serve_replay(recordings, **only("truncated")) as url:
        out = post(url, body).json()
    choice = out["choices"][0]
    assert choice["finish_reason"] == "length"
    assert choice["message"]["content"] == full[: len(full) // 2]
    assert out["usage"]["completion_tokens"] == math.ceil(len(full) // 2 / 4)


def test_fault_slow_times_out_a_short_client_then_answers(recordings):
    with serve_replay(recordings, **only("slow", slow_s=0.6)) as url:
        with pytest.raises(requests.Timeout):
            post(url, generative(), timeout=0.2)
        start = time.monotonic()
        r = post(url, generative(), timeout=5)
        assert time.monotonic() - start >= 0.6
    assert r.status_code == 200 and json.loads(r.json()["choices"][0]["message"]["content"])


def test_fault_rate_zero_injects_nothing(recordings):
    llm = ReplayLLM(recordings, fault_rate=0.0, seed=3)
    with serve_llm(llm) as url, requests.Session() as s:
        codes = {
            s.post(f"{url}/chat/completions", json=generative()).status_code for _ in range(200)
        }
    assert codes == {200}
    assert llm.stats()["faults"] == {k: 0 for k in FAULT_KINDS}
    assert llm.stats()["answered_with_recording"] == 200


def shape(r):
    if r.status_code != 200:
        return str(r.status_code)
    try:
        return r.json()["choices"][0]["finish_reason"]
    except json.JSONDecodeError:
        return "malformed"


def test_seeded_fault_sequence_is_reproducible(recordings):
    opts = {"fault_rate": 0.5, "seed": 7, "slow_s": 0.01, "retry_after_s": 0}
    a, b = ReplayLLM(recordings, **opts), ReplayLLM(recordings, **opts)
    draws = [a.next_fault() for _ in range(300)]
    assert draws == [b.next_fault() for _ in range(300)]
    assert set(draws) == {None, *FAULT_KINDS}
    assert 0.4 < sum(d is not None for d in draws) / 300 < 0.6
    other = ReplayLLM(recordings, **{**opts, "seed": 8})
    assert [other.next_fault() for _ in range(300)] != draws

    seen = []
    for _ in range(2):
        with serve_replay(recordings, **opts) as url, requests.Session() as s:
            seen.append(
                [shape(s.post(f"{url}/chat/completions", json=generative())) for _ in range(40)]
            )
    assert seen[0] == seen[1]
    assert {"429", "500", "malformed", "length", "stop"} <= set(seen[0])


# -- subprocess mode -------------------------------------------------------------------------------


def test_module_prints_ready_and_answers(recordings):
    cmd = [sys.executable, "-m", "tests.support.replay_llm_server", "--recordings", str(recordings)]
    cmd += ["--port", "0", "--fault-rate", "0", "--fault-kinds", "429,500", "--seed", "7"]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("READY http://127.0.0.1:") and line.rstrip().endswith("/v1"), line
        url = line.split()[1]
        answer = json.loads(content(url, generative()))
        assert len(answer["triples"]) == len(TRIPLES)
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert out == "" and json.loads(err.strip().splitlines()[-1])["requests"] == 1


# -- the real DALK recordings ----------------------------------------------------------------------


def test_real_recordings_answer_a_2015_abstract():
    folder = shared("dalk", "extracted")
    llm = ReplayLLM(folder)
    assert len(llm.index) > 7000
    recorded = json.loads((folder / "2015_s2s.json").read_text(encoding="utf-8"))
    doc = next(
        d
        for d in recorded
        if d["title"].startswith("The protein oxidation repair enzyme methionine sulfoxide")
    )
    expected = [
        (t["entity1"]["entity_name"], t["relation"], t["entity2"]["entity_name"])
        for t in doc["triplet"]
    ]
    with serve_llm(llm) as url:
        triples = json.loads(content(url, generative(doc["title"], doc["abstract"])))["triples"]
        head, relation, tail = expected[0]
        options = ["covaries", "interacts", relation.lower(), "no-relation", "others"]
        decision = json.loads(content(url, pairwise(head, tail, options, abstract=doc["abstract"])))
    assert [(t["head"], t["relation"], t["tail"]) for t in triples] == expected
    assert decision["answer"] == "C"
    assert llm.stats()["answered_with_recording"] == 2
