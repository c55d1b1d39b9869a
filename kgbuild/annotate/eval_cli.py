"""``kgbuild eval …``: score annotators against gold corpora (a Typer sub-app the CLI mounts).

``kgbuild eval ner --gold CDR_DevelopmentSet.PubTator.txt --model en_chem_ner --types Chemical``
annotates the gold file's documents with the chosen annotator and prints strict and
overlapping P/R/F1 per type and micro-averaged (see :mod:`kgbuild.annotate.evaluate`).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from kgbuild.errors import InputError
from kgbuild.query import cli as query_cli
from kgbuild.records import Document, Mention, Problem

eval_app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Evaluate annotators against gold-annotated corpora.",
)
out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

ANNOTATORS = ("scispacy",)
# ADQA question answering (kgbuild/query/cli.py).
eval_app.command("adqa")(query_cli.adqa)


@eval_app.callback()
def _group() -> None:
    """Evaluate annotators against gold-annotated corpora."""


@eval_app.command("ner")
def ner(
    gold: Annotated[
        Path, typer.Option("--gold", help="Gold PubTator file (BC5CDR, BioRED *.PubTator)")
    ],
    annotator: Annotated[str, typer.Option(help="Annotator to evaluate: scispacy")] = "scispacy",
    model: Annotated[
        str, typer.Option(help="spaCy pipeline: en_chem_ner, en_ner_bc5cdr_md, blank, …")
    ] = "en_ner_bc5cdr_md",
    types: Annotated[
        str | None, typer.Option(help="Comma-separated types, e.g. Chemical,Disease [all]")
    ] = None,
    abbreviations: Annotated[
        bool, typer.Option(help="Label undetected short forms by their long form")
    ] = True,
    limit: Annotated[int | None, typer.Option(help="Score only the first N documents")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
) -> None:
    """Named-entity recognition: strict and overlapping P/R/F1 against a gold file."""
    from kgbuild.annotate.evaluate import read_gold
    from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator

    if not gold.is_file():
        raise InputError("no such gold file", path=gold)
    if annotator not in ANNOTATORS:
        raise InputError("unknown annotator", annotator=annotator, known=",".join(ANNOTATORS))
    gold_set = read_gold(gold)
    docs = gold_set.documents[:limit] if limit is not None else gold_set.documents
    t0 = time.perf_counter()
    ann = SciSpacyAnnotator(model=model, abbreviations=abbreviations)
    predicted = ann.annotate_many(docs)
    seconds = time.perf_counter() - t0
    figures = score_run(gold_set.mentions, predicted, types, docs)
    figures.update(
        gold=str(gold),
        annotator=ann.annotator,
        abbreviations=abbreviations,
        seconds=round(seconds, 2),
        gold_problems=_problem_counts(gold_set.problems),
    )
    if as_json:
        out.print_json(json.dumps(figures))
        return
    out.print(ner_table(figures))


def score_run(
    gold: dict[str, list[Mention]],
    predicted: dict[str, list[Mention]],
    types: str | None,
    docs: list[Document],
) -> dict[str, Any]:
    """Scores over the evaluated documents only (``--limit`` keeps the first N)."""
    from kgbuild.annotate.evaluate import ner_scores

    pmids = {d.pmid for d in docs}
    wanted = [t.strip() for t in types.split(",") if t.strip()] if types else None
    return ner_scores({p: m for p, m in gold.items() if p in pmids}, predicted, wanted)


def _problem_counts(problems: list[Problem]) -> dict[str, int]:
    return dict(Counter(p.kind for p in problems))


def ner_table(figures: dict[str, Any]) -> Table:
    """One row per type and a micro-average row: counts, strict and overlapping P/R/F1."""
    title = (
        f"NER {figures['annotator']} vs {Path(figures['gold']).name}: "
        f"{figures['n_documents']} documents, {figures['seconds']} s"
    )
    table = Table(title=title)
    for col in ["type", "n gold", "n predicted"]:
        table.add_column(col)
    for col in ["strict P", "strict R", "strict F1", "overlap P", "overlap R", "overlap F1"]:
        table.add_column(col, justify="right")
    rows = [*figures["types"].items(), ("micro", figures["micro"])]
    for name, s in rows:
        st, ov = s["strict"], s["overlap"]
        table.add_row(
            name,
            str(s["n_gold"]),
            str(s["n_predicted"]),
            *(f"{x[k]:.3f}" for x in (st, ov) for k in ("precision", "recall", "f1")),
        )
    return table
