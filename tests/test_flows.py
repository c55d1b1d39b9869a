"""The build flow under a real (ephemeral) Prefect API."""

import pytest
from prefect.testing.utilities import prefect_test_harness

from flows.build_kg import build_kg_flow
from kgbuild.store.snapshots import Warehouse


@pytest.fixture(scope="session")
def prefect_api():
    with prefect_test_harness(server_startup_timeout=180):
        yield


def test_build_flow_publishes_snapshots(prefect_api, corpus, warehouse):
    ids = build_kg_flow(source=str(corpus), kg="flowtest", warehouse=str(warehouse))
    assert len(ids) == 2
    rows = Warehouse(warehouse).query("SELECT snapshot_id FROM snapshots ORDER BY as_of_year")
    assert [r[0] for r in rows] == ids
    again = build_kg_flow(source=str(corpus), kg="flowtest", warehouse=str(warehouse))
    assert again == ids
