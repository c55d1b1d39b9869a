"""``kgbuild eval adqa``: ADQA accuracy of a snapshot (DALK §4, Table 3), registered under
``kgbuild eval`` by kgbuild/evaluate/cli.py; its options are the query commands'."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from kgbuild.errors import InputError, StoreError
from kgbuild.helptext import examples
from kgbuild.llm.options import BaseUrl, MaxTokens, Model, llm_settings, make_client
from kgbuild.query.cli import (
    Embed,
    Hops,
    IndexDir,
    K,
    Snapshot,
    Warehouse,
    _table,
    err,
    out,
)
from kgbuild.query.limits import DEFAULT_HOPS, DEFAULT_K
from kgbuild.settings import warehouse_path
from kgbuild.store.cli_options import KgOpt, snapshot_ref
from kgbuild.store.sql_output import print_json

ADQA_EXAMPLES = examples(
    "kgbuild eval adqa ../shared/data/dalk/adqa/medqa_ner.json --limit 50",
    "kgbuild eval adqa ../shared/data/dalk/adqa/medqa_ner.json --years 2019-2020",
)


def adqa(
    files: Annotated[list[Path], typer.Argument(help="ADQA files: MedQA, MedMCQA, MMLU, QA4MRE")],
    snapshot: Snapshot = "latest",
    years: Annotated[str | None, typer.Option(help="Every yearly snapshot, e.g. 2011-2020")] = None,
    kg: KgOpt = None,
    k: K = DEFAULT_K,
    hops: Hops = DEFAULT_HOPS,
    embed: Embed = "mentions",
    llm: Annotated[bool, typer.Option("--llm", help="Answer with the LLM (accuracy)")] = False,
    llm_entities: Annotated[bool, typer.Option(help="LLM names question entities")] = True,
    rerank: Annotated[bool, typer.Option(help="LLM reranks the triples (DALK)")] = True,
    llm_base_url: BaseUrl = None,
    llm_model: Model = None,
    llm_max_tokens: MaxTokens = None,
    replay_entities: Annotated[
        bool,
        typer.Option(
            "--replay-entities",
            help="Retrieve from the recorded question entities (DALK's *_ner.json 'entity' "
            "field) instead of linking the question text",
        ),
    ] = False,
    limit: Annotated[int | None, typer.Option(help="First N questions of each file")] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Write JSON, TSV and PNG here")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    index_dir: IndexDir = None,
    warehouse: Warehouse = None,
) -> None:
    """ADQA (DALK): retrieval figures per subset without an LLM, accuracy with one (--llm),
    against one snapshot or each yearly snapshot (--years: DALK Figure 3)."""
    from kgbuild.evaluate.adqa import read_questions
    from kgbuild.evaluate.adqa_run import DALK_REPORTED, RETRIEVAL_FIGURES, evaluate, year_chart
    from kgbuild.query.engine import QueryEngine
    from kgbuild.store.snapshots import Warehouse as StoreWarehouse

    questions = []
    for f in files:
        qs = read_questions(f)
        questions += qs[:limit] if limit is not None else qs
    wh = StoreWarehouse(warehouse_path(warehouse)).require().root  # before the LLM cache opens
    client = None
    if llm:
        settings = llm_settings(llm_base_url, llm_model, llm_max_tokens)
        if not settings.endpoint_configured:
            raise InputError(
                "--llm needs an endpoint: --llm-base-url or OPENAI_BASE_URL / OPENAI_API_KEY"
            )
        client = make_client(settings, wh)
    refs = [snapshot_ref(warehouse, snapshot, kg)]  # --kg: that KG's; with --years, its years
    if years:
        lo, _, hi = years.partition("-")
        hi = hi or lo
        if not all(y.isascii() and y.isdigit() and len(y) == 4 for y in (lo, hi)) or lo > hi:
            raise InputError("use --years FROM-TO, e.g. 2011-2020", years=years)
        name = QueryEngine.kg_of(wh, refs[0])
        refs = [f"{name}@{y}" for y in range(int(lo), int(hi or lo) + 1)]
    results, rows = [], []
    try:
        for ref in refs:
            try:
                engine = QueryEngine(wh, ref, index_dir)
            except StoreError as exc:  # a year after the newest snapshot
                if not years:
                    raise
                err.print(f"{ref}: {exc}; skipped", markup=False, highlight=False)
                continue
            idx = engine.state().index
            if years and str(idx.as_of_year) != ref.rsplit("@", 1)[1]:
                err.print(
                    f"{ref}: no snapshot of that year (nearest earlier: {idx.as_of_year}); skipped"
                )
                continue
            t0 = time.perf_counter()
            res = evaluate(
                engine,
                questions,
                k=k,
                hops=hops,
                embed=embed,
                client=client,
                llm_entities=llm_entities,
                rerank=rerank,
                replay_entities=replay_entities,
            )
            res.update(year=idx.as_of_year, kg=idx.kg, seconds=round(time.perf_counter() - t0, 2))
            results.append(res)
            for s, fig in res["subsets"].items():
                rows.append({"year": idx.as_of_year, "subset": s, **fig})
            if not as_json:
                _print_eval(res, RETRIEVAL_FIGURES, DALK_REPORTED if client else None)
    finally:
        if client is not None:
            client.close()
    report = {"runs": results} if years else results[0]
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "adqa.json").write_text(json.dumps(report, indent=1, sort_keys=True))
        llm_cols = ["accuracy", "accuracy_without_kg", "unparsed"] if client else []
        cols = ["year", "subset", *RETRIEVAL_FIGURES, *llm_cols]
        lines = ["\t".join(cols)] + [
            "\t".join("" if r.get(c) is None else str(r.get(c)) for c in cols) for r in rows
        ]
        (out_dir / "adqa_by_year.tsv").write_text("\n".join(lines) + "\n")
        if years:
            figs = ("hit_gold", "hit_wrong", "kg_accuracy",
                    *(["accuracy", "accuracy_without_kg"] if client else []))  # fmt: skip
            year_chart(rows, out_dir / "adqa_by_year.png", figs)
        err.print(f"wrote {out_dir}")
    if as_json:
        print_json(report)


def _print_eval(
    res: dict[str, Any], figures: tuple[str, ...], reported: dict[str, dict[str, float]] | None
) -> None:
    subsets = list(res["subsets"])
    cols = ["figure", *subsets]
    rows = [[f, *(res["subsets"][s].get(f) for s in subsets)] for f in figures]
    if reported is not None:
        cols.append("AVG")
        rows = [[*r, ""] for r in rows]
        rows.append(
            [
                "accuracy with the KG (ours)",
                *(res["subsets"][s].get("accuracy") for s in subsets),
                res.get("AVG"),
            ]
        )
        rows.append(
            [
                "accuracy, same LLM alone",
                *(res["subsets"][s].get("accuracy_without_kg") for s in subsets),
                res.get("AVG_without_kg"),
            ]
        )
        rows.append(
            ["unparsed (counted wrong)", *(res["subsets"][s].get("unparsed") for s in subsets), ""]
        )
        for name, figs in reported.items():
            rows.append([f"{name} (reported)", *(figs.get(s) for s in subsets), figs["AVG"]])
    out.print(
        _table(
            f"ADQA on {res['kg']}@{res['year']} ({res['snapshot']}), k={res['k']}, "
            f"hops={res['hops']}, embed={res['embed']}"
            f"{', replayed entities' if res.get('replay_entities') else ''}, {res['seconds']}s",
            cols,
            rows,
        )
    )
