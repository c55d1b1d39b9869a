"""``kgbuild conflicts``: facts the literature disagrees on, both sides cited.

A module of its own so ``kgbuild/cli/app.py`` registers it in one line
(``app.command("conflicts", …)(conflicts_cli.conflicts)``); it imports nothing of
``kgbuild/cli/`` (which imports it) and loads the store only when the command runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgbuild.errors import InputError
from kgbuild.helptext import examples
from kgbuild.llm.options import BaseUrl, MaxTokens, Model
from kgbuild.store.cli_options import KgOpt, kg_name

if TYPE_CHECKING:
    from kgbuild.belief.conflict_report import CitedRow, Conflict, ConflictReport
    from kgbuild.llm.client import LLMClient

HELP = (
    "Claims the literature disagrees on (a denial, or opposite directions), as the sentences "
    "state them, both sides cited."
)
EPILOG = examples(
    "kgbuild conflicts",
    "kgbuild conflicts alzheimers@2015 --kind negated --limit 5",
    "kgbuild conflicts --kind opposite_direction --json",
    "kgbuild conflicts --reader llm --llm-base-url http://127.0.0.1:8000/v1",
    "kgbuild conflicts --reader llm --estimate --llm-model gpt-4o-mini",
)
#: The claim readers: the strict templates (default), or an LLM asked about the same candidate
#: sentences (:mod:`kgbuild.belief.claims_llm`).
READERS = ("regex", "llm")
#: Characters of a cited sentence shown in the table (``--json`` has them whole).
SENTENCE_CHARS = 160
#: What each kind's side A and side B are, as the table heads them.
SIDES = {
    "negated": ("claimed", "denied"),
    "opposite_direction": ("raises", "lowers"),
}

out = Console(width=None if sys.stdout.isatty() else 200)


def conflicts(
    snapshot: Annotated[
        str | None, typer.Argument(help="Snapshot id/prefix, KG@YEAR or latest")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--kind", help="negated | opposite_direction [default: both]")
    ] = None,
    limit: Annotated[int, typer.Option(help="Conflicts listed (the most cited first)")] = 20,
    kg: KgOpt = None,
    warehouse: Annotated[
        Path | None,
        typer.Option(
            "--warehouse",
            "-w",
            help="Warehouse folder [env KGBUILD_WAREHOUSE; default ./warehouse]",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table")] = False,
    reader: Annotated[
        str,
        typer.Option(
            help="Claim reader: regex (strict templates) | llm (an LLM reads the same "
            "candidate sentences; needs an endpoint, answers cached in the warehouse)"
        ),
    ] = "regex",
    llm_base_url: BaseUrl = None,
    llm_model: Model = None,
    llm_max_tokens: MaxTokens = None,
    estimate: Annotated[
        bool,
        typer.Option(
            "--estimate",
            help="With --reader llm: print the calls, tokens and cost a reading would take; "
            "send nothing",
        ),
    ] = False,
) -> None:
    """Pairs with sentences stating an effect or association and sentences denying it
    (negated), or sentences stating opposite directions (opposite_direction) — every sentence
    of the snapshot's abstracts mentioning both, read by the claim reader ("X reduces Y", "X
    did not affect Y"…), not the extractor's type —
    each side's best sentences with PMIDs and the year the conflict appeared (the first year
    both sides had evidence). ``--reader llm``: an LLM reads the same candidate sentences
    (``--llm-base-url``/``--llm-model``, or the environment), its answers cached in the
    warehouse; ``--estimate`` says what that reading would send and cost, sending nothing."""
    from kgbuild.reader.conflict_list import list_conflicts
    from kgbuild.settings import warehouse_path
    from kgbuild.store.snapshots import Warehouse
    from kgbuild.store.sql_output import print_json

    if reader not in READERS:
        raise InputError(f"--reader must be one of {', '.join(READERS)}", reader=reader)
    if estimate and reader != "llm":
        raise InputError("--estimate goes with --reader llm (the templates call no LLM)")
    wh = Warehouse(warehouse_path(warehouse)).require()
    sid = wh.resolve(wh.scope(snapshot, kg_name(kg)))
    client = _client(wh.root, llm_base_url, llm_model, llm_max_tokens) if reader == "llm" else None
    if estimate:
        assert client is not None
        _estimate(wh.catalog_path, sid, client, as_json)
        return
    try:
        report = list_conflicts(wh, sid, kind=kind, limit=limit, client=client)
    finally:
        if client is not None:
            client.close()
    if as_json:
        print_json(report.to_dict())
        return
    if report.reading is not None:
        print_reading(report.reading)
    print_report(report)


def _client(
    root: Path, base_url: str | None, model: str | None, max_tokens: int | None
) -> LLMClient:
    """The LLM client of ``--reader llm``, caching in the warehouse; one error line when no
    endpoint is configured (the key comes from the environment only)."""
    from kgbuild.llm.client import LLMSettings
    from kgbuild.llm.options import make_client

    settings = LLMSettings.from_env(base_url=base_url, model=model, max_tokens=max_tokens)
    if not settings.endpoint_configured:
        raise InputError(
            "--reader llm needs an endpoint: --llm-base-url or OPENAI_BASE_URL / OPENAI_API_KEY"
        )
    return make_client(settings, root)


def _estimate(catalog_path: Path, sid: str, client: LLMClient, as_json: bool) -> None:
    """``--estimate``: what reading ``sid`` would send (the cache looked up, nothing sent)."""
    from kgbuild.belief.claims_llm import ANSWER_TOKENS
    from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS
    from kgbuild.reader.claims_snapshot import estimate_snapshot
    from kgbuild.store.sql_output import print_json

    try:
        est = estimate_snapshot(catalog_path, sid, DEFAULT_FILTERS, client)
    finally:
        client.close()
    if as_json:
        print_json({"snapshot": sid, "estimate": est.to_dict()})
        return
    pin, pout = client.settings.price()
    cost = "cost unknown (no price for the model)"
    if est.cost_usd is not None:
        cost = f"≈ ${est.cost_usd:,.4f} at ${pin}/${pout} per 1M prompt/completion tokens"
    out.print(
        f"estimate for {sid} with {est.model}: {est.questions:,} sentence-pairs, "
        f"{est.cached:,} answered by the cache, {est.skipped:,} unmarkable; {est.calls:,} calls, "
        f"≈ {est.prompt_tokens:,} prompt + {est.completion_tokens:,} completion tokens "
        f"(characters/4; {ANSWER_TOKENS} per answer assumed); {cost}; nothing sent",
        highlight=False,
        markup=False,
        soft_wrap=True,  # one line, whatever the width: scripts grep it
    )


def print_reading(r: dict[str, Any]) -> None:
    """One line: what the LLM reader read and what it cost."""
    cost = "cost unknown (no price for the model)" if r["cost_usd"] is None else (
        f"${r['cost_usd']:.4f}")  # fmt: skip
    out.print(
        f"read by {r['reader']} ({r['model']}): {r['asked']:,} sentence-pairs asked, "
        f"{r['read']:,} claims, {r['none']:,} none, {r['unparseable']:,} unparseable answers, "
        f"{r['failed']:,} failed; {r['calls']:,} calls, {r['cache_hits']:,} cached; {cost}",
        highlight=False,
        markup=False,
    )


def print_report(report: ConflictReport) -> None:
    """The counts line and one table row per conflict (each side's best sentence, cut)."""
    n = report.counts
    out.print(
        f"{report.kg}@{report.as_of_year} ({report.snapshot_id[:10]}): "
        f"{n['negated']:,} negated, {n['opposite_direction']:,} opposite-direction conflicts "
        "(sentences stating the claim, read by the claim reader; subject — object; "
        "n: distinct PMIDs per side)",
        highlight=False,
        markup=False,
    )
    if not report.conflicts:
        return
    total = n[report.kind] if report.kind else sum(n.values())
    shown = "all" if len(report.conflicts) >= total else f"the {len(report.conflicts):,} most cited"
    t = Table(title=f"conflicts: {total:,} ({shown}; --limit {report.limit})")
    for col in ("pair", "kind", "year", "side A", "side B"):
        t.add_column(col, overflow="fold")
    for c in report.conflicts:
        a, b = SIDES.get(c.kind, ("A", "B"))
        t.add_row(
            escape(conflict_title(c)),
            escape(c.kind),
            str(c.year_appeared),
            escape(_side(a, c.polarities_a, c.n_a, c.evidence_a)),
            escape(_side(b, c.polarities_b, c.n_b, c.evidence_b)),
        )
    out.print(t)


def _named(name: str | None, node_id: str) -> str:
    return node_id if not name or name == node_id else name


def _side(label: str, polarities: list[str], n: int, rows: list[CitedRow]) -> str:
    """``label (what was read), n PMIDs: "best sentence…" PMID year``."""
    head = f"{label} ({', '.join(polarities)}), {n:,} PMID{'s' if n != 1 else ''}"
    if not rows:
        return head
    best = rows[0]
    text = " ".join(best.sentence.split())
    if len(text) > SENTENCE_CHARS:
        text = text[: SENTENCE_CHARS - 1] + "…"
    return f'{head}: "{text}" PMID {best.pmid} ({best.year})'


def conflict_title(c: Conflict) -> str:
    """``subject — object`` by display names (ids where a node has none), a mention's variant
    marker after its name ("APOE [4]") and what is measured of it when not its amount
    ("Abeta (aggregation)": the claims are about that)."""
    head = _named(c.head_name, c.head_id) + (f" [{c.head_variant}]" if c.head_variant else "")
    head += f" ({c.head_measure})" if c.head_measure else ""
    tail = _named(c.tail_name, c.tail_id) + (f" [{c.tail_variant}]" if c.tail_variant else "")
    tail += f" ({c.tail_measure})" if c.tail_measure else ""
    return f"{head} — {tail}"
