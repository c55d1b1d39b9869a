"""``kgbuild curations list|export``: what curators said in the explorer, and the same as
judged rows the reader can be retrained on (:mod:`kgbuild.reader.curated`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from kgbuild.helptext import examples
from kgbuild.settings import warehouse_path

curations_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Curations made in the explorer: list them, export them as judged rows.",
    epilog=examples(
        "kgbuild curations list",
        "kgbuild curations export --out curated/",
        "kgbuild reader corpus --judged curated/",
    ),
)
WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse", "-w", help="Warehouse folder [env KGBUILD_WAREHOUSE; default ./warehouse]"
    ),
]


@curations_app.callback()
def _group() -> None:
    """Curations made in the explorer."""


@curations_app.command("list", epilog=examples("kgbuild curations list --all --json"))
def list_(
    warehouse: WarehouseOpt = None,
    everything: Annotated[
        bool, typer.Option("--all", help="Every line of the log, not only the latest per sentence")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line")] = False,
) -> None:
    """The latest curation of each curated sentence (``--all``: the whole log, oldest first)."""
    from kgbuild.store.curations import latest as newest
    from kgbuild.store.curations import read_all

    log = read_all(warehouse_path(warehouse))
    shown = log if everything else list(newest(log).values())
    for c in shown:
        if as_json:
            print(json.dumps(asdict(c), ensure_ascii=False))
        else:
            note = f"  note: {c.note}" if c.note else ""
            print(f"{c.created_at}  {c.curator}  {c.label}  PMID {c.pmid}  "
                  f"{c.head_id} {c.relation} {c.tail_id}{note}")  # fmt: skip
    if not as_json:
        print(f"{len(shown)} curation(s)" + ("" if everything else f" ({len(log)} in the log)"))


@curations_app.command(epilog=examples("kgbuild curations export --out curated/"))
def export(
    out: Annotated[Path, typer.Option("--out", help="Folder for rows.tsv and judgments.tsv")],
    warehouse: WarehouseOpt = None,
) -> None:
    """The curations as judged rows (``rows.tsv``, ``judgments.tsv``: the format of
    ``data/judged``), one judgment per curator and sentence."""
    from kgbuild.reader.curated import write
    from kgbuild.store.curations import read_all

    counts = write(out, read_all(warehouse_path(warehouse)))
    print(json.dumps({"out": str(out), **counts}))
