"""The evaluation tests' shared warehouses: the toy KG (tests/support/kg_fixtures.py), which
``kgbuild eval adqa`` reads, and the tiny BioRED file built with its relation lines hidden, as
``kgbuild eval facts`` builds it (read by the gene-family and open-question measures)."""

import pytest

from kgbuild.evaluate.facts import _read, build_hidden, hide_relations
from tests.conftest import ROOT
from tests.support.kg_fixtures import toy

__all__ = ["SMALL", "small_hidden", "toy"]

SMALL = ROOT / "tests" / "fixtures" / "eval" / "biored_small.PubTator"


@pytest.fixture(scope="session")
def small_hidden(tmp_path_factory):
    """The warehouse of ``SMALL`` built without its relations (built once per worker)."""
    root = tmp_path_factory.mktemp("biored-small-hidden")
    build_hidden(hide_relations(SMALL, _read(SMALL).fmt, root / "input"), root / "warehouse")
    return root / "warehouse"
