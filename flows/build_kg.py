"""Prefect flow ``build-kg``: a one-off KG build of a domain or a source, one task run per year.

Each year is its own task run, in order, each depending on the one before: ``build_year(Y)`` calls
:func:`kgbuild.pipeline.build.build_kg` (the function the CLI calls) for year ``Y`` alone,
continuing the lineage of year ``Y-1``'s snapshot (``after=``), so it reads and digests only
``Y``'s inputs and publishes (or reuses) exactly year ``Y``'s snapshot. Reading a year's source
(PubMed + PubTator3 for ``pubmed``; file hashes for a folder) is a task of its own, retried with
exponential backoff and holding a slot of the ``ncbi-requests`` limit; a year's build holds as many
``llm-calls`` slots as its LLM client has requests in flight. Caching: see :mod:`flows.common`.
Artifacts: DALK Table 1 and LLM use per year (markdown + table), every chart of ``kgbuild report``
(``kg-chart-<chart>-<kg>``) and the HTML report (``<warehouse>/reports/<kg>/report.html``). Then
every snapshot's query caches are made (``make-ready``), as ``kgbuild build`` makes them.

With ``dask_address`` the same flow runs its tasks on that Dask cluster (a subflow with
``prefect_dask.DaskTaskRunner``); years stay in order, reading the next year overlaps building
this one, and several flows can share the cluster.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.futures import PrefectFuture
from prefect.tasks import exponential_backoff

from flows.common import (
    LLM_LIMIT,
    NCBI_LIMIT,
    YEAR_CACHE,
    IncompleteYear,
    artifact_key,
    attempts_left,
    dask_runner,
    do_not_cache_this_result,
    on_dask,
    slots,
    transient,
    warehouse_storage,
)
from kgbuild.errors import InputError
from kgbuild.pipeline.build import YearReport, build_kg
from kgbuild.pipeline.spec import BuildSpec
from kgbuild.report import markdown_table, snapshot_ids
from kgbuild.report.artifacts import build_report, chart_markdown
from kgbuild.search.ready import make_ready
from kgbuild.store.snapshots import Warehouse


@task(
    name="read-source-year",
    retries=3,
    retry_delay_seconds=exponential_backoff(backoff_factor=10),
    retry_jitter_factor=0.5,
    retry_condition_fn=transient,
    cache_policy=NO_CACHE,  # its answer is what tells whether a year changed
)
def read_source(spec: BuildSpec, year: int) -> Any:
    """Read one year's inputs (download + annotate them for PubMed); return their digest."""
    with slots(NCBI_LIMIT, 1 if spec.uses_ncbi else 0):
        return spec.corpus().digest(year)


@task(
    name="build-year",
    retries=2,
    retry_delay_seconds=[60, 300],
    retry_jitter_factor=0.2,
    retry_condition_fn=transient,
    cache_policy=YEAR_CACHE,
)
def build_year(
    spec: BuildSpec,
    year: int | None,
    digest: Any,
    parent: str | None,
    retracted: tuple[str, ...] = (),
) -> str:
    """Publish the snapshot of ``year`` on top of ``parent`` (the previous year's snapshot);
    every year of ``spec`` when ``year`` is None; return its id.

    Only ``year``'s inputs are read (earlier years are the parent's business, so a 10-year
    build reads each year once). ``digest`` is not read here: with the spec, year and parent it
    is the cache key (the warehouse's own fingerprint of this year's work). ``retracted``: the
    year is built again although published, to record these papers PubMed has retracted since
    (a refresh with nothing new; part of the cache key, so another set is another build)."""
    logger = get_run_logger()

    def log(y: YearReport) -> None:
        c = y.snapshot.counts
        logger.info(
            "%s: %s %s (docs %s, triples %s, evidence %s, LLM calls %s, failed %s) %.1fs",
            y.year,
            y.action,
            y.snapshot.snapshot_id,
            c.documents,
            c.triples,
            c.evidence,
            c.llm_calls,
            c.extraction_failed,
            y.seconds,
        )

    slice_spec = spec if year is None else spec.only(year)
    with slots(LLM_LIMIT, spec.llm_slots()) as held:
        report = build_kg(
            slice_spec.corpus(),
            kg=spec.kg,
            extractor=spec.options(held or None),
            warehouse=spec.warehouse_dir,
            on_year=log,
            after=parent,
            dask_address=spec.dask_address,
            rebuild_from=year if retracted and year is not None else None,
        )
    if report.llm_usage:
        logger.info("LLM client: %s", report.llm_usage)
    head = report.head
    if head is None:
        raise InputError("the source has no records for these years", years=slice_spec.years)
    failed = head.counts.extraction_failed
    if failed:
        if attempts_left():
            raise IncompleteYear(f"{failed} documents failed extraction through {head.as_of_year}")
        logger.warning("%s documents failed extraction; the next run retries them", failed)
        do_not_cache_this_result()
    return head.snapshot_id


@task(name="make-ready", cache_policy=NO_CACHE)
def make_ready_task(spec: BuildSpec, snapshots: list[str]) -> list[str]:
    """Each snapshot's query index and node vectors, oldest first (the head's every-evidence
    index too), so the first ``serve``, ``ask`` or as-of year after the flow reads them
    (:mod:`kgbuild.search.ready`; what is there and vouched for is only read)."""
    return [m.line() for m in make_ready(spec.warehouse_dir, snapshots, get_run_logger().info)]


@task(name="publish-report", cache_policy=NO_CACHE)
def publish_report(spec: BuildSpec, head: str) -> str:
    """Per-year table (DALK Table 1, statuses, LLM use), every chart of ``kgbuild report`` as
    artifacts, and the HTML report (``<warehouse>/reports/<kg>/report.html``)."""
    report = build_report(spec.warehouse_dir, spec.kg, head)
    title = f"{spec.kg}: DALK Table 1, document and extraction statuses, LLM use per snapshot"
    create_markdown_artifact(
        markdown_table(report.rows, title), key=artifact_key("kg-stats", spec.kg), description=title
    )
    create_table_artifact(
        report.rows, key=artifact_key("kg-growth", spec.kg), description=f"{spec.kg}: per year"
    )
    for chart in report.charts:
        create_markdown_artifact(
            chart_markdown(chart),
            key=artifact_key("kg-chart", chart.key, spec.kg),
            description=f"{spec.kg}: {chart.title}",
        )
    return str(report.html)


@flow(name="build-kg")
def build_kg_flow(
    source: str | None = None,
    domain: str | None = None,
    query: str | None = None,
    years: str | None = None,
    annotator: str | None = None,
    scispacy_model: str | None = None,
    extractor: str | None = None,
    pairwise_mode: str | None = None,
    chunk_size: int | None = None,
    embed_model: str | None = None,
    llm_model: str | None = None,
    llm_base_url: str | None = None,
    llm_concurrency: int | None = None,
    llm_timeout: float | None = None,
    llm_max_tokens: int | None = None,
    kg: str | None = None,
    warehouse: str | None = None,
    default_year: int | None = None,
    max_doc_chars: int | None = None,
    dask_address: str | None = None,
    rebuild_from: int | None = None,
    retracted: list[str] | None = None,
) -> list[str]:
    """Build ``kg`` year by year (one snapshot per year); returns the snapshot ids, oldest first.

    ``source``: ``pubmed`` or a folder of PubTator/BioC-JSON files; ``domain``: a domain file
    (``data/domains``) supplying everything not given; ``years``: ``2011-2020`` or ``2011-now``.
    Every other parameter is the ``kgbuild build`` option of the same name; a parameter left
    ``None`` comes from the environment, ``kgbuild.toml``, the domain file or the default, in
    that order (:mod:`kgbuild.settings`).

    ``rebuild_from`` and ``retracted`` (the ``refresh-kg`` flow sets them): build that year
    again although published, to record those papers PubMed has retracted since.
    """
    params = {k: v for k, v in locals().items()
              if k not in ("dask_address", "rebuild_from", "retracted")}  # fmt: skip
    rebuild = {"rebuild_from": rebuild_from, "retracted": retracted}
    if dask_address and not on_dask():  # run this flow again, its tasks on the Dask cluster
        on_cluster = build_kg_flow.with_options(task_runner=dask_runner(dask_address))
        return on_cluster(**params, dask_address=dask_address, **rebuild)
    spec = BuildSpec.resolve(**params, dask_address=dask_address)
    for line in spec.notices:  # first: a kgbuild.toml that moved an endpoint or the warehouse
        get_run_logger().warning(line)
    get_run_logger().info("building %s: %s", spec.kg, spec.public())
    build = build_year.with_options(result_storage=warehouse_storage(spec.warehouse))
    steps = spec.year_steps()
    read: PrefectFuture[Any] | None = None
    built: list[PrefectFuture[str]] = []
    for year in steps:
        read = read_source.submit(spec, year, wait_for=[read] if read else None)
        again = tuple(retracted or ()) if rebuild_from is not None and year >= rebuild_from else ()
        built.append(build.submit(spec, year, read, built[-1] if built else None, again))
    if not steps:  # a corpus whose years are known only after reading it: one build
        built.append(build.submit(spec, None, None, None))
    head = built[-1].result()
    ids = snapshot_ids(Warehouse(spec.warehouse_dir), head)
    make_ready_task(spec, ids)
    publish_report(spec, head)
    return ids
