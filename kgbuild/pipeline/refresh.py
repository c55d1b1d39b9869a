"""What a scheduled refresh has to build: the years that are new or changed since the KG's
latest snapshot, and nothing when nothing is.

A year needs building when its inputs fingerprint (code version, build config, parent snapshot
and :meth:`Corpus.digest` of the year's inputs) is not published on the KG's lineage — a new
publication year, new or changed PMIDs or files in a year, another extractor or model, new
code — or when its snapshot is incomplete (failed extractions are retried). The decision is
:func:`kgbuild.pipeline.build.plan_build`, the same test :func:`~kgbuild.pipeline.build.build_kg`
applies before reusing a year, so "the plan says no-op" and "a build would publish nothing" agree.

PubMed's answers are cached under ``warehouse/raw`` so that a re-run downloads nothing; a
refresh must therefore ask ESearch again for the years that can still grow (from the latest
snapshot's year on, by default). The fresh answer replaces the cached one; EFetch pages are
cached under the search's record count, so a year whose count changed is fetched anew.
(A year whose count is unchanged while its PMIDs changed keeps its cached pages: clear
``warehouse/raw/pubmed`` to force a full re-download.)

Retractions: the refresh also asks PubMed again which papers of the head snapshot are
now retracted (:func:`kgbuild.pipeline.retractions.recheck`); the next year built records them
and stops serving them. The plan lists those the head does not record yet. When no year is to
be built, the last year is built again (reason ``papers retracted``; ``build_kg``'s
``rebuild_from``, its extraction answers from the caches), so a KG whose years are all
published — a fixed range, a quiet week — stops serving a retracted paper at the next refresh,
not whenever new literature happens to arrive. The snapshot it replaces keeps serving it: that
is the literature as it stood then.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from kgbuild.pipeline import retractions
from kgbuild.pipeline.build import YearPlan, plan_build
from kgbuild.pipeline.spec import BuildSpec
from kgbuild.sources import pubmed
from kgbuild.sources.corpus import Corpus
from kgbuild.sources.http import HttpClient
from kgbuild.sources.pubmed_corpus import PubMedCorpus
from kgbuild.store.snapshots import Warehouse

#: The reason of a published year built again to record papers retracted since the head.
RETRACTED = "papers retracted"


@dataclass(slots=True)
class RefreshPlan:
    kg: str
    #: The KG's latest snapshot (id, year) before the refresh, if any.
    head: str | None
    head_year: int | None
    years: list[YearPlan] = field(default_factory=list)
    #: PubMed years searched again, with the records each search now holds.
    rechecked: dict[int, int] = field(default_factory=dict)
    #: PMIDs of the head that PubMed now marks retracted and the head does not record yet
    #: (the next year built records them; PubMed sources only).
    retracted: list[str] = field(default_factory=list)

    @property
    def todo(self) -> list[YearPlan]:
        return [y for y in self.years if y.action == "build"]

    @property
    def noop(self) -> bool:
        return not self.todo

    @property
    def rebuild_from(self) -> int | None:
        """The year built again although published (to record retractions), if any."""
        return next((y.year for y in self.years if y.reason == RETRACTED), None)

    def summary(self) -> str:
        retracted = ""
        if self.retracted:
            retracted = (
                f"; {len(self.retracted)} papers of the head retracted since "
                f"({'recorded by this build' if self.todo else 'recorded by the next year built'})"
            )
        if self.noop:
            return (
                f"no-op: {self.kg} is up to date (head {self.head} @ {self.head_year}; "
                f"{len(self.years)} years unchanged); nothing to build{retracted}"
            )
        todo = ", ".join(f"{y.year} ({y.reason})" for y in self.todo)
        return f"{self.kg}: {len(self.todo)} of {len(self.years)} years to build: {todo}{retracted}"

    def markdown(self) -> str:
        lines = [f"**{self.summary()}**", ""]
        lines += [f"- {y.year}: {y.action} ({y.reason})" for y in self.years]
        lines += [f"- PubMed {y}: {n:,} records now" for y, n in self.rechecked.items()]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kg": self.kg,
            "status": "no-op" if self.noop else "build",
            "head": self.head,
            "head_year": self.head_year,
            "years": [asdict(y) for y in self.years],
            "rechecked": self.rechecked,
            "retracted": self.retracted,
            "rebuild_from": self.rebuild_from,
        }


def latest_snapshot(warehouse: Path, kg: str) -> dict[str, Any] | None:
    """The KG's most recently published snapshot (the catalog's ``head_snapshot(kg)``)."""
    rows = Warehouse(warehouse).snapshots(kg)
    return max(rows, key=lambda r: (r["created_at"], r["depth"])) if rows else None


def plan_refresh(spec: BuildSpec, *, recheck_from: int | None = None) -> RefreshPlan:
    """Which years of ``spec`` a refresh has to build (see the module docstring).

    ``recheck_from``: the first PubMed year whose search is run again (default: the latest
    snapshot's year; every year when the KG has no snapshot yet is moot, all are new).
    """
    head = latest_snapshot(spec.warehouse_dir, spec.kg)
    corpus = spec.corpus()
    plan = RefreshPlan(
        spec.kg, head["snapshot_id"] if head else None, head["as_of_year"] if head else None
    )
    inner = _pubmed(corpus)
    start = recheck_from if recheck_from is not None else plan.head_year
    if inner is not None and start is not None:
        plan.rechecked = recheck_searches(inner, [y for y in corpus.years() if y >= start])
    if plan.head is not None:
        catalog_path = Warehouse(spec.warehouse_dir).catalog_path
        plan.retracted = retractions.recheck(corpus, catalog_path, plan.head)
    plan.years = plan_build(
        corpus, kg=spec.kg, extractor=spec.options(), warehouse=spec.warehouse_dir
    )
    if plan.retracted and plan.noop and plan.years:  # nothing new would record them
        last = plan.years[-1]
        plan.years[-1] = YearPlan(last.year, "build", RETRACTED, last.snapshot_id)
    return plan


def recheck_searches(corpus: PubMedCorpus, years: list[int]) -> dict[int, int]:
    """Run ``corpus``'s ESearches for ``years`` again, past the raw cache (which keeps the fresh
    answers, so the build that follows reads them); returns the records per year."""
    fresh = _FreshSearches(corpus.eutils)
    return {
        year: sum(s.count for s in pubmed.search_slices(fresh, corpus.query, year))  # type: ignore[arg-type]
        for year in years
    }


class _FreshSearches:
    """An E-utilities client whose ESearch calls skip reading the cache (and rewrite it)."""

    def __init__(self, inner: HttpClient) -> None:
        self.inner = inner

    def get(self, path: str, params: Any = None, **opts: Any) -> bytes:
        if path == pubmed.ESEARCH:
            opts["refresh"] = True
        return self.inner.get(path, params, **opts)


def _pubmed(corpus: Corpus) -> PubMedCorpus | None:
    inner = getattr(corpus, "inner", corpus)  # KeptKinds wraps the source corpus
    return inner if isinstance(inner, PubMedCorpus) else None
