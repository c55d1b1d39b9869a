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

A file found on disk never decides *where* a secret goes. Each setting remembers the layer it
came from (:meth:`Settings.layer`), and a secret is sent only to an endpoint configured where
the secret could be: an argument, the environment, or the default (the service's own URL). An
endpoint named by ``kgbuild.toml`` is used, but without the key (:meth:`Settings.key_allowed`),
and the file is named in the build's first output line (:meth:`Settings.notices`), as is one that
moves the warehouse. ``kgbuild.toml`` is not read at all when the working folder is the build's
``--source`` or inside it: a file shipped with a corpus is data, never configuration.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, Field, PrivateAttr, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from kgbuild.config import check_kg_name, toml_path, toml_table
from kgbuild.domains import DEFAULT_KINDS, load_domain
from kgbuild.errors import ConfigError
from kgbuild.redact import register

#: PubMed's E-utilities and PubTator3's API (overridable: mirrors, loopback test servers).
EUTILS_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/"
PUBTATOR_URL = "https://www.ncbi.nlm.nih.gov/research/pubtator3-api/"
#: Longest title + abstract built (characters; ``--max-doc-chars``). PubMed abstracts stay far
#: below it (DALK's longest is about 4,000); a 2 MB "abstract" is hostile input: it would be
#: sent to an LLM as a ~500k-token prompt. Longer documents end ``rejected`` with the reason.
MAX_DOCUMENT_CHARS = 100_000

#: The layers a setting can come from, highest first (:meth:`Settings.layer`).
LAYERS = ("argument", "environment", "kgbuild.toml", "domain", "default")
#: Layers that are files found on disk: they may name an endpoint, never send a secret to it.
FILE_LAYERS = frozenset({"kgbuild.toml", "domain"})
#: Endpoint settings and the secret each one is sent with (None: it is sent none).
ENDPOINTS: dict[str, str | None] = {
    "llm_base_url": "OPENAI_API_KEY",
    "eutils_url": "NCBI_API_KEY",
    "pubtator_url": None,
}
#: What a file may not change silently: where requests go (a Dask scheduler's results are
#: unpickled by the driver, which holds the keys), and where results are written.
WATCHED = (*ENDPOINTS, "dask_address", "warehouse")


@dataclass(slots=True)
class _Trace:
    """What the sources of one resolution gave: the fields each layer set, and which
    ``kgbuild.toml`` was read — or ignored, because it lies inside the build's source."""

    layers: dict[str, set[str]] = field(default_factory=dict)
    toml: Path | None = None
    ignored_inside: str | None = None


#: The trace of the resolution under way (set by :meth:`Settings.__init__` around its sources).
_TRACE: ContextVar[_Trace | None] = ContextVar("kgbuild_settings_trace", default=None)


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
    #: The LLM verification pass (kgbuild/extract/verify.py): off unless asked.
    verify_claims: bool = False
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

    _trace: _Trace = PrivateAttr(default_factory=_Trace)

    def __init__(self, **values: Any) -> None:
        """Resolve as pydantic-settings does, remembering which layer gave each setting."""
        trace = _Trace()
        token = _TRACE.set(trace)
        try:
            super().__init__(**values)
        finally:
            _TRACE.reset(token)
        self._trace = trace

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
        arguments = _Traced(settings_cls, init_settings, "argument")
        environment = _Traced(settings_cls, env_settings, "environment")
        toml = _TomlSource(settings_cls, arguments, environment)
        domain = _DomainSource(settings_cls, arguments, environment, toml)
        return arguments, environment, toml, domain

    @property
    def warehouse_dir(self) -> Path:
        return Path(self.warehouse)

    def public(self) -> dict[str, Any]:
        """Every setting but the secrets (safe for manifests, logs and flow parameters)."""
        return self.model_dump(exclude={"openai_api_key", "ncbi_api_key"})

    def layer(self, name: str) -> str:
        """The layer that gave setting ``name`` (one of :data:`LAYERS`)."""
        layers = self._trace.layers
        return next((k for k in LAYERS[:-1] if name in layers.get(k, ())), "default")

    def key_allowed(self, endpoint: str) -> bool:
        """Whether ``endpoint``'s secret (:data:`ENDPOINTS`) may be sent to it: only when the
        endpoint came from where a secret can come from (an argument, the environment) or is
        the service's own default. A file lying in a working folder is not the user's word."""
        return self.layer(endpoint) not in FILE_LAYERS

    def file_endpoints(self) -> tuple[str, ...]:
        """Endpoint settings a file gave: they are used, but never sent a secret."""
        return tuple(name for name in ENDPOINTS if not self.key_allowed(name))

    def notices(self) -> tuple[str, ...]:
        """What a build says first: a ``kgbuild.toml`` that changed where requests go or where
        results are written (and the secrets that stay home), or one it ignored."""
        path = self._trace.toml
        if path is None:
            return ()
        if self._trace.ignored_inside is not None:
            return (
                f"kgbuild.toml ({path}) ignored: it is inside --source "
                f"{self._trace.ignored_inside}, and a file in a corpus is data, not configuration",
            )
        changed = [name for name in WATCHED if self.layer(name) == "kgbuild.toml"]
        if not changed:
            return ()
        kept = [s for n, s in ENDPOINTS.items() if s and n in changed]
        line = f"kgbuild.toml ({path}): sets {', '.join(changed)}"
        if kept:
            line += f"; {' and '.join(kept)} will not be sent to a file-configured endpoint"
        return (line,)


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


def _record(layer: str, keys: Iterable[str]) -> None:
    """Note that ``layer`` gave these settings (keys may be environment names: aliases)."""
    trace = _TRACE.get()
    if trace is not None:
        names = _field_names()
        trace.layers.setdefault(layer, set()).update(names.get(k.lower(), k) for k in keys)


@cache
def _field_names() -> dict[str, str]:
    """Every name a source may report a setting under (lower case) → the setting."""
    out: dict[str, str] = {}
    for name, info in Settings.model_fields.items():
        out[name] = out[f"kgbuild_{name}"] = name
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            out.update({c.lower(): name for c in alias.choices if isinstance(c, str)})
    return out


class _Traced(PydanticBaseSettingsSource):
    """A built-in source (arguments, environment) that records what it gave."""

    def __init__(
        self, settings_cls: type[BaseSettings], inner: PydanticBaseSettingsSource, layer: str
    ) -> None:
        super().__init__(settings_cls)
        self.inner, self.layer = inner, layer

    def _set_current_state(self, state: dict[str, Any]) -> None:
        super()._set_current_state(state)
        self.inner._set_current_state(state)

    def _set_settings_sources_data(self, states: dict[str, dict[str, Any]]) -> None:
        super()._set_settings_sources_data(states)
        self.inner._set_settings_sources_data(states)

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        values = self.inner()
        _record(self.layer, values)
        return values


def _holds(source: Any, folder: Path) -> bool:
    """Whether ``folder`` is the ``--source`` folder or lies inside it (``pubmed`` is none)."""
    if not source or str(source) == "pubmed":
        return False
    root, here = Path(source).expanduser().resolve(), folder.resolve()
    return here == root or root in here.parents


class _TomlSource(PydanticBaseSettingsSource):
    """``[kgbuild]`` and ``[llm]`` of ``./kgbuild.toml`` (never a secret) — unless the working
    folder is the build's source or inside it (the source named by the arguments, the
    environment or the file itself): a corpus that ships a ``kgbuild.toml`` and is built with
    ``--source .`` must not configure its own build."""

    def __init__(
        self, settings_cls: type[BaseSettings], *higher: PydanticBaseSettingsSource
    ) -> None:
        super().__init__(settings_cls)
        self.higher = higher

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = toml_path()
        if not path.exists():
            return {}
        source = next((v for src in self.higher if (v := src().get("source"))), None)
        inside, out = _holds(source, path.parent), dict[str, Any]()
        if not inside:  # a file inside the source is not even parsed
            out = {k: v for k, v in toml_table("kgbuild").items() if k not in _SECRETS}
            out.update({_LLM_KEYS[k]: v for k, v in toml_table("llm").items() if k in _LLM_KEYS})
            source = source or out.get("source")  # the file may name itself the source
            inside = _holds(source, path.parent)
        trace = _TRACE.get()
        if trace is not None:
            trace.toml, trace.ignored_inside = path, str(source) if inside else None
        if inside:
            return {}
        _record("kgbuild.toml", out)
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
        values: dict[str, Any] = {
            "kg": d.kg, "years": d.years, "query": d.query, "annotator": d.annotator,
            "scispacy_model": d.scispacy_model, "extractor": d.extractor,
            "llm_model": d.model, "pairwise_mode": d.pairwise_mode, "keep_kinds": d.keep_kinds,
        }  # fmt: skip
        given = {k: v for k, v in values.items() if v is not None and v != ""}
        _record("domain", given)
        return given


def load_settings(**arguments: Any) -> Settings:
    """The settings of one build: ``arguments`` (``None`` = not given) over the environment,
    ``kgbuild.toml``, the domain file and the defaults. A bad value is one ConfigError line."""
    given = {k: v for k, v in arguments.items() if v is not None}
    unknown = set(given) - set(Settings.model_fields)
    if unknown:
        raise TypeError(f"unknown settings: {sorted(unknown)}")
    try:
        settings = Settings(**given)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "settings"
        if isinstance(first.get("ctx", {}).get("error"), ConfigError):
            raise first["ctx"]["error"] from None
        why = str(first["msg"]).removeprefix("Value error, ")
        raise ConfigError(f"setting {where}: {why}", value=repr(first.get("input"))) from None
    for secret in (settings.openai_api_key, settings.ncbi_api_key):
        register(secret.get_secret_value() if secret else None)  # masked in logs and answers
    return settings


def warehouse_path(override: str | Path | None = None) -> Path:
    """The warehouse folder: the argument, else ``KGBUILD_WAREHOUSE``, else kgbuild.toml, else
    ``./warehouse``."""
    return Path(override) if override else load_settings().warehouse_dir
