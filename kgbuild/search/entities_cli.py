"""``kgbuild entities QUERY``: find a node by name, symbol or synonym (registered by
kgbuild/cli/app.py; the search itself is :mod:`kgbuild.search.entities`, shared with
``GET /entities``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgbuild.helptext import examples
from kgbuild.settings import warehouse_path
from kgbuild.sources.record import CONTROL_CHARS
from kgbuild.store.cli_options import KgOpt, snapshot_ref
from kgbuild.store.sql_output import print_json

out = Console(width=None if sys.stdout.isatty() else 200)

ENTITIES_EXAMPLES = examples(
    'kgbuild entities "alzheimer desease"',
    "kgbuild entities TREM-2 --type Gene --limit 5",
    "kgbuild entities donepezil --json --kg alzheimers",
)


def shown(text: object) -> str:
    """A name as a terminal shows it: control characters (an abstract's ESC sequences) as
    spaces, rich markup escaped."""
    return escape(CONTROL_CHARS.sub(" ", str(text)))


def entities(
    query: Annotated[
        str, typer.Argument(help="A name, symbol, synonym or CURIE (misspelt is fine)")
    ],
    kind: Annotated[
        list[str] | None, typer.Option("--type", "-t", help="Only nodes of this type (repeatable)")
    ] = None,
    limit: Annotated[int, typer.Option(help="Most results (1-50)", min=1, max=50)] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    snapshot: Annotated[
        str, typer.Option("--snapshot", "-s", help="id, prefix, KG@YEAR or latest")
    ] = "latest",
    kg: KgOpt = None,
    index_dir: Annotated[
        Path | None,
        typer.Option(help="Where query indexes are cached [default: <warehouse>/index]"),
    ] = None,
    warehouse: Annotated[
        Path | None, typer.Option("--warehouse", "-w", help="Warehouse folder")
    ] = None,
) -> None:
    """Find entities by name, symbol or synonym, misspellings included: exact, prefix, then
    fuzzy matches, best first (then the most connected). No match: one line, exit 0."""
    from kgbuild.search.entities import find_entities
    from kgbuild.search.index import open_index
    from kgbuild.store.snapshots import Warehouse

    wh = Warehouse(warehouse_path(warehouse))
    idx = open_index(wh, wh.resolve(snapshot_ref(warehouse, snapshot, kg)), index_dir)
    found = find_entities(idx, query, kind or (), limit)
    if as_json:
        print_json(found)
        return
    if not found["entities"]:
        out.print(f"no entity matches {shown(repr(query))}")
        return
    t = Table(title=f"entities matching {shown(repr(query))} ({idx.kg}@{idx.as_of_year})")
    for col in ("#", "id", "name", "type", "degree", "match", "alias"):
        t.add_column(col, overflow="fold")
    for i, e in enumerate(found["entities"], 1):
        how = e["match"] if e["match"] in ("exact", "id") else f"{e['match']} {e['score']:g}"
        t.add_row(str(i), shown(e["id"]), shown(e["name"]), shown(e["type"]), str(e["degree"]),
                  how, shown(e["alias"]))  # fmt: skip
    out.print(t)
