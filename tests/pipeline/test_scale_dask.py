"""One year's extraction as tasks on a real 2-worker Dask cluster (LocalCluster with
worker processes); the driver resolves and publishes, and the snapshots are a local build's."""

from __future__ import annotations

import pytest
from distributed import LocalCluster

from kgbuild.errors import ConfigError
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline import batches
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.pipeline.runner import DaskRunner
from tests.conftest import FIXTURES
from tests.support.replay_llm_server import ReplayLLM, serve_llm

COOC = ExtractionOptions("cooccurrence", embed_model="none")
LLM_CORPUS = FIXTURES / "llm" / "corpus"
SECRET = "sk-test-SECRET-never-sent-to-a-worker"


def _cluster() -> LocalCluster:
    return LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)


@pytest.mark.slow
def test_batches_run_on_both_workers_and_publish_the_local_snapshots(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(batches, "BATCH_RECORDS", 1)  # one task per built document
    local = build_kg(corpus, kg="t", warehouse=tmp_path / "local", extractor=COOC)
    with _cluster() as cluster:
        workers = set(cluster.scheduler_info["workers"])
        remote = build_kg(
            corpus, kg="t", warehouse=tmp_path / "dask", extractor=COOC,
            dask_address=cluster.scheduler_address,
        )  # fmt: skip
    assert [y.snapshot.snapshot_id for y in remote.years] == [
        y.snapshot.snapshot_id for y in local.years
    ]
    assert remote.head.content_hash == local.head.content_hash
    assert set(remote.workers) == workers and len(workers) == 2  # both workers ran batches
    # one batch per built document (a duplicate or rejected record leaves no document)
    assert sum(remote.workers.values()) == local.head.counts.documents >= 2
    assert local.workers == {}


@pytest.mark.slow  # the client retries for CONNECT_TIMEOUT_S before giving up
def test_an_unreachable_scheduler_is_one_config_error(corpus, tmp_path):
    with pytest.raises(ConfigError, match="cannot reach the Dask scheduler"):
        build_kg(
            corpus, kg="t", warehouse=tmp_path / "wh", extractor=COOC,
            dask_address="tcp://127.0.0.1:9",
        )  # fmt: skip


def test_the_dask_address_is_a_setting_of_the_build(corpus, tmp_path, monkeypatch):
    from kgbuild.pipeline.spec import BuildSpec

    monkeypatch.setenv("KGBUILD_DASK_ADDRESS", "tcp://10.0.0.7:8786")
    spec = BuildSpec.resolve(source=str(corpus), warehouse=str(tmp_path / "wh"))
    assert spec.dask_address == "tcp://10.0.0.7:8786"
    given = BuildSpec.resolve(
        source=str(corpus), warehouse=str(tmp_path / "wh"), dask_address="tcp://h:1"
    )
    assert given.dask_address == "tcp://h:1"  # an argument beats the environment


@pytest.mark.slow
def test_llm_extraction_on_dask_splits_the_limit_and_fills_the_warehouse_cache(
    tmp_path, monkeypatch
):
    """Generative extraction through DALK's recorded answers (a real loopback server): the
    workers make every call once, into the warehouse's LLM cache, under the global limit."""
    import sqlite3

    monkeypatch.setattr(batches, "BATCH_RECORDS", 1)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # the workers read their key from here
    llm = ReplayLLM(FIXTURES / "llm" / "recordings")
    with serve_llm(llm) as url:
        settings = LLMSettings(
            model="dalk-replay", base_url=url, api_key=SECRET, backoff_s=0.05, concurrency=2
        )
        opts = ExtractionOptions("generative", settings, embed_model="none")
        local = build_kg(LLM_CORPUS, kg="t", extractor=opts, warehouse=tmp_path / "local")
        sent_locally = llm.stats()["requests"]
        with _cluster() as cluster:
            probe = DaskRunner(cluster.scheduler_address, opts, tmp_path / "dask")
            shipped = probe.options.llm
            probe.close()
            remote = build_kg(
                LLM_CORPUS, kg="t", extractor=opts, warehouse=tmp_path / "dask",
                dask_address=cluster.scheduler_address,
            )  # fmt: skip
        sent_by_workers = llm.stats()["requests"] - sent_locally
    assert shipped.concurrency == 1 and shipped.api_key is None  # 2 in flight over 2 workers
    assert remote.head.content_hash == local.head.content_hash
    assert len(remote.workers) == 2
    assert sent_by_workers == sent_locally > 0
    assert remote.llm_usage["calls"] == sent_locally  # counted by the workers' clients
    with sqlite3.connect(tmp_path / "dask" / "llm_cache.sqlite") as con:
        cached = con.execute("SELECT count(*) FROM responses").fetchone()[0]
    assert cached == sent_locally  # every answer is in the warehouse's shared cache
    for path in (tmp_path / "dask").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()
