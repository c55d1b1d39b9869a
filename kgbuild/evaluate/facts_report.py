"""What ``kgbuild eval facts`` shows: its tables (figures per question form, then the misses by
reason) and the per-question rows as TSV for inspection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgbuild.evaluate.facts_score import MISS_REASONS, Scored
from kgbuild.store.spreadsheet import text_cell

_COLUMNS = (
    "recall_at_10",
    "recall_at_10_macro",
    "recall_at_10_with_fact",
    "mrr",
    "hits_at_1",
    "stated_share",
)


def render(report: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report as (title, header, rows) tables: figures per form, then the misses."""
    header = [
        "form",
        "questions",
        "gold answers",
        "recall@10",
        "ceiling",
        "recall@10 (macro)",
        "recall@10 with a fact",
        "MRR",
        "hits@1",
        "stated",
    ]

    def cells(name: str, s: dict[str, Any]) -> list[str]:
        if not s.get("questions"):
            return [name, "0", "0", *["—"] * (len(_COLUMNS) + 1)]
        figs = [f"{s[c]:.3f} [{s[c + '_ci'][0]:.2f}–{s[c + '_ci'][1]:.2f}]" for c in _COLUMNS]
        ceiling = f"{s['recall_at_10_ceiling']:.3f}"
        return [name, str(s["questions"]), str(s["gold_answers"]), figs[0], ceiling, *figs[1:]]

    rows = [cells(f, s) for f, s in report["per_form"].items()]
    rows.append(cells("overall", report["overall"]))
    if base := report.get("co_mention_baseline"):
        filled = {**base, "stated_share": 0.0, "stated_share_ci": [0.0, 0.0]}
        row = cells("baseline: co-mention in an abstract", filled)
        row[6] = row[-1] = "—"  # no fact, no sentence: only names in the same abstract
        rows.append(row)
    miss_rows = [
        [f, *(str(s.get("misses", {}).get(k, 0)) for k in MISS_REASONS)]
        for f, s in [*report["per_form"].items(), ("overall", report["overall"])]
    ]
    g = report["gold"]
    title = (
        f"facts: {g['file']} ({g['documents']} documents, {g['relations']} relations), "
        f"extractor {report['build'].get('extractor')}, answers from "
        f"{', '.join(f'{k} ({v})' for k, v in report['answers_from'].items())}"
    )
    bases = ("fact", "weaker_fact", "same_sentence", "same_abstract")
    basis_rows = [
        [f, *(str(s.get("found_by_basis", {}).get(b, 0)) for b in bases)]
        for f, s in [*report["per_form"].items(), ("overall", report["overall"])]
    ]
    return [
        (title, header, rows),
        (
            "gold answers found in the first 10, by what the answer rests on (a served fact; "
            "a fact whose evidence is not served; a shared sentence; a shared abstract)",
            ["form", *bases],
            basis_rows,
        ),
        (
            "gold answers missed from the first 10, by first reason",
            ["form", *MISS_REASONS],
            miss_rows,
        ),
    ]


def _cell(value: Any) -> str:
    """A cell on one line (no tab or newline from a name breaks a row); text (not a number)
    spreadsheet-safe (:mod:`kgbuild.store.spreadsheet`: KG names are untrusted text)."""
    text = " ".join(str(value).split())
    return text if isinstance(value, int | float) else text_cell(text)


def write_rows(path: Path, rows: list[Scored]) -> None:
    """Per-question rows as TSV: the question, gold answers, ranked answers and ranks."""
    head = [
        "form",
        "question",
        "entity",
        "gold_answers",
        "ranked_answers",
        "ranks",
        "found",
        "reciprocal_rank",
        "stated",
        "without_fact",
        "misses",
        "answers_from",
    ]
    lines = ["\t".join(head)]
    for r in rows:
        ranks = ";".join("-" if x is None else str(x) for x in r.ranks)
        misses = ";".join(f"{k}={v}" for k, v in sorted(r.misses.items()))
        values = [
            r.form,
            r.question,
            r.entity,
            ";".join(r.gold),
            ";".join(r.ranked),
            ranks,
            r.found,
            round(r.reciprocal_rank, 4),
            sum(r.stated),
            r.without_fact,
            misses,
            r.path,
        ]
        lines.append("\t".join(_cell(v) for v in values))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
