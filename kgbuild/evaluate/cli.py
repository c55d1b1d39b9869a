"""``kgbuild eval …``: extraction quality on gold corpora (a Typer sub-app the CLI mounts).

- ``eval re --gold FILE``: build the gold file's abstracts with an extractor and score the
  triples against its relation lines (BioRED, BC5CDR CID);
- ``eval ner --gold FILE``: score NER models' mentions against the gold mentions;
- ``eval facts --gold FILE``: ask the questions the gold relations answer, over a KG built from
  the same abstracts with the relation lines hidden; score the ranked answers;
- ``eval compare A B``: two runs side by side; ``eval reports``: the runs kept.

Every run writes ``<warehouse>/reports/eval/<run_id>.json`` and ``.md`` and prints the markdown
(or the JSON with ``--json``). Gold files are read as given: the held-out test splits of BioRED
and BC5CDR, which this project never reads during development, use the same formats.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from kgbuild.errors import InputError
from kgbuild.evaluate import adqa_cli
from kgbuild.evaluate.bootstrap import N_RESAMPLES, SEED
from kgbuild.helptext import examples
from kgbuild.settings import load_settings, warehouse_path

eval_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Evaluate extraction against gold corpora: relations (BioRED, BC5CDR) and NER.",
    epilog=examples(
        "kgbuild eval re --gold ../shared/data/biored/Dev.PubTator --limit 50",
        "kgbuild eval ner --gold ../shared/data/biored/Dev.PubTator --limit 50",
        "kgbuild eval reports",
    ),
)
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

GoldOpt = Annotated[
    Path, typer.Option("--gold", help="Gold file: PubTator text or BioC-JSON (BioRED, BC5CDR)")
]
WarehouseOpt = Annotated[
    Path | None,
    typer.Option("--warehouse", "-w", help="Where reports/eval/ goes [env KGBUILD_WAREHOUSE]"),
]
LimitOpt = Annotated[int | None, typer.Option(help="Score only the first N documents")]
ResamplesOpt = Annotated[int, typer.Option("--bootstrap", help="Bootstrap resamples")]
SeedOpt = Annotated[int, typer.Option(help="Bootstrap seed")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as JSON")]
SaveOpt = Annotated[bool, typer.Option(help="Write the report to <warehouse>/reports/eval")]


@eval_app.callback()
def _group() -> None:
    """Evaluate extraction against gold corpora."""


def _emit(report: dict[str, Any], facts: dict[str, Any], warehouse: Path | None, save: bool,
          as_json: bool) -> None:  # fmt: skip
    from kgbuild.evaluate.markdown import render
    from kgbuild.evaluate.reports import dumps, write_report

    if save:
        json_path, md_path = write_report(warehouse_path(warehouse), report)
        err.print(f"report: {json_path} and {md_path.name}", highlight=False, soft_wrap=True)
    if as_json:
        sys.stdout.write(dumps(report))
    else:
        out.print(render(report), markup=False, highlight=False, soft_wrap=True)
    err.print(f"run: {json.dumps(facts)}", highlight=False, markup=False, soft_wrap=True)


def _check_limit(limit: int | None) -> None:
    if limit is not None and limit < 1:
        raise InputError("--limit must be at least 1", limit=limit)


# ADQA question answering (kgbuild/evaluate/adqa_cli.py).
eval_app.command("adqa", epilog=adqa_cli.ADQA_EXAMPLES)(adqa_cli.adqa)


@eval_app.command(
    "re",
    epilog=examples(
        "kgbuild eval re --gold ../shared/data/biored/Dev.PubTator --limit 50",
        "kgbuild eval re --gold ../shared/data/biored/Dev.BioC.JSON --json",
        "kgbuild eval re --gold ../shared/data/biored/Dev.PubTator --estimate",
        "kgbuild eval re --gold tests/fixtures/eval/biored_small.PubTator --json",
    ),
)
def re_(
    gold: GoldOpt,
    extractor: Annotated[
        str,
        typer.Option(help="auto | classifier | generative | pairwise | cooccurrence (as build)"),
    ] = "auto",
    pairwise_mode: Annotated[str, typer.Option(help="per-pair | batched")] = "batched",
    chunk_size: Annotated[int | None, typer.Option(help="Pairs per batched call")] = None,
    llm_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint [env OPENAI_BASE_URL]")
    ] = None,
    llm_model: Annotated[str | None, typer.Option(help="Model [env KGBUILD_LLM_MODEL]")] = None,
    llm_concurrency: Annotated[int | None, typer.Option(help="Requests in flight")] = None,
    llm_timeout: Annotated[float | None, typer.Option(help="Seconds per call")] = None,
    llm_max_tokens: Annotated[int | None, typer.Option(help="Completion token cap")] = None,
    embed_model: Annotated[
        str | None, typer.Option(help="Embedding model for entity resolution, or none")
    ] = None,
    scheme: Annotated[
        str | None, typer.Option(help="biored | cdr (default: from the file's relation types)")
    ] = None,
    assume_novelty: Annotated[
        str, typer.Option(help="Novelty given to every prediction: Novel | No")
    ] = "Novel",
    limit: LimitOpt = None,
    scratch: Annotated[
        Path | None,
        typer.Option(help="Keep the scratch warehouse here (default: a temporary folder)"),
    ] = None,
    llm_cache: Annotated[
        Path | None,
        typer.Option(help="LLM response cache file [default: <warehouse>/llm_cache.sqlite]"),
    ] = None,
    resamples: ResamplesOpt = N_RESAMPLES,
    seed: SeedOpt = SEED,
    estimate: Annotated[
        bool, typer.Option("--estimate", help="Print LLM calls/tokens/cost; spend nothing")
    ] = False,
    warehouse: WarehouseOpt = None,
    save: SaveOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Relation extraction: build the gold abstracts with an extractor, score the triples."""
    from kgbuild.evaluate.run_re import EvalExtraction, estimate_re, evaluate_re
    from kgbuild.extract.caps import CHUNK_SIZE
    from kgbuild.llm.client import LLMSettings
    from kgbuild.pipeline.options import LLM_CACHE

    _check_limit(limit)
    if assume_novelty not in ("Novel", "No"):
        raise InputError("--assume-novelty must be Novel or No", given=assume_novelty)
    if resamples < 1:
        raise InputError("--bootstrap must be at least 1", given=resamples)
    settings = LLMSettings.from_env(
        base_url=llm_base_url,
        model=llm_model,
        concurrency=llm_concurrency,
        timeout_s=llm_timeout,
        max_tokens=llm_max_tokens,
    )
    options = EvalExtraction(
        extractor,
        settings,
        pairwise_mode,
        chunk_size or CHUNK_SIZE,
        embed_model or load_settings().embed_model,
        cache_path=llm_cache or warehouse_path(warehouse) / LLM_CACHE,
    )
    if estimate:
        figures = estimate_re(gold, options, limit)
        if as_json:
            sys.stdout.write(json.dumps(figures) + "\n")
            return
        out.print(
            f"estimate: {figures['extractor']} with {figures['model']} on {figures['docs']:,} "
            f"documents: {figures['calls']:,} LLM calls ({figures['cached']:,} answered from the "
            f"cache), ≈{figures['prompt_tokens']:,} prompt + {figures['completion_tokens']:,} "
            f"completion tokens, ${figures['cost_usd']:.4f}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        return
    report, facts = evaluate_re(
        gold,
        options,
        scratch=scratch,
        scheme=scheme,
        novelty=assume_novelty,
        limit=limit,
        resamples=resamples,
        seed=seed,
    )
    _emit(report, facts, warehouse, save, as_json)


@eval_app.command(
    "facts",
    epilog=examples(
        "kgbuild eval facts --gold ../shared/data/biored/Dev.PubTator --limit 50",
        "kgbuild eval facts --gold ../shared/data/biored/Dev.PubTator --json",
        "kgbuild eval facts --gold ../shared/data/biored/Dev.PubTator --out facts.tsv",
    ),
)
def facts(
    gold: GoldOpt,
    limit: Annotated[
        int | None, typer.Option(help="Ask only the first N questions (round-robin over forms)")
    ] = None,
    docs: Annotated[
        int | None, typer.Option(help="Build and ask about only the first N documents")
    ] = None,
    embeddings: Annotated[
        bool, typer.Option(help="Let the query engine embed what its dictionary cannot link")
    ] = False,
    all_evidence: Annotated[
        bool,
        typer.Option(
            "--all-evidence",
            help="Serve every evidence row (background, hedged…), as ask --all-evidence",
        ),
    ] = False,
    scratch: Annotated[
        Path | None,
        typer.Option(help="Keep the build input and warehouse here (default: a temporary folder)"),
    ] = None,
    out_tsv: Annotated[
        Path | None,
        typer.Option("--out", help="Write the per-question rows (TSV) here"),
    ] = None,
    resamples: ResamplesOpt = N_RESAMPLES,
    seed: SeedOpt = SEED,
    as_json: JsonOpt = False,
) -> None:
    """Fact retrieval: build the gold abstracts without their relation lines, ask the questions
    the gold relations answer ("Which chemicals induce {disease}?"…), score the ranked answers:
    recall@10, MRR, hits@1 and the share whose shown sentence states the fact."""
    from kgbuild.evaluate.facts import evaluate_facts
    from kgbuild.evaluate.facts_report import render, write_rows
    from kgbuild.evaluate.markdown import _table

    _check_limit(limit)
    if docs is not None and docs < 1:
        raise InputError("--docs must be at least 1", docs=docs)
    if resamples < 1:
        raise InputError("--bootstrap must be at least 1", given=resamples)
    report, rows = evaluate_facts(
        gold, work=scratch, docs=docs, limit=limit, embeddings=embeddings,
        all_evidence=all_evidence, resamples=resamples, seed=seed,
    )  # fmt: skip
    if out_tsv is not None:
        write_rows(out_tsv, rows)
        err.print(f"per-question rows: {out_tsv}", highlight=False, markup=False, soft_wrap=True)
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
        return
    for title, header, body in render(report):
        text = "\n".join([title, *_table(header, body)])
        out.print(text, markup=False, highlight=False, soft_wrap=True)


@eval_app.command(
    "judgments",
    epilog=examples(
        "kgbuild eval judgments",
        "kgbuild eval judgments --only id_checks --limit 50",
        "kgbuild eval judgments --only epistemic --status-sheet negated.tsv",
        "kgbuild eval judgments --only confidence --audit-sheet a.tsv -w llm-wh",
    ),
)
def judgments(
    curated: Annotated[
        list[Path] | None,
        typer.Option(
            "--curated",
            help="Curated gold file for the ID checks, repeatable (default: BioRED and BC5CDR "
            "train+dev beside the checkout); its corpus is named by the file",
        ),
    ] = None,
    biored_dev: Annotated[
        Path | None, typer.Option(help="BioRED dev (or test) file for the verifier")
    ] = None,
    cdr_dev: Annotated[
        Path | None, typer.Option(help="BC5CDR development (or test) file for the verifier")
    ] = None,
    status_sheet: Annotated[
        list[Path] | None,
        typer.Option(help="Blind-judged status sheet (negated / hypothesis), repeatable"),
    ] = None,
    audit_sheet: Annotated[
        list[Path] | None, typer.Option(help="Blind-judged audit sheet, repeatable")
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option(help="Sections: id_checks | verifier | epistemic | confidence"),
    ] = None,
    limit: LimitOpt = None,
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Every judgment against gold: ID checks, relation verifier, epistemic status, confidence.

    Prints a table per section and ends with one JSON line of the headline figures."""
    from kgbuild.evaluate.judgments import (
        SECTIONS,
        default_dev,
        evaluate_judgments,
        gold_by_corpus,
        headline,
        render,
    )

    _check_limit(limit)
    sections = tuple(only or SECTIONS)
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        raise InputError("unknown section", given=",".join(unknown), known=",".join(SECTIONS))
    dev = default_dev() if biored_dev is None and cdr_dev is None else {}
    dev |= {k: v for k, v in (("biored", biored_dev), ("cdr", cdr_dev)) if v is not None}
    report = evaluate_judgments(
        gold=gold_by_corpus(curated) if curated else None,
        dev=dev,
        status_sheets=status_sheet or (),
        audit_sheets=audit_sheet or (),
        warehouse=warehouse_path(warehouse) if audit_sheet else None,
        limit=limit,
        sections=sections,
    )
    if as_json:
        sys.stdout.write(json.dumps(report) + "\n")
    else:
        out.print(render(report), markup=False, highlight=False, soft_wrap=True)
    sys.stdout.write(json.dumps(headline(report)) + "\n")


@eval_app.command(
    "ner",
    epilog=examples(
        "kgbuild eval ner --gold ../shared/data/biored/Dev.PubTator --limit 50",
        "kgbuild eval ner --gold ../shared/data/biored/Dev.PubTator --model blank",
    ),
)
def ner(
    gold: GoldOpt,
    model: Annotated[
        list[str] | None,
        typer.Option(
            help="spaCy NER pipeline, repeatable: en_chem_ner, en_ner_bc5cdr_md, blank, … "
            "(default: every installed known model)"
        ),
    ] = None,
    types: Annotated[
        str | None, typer.Option(help="Comma-separated types, e.g. Chemical,Disease [gold's]")
    ] = None,
    abbreviations: Annotated[
        bool, typer.Option(help="Label undetected short forms by their long form")
    ] = True,
    limit: LimitOpt = None,
    resamples: ResamplesOpt = N_RESAMPLES,
    seed: SeedOpt = SEED,
    warehouse: WarehouseOpt = None,
    save: SaveOpt = True,
    as_json: JsonOpt = False,
) -> None:
    """Named-entity recognition: strict and overlapping P/R/F1 per model and type."""
    from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator
    from kgbuild.evaluate.run_ner import default_models, evaluate_ner

    _check_limit(limit)
    if not gold.is_file():
        raise InputError("no such gold file", path=gold)
    names = list(dict.fromkeys(model)) if model else default_models()
    annotators = [SciSpacyAnnotator(model=m, abbreviations=abbreviations) for m in names]
    wanted = [t.strip() for t in types.split(",") if t.strip()] if types else None
    report, facts = evaluate_ner(
        gold, annotators, types=wanted, limit=limit, resamples=resamples, seed=seed
    )
    _emit(report, facts, warehouse, save, as_json)


@eval_app.command(
    "compare",
    epilog=examples(
        "kgbuild eval reports",
        "kgbuild eval compare re-Dev-generative re-Dev-cooccurrence",
    ),
)
def compare_(
    a: Annotated[str, typer.Argument(help="Run id, unique prefix or report JSON path")],
    b: Annotated[str, typer.Argument(help="Run id, unique prefix or report JSON path")],
    warehouse: WarehouseOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Two evaluation runs side by side, with paired F1 differences on the same documents."""
    from kgbuild.evaluate.compare import compare
    from kgbuild.evaluate.markdown import render_compare
    from kgbuild.evaluate.reports import load_report

    wh = warehouse_path(warehouse)
    result = compare(load_report(wh, a), load_report(wh, b))
    if as_json:
        sys.stdout.write(json.dumps(result, indent=1) + "\n")
        return
    out.print(render_compare(result), markup=False, highlight=False, soft_wrap=True)


@eval_app.command("reports", epilog=examples("kgbuild eval reports", "kgbuild eval reports --json"))
def reports(warehouse: WarehouseOpt = None, as_json: JsonOpt = False) -> None:
    """The evaluation runs kept in the warehouse, with their headline F1."""
    from kgbuild.evaluate.markdown import _table
    from kgbuild.evaluate.reports import list_reports

    rows = list_reports(warehouse_path(warehouse))
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
        return
    cols = ["run_id", "kind", "gold", "evaluated", "measure", "f1"]
    text = "\n".join(_table(cols, [[r.get(c, "") for c in cols] for r in rows]))
    out.print(text, markup=False, highlight=False, soft_wrap=True)


@eval_app.command(
    "forecast",
    epilog=examples(
        "kgbuild eval forecast alzheimers@2015",
        "kgbuild eval forecast alzheimers@2013 --top 50 --json",
        "kgbuild eval forecast alzheimers@2015 --name-feature",
    ),
)
def forecast_(
    snapshot: Annotated[
        str, typer.Argument(help="The snapshot forecast from: KG@YEAR (or an id, a prefix)")
    ],
    top: Annotated[int, typer.Option(help="Top predictions listed, with names and PMIDs")] = 20,
    name_feature: Annotated[
        bool,
        typer.Option(
            "--name-feature/--no-name-feature",
            help="Add the cosine of the two names' MiniLM embeddings (trained on text written "
            "after the year forecast, so outside the time split; off by default)",
        ),
    ] = False,
    warehouse: Annotated[
        Path | None,
        typer.Option("--warehouse", "-w", help="The warehouse read [env KGBUILD_WAREHOUSE]"),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Literature-based discovery, measured: score every unjoined pair of the snapshot's nodes
    from it and earlier snapshots only, then rank the pairs later snapshots join (AUC, hits@100,
    hits@1000) against the degree product; by later year; the top predictions and the PMIDs
    that later reported them (docs/evaluation.md, "Forecast")."""
    from kgbuild.evaluate.forecast import forecast, render
    from kgbuild.forecast import embed_names
    from kgbuild.store.snapshots import Warehouse

    embed = embed_names if name_feature else None
    report = forecast(
        Warehouse(warehouse_path(warehouse)).require(), snapshot, top=top, embed=embed
    )
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict()) + "\n")
        return
    out.print(render(report), markup=False, highlight=False, soft_wrap=True)
