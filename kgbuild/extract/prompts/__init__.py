"""Prompt templates: named, versioned files in this folder, rendered in one place.

Each ``<name>.v<N>.toml`` holds a system message, a user template (``string.Template``
placeholders, so JSON braces need no escaping) and the JSON schema of the expected answer.
A prompt's ``ref`` (``generative/v1@3f2a9c1d``) — name, version and a digest of its text and
schema — is recorded on every evidence row and keys the LLM response cache, so editing a template
without bumping its version still never reuses answers to the old text (nano-graphrag keeps
prompts the same way: one file, named templates).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from kgbuild.errors import ConfigError
from kgbuild.records import stable_id

_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    version: int
    system: str
    user: str
    schema: dict[str, Any]

    @property
    def ref(self) -> str:
        """``name/vN@digest``: what evidence rows and the response cache record."""
        digest = stable_id(self.system, self.user, json.dumps(self.schema, sort_keys=True), size=4)
        return f"{self.name}/v{self.version}@{digest}"

    def messages(self, **fields: str) -> list[dict[str, str]]:
        """System + user messages with every placeholder filled (a missing one is a bug)."""
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": Template(self.user).substitute(fields)},
        ]

    def response_format(self) -> dict[str, Any]:
        """OpenAI structured output; the client falls back to plain text where unsupported."""
        return {
            "type": "json_schema",
            "json_schema": {"name": self.name, "schema": self.schema, "strict": True},
        }


@cache
def load(name: str, version: int | None = None) -> Prompt:
    """The named prompt at ``version`` (default: the newest file of that name)."""
    files = sorted(_DIR.glob(f"{name}.v*.toml"), key=lambda p: int(p.stem.rsplit(".v", 1)[1]))
    if version is not None:
        files = [p for p in files if p.stem == f"{name}.v{version}"]
    if not files:
        raise ConfigError("no such prompt template", name=name, version=version or "newest")
    data = tomllib.loads(files[-1].read_text(encoding="utf-8"))
    return Prompt(data["name"], int(data["version"]), data["system"], data["user"], data["schema"])
