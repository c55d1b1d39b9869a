"""Reports a person can look at: the KG's growth by year (``growth``), the figures of one
snapshot (``figures``), matplotlib charts (``charts``) and one self-contained HTML page
(``page``); the Prefect flows publish the same charts as artifacts (``artifacts``)."""

from kgbuild.report.growth import (
    COLUMNS,
    GROWTH,
    data_uri,
    growth_chart,
    lineage,
    markdown_table,
    report_path,
    snapshot_ids,
    year_rows,
)

__all__ = [
    "COLUMNS",
    "GROWTH",
    "data_uri",
    "growth_chart",
    "lineage",
    "markdown_table",
    "report_path",
    "snapshot_ids",
    "year_rows",
]
