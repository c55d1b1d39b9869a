"""The query tests' shared warehouse: the hand-written toy KG (tests/support/query_kg.py),
published once per test module, so a module that changes its warehouse (an index, a curation)
never leaks into another."""

import pytest

from tests.support.query_kg import build_query_kg


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy") / "wh"
    build_query_kg(root)
    return root
