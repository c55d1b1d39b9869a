"""``kgbuild`` command line: the same functions the Prefect flows call, one command per verb.

Errors a user can cause (a missing path, an unknown year or snapshot, bad SQL) print one line
and exit with status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kgbuild.build.pipeline import YearReport, build_kg
from kgbuild.config import setting, warehouse_path
from kgbuild.errors import KgbuildError
from kgbuild.sources.local import discover
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql import run_sql

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Build versioned biomedical knowledge graphs from literature.",
)
# Piped output keeps whole rows instead of wrapping at rich's 80-column default.
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse", "-w", help="Warehouse folder [env KGBUILD_WAREHOUSE; default ./warehouse]"
    ),
]
KgOpt = Annotated[str | None, typer.Option("--kg", help="KG name")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table")]

TABLE1 = [
    ("as_of_year", "year"),
    ("n_documents", "#corpus"),
    ("n_nodes", "#nodes"),
    ("n_relations", "#relations"),
    ("n_triples", "#triples"),
    ("n_evidence", "#evidence"),
    ("n_entities", "#entities"),
    ("n_records", "records"),
    ("n_duplicates", "duplicate"),
    ("n_rejected", "rejected"),
    ("n_problems", "problems"),
]


def _wh(path: Path | None) -> Warehouse:
    return Warehouse(warehouse_path(path))


def _table(title: str, cols: list[str], rows: list[Any]) -> Table:
    t = Table(title=title, show_lines=False)
    for c in cols:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*("" if v is None else str(v) for v in r))
    return t


@app.command()
def build(
    source: Annotated[
        Path, typer.Option(help="Folder of per-year PubTator/BioC-JSON files, or one file")
    ],
    years: Annotated[str | None, typer.Option(help="e.g. 2011-2020 (default: every year)")] = None,
    extractor: Annotated[
        str | None,
        typer.Option(help="cooccurrence | auto (LLM extractors arrive with the LLM issue)"),
    ] = None,
    kg: KgOpt = None,
    default_year: Annotated[
        int | None, typer.Option(help="Year for records whose file name and record carry none")
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Build a KG year by year and publish one snapshot per year."""
    kg_name = kg or setting("kg")
    n_years = len({f.year for f in discover(source)})
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} years"),
        TimeElapsedColumn(),
        console=err,
        transient=not sys.stderr.isatty(),
    ) as progress:
        task = progress.add_task(f"building {kg_name}", total=n_years)

        def on_year(y: YearReport) -> None:
            c = y.snapshot.counts
            how = "reused" if y.reused else "published"
            progress.console.print(
                f"{y.year}: {how} {y.snapshot.snapshot_id}  docs={c['documents']:,} "
                f"triples={c['triples']:,} evidence={c['evidence']:,} ({y.seconds:.2f}s)"
            )
            progress.advance(task)

        report = build_kg(
            source,
            kg=kg_name,
            years=years,
            extractor=extractor or setting("extractor"),
            warehouse=warehouse_path(warehouse),
            default_year=default_year,
            on_year=on_year,
        )
        progress.update(task, total=len(report.years), completed=len(report.years))
    head = report.head
    if head:
        out.print(
            f"build {report.build_id}: {len(report.years)} snapshots, head "
            f"{head.snapshot_id} ({head.kg}@{head.as_of_year})"
        )


@app.command()
def snapshots(kg: KgOpt = None, warehouse: WarehouseOpt = None, as_json: JsonOpt = False) -> None:
    """List published snapshots."""
    rows = _wh(warehouse).snapshots(kg)
    cols = [
        "snapshot_id",
        "kg",
        "as_of_year",
        "build_id",
        "parent_id",
        "created_at",
        "n_documents",
        "n_triples",
        "content_hash",
    ]
    if as_json:
        out.print_json(json.dumps([{c: r[c] for c in cols} for r in rows], default=str))
        return
    out.print(_table("snapshots", cols, [[r[c] for c in cols] for r in rows]))


@app.command()
def stats(
    snapshot: Annotated[
        str | None,
        typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest (default: the head's lineage)"),
    ] = None,
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """DALK Table 1 per snapshot (#corpus, #nodes, #relations, #triples) and document statuses."""
    wh = _wh(warehouse)
    if snapshot:
        ids = [wh.resolve(snapshot)]
    else:
        head = wh.resolve(f"{kg}@9999") if kg else wh.resolve("latest")
        ids = [
            r[0]
            for r in wh.query(
                "SELECT l.ancestor_id FROM snapshot_lineage l JOIN snapshots s "
                "ON s.snapshot_id = l.ancestor_id WHERE l.snapshot_id = ? ORDER BY s.as_of_year",
                [head],
            )
        ]
    cols = [c for c, _ in TABLE1]
    rows = wh.query(
        f"SELECT snapshot_id, {', '.join(cols)} FROM snapshots "
        f"WHERE list_contains(?, snapshot_id) ORDER BY as_of_year, depth",
        [ids],
    )
    if as_json:
        out.print_json(
            json.dumps([dict(zip(["snapshot_id", *cols], r, strict=True)) for r in rows])
        )
        return
    out.print(
        _table(
            "KG statistics (DALK Table 1)",
            ["snapshot", *[h for _, h in TABLE1]],
            [
                [
                    r[0][:10],
                    *(f"{v:,}" if isinstance(v, int) and i else v for i, v in enumerate(r[1:])),
                ]
                for r in rows
            ],
        )
    )


@app.command()
def diff(
    a: Annotated[str, typer.Argument(help="Older snapshot (id, prefix, KG@YEAR)")],
    b: Annotated[str, typer.Argument(help="Newer snapshot")],
    limit: Annotated[int, typer.Option(help="Triples listed per side")] = 10,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Triples added and removed between two snapshots."""
    wh = _wh(warehouse)
    sa, sb = wh.resolve(a), wh.resolve(b)
    counts = dict(wh.query("SELECT change, count(*) FROM triples_diff(?, ?) GROUP BY 1", [sa, sb]))
    sample = wh.query(
        "SELECT change, head_id, relation, tail_id FROM triples_diff(?, ?) "
        "QUALIFY row_number() OVER (PARTITION BY change ORDER BY triple_id) <= ? "
        "ORDER BY change, head_id, relation, tail_id",
        [sa, sb, limit],
    )
    result = {
        "from": sa,
        "to": sb,
        "added": counts.get("added", 0),
        "removed": counts.get("removed", 0),
    }
    if as_json:
        out.print_json(json.dumps(result))
        return
    out.print(f"{sa} → {sb}: +{result['added']:,} triples, -{result['removed']:,} triples")
    if sample:
        out.print(_table("sample", ["change", "head", "relation", "tail"], sample))


@app.command()
def sql(
    query: Annotated[str, typer.Argument(help="SELECT … (read-only)")],
    fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    max_rows: Annotated[int, typer.Option(help="Rows shown in table format")] = 100,
    warehouse: WarehouseOpt = None,
) -> None:
    """Run read-only SQL over the catalog (views: triples, entities, kg_edges, snapshots…)."""
    cols, rows = run_sql(warehouse_path(warehouse) / "kg.duckdb", query)
    if fmt == "json":
        out.print_json(json.dumps([dict(zip(cols, r, strict=True)) for r in rows], default=str))
    elif fmt == "csv":
        import csv

        w = csv.writer(sys.stdout)
        w.writerow(cols)
        w.writerows(rows)
    else:
        out.print(_table(f"{len(rows):,} rows", cols, rows[:max_rows]))


@app.command()
def export(
    snapshot: Annotated[str, typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest")],
    out_dir: Annotated[Path, typer.Argument(help="Folder for one Parquet file per table")],
    warehouse: WarehouseOpt = None,
) -> None:
    """Write a snapshot as whole standalone Parquet files (entities, triples, evidence, …)."""
    wh = _wh(warehouse)
    sid = wh.resolve(snapshot)
    for table, path in wh.export(sid, out_dir).items():
        out.print(f"{table}: {path}")


def main() -> None:
    """Console entry point: user errors become one line on stderr and exit status 2."""
    try:
        app()
    except KgbuildError as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
