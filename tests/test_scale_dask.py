"""Issue 17: one year's extraction as tasks on a real 2-worker Dask cluster (LocalCluster with
worker processes); the driver resolves and publishes, and the snapshots are a local build's."""

from __future__ import annotations

import pytest
from distributed import LocalCluster

from kgbuild.errors import ConfigError
from kgbuild.pipeline import batches
from kgbuild.pipeline.build import ExtractionOptions, build_kg

COOC = ExtractionOptions("cooccurrence", embed_model="none")


@pytest.mark.slow
def test_batches_run_on_both_workers_and_publish_the_local_snapshots(corpus, tmp_path, monkeypatch):
    monkeypatch.setattr(batches, "BATCH_RECORDS", 1)  # one task per built document
    local = build_kg(corpus, kg="t", warehouse=tmp_path / "local", extractor=COOC)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
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
