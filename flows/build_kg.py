"""Prefect flow: a one-off KG build from a local PubTator/BioC folder, one snapshot per year.

Thin by design: the task calls :func:`kgbuild.build.pipeline.build_kg` (the same function the
CLI calls) and the flow publishes DALK Table 1 as a markdown artifact. Scheduling, caching,
concurrency limits and Dask scale-out arrive with the orchestration issue.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact

from kgbuild.build.pipeline import BuildReport, build_kg
from kgbuild.config import warehouse_path


@task(retries=1, retry_delay_seconds=5)
def build_years(
    source: str, kg: str, years: str | None, extractor: str, warehouse: str
) -> BuildReport:
    logger = get_run_logger()
    return build_kg(
        Path(source),
        kg=kg,
        years=years,
        extractor=extractor,
        warehouse=Path(warehouse),
        on_year=lambda y: logger.info(
            "%s: %s %s", y.year, "reused" if y.reused else "published", y.snapshot.snapshot_id
        ),
    )


@flow(name="build-kg")
def build_kg_flow(
    source: str,
    kg: str = "alzheimers",
    years: str | None = None,
    extractor: str = "auto",
    warehouse: str | None = None,
) -> list[str]:
    """Build ``kg`` from ``source`` year by year; returns the snapshot ids, oldest first."""
    report = build_years(
        source, kg, years, extractor, str(warehouse_path(Path(warehouse) if warehouse else None))
    )
    rows = [
        "| year | snapshot | #corpus | #nodes | #relations | #triples | reused |",
        "|---|---|---|---|---|---|---|",
    ]
    for y in report.years:
        c = y.snapshot.counts
        rows.append(
            f"| {y.year} | {y.snapshot.snapshot_id} | {c['documents']} | {c['nodes']} "
            f"| {c['relations']} | {c['triples']} | {y.reused} |"
        )
    create_markdown_artifact(
        "\n".join(rows),
        key=f"kg-stats-{kg}".lower().replace("_", "-"),
        description="DALK Table 1 per snapshot",
    )
    return [y.snapshot.snapshot_id for y in report.years]
