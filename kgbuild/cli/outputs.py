"""What leaves the warehouse: ``kgbuild export`` (Parquet/TSV, KGX, Neo4j, LadybugDB) and
``kgbuild report`` (the growth figures and the HTML report)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgbuild.cli.app import WarehouseOpt, _kg, _wh, app, out
from kgbuild.errors import InputError
from kgbuild.helptext import examples
from kgbuild.store.cli_options import KgOpt


@app.command(
    epilog=examples(
        "kgbuild export alzheimers@2020 --out out/ -f parquet,kgx",
        "kgbuild export --verify out/kgx",
    )
)
def export(
    snapshot: Annotated[
        str | None, typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest")
    ] = None,
    out_dir: Annotated[
        Path | None, typer.Argument(help="Output folder (or --out)", show_default=False)
    ] = None,
    out_opt: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder")] = None,
    fmt: Annotated[
        list[str],
        typer.Option(
            "--format",
            "-f",
            help="parquet | tsv | kgx | neo4j | ladybug (repeat, or comma-separate)",
        ),
    ] = ["parquet"],  # noqa: B006 (typer reads the default, never mutates it)
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
    verify: Annotated[
        Path | None,
        typer.Option("--verify", help="Check an export folder against its manifests instead"),
    ] = None,
) -> None:
    """Export a snapshot: Parquet/TSV tables, KGX (Biolink), Neo4j import CSVs, LadybugDB."""
    from kgbuild.export.summary import run_export, run_verify

    if verify is not None:
        lines = run_verify(verify)
    else:
        wh, kg = _wh(warehouse), _kg(kg)
        ref = wh.scope(snapshot, kg) if kg is not None else snapshot
        lines = run_export(wh, ref, out_opt or out_dir, fmt)
    for line in lines:
        out.print(line, highlight=False, markup=False)


@app.command(
    epilog=examples(
        "kgbuild report --out report/",
        "kgbuild report alzheimers@2019 alzheimers@2020 --out report/",
    )
)
def report(
    snapshot: Annotated[
        list[str] | None,
        typer.Argument(help="Snapshots (id, prefix, KG@YEAR, latest); default: each KG's newest"),
    ] = None,
    out_opt: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder")] = None,
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """One self-contained HTML page (charts and tables) about one or more snapshots."""
    from kgbuild.report.page import report_targets, write_report

    wh = _wh(warehouse)  # first: with nothing built, say so rather than ask for --out
    if out_opt is None:
        raise InputError("give an output folder: kgbuild report [SNAPSHOT…] --out DIR")
    kg = _kg(kg)  # --kg: that KG's newest snapshot, or the given ones read in it
    refs = [wh.scope(r, kg) for r in snapshot or [None]] if kg is not None else snapshot or []
    out.print(f"report: {write_report(wh, report_targets(wh, refs), out_opt)}")
