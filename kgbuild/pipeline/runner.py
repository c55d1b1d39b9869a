"""One year's per-document work spread over a Dask cluster; resolution stays with the driver.

Extraction (sentence splitting, the extractor's LLM calls or co-occurrence pairs, grounding to
the document's own mentions) needs nothing but a batch of documents and their mentions, so the
driver sends each batch (:data:`kgbuild.pipeline.batches.BATCH_RECORDS` records) to the cluster
as one task (``Client.submit``) and takes the results back **in batch order**; everything that
needs the whole KG — resolution, re-keying, dedupe, publishing — stays in the driver, the one
writer of the warehouse. Results, and so the snapshot's content hash, are those of a local build
(:class:`kgbuild.pipeline.year.LocalRunner`): only where the extractor runs changes.

What the workers must share with the driver: the code (the same kgbuild version) and, for LLM
extractors, the warehouse's LLM response cache (``llm_cache.sqlite``: the warehouse path must
be the same path on every worker, e.g. a shared file system), so a re-run is answered from the
cache whichever worker asks. The LLM API key is never sent: each worker reads its own from its
environment, and adds it only where the driver's settings allow (never to a base URL that a
``kgbuild.toml`` named: ``LLMSettings.key_allowed``). The global limit of requests in flight
(``llm_concurrency``) is split between the batches that can run at once (one per worker
thread): each batch's client gets ``limit // threads`` (at least 1).
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgbuild.errors import ConfigError
from kgbuild.extract.base import ExtractionResult

if TYPE_CHECKING:
    from kgbuild.pipeline.options import ExtractionOptions
    from kgbuild.pipeline.year import Batch

#: Batches in flight per worker thread: one running, one queued (bounds the driver's memory).
IN_FLIGHT_PER_WORKER = 2
#: Seconds to wait for the cluster's scheduler and at least one worker.
CONNECT_TIMEOUT_S = 30

#: Extractors of this worker process, one per (worker, thread, options, warehouse): an LLM
#: extractor holds an HTTP client and a SQLite connection, opened once, not once per batch.
_EXTRACTORS: dict[tuple[str, int, str, str], Any] = {}
_LOCK = threading.Lock()


def extract_batch(
    options: ExtractionOptions, warehouse: str, docs: list[Any], mentions: dict[str, list[Any]]
) -> tuple[ExtractionResult, str, dict[str, float]]:
    """The Dask task: extract one batch on this worker; return the result, the worker's
    address (so a build can say where its batches ran) and what its LLM client did for it."""
    from distributed import get_worker

    address = get_worker().address
    key = (address, threading.get_ident(), repr(options), warehouse)
    with _LOCK:
        extractor = _EXTRACTORS.get(key)
        if extractor is None:
            if options.llm is not None:  # the key comes from this worker's environment,
                secret = _worker_key() if options.llm.key_allowed else None  # not a file's URL's
                options = replace(options, llm=replace(options.llm, api_key=secret))
            extractor = options.make(Path(warehouse))[1]
            _EXTRACTORS[key] = extractor
    client = getattr(extractor, "client", None)  # one thread per extractor: deltas are ours
    before = Counter(client.usage) if client else Counter()
    spent = client.cost_usd if client else 0.0
    from kgbuild.reader.apply import read_result

    result = read_result(extractor.method, extractor.extract(docs, mentions), docs, mentions)
    usage: dict[str, float] = {}
    if client is not None:
        usage = {k: v - before[k] for k, v in client.usage.items() if v != before[k]}
        usage["spent_usd"] = client.cost_usd - spent
    return result, address, usage


def _worker_key() -> str | None:
    from kgbuild.settings import load_settings

    secret = load_settings().openai_api_key
    return secret.get_secret_value() if secret else None


def close_extractors() -> int:
    """Run on every worker at the end of a build: close what the extractors hold."""
    with _LOCK:
        n = len(_EXTRACTORS)
        for extractor in _EXTRACTORS.values():
            extractor.close()
        _EXTRACTORS.clear()
    return n


class DaskRunner:
    """Extraction batches as tasks on the Dask cluster at ``address`` (``tcp://host:8786``)."""

    def __init__(self, address: str, options: ExtractionOptions, warehouse: Path) -> None:
        self._inside: Any = None
        try:
            self.client = self._connect(address)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ConfigError(
                "cannot reach the Dask scheduler", address=address, error=str(exc)
            ) from None
        workers = self.client.scheduler_info().get("workers", {})
        self.n_workers = max(1, len(workers))
        #: Batches that can run at once: one per worker thread.
        self.slots = max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))
        settings = options.settings()
        per_worker = max(1, settings.concurrency // self.slots)
        # Never ship the API key: each worker reads its own (see extract_batch).
        self.options = replace(options, llm=replace(settings, concurrency=per_worker, api_key=None))
        self.warehouse = str(Path(warehouse).resolve())
        #: Worker address of every batch, in batch order (what ran where).
        self.ran_on: list[str] = []
        #: What the workers' LLM clients did for this build (calls, cache hits, tokens, spend).
        self.usage: Counter[str] = Counter()

    def _connect(self, address: str) -> Any:
        """A client of the scheduler; inside a Dask task (a Prefect flow's year task on the
        cluster) the worker's own client, which hands this task's thread back to the worker
        while it waits for the batches."""
        from distributed import Client, get_worker, worker_client

        try:
            get_worker()
        except ValueError:  # not on a worker
            return Client(address, timeout=CONNECT_TIMEOUT_S)
        self._inside = worker_client(timeout=CONNECT_TIMEOUT_S)
        return self._inside.__enter__()

    def map(self, batches: Iterator[Batch]) -> Iterator[ExtractionResult]:
        window = IN_FLIGHT_PER_WORKER * self.slots
        pending: deque[Any] = deque()
        for docs, mentions in batches:
            pending.append(
                self.client.submit(
                    extract_batch, self.options, self.warehouse, docs, mentions, pure=False
                )
            )
            if len(pending) >= window:
                yield self._take(pending.popleft())
        while pending:
            yield self._take(pending.popleft())

    def _take(self, future: Any) -> ExtractionResult:
        result, address, usage = future.result()
        future.release()
        self.ran_on.append(address)
        self.usage.update(usage)
        return result

    def batches_by_worker(self) -> dict[str, int]:
        return dict(sorted(Counter(self.ran_on).items()))

    def close(self) -> None:
        try:
            self.client.run(close_extractors)
        finally:
            if self._inside is not None:
                self._inside.__exit__(None, None, None)
            else:
                self.client.close()
