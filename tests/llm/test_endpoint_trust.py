"""A key goes only to the endpoint it was configured with, a file found in a working
or source folder never redirects it, and a cached answer is one endpoint's answer.

Real loopback servers record the ``Authorization`` header of every request they receive; the
CLI runs as a user runs it (a process, in a working folder holding a ``kgbuild.toml``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.llm.client import LLMClient, LLMRequest, LLMSettings
from kgbuild.pipeline.build import build_kg, estimate_build
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.pipeline.spec import BuildSpec
from tests.conftest import FIXTURES
from tests.support.replay_llm_server import ReplayLLM
from tests.support.scripted_llm_server import ScriptedLLM, serve

KEY = "sk-test-the-users-key-for-the-endpoint-they-chose"
CORPUS = FIXTURES / "llm" / "corpus"
RECORDINGS = FIXTURES / "llm" / "recordings"


def replaying() -> ScriptedLLM:
    """DALK's recorded answers, from a server that records every request's headers."""
    return ScriptedLLM(default=("answer", ReplayLLM(RECORDINGS).answer))


def auth(llm: ScriptedLLM) -> list[str]:
    """The Authorization header of every request ``llm`` received."""
    return [r["headers"].get("authorization", "") for r in llm.requests]


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder of its own, and an environment holding the user's key and nothing
    else of kgbuild's, OpenAI's or NCBI's."""
    for name in list(os.environ):
        if name.startswith(("KGBUILD_", "OPENAI_", "NCBI_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def write_toml(folder: Path, base_url: str, **kgbuild: str) -> Path:
    """A ``kgbuild.toml`` naming ``base_url`` (and ``[kgbuild]`` settings) in ``folder``."""
    lines = ["[kgbuild]", *(f"{k} = {json.dumps(v)}" for k, v in kgbuild.items())]
    lines += ["[llm]", f"base_url = {json.dumps(base_url)}", 'model = "dalk-replay"']
    path = folder / "kgbuild.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def ask(settings: LLMSettings) -> str:
    (res,) = LLMClient(settings).complete_many(
        [LLMRequest([{"role": "user", "content": "hi"}], "t/1")]
    )
    return res.content


def kgbuild_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``kgbuild`` in ``cwd``, stdout and stderr as one stream (what a user sees)."""
    env = {**os.environ, "KGBUILD_EMBED_MODEL": "none"}
    return subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", *args], cwd=cwd, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=180,
    )  # fmt: skip


def test_a_key_goes_only_to_the_endpoint_it_was_configured_with(workdir, monkeypatch):
    a, b = ScriptedLLM(default=("ok", "from A")), ScriptedLLM(default=("ok", "from B"))
    with serve(a) as url_a, serve(b) as url_b:
        write_toml(workdir, url_b)  # a kgbuild.toml in the working folder names B
        monkeypatch.setenv("OPENAI_BASE_URL", url_a)
        assert ask(LLMSettings.from_env()) == "from A"  # the environment wins anyway
        assert ask(BuildSpec.resolve(source=str(CORPUS)).llm_settings()) == "from A"
        monkeypatch.delenv("OPENAI_BASE_URL")
        from_file = LLMSettings.from_env()
        assert ask(from_file) == "from B"  # the file's endpoint is used, without the key,
        assert ask(BuildSpec.resolve(source=str(CORPUS)).llm_settings()) == "from B"  # by a build
        assert ask(LLMSettings.from_env(base_url=url_b)) == "from B"  # an argument is the user's
    assert auth(a) == [f"Bearer {KEY}"] * 2
    assert len(auth(b)) == 3 and not any(KEY in h for h in auth(b)[:2])
    assert auth(b)[2] == f"Bearer {KEY}"
    assert from_file.api_key is None and not from_file.key_allowed


@pytest.mark.slow  # a CLI process building through a loopback LLM
def test_the_build_names_the_file_first_and_sends_it_no_key(workdir):
    b = replaying()
    moved = workdir.parent / "moved-warehouse"
    with serve(b) as url_b:
        toml = write_toml(workdir, url_b, warehouse=str(moved))
        proc = kgbuild_cli("build", "--source", str(CORPUS), "--kg", "t", cwd=workdir)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert proc.stdout.splitlines()[0] == (
        f"kgbuild.toml ({toml}): sets llm_base_url, warehouse; OPENAI_API_KEY will not be sent "
        "to a file-configured endpoint"
    )
    assert b.requests and not any(KEY in h for h in auth(b))  # used, but never given the key
    assert (moved / "kg.duckdb").exists() and not (workdir / "warehouse").exists()


@pytest.mark.slow  # a CLI process
def test_a_kgbuild_toml_inside_the_source_is_data(workdir, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")  # no endpoint of the user's: co-occurrence
    for path in CORPUS.iterdir():  # a corpus folder that ships its own kgbuild.toml
        shutil.copy(path, workdir)
    b = replaying()
    stolen = workdir.parent / "stolen-warehouse"
    with serve(b) as url_b:
        write_toml(workdir, url_b, warehouse=str(stolen), extractor="generative")
        proc = kgbuild_cli("build", "--source", ".", "--kg", "t", cwd=workdir)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert proc.stdout.splitlines()[0].startswith(
        f"kgbuild.toml ({workdir / 'kgbuild.toml'}) ignored: it is inside --source ."
    )
    assert b.requests == [] and not stolen.exists()
    assert (workdir / "warehouse" / "kg.duckdb").exists()


@pytest.mark.slow  # two builds through loopback LLMs
def test_two_endpoints_serving_the_same_model_never_share_answers(workdir):
    def options(url: str) -> ExtractionOptions:
        llm = LLMSettings(model="dalk-replay", base_url=url, backoff_s=0.05)
        return ExtractionOptions("generative", llm, embed_model="none")

    a, b = replaying(), replaying()
    wh = workdir / "wh"
    with serve(a) as url_a, serve(b) as url_b:
        first = build_kg(CORPUS, kg="t", extractor=options(url_a), warehouse=wh)
        _, on_a = estimate_build(CORPUS, extractor=options(url_a), warehouse=wh)
        _, on_b = estimate_build(CORPUS, extractor=options(url_b), warehouse=wh)
        second = build_kg(CORPUS, kg="t", extractor=options(url_b), warehouse=wh)
    assert first.llm_usage["calls"] == len(a.requests) > 0
    assert sum(e.cached for e in on_a.values()) == len(a.requests)  # --estimate: same key
    assert sum(e.cached for e in on_b.values()) == 0
    assert second.llm_usage["calls"] == len(b.requests) == len(a.requests)
    assert second.llm_usage.get("cache_hits", 0) == 0


@pytest.mark.slow  # a Dask cluster, two builds
def test_a_dask_worker_adds_its_key_only_where_the_driver_may(workdir, monkeypatch):
    """A worker reads its own key (the driver never ships one); it must not add it to an
    endpoint a file named, and does add it to one the user named (here: the environment)."""
    from distributed import LocalCluster

    b = replaying()
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    )
    with serve(b) as url_b, cluster:
        write_toml(workdir, url_b)
        for chosen_by in ("kgbuild.toml", "environment"):
            if chosen_by == "environment":
                monkeypatch.setenv("OPENAI_BASE_URL", url_b)
            spec = BuildSpec.resolve(
                source=str(CORPUS), extractor="generative", embed_model="none",
                warehouse=str(workdir / f"wh-{chosen_by}"), dask_address=cluster.scheduler_address,
            )  # fmt: skip
            report = build_kg(
                spec.corpus(), kg="t", extractor=spec.options(), warehouse=spec.warehouse_dir,
                dask_address=spec.dask_address,
            )  # fmt: skip
            assert report.workers  # the batches ran on the cluster
    n = len(b.requests) // 2
    assert n > 0 and len(b.requests) == 2 * n
    assert not any(KEY in h for h in auth(b)[:n])
    assert auth(b)[n:] == [f"Bearer {KEY}"] * n


def test_credentials_in_a_base_url_are_never_recorded():
    """A base URL may carry ``user:password@`` or ``?api-key=``: manifests, reports and flow
    logs record the endpoint without them (the request itself still uses the URL given)."""
    url = "https://user:s3cret@proxy.example:8443/v1?api-key=s3cret#frag"
    public = LLMSettings(model="m", base_url=url).public()
    assert public["base_url"] == "https://proxy.example:8443/v1"
    spec = BuildSpec.resolve(source="corpus", llm_base_url=url, eutils_url=url)
    assert spec.llm_base_url == url  # what the client connects to is untouched
    assert "s3cret" not in json.dumps(spec.public())
