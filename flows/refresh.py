"""Prefect flow ``refresh-kg``: the scheduled job that keeps a domain's KG current.

It asks :func:`kgbuild.pipeline.refresh.plan_refresh` what is newer than the KG's latest snapshot —
a new publication year, new or changed PMIDs / files in a year (the year's input digest no
longer matches the published snapshot's inputs fingerprint), another config or code version,
failed extractions to retry — and builds exactly that with the ``build-kg`` flow (a subflow;
unchanged years are reused, changed ones and those after them rebuilt). When nothing is new it
is a no-op: it logs so, publishes no snapshot and returns ``status: "no-op"``. Papers of the
head that PubMed has retracted since are recorded by the years built; when none is new, the
last year is built again to record them (``papers retracted``).
"""

from __future__ import annotations

import inspect
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff

from flows.build_kg import build_kg_flow
from flows.common import NCBI_LIMIT, artifact_key, slots, transient
from flows.parameters import KEYWORD, with_parameters_of
from kgbuild.pipeline.refresh import RefreshPlan, plan_refresh
from kgbuild.pipeline.spec import BuildSpec


@task(
    name="plan-refresh",
    retries=3,
    retry_delay_seconds=exponential_backoff(backoff_factor=10),
    retry_jitter_factor=0.5,
    retry_condition_fn=transient,
    cache_policy=NO_CACHE,  # "what is new" must be asked every time
)
def plan(spec: BuildSpec, recheck_from: int | None) -> RefreshPlan:
    """Search the source again where it can have grown; compare with the published years."""
    with slots(NCBI_LIMIT, 1 if spec.uses_ncbi else 0):
        return plan_refresh(spec, recheck_from=recheck_from)


@flow(name="refresh-kg")
@with_parameters_of(
    build_kg_flow.fn,
    drop=("rebuild_from", "retracted"),  # decided by the plan
    first=(
        inspect.Parameter("domain", KEYWORD, default="alzheimers", annotation=str),
        inspect.Parameter("source", KEYWORD, default="pubmed", annotation=str),
    ),
    last=(inspect.Parameter("recheck_from", KEYWORD, default=None, annotation=int | None),),
)
def refresh_flow(**params: Any) -> dict[str, Any]:
    """Build what is new in ``domain`` since its KG's latest snapshot; a no-op when nothing is.

    Every parameter but ``recheck_from`` is the ``build-kg`` flow's (and ``kgbuild build``'s).
    Returns the plan (``status`` ``no-op`` or ``built``, each year's action and reason) and the
    snapshot ids of the KG after the refresh (``[]`` for a no-op)."""
    recheck_from = params.pop("recheck_from", None)
    logger = get_run_logger()
    spec = BuildSpec.resolve(**params)
    for line in spec.notices:  # first: a kgbuild.toml that moved an endpoint or the warehouse
        logger.warning(line)
    todo = plan(spec, recheck_from)
    logger.info(todo.summary())
    create_markdown_artifact(
        todo.markdown(),
        key=artifact_key("refresh", spec.kg),
        description=f"{spec.kg}: what the refresh found",
    )
    if todo.noop:
        return {**todo.to_dict(), "snapshots": []}
    ids = build_kg_flow(
        **{**params, "years": spec.years, "warehouse": spec.warehouse},
        rebuild_from=todo.rebuild_from,  # set when only retractions are new: the last year
        retracted=todo.retracted or None,
    )
    return {**todo.to_dict(), "status": "built", "snapshots": ids}
