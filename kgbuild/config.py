"""The lowest layer of configuration: the environment and ``kgbuild.toml`` as raw values, and
what a KG name may be. Settings themselves are resolved by :mod:`kgbuild.settings` (one model,
one order); this module is the only other place that reads the environment — for the paths a
process is started with (``KGBUILD_DATA``, ``KGBUILD_DOMAINS``) and hand-offs between kgbuild's
own processes.

Nothing is written at import; reading a setting never creates folders.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from kgbuild.errors import ConfigError


def env(name: str) -> str | None:
    """The environment variable ``name`` (None when unset or empty)."""
    return os.environ.get(name) or None


def redact_url(url: str | None) -> str | None:
    """``url`` safe to log or record: no user info (``user:password@``), query or fragment,
    which can hold credentials (``?api-key=…``). Text that is not a URL is kept as it is."""
    if not url or "://" not in url:
        return url
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def environment_subset(names: tuple[str, ...]) -> dict[str, str]:
    """Only these environment variables (a child process that must not see API keys)."""
    return {k: os.environ[k] for k in names if k in os.environ}


def toml_path() -> Path:
    """Where ``kgbuild.toml`` is looked for: the working folder (absolute, so a notice can name
    the very file that was read)."""
    return Path.cwd() / "kgbuild.toml"


def toml_table(name: str) -> dict[str, Any]:
    """A ``[name]`` table of ``kgbuild.toml`` in the working folder (e.g. ``[llm]``), or {}."""
    path = toml_path()
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    table = data.get(name, {})
    return dict(table) if isinstance(table, dict) else {}


#: What a KG name may be: it names snapshots (``KG@YEAR``), reports and exported files.
_KG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


def check_kg_name(name: str) -> str:
    """``name`` if it is a usable KG name, else ConfigError (an empty ``--kg ""`` must not
    silently become the default KG)."""
    if not _KG_NAME.match(name):
        raise ConfigError(
            "KG name must be 1-64 letters, digits, '_', '.' or '-' (starting with a letter or "
            "digit)",
            kg=repr(name),
        )
    return name
