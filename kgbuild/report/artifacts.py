"""What the Prefect flows publish after a build: the per-year rows, every chart of the report
and the HTML page, computed here so the flow only hands them to Prefect's artifact API."""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbuild.report.charts import Chart, draw_all
from kgbuild.report.figures import snapshot_figures
from kgbuild.report.growth import year_rows
from kgbuild.report.page import REPORT_FILE, render
from kgbuild.store.files import atomic_text
from kgbuild.store.snapshots import Warehouse


@dataclass
class BuildReport:
    """The rows (DALK Table 1, statuses, LLM use per year), the charts and the page's path."""

    rows: list[dict[str, Any]]
    charts: list[Chart]
    html: Path


def report_dir(warehouse: Path, kg: str) -> Path:
    """``<warehouse>/reports/<kg>/``, the KG name made safe for a folder name."""
    return Path(warehouse) / "reports" / re.sub(r"[^A-Za-z0-9_.-]+", "-", kg)


def build_report(warehouse: Path, kg: str, head: str) -> BuildReport:
    """Figures, charts and ``reports/<kg>/report.html`` for the head snapshot of a build."""
    wh = Warehouse(Path(warehouse))
    figures = snapshot_figures(wh, head)
    charts = draw_all(figures)
    out = report_dir(warehouse, kg)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_text(out / REPORT_FILE) as fh:
        fh.write(render([(figures, charts)]))
    return BuildReport(year_rows(wh, head), charts, out / REPORT_FILE)


def chart_markdown(chart: Chart) -> str:
    """A chart as a markdown artifact: the PNG inline (a data URI) and its caption."""
    uri = "data:image/png;base64," + base64.b64encode(chart.png).decode("ascii")
    return f"### {chart.title}\n\n![{chart.title}]({uri})\n\n{chart.caption}"
