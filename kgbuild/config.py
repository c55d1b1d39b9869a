"""One accessor for settings: environment > ``kgbuild.toml`` in the working folder > defaults.

Nothing is written at import; reading a setting never creates folders.
"""

from __future__ import annotations

import os
import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from kgbuild.errors import ConfigError

DEFAULTS: dict[str, Any] = {
    "warehouse": "warehouse",
    "kg": "alzheimers",
    "extractor": "auto",
    "embed_model": "default",
}


@cache
def _file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc


def _file_settings(path: Path) -> dict[str, Any]:
    return dict(_file(path).get("kgbuild", {}))


def file_section(name: str) -> dict[str, Any]:
    """A ``[name]`` table of ``kgbuild.toml`` in the working folder (e.g. ``[llm]``), or {}."""
    return dict(_file(Path.cwd() / "kgbuild.toml").get(name, {}))


def setting(name: str) -> Any:
    """``KGBUILD_<NAME>`` from the environment, else ``[kgbuild] name`` in kgbuild.toml, else
    the default."""
    env = os.environ.get(f"KGBUILD_{name.upper()}")
    if env:
        return env
    value = _file_settings(Path.cwd() / "kgbuild.toml").get(name)
    return value if value is not None else DEFAULTS.get(name)


def warehouse_path(override: Path | None = None) -> Path:
    return Path(override) if override else Path(setting("warehouse"))


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
