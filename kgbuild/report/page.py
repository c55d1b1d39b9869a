"""One self-contained HTML page for one or more snapshots: charts as embedded PNGs, tables,
inline CSS, no script and no network. Every value from the warehouse is HTML-escaped (names
and reasons are data, never markup). The page carries snapshot ids, not a generation time, so
the same snapshots give the same bytes.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from kgbuild.report.charts import Chart, draw_all
from kgbuild.report.figures import SnapshotFigures, snapshot_figures
from kgbuild.store.files import atomic_text, prepare_dir
from kgbuild.store.snapshots import Warehouse

REPORT_FILE = "report.html"
#: The quality figures shown, with readable labels (key of ``snapshot_quality`` → label).
QUALITY_LABELS = {
    "triples": "triples",
    "nodes": "nodes",
    "hetionet_relation_share": "share of triples with a Hetionet relation a model extracted",
    "dalk_relation_share": "share of triples with one of DALK's 10 relations, model-extracted",
    "relation_strings": "distinct relation strings",
    "endpoint_id_share": "share of triple endpoints with a database ID",
    "ad_surface_form_nodes": "nodes Alzheimer's disease's own names end up in",
    "node_strings_per_node_mean": "distinct surface strings per node (mean)",
}
CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;
background:#f7fafc;color:#1a202c;line-height:1.45}
main{max-width:1120px;margin:0 auto;padding:24px}
h1{font-size:1.7rem;margin:0 0 4px} h2{font-size:1.35rem;margin:36px 0 8px;
border-bottom:2px solid #2b6cb0;padding-bottom:4px} h3{font-size:1.1rem;margin:24px 0 6px}
.sub{color:#4a5568;margin:0 0 16px} nav a{margin-right:14px}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px 16px;min-width:120px}
.card b{display:block;font-size:1.35rem} .card span{color:#4a5568;font-size:.85rem}
figure{background:#fff;border:1px solid #e2e8f0;border-radius:8px;margin:12px 0;padding:12px}
figure img{max-width:100%;height:auto;display:block;margin:0 auto}
figcaption{color:#4a5568;font-size:.9rem;margin-top:6px}
table{border-collapse:collapse;background:#fff;margin:8px 0 16px;font-size:.9rem}
th,td{border:1px solid #e2e8f0;padding:4px 10px;text-align:left;vertical-align:top}
th{background:#edf2f7} td.n{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#f7fafc} .note{color:#4a5568;font-style:italic}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:12px}
@media(max-width:900px){.grid{display:block}}
"""


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _num(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    return _e(value)


def table(cols: list[str], rows: list[Any], cls: str = "") -> str:
    """An HTML table; numeric cells right-aligned (a ``year`` column is a label, not a number)."""
    rows = [[str(v) if c == "year" else v for c, v in zip(cols, r, strict=True)] for r in rows]
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    body = "".join(
        "<tr>"
        + "".join(
            f'<td class="n">{_num(v)}</td>' if isinstance(v, int | float) else f"<td>{_e(v)}</td>"
            for v in row
        )
        + "</tr>"
        for row in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def figure(chart: Chart) -> str:
    data = base64.b64encode(chart.png).decode("ascii")
    return (
        f'<figure id="chart-{_e(chart.key)}" data-chart="{_e(chart.key)}">'
        f'<img alt="{_e(chart.title)}" src="data:image/png;base64,{data}">'
        f"<figcaption><b>{_e(chart.title)}.</b> {_e(chart.caption)}</figcaption></figure>"
    )


def _cards(f: SnapshotFigures) -> str:
    last = f.years[-1] if f.years else {}
    q = f.quality
    items = [
        ("documents", last.get("corpus", 0)),
        ("nodes", last.get("nodes", 0)),
        ("relations", last.get("relations", 0)),
        ("triples", last.get("triples", 0)),
        ("evidence sentences", last.get("evidence", 0)),
        ("Hetionet relation share (model-extracted)", f"{q['hetionet_relation_share']:.1%}"),
        ("endpoints with an ID", f"{q['endpoint_id_share']:.1%}"),
    ]
    return (
        '<div class="cards">'
        + "".join(f"<div class=card><b>{_num(v)}</b><span>{_e(k)}</span></div>" for k, v in items)
        + "</div>"
    )


def section(f: SnapshotFigures, charts: list[Chart], anchor: str) -> str:
    """The report of one snapshot: cards, charts and the tables behind them."""
    by = {c.key: c for c in charts}
    part = [f'<section id="{anchor}"><h2>{_e(f.kg)} @ {f.year}</h2>',
            f'<p class="sub">snapshot <code>{_e(f.snapshot_id)}</code> · extractor '
            f'{_e(", ".join(f.extractors) or "—")} · {len(f.years)} yearly snapshots · '
            f"retractions: {_e(f.retractions)}</p>",
            _cards(f)]  # fmt: skip

    def chart(key: str, why_not: str = "") -> None:
        if key in by:
            part.append(figure(by[key]))
        elif why_not:
            part.append(f'<p class="note">{_e(why_not)}</p>')

    part.append("<h3>Size and growth</h3>")
    chart("size")
    chart("added")
    part.append("<h3>DALK Table 1, per year</h3>")
    part.append(table(
        ["year", "snapshot", "#corpus", "#nodes", "#relations", "#triples", "#evidence"],
        [[r["year"], r["snapshot"][:10], r["corpus"], r["nodes"], r["relations"], r["triples"],
          r["evidence"]] for r in f.years]))  # fmt: skip
    part.append(_changes(f))
    part.append("<h3>Relations</h3>")
    chart("relations")
    chart("relation-share")
    total = sum(n for *_, n in f.relations) or 1
    part.append(table(["relation", "Hetionet", "triples", "share"],
                      [[r, h, n, f"{n / total:.1%}"] for r, h, n in f.relations]))  # fmt: skip
    part.append("<h3>Nodes</h3>")
    chart("kinds")
    part.append(table(["kind", "nodes"], f.kinds))
    part.append("<h3>Documents and problems</h3>")
    chart("documents")
    part.append(table(["year", "built", "duplicate", "rejected"],
                      [[r["year"], r["corpus"], r["duplicate"], r["rejected"]]
                       for r in f.added]))  # fmt: skip
    chart("problems", "No input problems: every line and annotation was usable.")
    if f.problems:
        part.append(table(["problem", "lines"], f.problems))
    chart("rejections", "No rejected claims.")
    if f.rejections:
        part.append(table(["rejected claim: reason", "claims"], f.rejections))
    part.append("<h3>Extraction and LLM use</h3>")
    chart("extraction", "No LLM extraction in this KG (co-occurrence needs no LLM call).")
    chart("llm")
    if f.has_llm:
        part.append(table(
            ["year", "done", "partial", "failed", "LLM calls", "prompt tokens",
             "completion tokens", "cost (USD)"],
            [[r["year"], r["done"], r["partial"], r["failed"], r["llm_calls"], r["prompt_tokens"],
              r["completion_tokens"], round(r["cost_usd"], 4)] for r in f.added]))  # fmt: skip
        if f.failures:
            part.append(table(["status", "reason", "documents"], f.failures))
        else:
            part.append('<p class="note">No partial or failed extractions.</p>')
    part.append("<h3>Support and confidence</h3>")
    part.append('<div class="grid">')
    chart("support")
    chart("confidence")
    part.append("</div>")
    part.append(table(["supporting PMIDs", "triples"], f.support))
    part.append("<h3>Top hubs</h3>")
    chart("hubs")
    part.append(table(["node", "name", "kind", "triples", "neighbours"], f.hubs))
    part.append("<h3>Quality (kgbuild quality)</h3>")
    q = f.quality
    scalars = [
        (label, f"{q[k]:.1%}" if k.endswith("_share") else q[k])
        for k, label in QUALITY_LABELS.items()
        if k in q
    ]
    part.append(table(["figure", "value"], scalars))
    part.append(table(["most split node", "distinct surface strings"],
                      [[w["node"], w["strings"]] for w in q["worst_split_nodes"]]))  # fmt: skip
    part.append("</section>")
    return "\n".join(part)


#: The report's "what changed this year" tables: category → (title, what the change column says).
_CHANGE_TITLES = {
    "added": "new facts, most supported first",
    "status_changed": "status changed (into contested first)",
    "belief_moved": "belief moved most",
    "removed": "facts gone",
}


def _changes(f: SnapshotFigures) -> str:
    """``kgbuild diff`` of the previous year → this one, as the report tells it."""
    c = f.changes
    if c is None:
        return '<h3>What changed this year</h3><p class="note">The first yearly snapshot.</p>'
    part = [f"<h3>What changed this year ({_e(c['from_year'])} → {_e(c['to_year'])})</h3>",
            table(["facts added", "removed", "support changed", "belief moved",
                   "status changed", "papers retracted"],
                  [[c["added"], c["removed"], c["changed"], c["belief_moved"],
                    c["status_changed"], len(c.get("retracted") or [])]])]  # fmt: skip
    for key, title in _CHANGE_TITLES.items():
        rows = c["facts"].get(key) or []
        if rows:
            part.append(f"<h4>{_e(title)}</h4>")
            part.append(table(
                ["head", "relation", "tail", "PMIDs", "belief", "status"],
                [[r["head"] or r["head_id"], r["relation"], r["tail"] or r["tail_id"],
                  f"{r['support_before'] or 0} → {r['support_after'] or 0}",
                  f"{r['belief_before'] or 0:.2f} → {r['belief_after'] or 0:.2f}",
                  f"{r['status_before'] or '—'} → {r['status_after'] or '—'}"]
                 for r in rows]))  # fmt: skip
    if c.get("retracted"):
        part.append("<h4>papers retracted (their evidence is no longer served)</h4>")
        part.append(table(list(c["retracted"][0]), [list(r.values()) for r in c["retracted"]]))
    return "\n".join(part)


def render(items: list[tuple[SnapshotFigures, list[Chart]]]) -> str:
    """The whole page for the given snapshots."""
    anchors = [f"kg-{i}" for i in range(len(items))]
    nav = " ".join(f'<a href="#{a}">{_e(f.kg)} @ {f.year}</a>'
                   for a, (f, _) in zip(anchors, items, strict=True))  # fmt: skip
    body = "\n".join(section(f, charts, a) for a, (f, charts) in zip(anchors, items, strict=True))
    title = "kgbuild report: " + ", ".join(f"{f.kg} @ {f.year}" for f, _ in items)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{CSS}</style></head>\n<body><main>"
        f"<h1>{_e(title)}</h1><p class=sub>Versioned biomedical knowledge graph built from "
        "literature, year by year (DALK's cumulative time slices).</p>"
        f"<nav>{nav}</nav>\n{body}\n</main></body></html>\n"
    )


def report_targets(wh: Warehouse, refs: list[str]) -> list[str]:
    """Snapshot ids for ``refs`` (ids, prefixes, ``KG@YEAR``, ``latest``), each once, in order;
    no refs: the newest snapshot of each KG."""
    if not refs:
        newest: dict[str, int] = {}  # each KG's newest year (not its last-published snapshot)
        for r in wh.snapshots():
            newest[r["kg"]] = max(newest.get(r["kg"], 0), int(r["as_of_year"]))
        refs = [f"{kg}@{year}" for kg, year in sorted(newest.items())] or ["latest"]
        # ("latest" in an empty warehouse says "nothing built yet")
    ids = [wh.resolve(r) for r in refs]
    return list(dict.fromkeys(ids))


def write_report(wh: Warehouse, snapshot_ids: list[str], out_dir: Path) -> Path:
    """Draw every chart of every snapshot and write ``out_dir/report.html``."""
    out = prepare_dir(Path(out_dir))
    items = []
    for sid in snapshot_ids:
        figures = snapshot_figures(wh, sid)
        items.append((figures, draw_all(figures)))
    path = out / REPORT_FILE
    with atomic_text(path) as fh:
        fh.write(render(items))
    return path
