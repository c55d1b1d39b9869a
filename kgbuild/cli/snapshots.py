"""What a warehouse holds: ``kgbuild snapshots``, ``stats`` (DALK Table 1 per snapshot), ``check``
and ``quality``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from kgbuild.audit.cli import quality_tables
from kgbuild.cli.app import JsonOpt, WarehouseOpt, _kg, _table, _wh, app, err, out
from kgbuild.errors import InputError
from kgbuild.helptext import examples
from kgbuild.store.cli_options import KgOpt
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql_output import print_json

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
#: Extraction and LLM accounting per snapshot (cumulative through its year), from its manifest.
LLM_COUNTS = [
    ("extraction_done", "done"),
    ("extraction_partial", "partial"),
    ("extraction_failed", "failed"),
    ("rejections", "rejected claims"),
    ("llm_calls", "LLM calls"),
    ("llm_prompt_tokens", "prompt tok"),
    ("llm_completion_tokens", "completion tok"),
    ("llm_cost_usd", "cost $"),
]


@app.command(
    epilog=examples(
        "kgbuild snapshots",
        "kgbuild snapshots --kg alzheimers --json",
    )
)
def snapshots(kg: KgOpt = None, warehouse: WarehouseOpt = None, as_json: JsonOpt = False) -> None:
    """List published snapshots."""
    rows = _wh(warehouse).snapshots(_kg(kg))
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
        print_json([{c: r[c] for c in cols} for r in rows])
        return
    out.print(_table("snapshots", cols, [[r[c] for c in cols] for r in rows]))


@app.command(
    epilog=examples(
        "kgbuild stats",
        "kgbuild stats alzheimers@2020 --json",
    )
)
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
    wh, kg = _wh(warehouse), _kg(kg)
    if snapshot is not None:  # `stats ""` is a mistake to report, not "the default"
        ids = [wh.resolve(wh.scope(snapshot, kg))]
    else:
        head = wh.resolve(wh.scope(None, kg))
        ids = [
            r[0]
            for r in wh.query(
                "SELECT l.ancestor_id FROM snapshot_lineage l JOIN snapshots s "
                "ON s.snapshot_id = l.ancestor_id WHERE l.snapshot_id = ? ORDER BY s.as_of_year",
                [head],
            )
        ]
    cols = [c for c, _ in TABLE1]
    llm = [c for c, _ in LLM_COUNTS]
    exprs = [f"coalesce(manifest->>'$.counts.{c}', '0')::DOUBLE" for c in llm]
    rows = wh.query(
        f"SELECT snapshot_id, {', '.join(cols + exprs)} FROM snapshots "
        f"WHERE list_contains(?, snapshot_id) ORDER BY as_of_year, depth",
        [ids],
    )
    rows = [(*r[: 1 + len(cols)], *(_num(v) for v in r[1 + len(cols) :])) for r in rows]
    _warn_if_damaged(wh, ids)
    if as_json:
        names = ["snapshot_id", *cols, *llm]
        print_json([dict(zip(names, r, strict=True)) for r in rows])
        return
    n = 1 + len(cols)
    with_llm = any(r[n + llm.index("llm_calls")] for r in rows)
    llm_rows = [[r[0][:10], r[1], *r[n:]] for r in rows] if with_llm else []
    rows = [r[:n] for r in rows]
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
    checked = wh.query(  # retractions: PubMed sources are checked; local files cannot be
        "SELECT coalesce(manifest->>'$.config.retractions', 'not recorded (built before "
        "retractions were checked)') FROM snapshots WHERE snapshot_id = ?",
        [ids[-1]],
    )
    if checked:
        out.print(f"retractions: {checked[0][0]}", highlight=False, markup=False)
    kinds = wh.query(
        "SELECT kind, count(*) AS n FROM problems_at(?) GROUP BY kind ORDER BY n DESC, kind",
        [ids[-1]],
    )
    if kinds:  # the largest column, and the one a newcomer cannot read without its kinds
        listed = ", ".join(f"{kind} {n:,}" for kind, n in kinds)
        out.print(
            f"problems of {ids[-1][:10]} by kind: {listed} (input lines and annotations "
            'set aside, repaired or re-linked; kgbuild sql "SELECT * FROM problems")',
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    if llm_rows:
        out.print(
            _table(
                "Extraction status and LLM accounting (cumulative)",
                ["snapshot", "year", *[h for _, h in LLM_COUNTS]],
                [
                    [r[0], r[1], *(f"{v:,}" if isinstance(v, int) else v for v in r[2:])]
                    for r in llm_rows
                ],  # the year (r[1]) is a label, not a count
            )
        )
    builds = wh.query(
        "SELECT build_id, extractor, published, reused, llm_usage FROM builds "
        "ORDER BY started_at DESC LIMIT 5"
    )
    if any(json.loads(b[4] or "{}").get("calls") is not None for b in builds):
        keys = ["calls", "cache_hits", "retries", "failed", "prompt_tokens", "completion_tokens"]
        out.print(
            _table(
                "Recent builds (LLM calls sent and money spent by each run)",
                ["build", "extractor", "published", "reused", *keys, "spent $"],
                [
                    [
                        *b[:4],
                        *(int(json.loads(b[4]).get(k, 0)) for k in keys),
                        f"{json.loads(b[4]).get('spent_usd', 0):.4f}",
                    ]
                    for b in builds
                ],
            )
        )


def _warn_if_damaged(wh: Warehouse, ids: list[str]) -> None:
    """One line on stderr when a part these snapshots need is missing or truncated: the counts
    come from manifests and would look fine while the tables no longer read."""
    from kgbuild.store.check import quick_damage

    parts = {p["path"]: p for sid in ids for p in wh.manifest(sid)["parts"]}
    damaged = quick_damage(wh.root, list(parts.values()))
    if damaged:
        err.print(
            f"[yellow]warning:[/yellow] {len(damaged)} part(s) of these snapshots are missing or "
            f"unreadable (e.g. {damaged[0].path}: {damaged[0].problem}); run `kgbuild check`",
            highlight=False,
            soft_wrap=True,
        )


def _num(v: float) -> int | float:
    return int(v) if float(v).is_integer() else round(v, 6)


@app.command(
    epilog=examples(
        "kgbuild check",
        "kgbuild check --quick --json",
    )
)
def check(
    quick: Annotated[
        bool, typer.Option("--quick", help="Only check that every part exists and reads")
    ] = False,
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Verify every part of every snapshot against its manifest (exit 1 when damaged).

    Each row is re-hashed and compared with its stored hash and its part's name, and each
    snapshot's tables with the row counts and hashes of its manifest. `kgbuild build` with the
    same inputs rewrites damaged parts."""
    from kgbuild.store.check import check_warehouse

    wh, kg = _wh(warehouse), _kg(kg)
    if kg is not None:
        wh.scope(None, kg)  # a KG not here: one line naming those that are
    report = check_warehouse(wh.root, full=not quick, kg=kg)
    if as_json:
        print_json(report.to_dict())
    else:
        verified = f"{report.rows:,} rows re-hashed" if not quick else "footers read"
        out.print(f"{report.snapshots} snapshots, {report.parts} parts ({verified})")
        if report.damaged:
            out.print(
                _table(
                    f"{len(report.damaged)} damaged",
                    ["path", "table", "problem", "snapshots"],
                    [
                        [d.path, d.table, d.problem, " ".join(s[:10] for s in d.snapshots)]
                        for d in report.damaged
                    ],
                )
            )
            if any(d.table != "query cache" for d in report.damaged):  # a build never
                out.print(  # touches a query cache: its row says what rebuilds it
                    "repair: run the same `kgbuild build … --verify`; it rebuilds the years "
                    "whose parts are damaged (LLM answers come from the cache)"
                )
        else:
            out.print("ok: every part matches its manifest")
        for line in report.notes():  # each kind of leftover: what happens to it, truthfully
            out.print(line)
    if not report.ok:
        raise typer.Exit(1)


@app.command(
    epilog=examples(
        "kgbuild quality alzheimers@2020",
        "kgbuild quality --tsv ../shared/data/dalk/dalk_kg_gen.tsv",
    )
)
def quality(
    snapshot: Annotated[
        str | None, typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest")
    ] = None,
    tsv: Annotated[
        Path | None,
        typer.Option(help="Score a head<TAB>relation<TAB>tail KG instead (e.g. DALK's)"),
    ] = None,
    kg: KgOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """KG quality: endpoint ID share, Hetionet relation share, relation strings, node splits."""
    from kgbuild.report.quality import snapshot_quality, tsv_quality

    if tsv is not None:
        if not tsv.is_file():
            raise InputError("no such TSV file", path=tsv)
        figures = tsv_quality(tsv)
    else:
        wh = _wh(warehouse)
        figures = snapshot_quality(wh, wh.resolve(wh.scope(snapshot, _kg(kg))))
    if as_json:
        print_json(figures)
        return
    scalar = [(k, v) for k, v in figures.items() if not isinstance(v, list | dict)]
    out.print(_table("KG quality", ["figure", "value"], scalar))
    hist = list(figures["support_histogram"].items())
    worst = [[w["node"], w["strings"]] for w in figures["worst_split_nodes"]]
    out.print(_table("support (distinct PMIDs per triple)", ["support", "triples"], hist))
    out.print(_table("most split nodes (distinct surface strings)", ["node", "strings"], worst))
    if figures.get("vocabulary"):
        cols = list(figures["vocabulary"][0])
        rows = [[str(r[c]) for c in cols] for r in figures["vocabulary"]]
        out.print(_table("annotator IDs checked against their vocabularies", cols, rows))
    for extra in quality_tables(figures):  # audited precision, mixed-concept IDs
        out.print(extra)
