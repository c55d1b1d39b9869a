"""The evaluation tests' shared warehouse: the toy KG (tests/support/kg_fixtures.py), which
``kgbuild eval adqa`` reads."""

from tests.support.kg_fixtures import toy

__all__ = ["toy"]
