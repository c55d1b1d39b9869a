"""The query stage's prompt templates: ``<name>.v<N>.toml`` files in this folder, read by the
same :class:`~kgbuild.extract.prompts.Prompt` the extraction prompts use (system message, user
template, JSON schema; a ref ``name/vN@digest`` keys the LLM cache and is reported with every
answer)."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from kgbuild.errors import ConfigError
from kgbuild.extract.prompts import Prompt

_DIR = Path(__file__).resolve().parent


@cache
def load(name: str, version: int | None = None) -> Prompt:
    """The named query prompt at ``version`` (default: the newest file of that name)."""
    files = sorted(_DIR.glob(f"{name}.v*.toml"), key=lambda p: int(p.stem.rsplit(".v", 1)[1]))
    if version is not None:
        files = [p for p in files if p.stem == f"{name}.v{version}"]
    if not files:
        raise ConfigError("no such prompt template", name=name, version=version or "newest")
    data = tomllib.loads(files[-1].read_text(encoding="utf-8"))
    return Prompt(data["name"], int(data["version"]), data["system"], data["user"], data["schema"])
