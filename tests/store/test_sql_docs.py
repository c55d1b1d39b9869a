"""docs/snapshots-sql.md documents every column of every view and registry table of a real
warehouse, and nothing that is gone: a column added to a record or a view without a
line in the docs fails here."""

import re
from pathlib import Path

import pytest

from kgbuild.store.catalog import REGISTRY_TABLES
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import build_query_kg

DOC = Path(__file__).resolve().parents[2] / "docs" / "snapshots-sql.md"
_HEADING = re.compile(r"^### `([a-z_]+)`", re.M)
#: a column row: name, DuckDB type (``VARCHAR``, ``VARCHAR[]``, ``STRUCT(…)[]``), meaning
_ROW = re.compile(r"^\| `([a-z_0-9]+)` \| ([A-Z]+(?:\([^|`]*\))?(?:\[\])?) \| (.+) \|$", re.M)


def documented() -> dict[str, dict[str, str]]:
    """View → column → type, from the docs' ``### `view` `` sections."""
    text = DOC.read_text(encoding="utf-8")
    heads = list(_HEADING.finditer(text))
    out: dict[str, dict[str, str]] = {}
    for i, h in enumerate(heads):
        body = text[h.end() : heads[i + 1].start() if i + 1 < len(heads) else len(text)]
        body = body.split("\n## ")[0]
        out[h.group(1)] = {m.group(1): m.group(2) for m in _ROW.finditer(body)}
    return out


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Warehouse:
    root = tmp_path_factory.mktemp("docs") / "wh"
    build_query_kg(root)
    return Warehouse(root)


def test_every_view_and_column_is_documented_with_its_type(warehouse):
    views = [
        r[0]
        for r in warehouse.query(
            "SELECT view_name FROM duckdb_views() WHERE NOT internal "
            "AND NOT starts_with(view_name, '_') ORDER BY 1"
        )
    ]
    assert {"kg_nodes", "kg_edges", "kg_edges_all", "entities", "evidence"} <= set(views)
    docs = documented()
    for name in [*views, *REGISTRY_TABLES]:
        actual = {r[0]: r[1] for r in warehouse.query(f'DESCRIBE "{name}"')}
        assert name in docs, f"docs/snapshots-sql.md has no section for {name}"
        assert docs[name] == actual, f"{name}: documented columns/types differ from the view"
    assert set(docs) == {*views, *REGISTRY_TABLES}, "a documented view no longer exists"


def test_every_documented_column_has_a_meaning():
    for view, cols in documented().items():
        assert cols, f"{view}: no column rows"
    text = DOC.read_text(encoding="utf-8")
    assert all(m.group(3).strip() for m in _ROW.finditer(text))
