"""The ``kgbuild`` application: the command group, its consoles and the options and helpers its
commands share; the stages' own commands are mounted here (kgbuild/cli/__init__.py adds the
warehouse's: build, snapshots, explore, outputs)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgbuild.audit.cli import audit_app
from kgbuild.evaluate.cli import eval_app
from kgbuild.helptext import examples
from kgbuild.query import cli as query_cli
from kgbuild.reader import conflicts_cli
from kgbuild.reader.cli import reader_app
from kgbuild.reader.curations_cli import curations_app
from kgbuild.search import entities_cli
from kgbuild.serve import cli as serve_cli
from kgbuild.settings import warehouse_path
from kgbuild.store.cli_options import kg_name
from kgbuild.store.snapshots import Warehouse

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Build versioned biomedical knowledge graphs from literature.",
    epilog=examples(
        "kgbuild build --domain alzheimers --source ../shared/data/dalk/by_year",
        "kgbuild stats",
        'kgbuild ask "Does APOE interact with APP?" --no-llm',
        'kgbuild sql "SELECT * FROM kg_edges ORDER BY support DESC LIMIT 10"',
    ),
)
app.add_typer(
    eval_app, name="eval", help="Quality on gold files: relations, NER, question answering (ADQA)."
)
# Ask a question (kgbuild/query/cli.py), serve the HTTP API and explorer (kgbuild/serve/cli.py).
app.command(epilog=query_cli.ASK_EXAMPLES)(query_cli.ask)
app.command(epilog=serve_cli.SERVE_EXAMPLES)(serve_cli.serve)
app.command(epilog=entities_cli.ENTITIES_EXAMPLES)(entities_cli.entities)
app.command("conflicts", help=conflicts_cli.HELP, epilog=conflicts_cli.EPILOG)(
    conflicts_cli.conflicts
)
app.add_typer(audit_app, name="audit", help="Blind precision audits: sample, judge, score.")
app.add_typer(
    reader_app, name="reader", help="The sentence reader: judged corpus, training, figures."
)
app.add_typer(curations_app, name="curations", help="Curations made in the explorer: list, export.")
# Piped output keeps whole rows instead of wrapping at rich's 80-column default.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse", "-w", help="Warehouse folder [env KGBUILD_WAREHOUSE; default ./warehouse]"
    ),
]
BuildKgOpt = Annotated[
    str | None, typer.Option("--kg", help="Name of the KG to build [default: the domain's]")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table")]


def _wh(path: Path | None) -> Warehouse:
    """The warehouse a reader command reads; on a first run (no warehouse, or nothing built
    in it) one line saying to build one first (:class:`~kgbuild.errors.NoWarehouse`)."""
    return Warehouse(warehouse_path(path)).require()


def _kg(name: str | None) -> str | None:
    return kg_name(name)


def _table(title: str, cols: list[str], rows: list[Any]) -> Table:
    t = Table(title=title, show_lines=False)
    for c in cols:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*("" if v is None else escape(str(v)) for v in r))  # data, not markup
    return t
