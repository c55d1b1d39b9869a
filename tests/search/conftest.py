"""The search and index tests' shared warehouses: the toy KG and its hostile variant
(tests/support/kg_fixtures.py)."""

from tests.support.kg_fixtures import hostile, toy

__all__ = ["hostile", "toy"]
