"""The report's charts, drawn with matplotlib (Agg: no display) as PNG bytes.

Each chart has a title, axis labels with units and readable numbers (thousands separators);
a chart with nothing to show is not drawn (the page says why instead). PNGs carry no software
or date metadata, so the same figures give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kgbuild.report.figures import SnapshotFigures

#: Colours: Hetionet relations vs open predicates; statuses good/partial/bad.
HETIONET, OPEN = "#2b6cb0", "#dd8452"
GOOD, PARTIAL, BAD, GREY = "#38a169", "#d69e2e", "#c53030", "#718096"
SERIES = {"corpus": "#718096", "nodes": "#805ad5", "triples": "#2b6cb0", "evidence": "#38a169"}
DPI = 100


@dataclass(frozen=True)
class Chart:
    """One drawn chart: a stable key, its title, a caption and the PNG."""

    key: str
    title: str
    caption: str
    png: bytes


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 12, "axes.titleweight": "bold",
                         "axes.spines.top": False, "axes.spines.right": False,
                         "svg.hashsalt": "kgbuild"})  # fmt: skip
    return plt


def _thousands(ax: Any, axis: str = "y") -> None:
    from matplotlib.ticker import FuncFormatter

    fmt = FuncFormatter(lambda v, _: f"{v:,.0f}")
    (ax.yaxis if axis == "y" else ax.xaxis).set_major_formatter(fmt)


def _png(fig: Any) -> bytes:
    plt = _plt()
    try:
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
        return buf.getvalue()
    finally:
        plt.close(fig)


def size_by_year(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    years = [r["year"] for r in f.years]
    for col in ("corpus", "nodes", "triples", "evidence"):
        ax.plot(years, [r[col] for r in f.years], marker="o", label=col, color=SERIES[col])
    ax.set_title("KG size per year (cumulative)")
    ax.set_xlabel("as-of year")
    ax.set_ylabel("count (documents, nodes, triples, sentences)")
    ax.set_xticks(years)
    _thousands(ax)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small", frameon=False)
    return _png(fig)


def added_by_year(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    years = [str(r["year"]) for r in f.added]
    x = range(len(years))
    for i, col in enumerate(("triples", "evidence")):
        ax.bar([v + (i - 0.5) * 0.4 for v in x], [r[col] for r in f.added], width=0.4,
               label=f"{col} added", color=SERIES[col])  # fmt: skip
    ax.set_xticks(list(x), years)
    ax.set_title("What each year added")
    ax.set_xlabel("year")
    ax.set_ylabel("count")
    _thousands(ax)
    ax.legend(fontsize="small", frameon=False)
    return _png(fig)


def relation_mix(f: SnapshotFigures) -> bytes:
    plt = _plt()
    rels = f.relations[::-1]
    fig, ax = plt.subplots(figsize=(7.5, max(2.6, 0.6 + 0.24 * len(rels))))
    ax.barh([r for r, _, _ in rels], [n for _, _, n in rels],
            color=[HETIONET if h else OPEN for _, h, _ in rels])  # fmt: skip
    ax.set_title("Relation mix: triples per relation")
    ax.set_xlabel("triples")
    _thousands(ax, "x")
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=HETIONET, label="Hetionet relation"),
                       Patch(color=OPEN, label="open predicate")],
              loc="lower right", fontsize="small", frameon=False)  # fmt: skip
    return _png(fig)


def relation_share_by_year(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    years = [str(y) for y, _, _ in f.relation_years]
    het = [h for _, h, _ in f.relation_years]
    ax.bar(years, het, color=HETIONET, label="Hetionet relation")
    ax.bar(years, [o for _, _, o in f.relation_years], bottom=het, color=OPEN,
           label="open predicate")  # fmt: skip
    ax.set_title("New triples by first year: Hetionet vs open predicates")
    ax.set_xlabel("year the triple was first seen")
    ax.set_ylabel("triples")
    _thousands(ax)
    ax.legend(fontsize="small", frameon=False)
    return _png(fig)


def node_kinds(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, max(2.6, 0.9 + 0.4 * len(f.kinds))))
    kinds = f.kinds[::-1]
    colors = [GREY if k.startswith("unlinked") else HETIONET for k, _ in kinds]
    ax.barh([k for k, _ in kinds], [n for _, n in kinds], color=colors)
    ax.set_title("Nodes by kind (endpoints of at least one triple)")
    ax.set_xlabel("nodes")
    _thousands(ax, "x")
    return _png(fig)


def document_statuses(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    years = [str(r["year"]) for r in f.added]
    bottom = [0] * len(years)
    for col, label, color in (("corpus", "built", GOOD), ("duplicate", "duplicate", PARTIAL),
                              ("rejected", "rejected", BAD)):  # fmt: skip
        vals = [r[col] for r in f.added]
        ax.bar(years, vals, bottom=bottom, label=label, color=color)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_title("Input records per year by status")
    ax.set_xlabel("publication year")
    ax.set_ylabel("records")
    _thousands(ax)
    ax.legend(fontsize="small", frameon=False)
    return _png(fig)


def _reason_bars(rows: list[tuple[str, int]], title: str, xlabel: str) -> bytes:
    plt = _plt()
    rows = rows[::-1]
    fig, ax = plt.subplots(figsize=(7.5, max(2.6, 1.1 + 0.34 * len(rows))))
    ax.barh([_short(k, 48) for k, _ in rows], [n for _, n in rows], color=BAD)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    _thousands(ax, "x")
    return _png(fig)


def problems(f: SnapshotFigures) -> bytes:
    return _reason_bars(f.problems, "Input problems by kind", "input lines or annotations")


def rejections(f: SnapshotFigures) -> bytes:
    return _reason_bars(f.rejections, "Rejected claims by reason", "extracted claims")


def extraction_statuses(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    years = [str(r["year"]) for r in f.added]
    bottom = [0] * len(years)
    for col, color in (("done", GOOD), ("partial", PARTIAL), ("failed", BAD)):
        vals = [r[col] for r in f.added]
        ax.bar(years, vals, bottom=bottom, label=col, color=color)
        bottom = [b + v for b, v in zip(bottom, vals, strict=True)]
    ax.set_title("Extraction status of the documents each year added")
    ax.set_xlabel("year")
    ax.set_ylabel("documents")
    _thousands(ax)
    ax.legend(fontsize="small", frameon=False)
    return _png(fig)


def llm_usage(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, (calls, tokens, cost) = plt.subplots(1, 3, figsize=(10.5, 3.4))
    years = [str(r["year"]) for r in f.added]
    calls.bar(years, [r["llm_calls"] for r in f.added], color=HETIONET)
    calls.set_title("LLM calls")
    calls.set_ylabel("calls")
    prompt = [r["prompt_tokens"] / 1e3 for r in f.added]
    tokens.bar(years, prompt, color=HETIONET, label="prompt")
    tokens.bar(years, [r["completion_tokens"] / 1e3 for r in f.added], bottom=prompt,
               color=OPEN, label="completion")  # fmt: skip
    tokens.set_title("Tokens")
    tokens.set_ylabel("thousand tokens")
    top = max((p + r["completion_tokens"] / 1e3 for p, r in zip(prompt, f.added, strict=True)),
              default=0)  # fmt: skip
    tokens.set_ylim(0, top * 1.3 or 1)  # room for the legend above the bars
    tokens.legend(fontsize="small", frameon=False, ncol=2, loc="upper left")
    costs = [r["cost_usd"] for r in f.added]
    cost.bar(years, costs, color=GOOD)
    cost.set_title("Cost")
    cost.set_ylabel("USD")
    if not any(costs):
        cost.set_ylim(0, 1)
        cost.text(0.5, 0.5, "no cost recorded\n(the model has no price)", ha="center",
                  va="center", transform=cost.transAxes, color=GREY)  # fmt: skip
    for ax in (calls, tokens, cost):
        ax.set_xlabel("year")
        ax.tick_params(axis="x", labelrotation=60)
    _thousands(calls)
    _thousands(tokens)
    return _png(fig)


def support_histogram(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.4, 3.4))
    from matplotlib.ticker import NullFormatter

    ax.bar([s for s, _ in f.support], [n for _, n in f.support], color=HETIONET)
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.8)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title("Support: distinct PMIDs per triple")
    ax.set_xlabel("supporting abstracts (PMIDs)")
    ax.set_ylabel("triples (log scale)")
    _thousands(ax)
    return _png(fig)


def confidence_histogram(f: SnapshotFigures) -> bytes:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.4, 3.4))
    ax.hist(f.confidence, bins=[i / 20 for i in range(21)], color=HETIONET, edgecolor="white")
    ax.set_title("Confidence of served triples (calibrated)")
    ax.set_xlabel("confidence (0–1)")
    ax.set_ylabel("triples")
    _thousands(ax)
    return _png(fig)


def hubs(f: SnapshotFigures) -> bytes:
    plt = _plt()
    rows = f.hubs[::-1]
    fig, ax = plt.subplots(figsize=(7.5, max(2.6, 0.7 + 0.28 * len(rows))))
    # Positions, not names, place the bars: distinct nodes may share a name (human and mouse
    # APP are both "Abeta"), so each label also carries the node's id.
    ax.barh(range(len(rows)), [n for *_, n, _ in rows], color=HETIONET)
    ax.set_yticks(range(len(rows)), [f"{_short(name, 26)} ({kind}, {node})"
                                     for node, name, kind, _, _ in rows])  # fmt: skip
    ax.set_title("Top hubs: nodes in the most triples")
    ax.set_xlabel("triples")
    _thousands(ax, "x")
    return _png(fig)


def _short(text: str, n: int = 42) -> str:
    """One line of at most ``n`` characters (names may hold newlines or be long)."""
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


#: Every chart: key, title, caption, drawing function, and whether there is anything to draw.
CHARTS: list[tuple[str, str, str, Callable[[SnapshotFigures], bytes], Callable[..., bool]]] = [
    ("size", "KG size per year", "Cumulative #corpus, #nodes, #triples and #evidence of each "
     "year's snapshot (DALK Table 1; DALK Figure 3's left axis).", size_by_year,
     lambda f: bool(f.years)),
    ("added", "Growth per year", "Triples and supporting sentences each year added.",
     added_by_year, lambda f: bool(f.years)),
    ("relations", "Relation mix", "Triples per canonical relation: Hetionet's relations (DALK "
     "Table 11, presents, expresses) and kgbuild's open predicates.", relation_mix,
     lambda f: bool(f.relations)),
    ("relation-share", "Hetionet vs open predicates by year", "New triples by the year they "
     "were first seen.", relation_share_by_year, lambda f: bool(f.relation_years)),
    ("kinds", "Node kinds", "Nodes by Hetionet kind; unlinked nodes are LLM endpoints no "
     "identifier resolved.", node_kinds, lambda f: bool(f.kinds)),
    ("documents", "Document statuses", "Input records per publication year: built, duplicate "
     "(a PMID seen before), rejected.", document_statuses, lambda f: bool(f.years)),
    ("problems", "Input problems", "Input lines and annotations that could not be used as "
     "given (each is a row of the problems table).", problems, lambda f: bool(f.problems)),
    ("rejections", "Rejected claims", "Extracted claims the hallucination guard, the node-kind "
     "check or the parser dropped (each is a row of the rejections table).", rejections,
     lambda f: bool(f.rejections)),
    ("extraction", "Extraction statuses", "done: every call answered; partial: an answer was "
     "cut at max_tokens; failed: a call failed for good (the next build retries it).",
     extraction_statuses, lambda f: f.has_llm),
    ("llm", "LLM calls, tokens and cost per year", "Requests, tokens and USD each year's "
     "documents took (cost is 0 for a model without a price in data/llm_prices.tsv).",
     llm_usage, lambda f: f.has_llm),
    ("support", "Support histogram", "Distinct abstracts supporting each triple.",
     support_histogram, lambda f: bool(f.support)),
    ("confidence", "Confidence histogram", "The calibrated probability that a served triple's "
     "best sentence states it (fitted on judged audit sheets: kgbuild audit fit).",
     confidence_histogram, lambda f: bool(f.confidence)),
    ("hubs", "Top hubs", "The nodes in the most triples.", hubs, lambda f: bool(f.hubs)),
]  # fmt: skip


def draw_all(f: SnapshotFigures) -> list[Chart]:
    """Every chart that has data, in report order."""
    return [Chart(key, title, caption, draw(f)) for key, title, caption, draw, has in CHARTS
            if has(f)]  # fmt: skip
