"""What one build is, as plain data: a domain's settings with a caller's overrides applied.

The CLI, the Prefect flows and their tasks all need the same answer to "which corpus, which
extractor, which warehouse?". A :class:`BuildSpec` is that answer, small and JSON-able, so it can
be a task input (and part of a task's cache key) and be turned back into a
:class:`~kgbuild.sources.corpus.Corpus` and :class:`~kgbuild.pipeline.options.ExtractionOptions` in
whatever process runs the task. It is the public part of :class:`kgbuild.settings.Settings` (one
model, one precedence order); secrets are never part of it: the LLM API key stays in the
environment (``OPENAI_API_KEY``), read where the call is made.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kgbuild.config import redact_url
from kgbuild.domains import DEFAULT_KINDS
from kgbuild.errors import InputError
from kgbuild.extract.select import OFFLINE, choose_extractor
from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.open import open_corpus
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.settings import load_settings
from kgbuild.sources.corpus import Corpus, KeptKinds
from kgbuild.sources.local import parse_years


@dataclass(frozen=True, slots=True)
class BuildSpec:
    """Every public setting of one build, resolved (see :meth:`resolve`). The fields are
    :class:`~kgbuild.settings.Settings`' public ones and have no defaults of their own: a spec
    is only made by :meth:`resolve`, so the defaults live in one place, the settings model."""

    source: str
    kg: str
    warehouse: str
    years: str | None
    query: str | None
    annotator: str
    scispacy_model: str
    keep_kinds: tuple[str, ...]
    default_year: int | None
    max_doc_chars: int
    extractor: str
    pairwise_mode: str
    chunk_size: int
    embed_model: str
    verify_claims: bool
    dask_address: str | None
    llm_model: str
    llm_base_url: str | None
    llm_concurrency: int
    llm_timeout: float
    llm_max_tokens: int
    llm_temperature: float
    llm_max_retries: int
    eutils_url: str
    pubtator_url: str
    #: Endpoint settings a file (``kgbuild.toml``) gave: used, but never sent a secret.
    file_endpoints: tuple[str, ...]
    #: What the build says first (a ``kgbuild.toml`` that moved an endpoint or the warehouse).
    notices: tuple[str, ...]

    @classmethod
    def resolve(cls, **arguments: Any) -> BuildSpec:
        """The spec of ``arguments`` (CLI options or flow parameters; ``None`` = not given)
        over the environment, ``kgbuild.toml``, the domain file and the defaults — one order
        for every setting (:mod:`kgbuild.settings`).

        ``years`` may end in ``now`` (``2011-now``): the current UTC year, so a scheduled
        refresh follows new publication years without editing its parameters.
        """
        s = load_settings(**arguments)
        if s.source is None and s.domain is None:
            raise InputError("give a source (a folder, a file or 'pubmed') or a domain")
        public = s.public()
        own = {f.name for f in fields(cls)}
        values = {k: v for k, v in public.items() if k in own}
        values.update(
            source=s.source or "pubmed",
            warehouse=str(s.warehouse_dir.resolve()),
            years=expand_years(s.years),
            keep_kinds=tuple(s.keep_kinds),
            file_endpoints=s.file_endpoints(),
            notices=s.notices(),
        )
        return cls(**values)

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
            eutils_url=self.eutils_url,
            pubtator_url=self.pubtator_url,
            send_ncbi_key="eutils_url" not in self.file_endpoints,
        )
        if tuple(self.keep_kinds) != DEFAULT_KINDS:
            corpus = KeptKinds(corpus, tuple(self.keep_kinds))
        return corpus

    def llm_settings(self, concurrency: int | None = None) -> LLMSettings:
        """The endpoint of this spec — exactly its base URL, whatever the running process's
        own settings say; the API key and price table come from the settings of the process
        that runs it (a worker's environment), never from the spec, and the key only when the
        spec's base URL did not come from a file."""
        llm = LLMSettings.from_settings(
            load_settings(),
            key_allowed="llm_base_url" not in self.file_endpoints,
            model=self.llm_model,
            concurrency=concurrency or self.llm_concurrency,
            timeout_s=self.llm_timeout,
            max_tokens=self.llm_max_tokens,
            temperature=self.llm_temperature,
            max_retries=self.llm_max_retries,
        )
        return replace(llm, base_url=self.llm_base_url)

    def options(self, llm_concurrency: int | None = None) -> ExtractionOptions:
        """Extraction options; ``llm_concurrency`` overrides the client's requests in flight."""
        return ExtractionOptions(
            self.extractor,
            self.llm_settings(llm_concurrency),
            self.pairwise_mode,
            self.chunk_size,
            self.embed_model,
            self.verify_claims,
        )

    def llm_slots(self) -> int:
        """Requests in flight this build's LLM client allows (0: the extractor calls no LLM)."""
        settings = self.llm_settings()
        if choose_extractor(self.extractor, settings) in OFFLINE:
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
        """JSON-able parameters for logs (no secrets are ever part of a spec, and URLs lose
        any user info or query they carry)."""
        out = asdict(self)
        for name in ("llm_base_url", "eutils_url", "pubtator_url", "dask_address"):
            if name in out:
                out[name] = redact_url(out[name])
        return out


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
