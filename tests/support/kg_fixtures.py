"""The toy KGs the query, search and serve tests share: the hand-written toy KG
(tests/support/query_kg.py) and its hostile variant (tests/support/hostile_kg.py), each
published once per test run (tests/support/built_once.py) and copied into each test module, so
a module that changes its warehouse (an index, a curation) never leaks into another. A test
folder's conftest.py imports the fixtures it needs from here."""

import pytest

from tests.conftest import ROOT, shared_tmp
from tests.support.built_once import built_once, private_copy
from tests.support.hostile_kg import build_hostile_kg
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


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The toy KG with a hostile abstract (tests/support/hostile_kg.py), published once per
    run and copied into each module that asks for it (the explorer, curation and browser
    tests all serve it; curations write into their copy)."""
    published = built_once(
        shared_tmp(tmp_path_factory) / "built-once",
        "hostile-kg",
        [ROOT / "tests" / "support" / "hostile_kg.py", ROOT / "tests" / "support" / "query_kg.py"],
        build_hostile_kg,
    )
    return private_copy(published, tmp_path_factory.mktemp("hostile") / "wh")
