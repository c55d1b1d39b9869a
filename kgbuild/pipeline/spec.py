"""What one build is, as plain data: a domain's settings with a caller's overrides applied.

The CLI, the Prefect flows and their tasks all need the same answer to "which corpus, which
extractor, which warehouse?". A :class:`BuildSpec` is that answer, small and JSON-able, so it can
be a task input (and part of a task's cache key) and be turned back into a
:class:`~kgbuild.sources.corpus.Corpus` and :class:`~kgbuild.pipeline.build.ExtractionOptions` in
whatever process runs the task. Secrets are never part of it: the LLM API key stays in the
environment (``OPENAI_API_KEY``), read where the call is made.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgbuild.config import check_kg_name, setting, warehouse_path
from kgbuild.domains import DEFAULT_KINDS, load_domain
from kgbuild.errors import InputError
from kgbuild.extract.select import choose_extractor
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.build import ExtractionOptions
from kgbuild.pipeline.open import open_corpus
from kgbuild.sources.corpus import Corpus, KeptKinds
from kgbuild.sources.local import parse_years
from kgbuild.sources.record import MAX_DOCUMENT_CHARS


@dataclass(frozen=True, slots=True)
class BuildSpec:
    """Source, KG, extraction and warehouse of one build (see :meth:`resolve`)."""

    source: str
    kg: str
    warehouse: str
    years: str | None = None
    query: str | None = None
    annotator: str = "pubtator"
    scispacy_model: str | None = None
    keep_kinds: tuple[str, ...] = DEFAULT_KINDS
    extractor: str = "auto"
    model: str | None = None
    pairwise_mode: str = "batched"
    llm_base_url: str | None = None
    embed_model: str = "default"
    default_year: int | None = None
    max_doc_chars: int = MAX_DOCUMENT_CHARS

    @classmethod
    def resolve(
        cls,
        *,
        source: str | None = None,
        domain: str | None = None,
        query: str | None = None,
        years: str | None = None,
        annotator: str | None = None,
        extractor: str | None = None,
        model: str | None = None,
        kg: str | None = None,
        warehouse: str | Path | None = None,
        llm_base_url: str | None = None,
        embed_model: str | None = None,
        scispacy_model: str | None = None,
        pairwise_mode: str | None = None,
        default_year: int | None = None,
        max_doc_chars: int | None = None,
    ) -> BuildSpec:
        """Arguments first, then the domain file, then settings (as ``kgbuild build`` does).

        ``years`` may end in ``now`` (``2011-now``): the current UTC year, so a scheduled
        refresh follows new publication years without editing its parameters.
        """
        dom = load_domain(domain) if domain else None
        if source is None and dom is None:
            raise InputError("give a source (a folder, a file or 'pubmed') or a domain")
        env_model = os.environ.get("KGBUILD_LLM_MODEL")
        return cls(
            source=source or "pubmed",
            kg=check_kg_name(kg if kg is not None else (dom.kg if dom else None) or setting("kg")),
            warehouse=str(warehouse_path(Path(warehouse) if warehouse else None).resolve()),
            years=expand_years(years or (dom.years if dom else None)),
            query=query or (dom.query if dom else None),
            annotator=annotator or (dom.annotator if dom else "pubtator"),
            scispacy_model=scispacy_model or (dom.scispacy_model if dom else None),
            keep_kinds=tuple(dom.keep_kinds) if dom else DEFAULT_KINDS,
            extractor=extractor or (dom.extractor if dom else None) or setting("extractor"),
            model=model or (dom.model if dom and not env_model else None),
            pairwise_mode=pairwise_mode or (dom.pairwise_mode if dom else "batched"),
            llm_base_url=llm_base_url,
            embed_model=embed_model or setting("embed_model"),
            default_year=default_year,
            max_doc_chars=max_doc_chars if max_doc_chars is not None else MAX_DOCUMENT_CHARS,
        )

    # ---- what the spec opens --------------------------------------------------------------
    @property
    def warehouse_dir(self) -> Path:
        return Path(self.warehouse)

    def corpus(self, years: str | None = None) -> Corpus:
        """The corpus (optionally limited to ``years``); PubMed's raw cache is the warehouse's."""
        corpus = open_corpus(
            self.source,
            years=years or self.years,
            default_year=self.default_year,
            query=self.query,
            annotator=self.annotator,
            scispacy_model=self.scispacy_model,
            cache_dir=self.warehouse_dir / "raw",
            max_doc_chars=self.max_doc_chars,
        )
        if tuple(self.keep_kinds) != DEFAULT_KINDS:
            corpus = KeptKinds(corpus, tuple(self.keep_kinds))
        return corpus

    def llm_settings(self, concurrency: int | None = None) -> LLMSettings:
        return LLMSettings.from_env(
            base_url=self.llm_base_url, model=self.model, concurrency=concurrency
        )

    def options(self, llm_concurrency: int | None = None) -> ExtractionOptions:
        """Extraction options; ``llm_concurrency`` overrides the client's requests in flight."""
        return ExtractionOptions(
            self.extractor,
            self.llm_settings(llm_concurrency),
            self.pairwise_mode,
            embed_model=self.embed_model,
        )

    def llm_concurrency(self) -> int:
        """Requests in flight this build's LLM client allows (0: the extractor calls no LLM)."""
        settings = self.llm_settings()
        if choose_extractor(self.extractor, settings) == "cooccurrence":
            return 0
        return settings.concurrency

    @property
    def uses_ncbi(self) -> bool:
        """Whether reading the source talks to NCBI (E-utilities, PubTator3)."""
        return self.source == "pubmed"

    def year_steps(self) -> list[int]:
        """The years a build publishes one by one, oldest first ([] when the corpus knows its
        years only after reading everything, e.g. files without a year in their name)."""
        corpus = self.corpus()
        return corpus.years() if corpus.reusable else []

    def only(self, year: int) -> BuildSpec:
        """The same build limited to ``year`` (one year task of a flow, which continues the
        lineage of the previous year's snapshot)."""
        return replace(self, years=str(year))

    def public(self) -> dict[str, Any]:
        """JSON-able parameters (no secrets are ever part of a spec)."""
        return asdict(self)


def expand_years(years: str | None, today: datetime | None = None) -> str | None:
    """``2011-now`` → ``2011-<current UTC year>``; other specs are checked and kept."""
    if not years:
        return None
    text = years.strip()
    if text.lower().endswith("now"):
        year = (today or datetime.now(UTC)).year
        text = f"{text[:-3].rstrip(' -:')}-{year}" if text[:-3].strip(" -:") else str(year)
    parse_years(text)
    return text
