"""Build a KG year by year (DALK §3.1: cumulative time slices), one snapshot per year.

Each year slice is fingerprinted by (code version, build config, parent snapshot, the slice's
input files). A slice whose fingerprint is already published is reused, not rebuilt, so an
identical re-run only hashes its inputs, and an interrupted build resumes at the first year it
had not published.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.extract.base import Estimate, LLMExtractor, SliceExtractor
from kgbuild.extract.verify import VerifyingExtractor
from kgbuild.pipeline.batches import Spill, year_batches
from kgbuild.pipeline.options import LLM_CACHE as LLM_CACHE  # re-exported: both live in
from kgbuild.pipeline.options import ExtractionOptions  # options.py, below runner and spec
from kgbuild.pipeline.retractions import check_mode, record_retractions
from kgbuild.pipeline.seen import SeenIndex
from kgbuild.pipeline.state import KGState
from kgbuild.pipeline.year import LocalRunner, Runner, fold_year
from kgbuild.reader.apply import reader_ref
from kgbuild.records import Mention, SnapshotCounts, stable_id
from kgbuild.sources.corpus import Corpus, LocalCorpus
from kgbuild.store.check import check_warehouse, quick_damage
from kgbuild.store.lock import DEFAULT_WAIT_S, build_lock
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from kgbuild.version import code_version

#: Embeddings of node names, computed once per (model, text) and shared by every build.
EMBED_CACHE = "embeddings.sqlite"
#: A build's scratch folder (its PMID index and spilled batches), removed when it ends; a
#: killed build's leftovers are removed by the next build of the warehouse, under the lock.
SCRATCH = "scratch"


@dataclass(slots=True)
class YearReport:
    """One year of a build: ``reused`` (found published, not built) or built; a built year's
    snapshot may still be one published before (``snapshot.created`` False: same content)."""

    year: int
    snapshot: SnapshotInfo
    reused: bool
    seconds: float

    @property
    def action(self) -> str:
        if self.reused:
            return "reused"
        return "published" if self.snapshot.created else "rebuilt (same content)"


@dataclass(slots=True)
class BuildReport:
    build_id: str
    kg: str
    years: list[YearReport] = field(default_factory=list)
    #: What this build's LLM client did: calls sent, cache hits, retries, failures, tokens.
    llm_usage: dict[str, float] = field(default_factory=dict)
    #: Resolution decisions this build made, by method, and names it embedded (cache misses).
    resolution: dict[str, int] = field(default_factory=dict)
    #: Extraction batches per Dask worker address (empty for a local build).
    workers: dict[str, int] = field(default_factory=dict)
    #: With the verification pass: evidence rows it left undecided ("") by reason (this
    #: process's extractor; each row's value is in the snapshot either way).
    unverified: dict[str, int] = field(default_factory=dict)

    @property
    def head(self) -> SnapshotInfo | None:
        return self.years[-1].snapshot if self.years else None


def new_build_id() -> str:
    return f"{datetime.now(UTC):%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:6]}"


def _fingerprint(config: dict[str, Any], parent: str | None, inputs: Any) -> str:
    """The identity of one year slice's work: code, config, parent and the year's inputs."""
    return stable_id(code_version(), sorted(config.items()), parent, inputs, size=16)


def _as_options(extractor: str | ExtractionOptions) -> ExtractionOptions:
    return extractor if isinstance(extractor, ExtractionOptions) else ExtractionOptions(extractor)


def _as_corpus(
    source: Path | Corpus, years: str | None, default_year: int | None, warehouse: Path
) -> Corpus:
    """A corpus as given, or the local folder/file ``source`` (never reading ``warehouse``)."""
    if isinstance(source, Corpus):
        return source
    return LocalCorpus(Path(source), years, default_year, warehouse=Path(warehouse))


def _config(
    kg: str,
    chosen: str,
    options: ExtractionOptions,
    slice_extractor: SliceExtractor,
    corpus: Corpus,
) -> dict[str, Any]:
    """The build config recorded in every manifest and part of every year's fingerprint. An
    LLM extractor's endpoint is part of it (its identity, no credentials): another endpoint
    serving a model of the same name gives other answers, so its years are not reused."""
    client = getattr(slice_extractor, "client", None)
    return {
        "kg": kg,
        "extractor": chosen,
        "extractor_requested": options.extractor,
        **({"llm_endpoint": client.endpoint} if client is not None else {}),
        "extraction": slice_extractor.config(),
        # the sentence reader decides what is served (its weights' digest)
        "reader": reader_ref(),
        "resolution": {"embed_model": options.embed_model},
        # whether papers retracted after they were built are looked for
        "retractions": check_mode(corpus),
        **corpus.config(),
    }


def _reusable(
    wh: Warehouse,
    kg: str,
    config: dict[str, Any],
    corpus: Corpus,
    years: list[int],
    parent: str | None = None,
    rebuild_from: int | None = None,
) -> Iterator[tuple[int, SnapshotInfo, float]]:
    """The leading years whose snapshot is already published from exactly these inputs on this
    lineage (after ``parent``), and complete: (year, snapshot, seconds spent finding it). None
    from ``rebuild_from`` on (a refresh rebuilding its head year to record retractions)."""
    for year in years:
        if rebuild_from is not None and year >= rebuild_from:
            return
        t0 = time.perf_counter()
        sid = wh.find_by_inputs(kg, _fingerprint(config, parent, corpus.digest(year)), parent)
        if sid is None:
            return
        manifest = wh.manifest(sid)
        info = SnapshotInfo.from_manifest(manifest)
        if info.counts.extraction_failed:
            return  # incomplete: rebuild this year so its failed documents are retried
        own = [p for p in manifest["parts"] if p["depth"] == manifest["depth"]]
        if quick_damage(wh.root, own):
            return  # a part of this year is missing or truncated: rebuilding rewrites it
        yield year, info, time.perf_counter() - t0
        parent = sid


@dataclass(slots=True)
class YearPlan:
    """What :func:`build_kg` would do with one year: ``reuse`` its snapshot or ``build`` it.

    ``reason``: ``published`` (reused), ``new`` (no snapshot of this KG for the year),
    ``inputs changed`` / ``config changed`` / ``code changed`` (a snapshot of the year exists on
    this lineage but from other inputs, config or code), ``incomplete`` (published with failed
    extractions), ``damaged`` (a part of it is missing or truncated; rebuilding rewrites it),
    ``parent rebuilt`` (an earlier year is rebuilt) or ``years unknown`` (a corpus
    whose years are known only after reading it).
    """

    year: int
    action: str
    reason: str
    #: The snapshot reused, or the published snapshot of the year the build would replace.
    snapshot_id: str | None = None


def plan_build(
    source: Path | Corpus,
    *,
    kg: str = "kg",
    years: str | None = None,
    extractor: str | ExtractionOptions = "auto",
    warehouse: Path = Path("warehouse"),
    default_year: int | None = None,
) -> list[YearPlan]:
    """A dry run of :func:`build_kg`'s reuse decision, year by year; reads the source's digests
    and the catalog, extracts and publishes nothing."""
    options = _as_options(extractor)
    chosen, slice_extractor = options.make(Path(warehouse))
    try:
        corpus = _as_corpus(source, years, default_year, warehouse)
        todo = corpus.years()
        if not corpus.reusable:
            return [YearPlan(y, "build", "years unknown") for y in todo]
        config = _config(kg, chosen, options, slice_extractor, corpus)
        wh = Warehouse(warehouse)
        if wh.catalog_path.exists():
            wh.init()  # a catalog written by an older version gains its newer tables
        plan = [
            YearPlan(year, "reuse", "published", info.snapshot_id)
            for year, info, _ in _reusable(wh, kg, config, corpus, todo)
        ]
        parent = plan[-1].snapshot_id if plan else None
        published = {(s["as_of_year"], s["parent_id"]): s for s in wh.snapshots(kg)}
        for year in todo[len(plan) :]:
            if plan and plan[-1].action == "build":
                plan.append(YearPlan(year, "build", "parent rebuilt"))
                continue
            old = published.get((year, parent))
            reason = "new"
            if old is not None:
                reason = _why_changed(wh.manifest(old["snapshot_id"]), config, corpus, year)
            plan.append(YearPlan(year, "build", reason, old["snapshot_id"] if old else None))
        return plan
    finally:
        slice_extractor.close()


def _why_changed(
    manifest: dict[str, Any], config: dict[str, Any], corpus: Corpus, year: int
) -> str:
    if manifest["code_version"] != code_version():
        return "code changed"
    if json.dumps(manifest["config"], sort_keys=True) != json.dumps(config, sort_keys=True):
        return "config changed"
    inputs = _fingerprint(config, manifest["parent_id"], corpus.digest(year))
    if manifest["inputs"] != inputs:
        return "inputs changed"
    failed = SnapshotCounts.from_dict(manifest["counts"]).extraction_failed
    return "incomplete" if failed else "damaged"


def build_kg(
    source: Path | Corpus,
    *,
    kg: str = "kg",
    years: str | None = None,
    extractor: str | ExtractionOptions = "auto",
    warehouse: Path = Path("warehouse"),
    default_year: int | None = None,
    on_year: Callable[[YearReport], None] | None = None,
    lock_wait_s: float = DEFAULT_WAIT_S,
    on_wait: Callable[[dict[str, Any]], None] | None = None,
    verify: bool = False,
    after: str | None = None,
    runner: Runner | None = None,
    dask_address: str | None = None,
    rebuild_from: int | None = None,
) -> BuildReport:
    """Build (or reuse) one snapshot per publication year of ``source``; return what happened.

    A year slice is reused only when it is complete: a snapshot in which some document's
    extraction failed is rebuilt (its finished LLM answers come from the cache), so a re-run
    retries exactly the failures. One build at a time holds the warehouse
    (:mod:`kgbuild.store.lock`): a second one waits up to ``lock_wait_s`` (``on_wait`` is told
    who it waits for), then finds the first one's snapshots and reuses them. A year whose
    parts are missing or truncated is rebuilt, which rewrites them; ``verify`` re-hashes every
    part first (:func:`kgbuild.store.check.check_warehouse`) so that parts whose content was
    altered are rebuilt too.

    ``after``: continue the lineage of this published snapshot with the years of ``source``
    that follow it, without looking at (re-reading, re-digesting) the years before it — what a
    per-year flow task does, so a 10-year build reads each year once, not 1 + 2 + … + 10 times.

    ``runner``: where the per-document extraction runs (default: here, batch after batch; a
    :class:`kgbuild.pipeline.runner.DaskRunner` sends the batches to a Dask cluster). Resolution
    and publishing always happen here: one writer. ``dask_address``: use a
    :class:`~kgbuild.pipeline.runner.DaskRunner` on that cluster (``tcp://host:8786``).

    ``rebuild_from``: build that year and those after it even where a published snapshot has
    the same inputs — what a refresh does when PubMed has retracted papers of the head and no
    year is new: the head's year, built again, records the retractions (inputs digests do not
    cover them) and stops serving those papers, while the snapshot it replaces keeps the
    literature as it stood then. Its extraction answers come from the caches.
    """
    options = _as_options(extractor)
    chosen, slice_extractor = options.make(Path(warehouse))
    dask = None
    if dask_address and runner is None:
        from kgbuild.pipeline.runner import DaskRunner

        runner = dask = DaskRunner(dask_address, options, Path(warehouse))
    try:
        corpus = _as_corpus(source, years, default_year, warehouse)
        config = _config(kg, chosen, options, slice_extractor, corpus)
        wh = Warehouse(warehouse)
        report = BuildReport(new_build_id(), kg)
        with build_lock(wh.root, report.build_id, lock_wait_s, on_wait):
            if verify:
                _drop_damaged_parts(wh)
            _build_locked(
                wh, report, corpus, config, chosen, options, slice_extractor, on_year, after,
                runner, rebuild_from,
            )  # fmt: skip
        if dask is not None:
            report.workers = dask.batches_by_worker()
        return report
    finally:
        slice_extractor.close()
        if dask is not None:
            dask.close()


def _drop_damaged_parts(wh: Warehouse) -> None:
    """Remove the part files a full check finds altered: the years that need them then read
    as damaged and are rebuilt, which writes the parts again from the inputs."""
    for d in check_warehouse(wh.root).damaged:
        if d.path.startswith("parts/"):
            (wh.root / d.path).unlink(missing_ok=True)


def _build_locked(
    wh: Warehouse,
    report: BuildReport,
    corpus: Corpus,
    config: dict[str, Any],
    chosen: str,
    options: ExtractionOptions,
    slice_extractor: SliceExtractor,
    on_year: Callable[[YearReport], None] | None,
    after: str | None = None,
    runner: Runner | None = None,
    rebuild_from: int | None = None,
) -> None:
    """The year loop of :func:`build_kg`, run while holding the warehouse's build lock."""
    kg = report.kg
    wh.init()
    wh.repair()
    shutil.rmtree(wh.root / SCRATCH, ignore_errors=True)  # a killed build's; we hold the lock
    started = datetime.now(UTC).replace(tzinfo=None)
    parent: str | None = after
    todo = corpus.years()
    if after is not None:
        base = wh.manifest(after)
        if base["kg"] != kg:
            raise InputError("the snapshot to continue belongs to another KG", snapshot=after)
        todo = [y for y in todo if y > base["as_of_year"]]
    if corpus.reusable:  # per-year fingerprints are known before reading
        for year, info, seconds in _reusable(
            wh, kg, config, corpus, list(todo), after, rebuild_from
        ):
            _emit(report, on_year, YearReport(year, info, True, seconds))
            parent = info.snapshot_id
            todo.pop(0)
        if not todo:
            return
    state = KGState.restore(wh, parent) if parent else KGState()
    if options.embed_model != "none":
        from kgbuild.resolve.embed import Embedder

        model = None if options.embed_model == "default" else options.embed_model
        state.resolver.use_embedder(Embedder(model, cache_path=wh.root / EMBED_CACHE))
    writer = wh.writer(kg, parent)
    scratch = wh.root / SCRATCH / report.build_id
    seen = SeenIndex(scratch / "seen.duckdb")
    try:
        if parent:
            seen.seed(wh.catalog_path, parent)
        runner = runner or LocalRunner(slice_extractor)
        t0 = time.perf_counter()
        for year, batches in year_batches(corpus, todo, seen):
            fold_year(state, year, batches, runner, writer, Spill(scratch / str(year)))
            record_retractions(corpus, writer, seen.con, year)  # PubMed sources only
            inputs = _fingerprint(config, writer.parent_id, corpus.digest(year))
            info = writer.commit(
                year, report.build_id, config, inputs, code_version(), state.counts()
            )
            _emit(report, on_year, YearReport(year, info, False, time.perf_counter() - t0))
            t0 = time.perf_counter()
    finally:
        seen.close()
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            scratch.parent.rmdir()  # only when no other scratch is left
    report.resolution = state.resolver.summary()
    state.resolver.close()
    if isinstance(slice_extractor, LLMExtractor | VerifyingExtractor):
        client = slice_extractor.client
        report.llm_usage = {**client.usage, "spent_usd": round(client.cost_usd, 6)}
    if isinstance(slice_extractor, VerifyingExtractor):
        report.unverified = dict(sorted(slice_extractor.unverified.items()))
    for key, value in getattr(runner, "usage", {}).items():  # what the Dask workers' clients did
        total = report.llm_usage.get(key, 0) + value
        report.llm_usage[key] = round(total, 6) if key == "spent_usd" else total
    wh.log_build(
        {
            "build_id": report.build_id,
            "kg": kg,
            "started_at": started,
            "finished_at": datetime.now(UTC).replace(tzinfo=None),
            "extractor": chosen,
            "published": sum(1 for y in report.years if not y.reused),
            "reused": sum(1 for y in report.years if y.reused),
            "llm_usage": report.llm_usage,
        }
    )


def estimate_build(
    source: Path | Corpus,
    *,
    years: str | None = None,
    extractor: ExtractionOptions,
    warehouse: Path = Path("warehouse"),
    default_year: int | None = None,
) -> tuple[str, dict[int, Estimate]]:
    """A dry run: per year, the LLM calls, tokens and cost a build would spend (0 for answers
    already in the warehouse's cache). Reads the sources; calls nothing; publishes nothing."""
    chosen, slice_extractor = extractor.make(Path(warehouse))
    out: dict[int, Estimate] = {}
    try:
        if not isinstance(slice_extractor, LLMExtractor | VerifyingExtractor):
            return chosen, out
        corpus = _as_corpus(source, years, default_year, warehouse)
        for ys in corpus.slices(corpus.years(), {}):
            by_doc: dict[str, list[Mention]] = {}
            for m in ys.mentions:
                by_doc.setdefault(m.pmid, []).append(m)
            out[ys.year] = slice_extractor.estimate(ys.documents, by_doc)
        return chosen, out
    finally:
        slice_extractor.close()


def _emit(
    report: BuildReport, on_year: Callable[[YearReport], None] | None, item: YearReport
) -> None:
    report.years.append(item)
    if on_year:
        on_year(item)
