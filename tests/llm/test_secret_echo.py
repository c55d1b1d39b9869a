"""An endpoint that echoes the request's key back never gets it stored.

A real build against a loopback endpoint that copies the ``Authorization`` header into its
triples (as a head, a relation and a tail), and a literature service that echoes the key in its
body. Afterwards the key is searched for in every table of the warehouse, every row of the LLM
cache, every file's bytes and every log line; and a 5 MB answer is cut before it is parsed,
cached or stored.
"""

import json
import logging
import sqlite3

from kgbuild.llm.client import MIN_ANSWER_CHARS, LLMRequest, LLMSettings, answer_cap
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.redact import MASK, redact
from kgbuild.sources.http import HttpClient
from kgbuild.store.catalog import TABLES
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import good_record
from tests.support.eutils_server import FakeNCBI
from tests.support.eutils_server import serve as serve_eutils
from tests.support.scripted_llm_server import ScriptedLLM, serve

KEY = "sk-proj-EchoedKey0123456789abcdefXYZ"


def _echo(llm: ScriptedLLM):
    """A model that writes the request's Authorization header into its answer."""

    def answer(body) -> str:
        with llm.lock:
            auth = llm.requests[-1]["headers"].get("authorization", "")
        return json.dumps(
            {
                "triples": [
                    {"head": "APOE", "relation": f"binds ({auth})", "tail": "amyloid beta"},
                    {"head": "APOE", "relation": "binds", "tail": f"key {auth}"},
                    {"head": f"{auth}", "relation": "treats", "tail": "Alzheimer's disease"},
                    {"head": "Donepezil", "relation": "treats", "tail": "Alzheimer's disease"},
                ]
            }
        )

    return answer


def _all_rows(wh: Warehouse) -> str:
    """Every value of every table of the warehouse, as one text."""
    out = []
    for table in TABLES:
        rows = wh.query(f"SELECT * FROM {table}")
        out.append(repr(rows))
    return "\n".join(out)


def test_a_key_echoed_by_the_endpoint_is_stored_nowhere(tmp_path, monkeypatch, caplog):
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text(good_record("9001") + good_record("9002"))
    llm = ScriptedLLM()
    llm.default = ("answer", _echo(llm))
    caplog.set_level(logging.DEBUG)
    with serve(llm) as url:
        settings = LLMSettings(model="echo", base_url=url, api_key=KEY, backoff_s=0.05)
        build_kg(
            src,
            kg="t",
            extractor=ExtractionOptions("generative", settings, embed_model="none"),
            warehouse=tmp_path / "wh",
        )
        logging.getLogger("kgbuild.test").error("endpoint said %s", f"Bearer {KEY}")
    # the endpoint really echoed it: the answers it sent held the key
    assert llm.requests and all(
        r["headers"]["authorization"] == f"Bearer {KEY}" for r in llm.requests
    )
    assert KEY in _echo(llm)({})
    wh = Warehouse(tmp_path / "wh")
    stored = _all_rows(wh)
    assert KEY not in stored and "sk-proj" not in stored
    assert MASK in stored  # the echo was kept, masked: the rejection still says what came back
    tails = [t for (t,) in wh.query("SELECT tail FROM rejections")]
    assert any(t == f"key Bearer {MASK}" for t in tails), tails
    (cache_file,) = (tmp_path / "wh").rglob("llm_cache.sqlite")
    with sqlite3.connect(cache_file) as db:
        cached = repr(db.execute("SELECT * FROM responses").fetchall())
    assert KEY not in cached and MASK in cached
    for path in (tmp_path / "wh").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "endpoint said Bearer ***" in logged and KEY not in logged


def test_a_key_echoed_by_a_literature_service_is_masked_before_caching(tmp_path):
    key = "ncbi-key-0123456789abcdef0123"
    with serve_eutils(FakeNCBI()) as fake:
        http = HttpClient(fake.url, rate_per_s=100, params={"api_key": key}, cache_dir=tmp_path)
        body = http.get("echo", {"term": "x"})  # the service echoes every field it was sent
        again = http.get("echo", {"term": "x"})
    assert fake.requests[0]["fields"]["api_key"] == key  # the key did go to the service
    assert key.encode() not in body and json.loads(body)["api_key"] == MASK and again == body
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), path


def test_spellings_of_the_key_are_masked_and_placeholders_are_not():
    assert redact(f'{{"auth": "Bearer {KEY}"}}', (KEY,)) == '{"auth": "Bearer ***"}'
    assert redact("k binds k", ("k",)) == "k binds k"  # a placeholder is no credential
    slashed = "sk-abc/def+ghi=0123456789"
    assert redact(json.dumps({"a": slashed}), (slashed,)) == '{"a": "***"}'
    assert redact("q=sk-abc%2Fdef%2Bghi%3D0123456789", (slashed,)) == "q=***"


def test_a_flood_answer_is_cut_before_it_is_parsed_cached_or_stored(tmp_path):
    flood = "x" * 5_000_000
    answer = json.dumps({"triples": [{"head": "APOE", "relation": "binds", "tail": flood}]})
    llm = ScriptedLLM(default=("ok", answer))
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text(good_record("9001"))
    with serve(llm) as url:
        settings = LLMSettings(model="flood", base_url=url, api_key=KEY, backoff_s=0.05)
        build_kg(
            src,
            kg="t",
            extractor=ExtractionOptions("generative", settings, embed_model="none"),
            warehouse=tmp_path / "wh",
        )
        from kgbuild.llm.cache import ResponseCache
        from kgbuild.llm.client import LLMClient

        (cache_file,) = (tmp_path / "wh").rglob("llm_cache.sqlite")
        with sqlite3.connect(cache_file) as db:
            (longest,) = db.execute("SELECT max(length(content)) FROM responses").fetchone()
        client = LLMClient(settings, ResponseCache(tmp_path / "c.sqlite"))
        (res,) = client.complete_many([LLMRequest([{"role": "user", "content": "hi"}], "v1")])
    assert longest == answer_cap(settings.max_tokens) == MIN_ANSWER_CHARS
    assert res.truncated and len(res.content) == MIN_ANSWER_CHARS
    assert client.usage["oversized"] == 1
    wh = Warehouse(tmp_path / "wh")
    (status, reason) = wh.query("SELECT status, reason FROM extraction_status")[0]
    assert status == "partial" and "size cap" in reason
    widest = wh.query("SELECT max(length(head) + length(relation) + length(tail)) FROM rejections")
    assert (widest[0][0] or 0) <= 3_000
