"""A KG's growth, year by year: rows, a markdown table and a chart, from snapshot manifests.

Every snapshot's manifest carries its counts, cumulative through its year: DALK Table 1
(#corpus, #nodes, #relations, #triples, #evidence), the documents' statuses (built, duplicate,
rejected), extraction statuses (done / partial / failed, rejected claims) and LLM accounting
(calls, tokens, cost). Walking a snapshot's lineage gives one row per year — what the
``kgbuild stats`` command prints and what the Prefect flows publish as artifacts.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from kgbuild.records import SnapshotCounts
from kgbuild.store.snapshots import Warehouse

#: Row columns (manifest count → column), in table order.
COLUMNS: list[tuple[str, str]] = [
    ("documents", "corpus"),
    ("nodes", "nodes"),
    ("relations", "relations"),
    ("triples", "triples"),
    ("evidence", "evidence"),
    ("duplicates", "duplicate"),
    ("rejected", "rejected"),
    ("extraction_done", "done"),
    ("extraction_partial", "partial"),
    ("extraction_failed", "failed"),
    ("rejections", "rejected_claims"),
    ("llm_calls", "llm_calls"),
    ("llm_prompt_tokens", "prompt_tokens"),
    ("llm_completion_tokens", "completion_tokens"),
    ("llm_cost_usd", "cost_usd"),
]
#: The series the growth chart draws (cumulative through each year).
GROWTH = ("corpus", "nodes", "triples", "evidence")


def lineage(wh: Warehouse, snapshot_id: str) -> list[dict[str, Any]]:
    """The manifests from the lineage's first snapshot to ``snapshot_id``, oldest first."""
    out: list[dict[str, Any]] = []
    sid: str | None = snapshot_id
    while sid:
        manifest = wh.manifest(sid)
        out.append(manifest)
        sid = manifest["parent_id"]
    return out[::-1]


def snapshot_ids(wh: Warehouse, snapshot_id: str) -> list[str]:
    """The ids of ``snapshot_id``'s lineage, oldest first."""
    return [m["snapshot_id"] for m in lineage(wh, snapshot_id)]


def year_rows(wh: Warehouse, snapshot_id: str) -> list[dict[str, Any]]:
    """One row per year of ``snapshot_id``'s lineage: year, snapshot, and :data:`COLUMNS`."""
    rows = []
    for m in lineage(wh, snapshot_id):
        c = SnapshotCounts.from_dict(m["counts"]).to_dict()
        row: dict[str, Any] = {"year": m["as_of_year"], "snapshot": m["snapshot_id"]}
        row.update({col: c.get(key, 0) for key, col in COLUMNS})
        rows.append(row)
    return rows


def markdown_table(rows: list[dict[str, Any]], title: str = "") -> str:
    """``rows`` as a GitHub-flavoured markdown table (numbers with thousands separators)."""
    if not rows:
        return f"{title}\n\n(no snapshots)" if title else "(no snapshots)"
    cols = list(rows[0])
    lines = [f"### {title}", ""] if title else []
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(_cell(r[c], c) for c in cols) + " |")
    return "\n".join(lines)


def _cell(value: Any, col: str) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    if isinstance(value, int) and col != "year":
        return f"{value:,}"
    return str(value)


def report_path(warehouse: Path, kg: str) -> Path:
    """Where a KG's growth chart is written: ``<warehouse>/reports/<kg>-growth.png``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", kg)
    return Path(warehouse) / "reports" / f"{safe}-growth.png"


def growth_chart(rows: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Draw the KG's growth by year (cumulative counts, log scale; and triples added per year)
    to a PNG at ``path`` (matplotlib, Agg backend: no display needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    years = [r["year"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    try:
        for col in GROWTH:
            left.plot(years, [max(r[col], 0) for r in rows], marker="o", label=col)
        if any(r[c] > 0 for r in rows for c in GROWTH):
            left.set_yscale("symlog")
        left.set_title("cumulative, by year")
        left.set_xlabel("as-of year")
        left.legend(loc="upper left", fontsize="small")
        added = [r["triples"] - (rows[i - 1]["triples"] if i else 0) for i, r in enumerate(rows)]
        right.bar([str(y) for y in years], added, color="tab:green")
        right.set_title("triples added per year")
        right.set_xlabel("as-of year")
        for ax in (left, right):
            ax.grid(alpha=0.3)
        left.set_xticks(years)
        fig.suptitle(title or "KG growth")
        fig.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".tmp-{path.name}")
        fig.savefig(tmp, format="png", metadata={"Software": None})
        tmp.replace(path)
    finally:
        plt.close(fig)
    return path


def data_uri(path: Path) -> str:
    """A PNG as a ``data:image/png;base64,…`` URI (embeddable in markdown)."""
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")
