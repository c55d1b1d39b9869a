"""Reading a KG's change and its tables: ``kgbuild diff`` (two snapshots) and ``kgbuild sql`` (the
confined read-only SQL)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kgbuild.cli.app import JsonOpt, WarehouseOpt, _kg, _table, _wh, app, err, out
from kgbuild.errors import InputError
from kgbuild.helptext import examples
from kgbuild.store.cli_options import KgOpt
from kgbuild.store.sql_output import print_json

if TYPE_CHECKING:  # the diff's module loads when `diff` runs
    from kgbuild.store.diff import SnapshotDiff


@app.command(
    epilog=examples(
        "kgbuild diff alzheimers@2019 alzheimers@2020 --limit 20",
        "kgbuild diff 2019 2020 --kg alzheimers --json",
    )
)
def diff(
    a: Annotated[str, typer.Argument(help="Older snapshot (id, prefix, KG@YEAR; YEAR with --kg)")],
    b: Annotated[str, typer.Argument(help="Newer snapshot")],
    limit: Annotated[int, typer.Option(help="Facts listed per category")] = 10,
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What changed between two snapshots of one KG: facts added and removed, and those whose
    support, belief or status (asserted → contested…) moved, with names, largest change first;
    papers retracted in between."""
    from kgbuild.store.diff import diff_snapshots

    wh, kg = _wh(warehouse), _kg(kg)
    d = diff_snapshots(wh, wh.resolve(wh.scope(a, kg)), wh.resolve(wh.scope(b, kg)), limit)
    if as_json:
        print_json(d.to_dict())
        return
    _print_diff(d, limit)


def _print_diff(d: SnapshotDiff, limit: int) -> None:
    n = d.counts
    out.print(
        f"{d.kg}@{d.before_year} ({d.before[:10]}) → {d.kg}@{d.after_year} ({d.after[:10]}): "
        f"{n['added']:,} facts added, {n['removed']:,} removed, {n['changed']:,} with changed "
        f"support, {n['belief_moved']:,} whose belief moved, {n['status_changed']:,} whose "
        "status changed (support: distinct PMIDs of served evidence; belief and status: "
        "docs/snapshots-sql.md, belief_at)",
        highlight=False,
        markup=False,
    )
    titles = {
        "added": "added facts",
        "removed": "removed facts",
        "changed": "support changed",
        "belief_moved": "belief moved most",
        "status_changed": "status changed (into contested first)",
    }
    for change, rows in d.facts.items():
        if not rows:
            continue
        shown = f"the {len(rows):,} that changed most" if len(rows) < n[change] else "all"
        out.print(
            _table(
                f"{titles[change]}: {n[change]:,} ({shown}; --limit {limit})",
                ["head", "relation", "tail", "support", "belief", "status"],
                [
                    [
                        _named(f.head, f.head_id),
                        f.relation,
                        _named(f.tail, f.tail_id),
                        f"{_support(f.support_before)} → {_support(f.support_after)} "
                        f"({f.delta:+,})",
                        f"{_belief(f.belief_before)} → {_belief(f.belief_after)}",
                        f"{f.status_before or '—'} → {f.status_after or '—'}",
                    ]
                    for f in rows
                ],
            )
        )
    if d.retracted:
        out.print(
            _table(
                f"papers retracted since {d.kg}@{d.before_year}: {len(d.retracted):,} "
                "(their evidence is no longer served)",
                list(d.retracted[0]),
                [list(r.values()) for r in d.retracted],
            )
        )


def _belief(b: float | None) -> str:
    return "—" if b is None else f"{b:.2f}"


def _named(name: str | None, node_id: str) -> str:
    return node_id if not name or name == node_id else f"{name} [{node_id}]"


def _support(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


@app.command(
    epilog=examples(
        'kgbuild sql "SELECT * FROM kg_edges ORDER BY support DESC LIMIT 10"',
        'kgbuild sql "SELECT pmid, sentence FROM evidence LIMIT 5" --format json',
        'kgbuild sql "SELECT count(*) FROM triples" --snapshot alzheimers@2019',
    )
)
def sql(
    query: Annotated[str, typer.Argument(help="SELECT … (read-only)")],
    fmt: Annotated[str, typer.Option("--format", help="table | csv | json")] = "table",
    max_rows: Annotated[int, typer.Option(help="Rows shown in table format")] = 100,
    timeout: Annotated[
        float, typer.Option(help="Seconds the command may take, query and printing included")
    ] = 60.0,
    kg: KgOpt = None,
    snapshot: Annotated[
        str | None, typer.Option(help="Pin the views to this snapshot (id, prefix, KG@YEAR)")
    ] = None,
    warehouse: WarehouseOpt = None,
) -> None:
    """Run read-only SQL over the catalog (views: triples, entities, kg_edges, snapshots…).

    The statement runs confined: it can read the warehouse's tables, views and macros and
    nothing else (no other file, URL, extension or environment variable), and write nothing.
    The views show one KG: --kg, --snapshot, or the only one in the warehouse."""
    from kgbuild.store.sql_print import SqlDeadline, print_result
    from kgbuild.store.sql_run import Limits, open_confined

    if fmt not in ("table", "csv", "json"):
        raise InputError("--format must be table, csv or json", format=fmt)
    table = fmt == "table"  # every format streams its rows: memory stays bounded
    limits = Limits(timeout_s=timeout, keep_rows=max_rows if table else None, result_chars=None)
    # One deadline for the whole command: start-up, query, fetch, format, write.
    with SqlDeadline.for_command(limits.timeout_s) as deadline:
        wh, kg = _wh(warehouse), _kg(kg)
        pinned = wh.resolve(wh.scope(snapshot, kg)) if snapshot is not None else None
        with open_confined(
            wh.root, query, limits, kg=kg, snapshot=pinned, deadline=deadline.at
        ) as res:
            cut = print_result(res, fmt, deadline, width=out.width)
    if cut:  # stderr: stdout stays parseable
        err.print(f"note: {cut:,} value(s) were cut short (they end in …)", markup=False)
