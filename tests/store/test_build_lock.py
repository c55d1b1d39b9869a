"""One build at a time per warehouse: the second waits, then reuses."""

import json
import os
import subprocess
import sys
import time

import pytest

from kgbuild.errors import Busy
from kgbuild.pipeline.build import build_kg
from kgbuild.store.lock import build_lock, holder
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES
from tests.support.scripted_llm_server import ScriptedLLM, serve


def slow_answer(body):
    time.sleep(0.4)
    return json.dumps({"triples": [{"head": "APOE", "relation": "binds", "tail": "amyloid beta"}]})


@pytest.mark.slow  # two build processes
def test_second_build_waits_for_the_first_and_pays_nothing(tmp_path):
    corpus = FIXTURES / "llm" / "corpus"
    wh = tmp_path / "wh"
    llm = ScriptedLLM(default=("answer", slow_answer))
    with serve(llm) as url:
        cmd = [sys.executable, "-m", "kgbuild.cli", "build", "--source", str(corpus), "--kg",
               "t", "-w", str(wh), "--extractor", "generative", "--llm-base-url", url,
               "--llm-model", "m", "--llm-concurrency", "1", "--embed-model", "none"]  # fmt: skip
        env = {**os.environ, "OPENAI_API_KEY": "k"}
        first = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while holder(wh).get("pid") != first.pid and time.monotonic() < deadline:
            time.sleep(0.05)
        assert holder(wh).get("pid") == first.pid
        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert first.wait(timeout=300) == 0, first.stderr.read()
    assert second.returncode == 0, second.stderr
    assert "waiting for build" in second.stderr
    assert "reused" in second.stderr and "published" not in second.stderr
    docs = Warehouse(wh).query("SELECT count(*) FROM documents")[0][0]
    assert len(llm.requests) == docs  # every abstract asked once, by the first build only


def test_a_build_that_cannot_wait_says_who_holds_the_warehouse(tmp_path, corpus):
    with build_lock(tmp_path / "wh", "holder-build"):
        with pytest.raises(Busy, match="another build holds this warehouse") as err:
            build_kg(corpus, kg="t", warehouse=tmp_path / "wh", lock_wait_s=0.3)
        assert "holder-build" in str(err.value)
    build_kg(corpus, kg="t", warehouse=tmp_path / "wh", lock_wait_s=0.3)  # released
