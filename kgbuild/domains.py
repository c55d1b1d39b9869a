"""Domains as config: one small TOML file per domain in ``data/domains/`` (see its README).

A domain names what to build — the PubMed query and years, the annotator, the extractor and
model, the Hetionet kinds kept as nodes — so a scheduled refresh and a one-off build of a new
domain are the same command with a different file. Command-line options override the file.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from kgbuild.config import env
from kgbuild.errors import ConfigError
from kgbuild.schema import data_dir

DEFAULT_KINDS = ("Gene", "Compound", "Disease")


@dataclass(frozen=True, slots=True)
class Domain:
    name: str
    description: str = ""
    kg: str = ""
    years: str | None = None
    query: str | None = None
    annotator: str = "pubtator"
    scispacy_model: str = "en_ner_bc5cdr_md"
    extractor: str = "auto"
    model: str | None = None
    pairwise_mode: str = "batched"
    keep_kinds: tuple[str, ...] = field(default=DEFAULT_KINDS)


def domains_dir() -> Path:
    return Path(env("KGBUILD_DOMAINS") or data_dir() / "domains")


def list_domains() -> list[str]:
    return sorted(p.stem for p in domains_dir().glob("*.toml"))


def load_domain(name: str) -> Domain:
    path = domains_dir() / f"{name}.toml"
    if not path.is_file():
        raise ConfigError("unknown domain", domain=name, known=", ".join(list_domains()) or "none")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read domain file: {exc}", path=path) from exc
    source, extraction = data.get("source", {}), data.get("extraction", {})
    keep = tuple(data.get("kg_types", {}).get("keep", DEFAULT_KINDS))
    unknown = set(keep) - set(DEFAULT_KINDS)
    if unknown:
        raise ConfigError("kg_types.keep names kinds with no relations", kinds=sorted(unknown))
    return Domain(
        name=data.get("name", name),
        description=data.get("description", ""),
        kg=data.get("kg", data.get("name", name)),
        years=data.get("years"),
        query=source.get("query"),
        annotator=source.get("annotator", "pubtator"),
        scispacy_model=source.get("scispacy_model", "en_ner_bc5cdr_md"),
        extractor=extraction.get("extractor", "auto"),
        model=extraction.get("model"),
        pairwise_mode=extraction.get("pairwise_mode", "batched"),
        keep_kinds=keep,
    )
