"""The query tests' shared warehouse: the hand-written toy KG (tests/support/query_kg.py),
published once per test run (tests/support/built_once.py) and copied into each test module,
so a module that changes its warehouse (an index, a curation) never leaks into another."""

import pytest

from tests.conftest import ROOT, shared_tmp
from tests.support.built_once import built_once, private_copy
from tests.support.query_kg import build_query_kg


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    published = built_once(
        shared_tmp(tmp_path_factory) / "built-once",
        "query-kg",
        [ROOT / "tests" / "support" / "query_kg.py"],
        build_query_kg,
    )
    return private_copy(published, tmp_path_factory.mktemp("toy") / "wh")
