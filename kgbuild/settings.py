"""Every build setting in one model, resolved in one order everywhere.

Highest first: **arguments** (CLI options, Prefect flow parameters, library keyword arguments;
``None`` means "not given") > **environment** (``KGBUILD_<NAME>``, plus the names other tools
use: ``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``NCBI_API_KEY``, ``NCBI_EMAIL``) >
**``kgbuild.toml``** in the working folder (``[kgbuild]`` for build settings, ``[llm]`` for
the endpoint, ``[llm.prices]``) > the **domain file** (``data/domains/<domain>.toml``) >
**defaults**. The CLI, both flows and the library resolve settings only through
:func:`load_settings`; no other module reads the environment for a setting.

Secrets (``OPENAI_API_KEY``, ``NCBI_API_KEY``) come from the environment only: they are never
taken from ``kgbuild.toml`` or a domain file, never part of :meth:`Settings.public`, and never
written anywhere (manifests, logs, caches, flow parameters).
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from kgbuild.config import check_kg_name, toml_table
from kgbuild.domains import DEFAULT_KINDS, load_domain
from kgbuild.errors import ConfigError

#: PubMed's E-utilities and PubTator3's API (overridable: mirrors, loopback test servers).
EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
PUBTATOR_URL = "https://www.ncbi.nlm.nih.gov/research/pubtator3-api/"
#: Longest title + abstract built (characters; ``--max-doc-chars``). PubMed abstracts stay far
#: below it (DALK's longest is about 4,000); a 2 MB "abstract" is hostile input: it would be
#: sent to an LLM as a ~500k-token prompt. Longer documents end ``rejected`` with the reason.
MAX_DOCUMENT_CHARS = 100_000


def _env(*names: str, default: Any = None) -> Any:
    """A field read from these names (its own name for arguments, then the environment names
    other tools use; the first one set wins)."""
    return Field(default, validation_alias=AliasChoices(*names))


class Settings(BaseSettings):
    """Every setting of a build (see the module docstring for the order they resolve in)."""

    model_config = SettingsConfigDict(
        env_prefix="KGBUILD_",
        env_ignore_empty=True,
        frozen=True,
        extra="ignore",
        populate_by_name=True,
    )

    # -- what to build ------------------------------------------------------------------------
    source: str | None = None
    domain: str | None = None
    kg: str = "alzheimers"
    warehouse: str = "warehouse"
    years: str | None = None
    query: str | None = None
    annotator: str = "pubtator"
    scispacy_model: str = "en_ner_bc5cdr_md"
    keep_kinds: tuple[str, ...] = DEFAULT_KINDS
    default_year: int | None = None
    max_doc_chars: int = MAX_DOCUMENT_CHARS
    # -- extraction and resolution --------------------------------------------------------------
    extractor: str = "auto"
    pairwise_mode: str = "batched"
    chunk_size: int = 80
    embed_model: str = "default"
    #: A Dask scheduler (``tcp://host:8786``): each year's extraction runs as tasks on its
    #: workers (kgbuild/pipeline/runner.py); None: here.
    dask_address: str | None = None
    # -- the LLM endpoint ---------------------------------------------------------------------
    llm_model: str = _env("llm_model", "KGBUILD_LLM_MODEL", default="gpt-4o-mini")
    llm_base_url: str | None = _env("llm_base_url", "KGBUILD_LLM_BASE_URL", "OPENAI_BASE_URL")
    llm_concurrency: int = 8
    llm_timeout: float = 60.0
    llm_max_tokens: int = 1024
    llm_temperature: float = 0.0
    llm_max_retries: int = 5
    llm_prices: dict[str, tuple[float, float]] = Field(default_factory=dict)
    # -- live sources -------------------------------------------------------------------------
    eutils_url: str = EUTILS_URL
    pubtator_url: str = PUBTATOR_URL
    ncbi_email: str | None = _env("ncbi_email", "NCBI_EMAIL")
    # -- secrets: environment only ------------------------------------------------------------
    openai_api_key: SecretStr | None = _env("openai_api_key", "OPENAI_API_KEY")
    ncbi_api_key: SecretStr | None = _env("ncbi_api_key", "NCBI_API_KEY")

    @field_validator("source", "warehouse", "domain", mode="before")
    @classmethod
    def _path_text(cls, value: Any) -> Any:
        """Paths may be given as ``Path`` objects (library callers, tests)."""
        return str(value) if isinstance(value, PathLike) else value

    @field_validator("kg")
    @classmethod
    def _kg_name(cls, value: str) -> str:
        return check_kg_name(value)

    @field_validator("max_doc_chars", "chunk_size")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value < 1:
            raise ValueError("must be at least 1")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = _TomlSource(settings_cls)
        domain = _DomainSource(settings_cls, init_settings, env_settings, toml)
        return init_settings, env_settings, toml, domain

    @property
    def warehouse_dir(self) -> Path:
        return Path(self.warehouse)

    def public(self) -> dict[str, Any]:
        """Every setting but the secrets (safe for manifests, logs and flow parameters)."""
        return self.model_dump(exclude={"openai_api_key", "ncbi_api_key"})


#: ``[llm]`` keys of kgbuild.toml → fields (the table predates the model; its names stay).
_LLM_KEYS = {
    "model": "llm_model",
    "base_url": "llm_base_url",
    "concurrency": "llm_concurrency",
    "timeout_s": "llm_timeout",
    "timeout": "llm_timeout",
    "max_tokens": "llm_max_tokens",
    "temperature": "llm_temperature",
    "max_retries": "llm_max_retries",
    "prices": "llm_prices",
}
_SECRETS = frozenset({"openai_api_key", "ncbi_api_key", "api_key"})


class _TomlSource(PydanticBaseSettingsSource):
    """``[kgbuild]`` and ``[llm]`` of ``./kgbuild.toml`` (never a secret)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        out = {k: v for k, v in toml_table("kgbuild").items() if k not in _SECRETS}
        for key, value in toml_table("llm").items():
            if key in _LLM_KEYS:
                out[_LLM_KEYS[key]] = value
        return out


class _DomainSource(PydanticBaseSettingsSource):
    """The domain file named by the arguments, environment or kgbuild.toml (in that order)."""

    def __init__(
        self, settings_cls: type[BaseSettings], *higher: PydanticBaseSettingsSource
    ) -> None:
        super().__init__(settings_cls)
        self.higher = higher

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        name = next((v for src in self.higher if (v := src().get("domain"))), None)
        if not name:
            return {}
        d = load_domain(name)
        values = {
            "kg": d.kg, "years": d.years, "query": d.query, "annotator": d.annotator,
            "scispacy_model": d.scispacy_model, "extractor": d.extractor,
            "llm_model": d.model, "pairwise_mode": d.pairwise_mode, "keep_kinds": d.keep_kinds,
        }  # fmt: skip
        return {k: v for k, v in values.items() if v is not None and v != ""}


def load_settings(**arguments: Any) -> Settings:
    """The settings of one build: ``arguments`` (``None`` = not given) over the environment,
    ``kgbuild.toml``, the domain file and the defaults. A bad value is one ConfigError line."""
    given = {k: v for k, v in arguments.items() if v is not None}
    unknown = set(given) - set(Settings.model_fields)
    if unknown:
        raise TypeError(f"unknown settings: {sorted(unknown)}")
    try:
        return Settings(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
        if isinstance(first.get("ctx", {}).get("error"), ConfigError):
            raise first["ctx"]["error"] from None
        why = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"setting {where}: {why}", value=repr(first.get("input"))) from None


def warehouse_path(override: str | Path | None = None) -> Path:
    """The warehouse folder: the argument, else ``KGBUILD_WAREHOUSE``, else kgbuild.toml, else
    ``./warehouse``."""
    return Path(override) if override else load_settings().warehouse_dir
