"""Prefect glue shared by the flows: global concurrency limits, the cache policy of year tasks,
retry conditions, artifact keys and the Dask task runner. No pipeline logic lives here.

Caching, and how it relates to the warehouse. The warehouse is the durable cache: a year whose
inputs fingerprint (code version, config, parent snapshot, the year's input digest) is already
published is reused by :func:`kgbuild.pipeline.build.build_kg` whatever Prefect remembers.
Prefect's task cache is the fast path in front of it: a year task's key is built from the same
ingredients (the build spec, the year, its input digest, the parent snapshot id, kgbuild's code
version and the task's source), so a hit means "build_kg would reuse this snapshot" and the task
is skipped without opening the warehouse. Cache records and results are stored *inside* the
warehouse (``<warehouse>/prefect/``), so they live and die with the snapshots they describe:
delete a warehouse and its Prefect cache goes with it. A year published with failed extractions
is never recorded in the cache, so the next run retries its failures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefect import Task, get_run_logger
from prefect.cache_policies import INPUTS, TASK_SOURCE, CachePolicy
from prefect.client.orchestration import get_client
from prefect.client.schemas.objects import TaskRun
from prefect.concurrency.sync import concurrency
from prefect.context import FlowRunContext, TaskRunContext
from prefect.exceptions import ObjectNotFound
from prefect.states import State
from prefect.transactions import get_transaction

from kgbuild.errors import Busy, SourceError
from kgbuild.version import code_version

#: Global concurrency limit on LLM requests in flight, across every flow run on the server.
LLM_LIMIT = "llm-calls"
#: Global concurrency limit on NCBI clients (E-utilities + PubTator3) reading at once; each
#: client keeps NCBI's per-second rate itself, so 1 slot = NCBI's rate for the key / address.
NCBI_LIMIT = "ncbi-requests"
#: Where a warehouse keeps its Prefect cache records and task results.
PREFECT_DIR = "prefect"
#: Seconds a slot lease lasts unless renewed (the holder renews it while it runs). The slots
#: of a killed run come back when its lease lapses — on a real server, whose repossessor
#: service revokes expired leases (Prefect's ephemeral API runs no repossessor). 60 s is the
#: shortest lease Prefect accepts.
LEASE_S = 60.0


# ---- global concurrency limits -------------------------------------------------------------
def limit_size(name: str) -> int | None:
    """Slots of the global concurrency limit ``name`` (None when it does not exist)."""
    with get_client(sync_client=True) as client:
        try:
            return client.read_global_concurrency_limit_by_name(name).limit
        except ObjectNotFound:
            return None


@contextmanager
def slots(name: str, wanted: int) -> Iterator[int]:
    """Hold ``wanted`` slots of the global limit ``name`` (at most the limit's size) while the
    block runs; yields the slots held — what the caller may use. Without the limit, Prefect
    logs that it does not exist and the block runs unthrottled (``wanted`` is yielded)."""
    if wanted <= 0:
        yield 0
        return
    size = limit_size(name)
    held = min(wanted, size) if size else wanted
    if size is None:
        get_run_logger().info(
            "no global concurrency limit %r on this server; create one with "
            "`prefect gcl create %s --limit N` to bound it across flow runs",
            name,
            name,
        )
    with concurrency(name, occupy=held, lease_duration=LEASE_S):
        yield held


# ---- retries ---------------------------------------------------------------------------------
class IncompleteYear(Exception):
    """A year was published with failed extractions; the task retries it (answers already
    received come from the LLM cache, only the failures are sent again)."""


#: Failures a later attempt can fix: a year published with failed extractions, a literature
#: source that did not answer, a warehouse held by another build, the network.
RETRYABLE: tuple[type[BaseException], ...] = (
    IncompleteYear,
    SourceError,
    Busy,
    ConnectionError,
    TimeoutError,
)


def transient(task: Task[..., Any], task_run: TaskRun, state: State[Any]) -> bool:
    """Retry condition: retry only :data:`RETRYABLE` failures. A user's mistake (bad input or
    config) or a bug (``TypeError``, a broken invariant) fails at once, loudly, instead of
    being run again after 60 s and 300 s."""
    try:
        state.result()
    except RETRYABLE:
        return True
    except Exception:
        return False
    return True


def attempts_left() -> bool:
    """Whether the running task has retries left (Prefect counts runs from 1)."""
    ctx = TaskRunContext.get()
    if ctx is None or ctx.task_run is None:
        return False
    return ctx.task_run.run_count <= ctx.task.retries


def do_not_cache_this_result() -> None:
    """Keep this task run's result out of the cache (an incomplete year must run again)."""
    txn = get_transaction()
    if txn is not None:
        txn.write_on_commit = False


# ---- caching --------------------------------------------------------------------------------
@dataclass
class CodeVersion(CachePolicy):
    """Cache key part: kgbuild's code version (package version + digest of code and tables)."""

    def compute_key(
        self,
        task_ctx: TaskRunContext,
        inputs: dict[str, Any],
        flow_parameters: dict[str, Any],
        **kwargs: Any,
    ) -> str | None:
        return code_version()


#: A year task's cache key: its inputs (spec, year, input digest, parent snapshot), its source
#: and kgbuild's code version — the ingredients of the warehouse's year fingerprint.
YEAR_CACHE = INPUTS + TASK_SOURCE + CodeVersion()


def warehouse_storage(warehouse: str | Path) -> Path:
    """Result and cache-record storage inside the warehouse (same lifetime as the snapshots);
    Prefect stores task results given a path in a local file system there."""
    return Path(warehouse) / PREFECT_DIR


# ---- artifacts and runners -------------------------------------------------------------------
def artifact_key(*parts: str) -> str:
    """An artifact key Prefect accepts: lowercase letters, digits and dashes."""
    return re.sub(r"-+", "-", re.sub(r"[^a-z0-9-]", "-", "-".join(parts).lower())).strip("-")


def on_dask() -> bool:
    """Whether the running flow's task runner is a Dask task runner."""
    ctx = FlowRunContext.get()
    return ctx is not None and type(ctx.task_runner).__name__ == "DaskTaskRunner"


def dask_runner(address: str) -> Any:
    """A task runner that submits tasks to an existing Dask cluster (``tcp://host:8786``)."""
    from prefect_dask import DaskTaskRunner

    return DaskTaskRunner(address=address)
