"""What every command that calls an LLM shares: its three command-line options and the one
client it builds, caching in the warehouse.

Below every stage that has such a command (``ask``, ``serve``, ``conflicts``, ``eval adqa``), so
each imports it and none imports another's command module for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgbuild.llm.cache import ResponseCache
from kgbuild.llm.client import LLMClient, LLMSettings

BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint")]
Model = Annotated[str | None, typer.Option(help="LLM model")]
MaxTokens = Annotated[int | None, typer.Option(help="Completion token cap")]


def llm_settings(base_url: str | None, model: str | None, max_tokens: int | None) -> LLMSettings:
    """The settings of the environment and ``kgbuild.toml``, with the options given overriding."""
    return LLMSettings.from_env(base_url=base_url, model=model, max_tokens=max_tokens)


def make_client(settings: LLMSettings, warehouse: Path | None) -> LLMClient:
    """The one client, caching in ``<warehouse>/llm_cache.sqlite`` (in memory only if the
    warehouse folder is missing or not writable: a reader never creates a warehouse)."""
    cache = None
    if warehouse is not None and Path(warehouse).is_dir():
        try:
            cache = ResponseCache(Path(warehouse) / "llm_cache.sqlite")
        except Exception:  # sqlite3.OperationalError, OSError: read-only warehouse
            cache = None
    return LLMClient(settings, cache)
