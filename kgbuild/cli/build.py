"""``kgbuild build`` (one snapshot per year, the serving caches made as each publishes) and
``kgbuild domains``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from kgbuild.cli.app import BuildKgOpt, JsonOpt, WarehouseOpt, _table, app, err, out
from kgbuild.domains import list_domains, load_domain
from kgbuild.errors import KgbuildError
from kgbuild.extract.caps import CHUNK_SIZE
from kgbuild.helptext import examples
from kgbuild.store.lock import DEFAULT_WAIT_S
from kgbuild.store.sql_output import print_json

if TYPE_CHECKING:  # the build's modules load when `build` runs (0.1 s off every other command)
    from kgbuild.pipeline.build import YearReport
    from kgbuild.pipeline.options import ExtractionOptions
    from kgbuild.sources.corpus import Corpus


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
