"""``kgbuild`` command line: the same functions the Prefect flows call, one command per verb.

Errors a user can cause (a missing path, an unknown year or snapshot, bad SQL) print one line
and exit with status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from kgbuild.audit.cli import audit_app, quality_tables
from kgbuild.domains import list_domains, load_domain
from kgbuild.errors import InputError, KgbuildError, disk_full
from kgbuild.evaluate.cli import eval_app
from kgbuild.extract.caps import CHUNK_SIZE
from kgbuild.helptext import examples
from kgbuild.query import cli as query_cli
from kgbuild.reader import conflicts_cli
from kgbuild.reader.cli import reader_app
from kgbuild.reader.curations_cli import curations_app
from kgbuild.search import entities_cli
from kgbuild.serve import cli as serve_cli
from kgbuild.settings import warehouse_path
from kgbuild.store.cli_options import KgOpt, kg_name
from kgbuild.store.lock import DEFAULT_WAIT_S
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql_output import print_json

if TYPE_CHECKING:  # the build's modules load when `build` runs (0.1 s off every other command)
    from kgbuild.pipeline.build import YearReport
    from kgbuild.pipeline.options import ExtractionOptions
    from kgbuild.sources.corpus import Corpus
    from kgbuild.store.diff import SnapshotDiff

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


@app.command(
    epilog=examples(
        "kgbuild build --domain alzheimers",
        "kgbuild build --domain alzheimers --source ../shared/data/dalk/by_year",
        "kgbuild build --domain alzheimers --years 2019-2020 --estimate",
        "kgbuild build --source pubmed --query 'APOE[tiab]' --years 2015 --kg apoe",
    )
)
def build(
    source: Annotated[
        str | None,
        typer.Option(
            help="Folder of per-year PubTator/BioC-JSON files (or one file), or 'pubmed' "
            "(E-utilities + the annotator; default with --domain)"
        ),
    ] = None,
    domain: Annotated[
        str | None, typer.Option(help="A domain file in data/domains (see `kgbuild domains`)")
    ] = None,
    query: Annotated[str | None, typer.Option(help="PubMed query for --source pubmed")] = None,
    annotator: Annotated[
        str | None, typer.Option(help="pubtator | scispacy, for --source pubmed")
    ] = None,
    scispacy_model: Annotated[
        str | None, typer.Option(help="spaCy model for --annotator scispacy")
    ] = None,
    years: Annotated[str | None, typer.Option(help="e.g. 2011-2020 (default: every year)")] = None,
    extractor: Annotated[
        str | None,
        typer.Option(
            help="auto | classifier | generative | pairwise | cooccurrence (auto: generative "
            "when an LLM endpoint is configured, else classifier)"
        ),
    ] = None,
    pairwise_mode: Annotated[
        str | None,
        typer.Option(help="per-pair (DALK: one call per pair) | batched (one per abstract)"),
    ] = None,
    chunk_size: Annotated[
        int | None, typer.Option(help=f"Pairs per batched call [{CHUNK_SIZE}]")
    ] = None,
    llm_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint [env OPENAI_BASE_URL]")
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="Model [env KGBUILD_LLM_MODEL]")] = None,
    llm_concurrency: Annotated[int | None, typer.Option(help="Requests in flight")] = None,
    llm_timeout: Annotated[float | None, typer.Option(help="Seconds per call")] = None,
    llm_max_tokens: Annotated[int | None, typer.Option(help="Completion token cap")] = None,
    embed_model: Annotated[
        str | None,
        typer.Option(
            help="Embedding model for entity resolution: default (all-MiniLM-L6-v2), a "
            "sentence-transformers name/path, or none [env KGBUILD_EMBED_MODEL]"
        ),
    ] = None,
    estimate: Annotated[
        bool, typer.Option("--estimate", help="Print LLM calls/tokens/cost per year; spend nothing")
    ] = False,
    kg: BuildKgOpt = None,
    default_year: Annotated[
        int | None, typer.Option(help="Year for records whose file name and record carry none")
    ] = None,
    max_doc_chars: Annotated[
        int | None,
        typer.Option(help="Longest title+abstract built; longer ones are rejected [100000]"),
    ] = None,
    wait: Annotated[
        float,
        typer.Option(help="Seconds to wait for another build of this warehouse to finish"),
    ] = DEFAULT_WAIT_S,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Re-hash every part first; rebuild years whose parts differ"),
    ] = False,
    dask_address: Annotated[
        str | None,
        typer.Option(help="Dask scheduler (tcp://host:8786): run extraction on its workers"),
    ] = None,
    verify_claims: Annotated[
        bool | None,
        typer.Option(
            "--verify-claims/--no-verify-claims",
            help="Ask the LLM, one call per abstract, whether each evidence sentence states its "
            "stored triple (sets evidence.verified; needs an LLM extractor)",
        ),
    ] = None,
    ready: Annotated[
        bool,
        typer.Option(
            "--ready/--no-ready",
            help="Make each snapshot's query index and node vectors as it is published, so "
            "serve, ask and as-of years open at once",
        ),
    ] = True,
    warehouse: WarehouseOpt = None,
) -> None:
    """Build a KG year by year and publish one snapshot per year."""
    from kgbuild.pipeline.build import build_kg
    from kgbuild.pipeline.spec import BuildSpec
    from kgbuild.search.ready import Readier

    spec = BuildSpec.resolve(
        source=source,
        domain=domain,
        query=query,
        years=years,
        annotator=annotator,
        scispacy_model=scispacy_model,
        extractor=extractor,
        pairwise_mode=pairwise_mode,
        chunk_size=chunk_size,
        embed_model=embed_model,
        llm_model=llm_model,
        llm_base_url=llm_base_url,
        llm_concurrency=llm_concurrency,
        llm_timeout=llm_timeout,
        llm_max_tokens=llm_max_tokens,
        kg=kg,
        warehouse=str(warehouse) if warehouse else None,
        default_year=default_year,
        max_doc_chars=max_doc_chars,
        dask_address=dask_address,
        verify_claims=verify_claims,
    )
    for line in spec.notices:  # first: a kgbuild.toml that moved an endpoint or the warehouse
        err.print(escape(line), soft_wrap=True, highlight=False)
    kg_name, wh_path, corpus = spec.kg, spec.warehouse_dir, spec.corpus()
    options = spec.options()
    if estimate:
        _print_estimate(corpus, options, wh_path)
        return
    n_years = len(corpus.years())
    readier = Readier(wh_path) if ready else None
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
            how = y.action
            llm = (
                f" failed={c.extraction_failed:,} rejected={c.rejections:,}" if c.llm_calls else ""
            )
            progress.console.print(
                f"{y.year}: {how} {y.snapshot.snapshot_id}  docs={c.documents:,} "
                f"triples={c.triples:,} evidence={c.evidence:,}{llm} ({y.seconds:.2f}s)"
            )
            if readier is not None:  # the year before's vectors are at hand: new names only
                progress.console.print(f"{y.year}: {_make_ready(readier, y.snapshot)}",
                                       markup=False)  # fmt: skip
            progress.advance(task)

        def on_wait(who: dict[str, Any]) -> None:
            progress.console.print(
                f"waiting for build {who.get('build_id', '?')} (pid {who.get('pid', '?')}, "
                f"started {who.get('started', '?')}) to finish with this warehouse…"
            )

        report = build_kg(
            corpus,
            kg=kg_name,
            extractor=options,
            warehouse=wh_path,
            on_year=on_year,
            lock_wait_s=wait,
            on_wait=on_wait,
            verify=verify,
            dask_address=spec.dask_address,
        )
        progress.update(task, total=len(report.years), completed=len(report.years))
    if readier is not None:
        try:
            if report.head is not None:  # the head's every-evidence index too
                made = _make_ready(readier, report.head, head=True)
                err.print(f"head {report.head.snapshot_id}: {made}", markup=False)
        finally:
            readier.close()
    from kgbuild.resolve.vocabularies import notice as vocabulary_notice

    if missing := vocabulary_notice():  # IDs taken on trust: the user must know
        Console(stderr=True).print(f"note: {missing}", highlight=False)
    head = report.head
    if head:
        out.print(
            f"build {report.build_id}: {len(report.years)} snapshots, head "
            f"{head.snapshot_id} ({head.kg}@{head.as_of_year})"
        )
    if report.workers:
        out.print(f"extraction batches per Dask worker: {report.workers}")
    u = report.llm_usage
    if u:
        out.print(
            f"LLM: {int(u.get('calls', 0)):,} calls sent, {int(u.get('cache_hits', 0)):,} "
            f"answered from cache, {int(u.get('retries', 0)):,} retries, "
            f"{int(u.get('failed', 0)):,} failed; {int(u.get('prompt_tokens', 0)):,} prompt + "
            f"{int(u.get('completion_tokens', 0)):,} completion tokens; "
            f"spent ${u.get('spent_usd', 0):.4f}"
        )
    if report.unverified:
        out.print(f"verification: evidence rows left undecided, by reason: {report.unverified}")


def _make_ready(readier: Any, snapshot: Any, head: bool = False) -> str:
    """One line on ``snapshot``'s query caches, made by ``readier``: a failure there (a full
    disk) leaves the snapshot published and the caches to the first reader, and says so."""
    try:
        return readier.make(snapshot.snapshot_id, head=head).line()
    except (KgbuildError, OSError) as exc:
        why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        return f"query caches not made ({why}): the first serve or ask makes them"


def _print_estimate(corpus: Corpus, options: ExtractionOptions, warehouse: Path) -> None:
    from kgbuild.extract.caps import MAX_PAIRS_PER_DOCUMENT
    from kgbuild.pipeline.build import estimate_build

    chosen, per_year = estimate_build(corpus, extractor=options, warehouse=warehouse)
    if not per_year:
        out.print(f"extractor {chosen}: no LLM calls (nothing to estimate)")
        return
    s = options.settings()
    rows = [
        [str(y), e.docs, e.calls, e.cached, e.prompt_tokens, e.completion_tokens]
        for y, e in sorted(per_year.items())
    ]
    total = [sum(r[i] for r in rows) for i in range(1, 6)]
    costs = [f"{e.cost_usd:.4f}" for _, e in sorted(per_year.items())]
    rows = [[*r, c] for r, c in zip(rows, costs, strict=True)]  # a year is a label, not a count
    rows.append(["total", *total, f"{sum(e.cost_usd for e in per_year.values()):.4f}"])
    pin, pout = s.price()
    out.print(
        _table(
            f"estimate: {chosen} with {s.model} (${pin}/${pout} per 1M prompt/completion tokens;"
            " tokens ≈ characters/4; completion tokens assumed)",
            ["year", "docs", "calls", "cached", "prompt tok", "completion tok", "cost $"],
            [[f"{v:,}" if isinstance(v, int) else v for v in r] for r in rows],
        )
    )
    capped = sum(e.capped_docs for e in per_year.values())
    if capped or chosen == "pairwise":  # the per-document pair cap (kgbuild/extract/caps.py)
        saved = sum(e.calls_saved for e in per_year.values())
        out.print(
            f"pair cap: {capped:,} document(s) over {MAX_PAIRS_PER_DOCUMENT:,} candidate pairs "
            f"(only the pairs of their most-mentioned entities are asked; they end partial): "
            f"{saved:,} call(s) saved"
        )


@app.command(
    epilog=examples(
        "kgbuild domains",
        "kgbuild domains --json",
    )
)
def domains(as_json: JsonOpt = False) -> None:
    """List the domain files (data/domains, or KGBUILD_DOMAINS)."""
    cols = ["name", "kg", "years", "annotator", "query"]
    rows = [[getattr(load_domain(n), c) for c in cols] for n in list_domains()]
    if as_json:
        print_json([dict(zip(cols, r, strict=True)) for r in rows])
        return
    out.print(_table("domains", cols, rows))


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


def main() -> None:
    """Console entry point: user errors, and a full disk, become one line on stderr and exit
    status 2; anything else is a bug and keeps its traceback."""
    try:
        app()
    except KgbuildError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except Exception as exc:
        full = disk_full(exc)
        if not full:
            raise
        err.print(
            f"[red]error:[/red] disk full ({full}); nothing was published half-written: free "
            "some space and run the same command again",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(2)


if __name__ == "__main__":
    main()
