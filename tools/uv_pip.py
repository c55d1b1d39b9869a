"""``uv pip …`` for the interpreter that runs this script, configured as pip is configured here.

Why uv: the project's install is ~250 wheels (torch, spaCy, Prefect…). pip resolves, unpacks
and compiles them one at a time: 171 s for ``pip install -e '.[dev]'`` on 2 cores, the largest
part of ``make test``'s install phase. uv does the same work in parallel, from the same
indexes, and gives the same versions (``pip freeze`` of both venvs compared: identical).

Why this script: uv reads no pip configuration, and a machine's pip configuration is where its
package sources are (here: local wheel folders and file indexes beside PyPI, and a cap on torch
whose CPU build lies on this disk; without the cap uv would take a CUDA build of several GB).
So pip's own view of its configuration (``pip config list``: its files and its ``PIP_*``
variables) is passed on to uv: index-url, extra-index-url, find-links, constraint and no-index
as uv's flags, cert and default-timeout as the variables uv reads for them. Other pip settings
(a proxy, trusted hosts) are not carried over: uv reads the standard proxy variables itself.
Two flags keep pip's semantics: ``--index-strategy unsafe-best-match`` (pip takes
the best version across every index, uv by default the first index that has the package) and
``--compile-bytecode`` (pip compiles what it installs; where PYTHONDONTWRITEBYTECODE is set, as
here, nothing would compile it later and every process would compile its imports again).

    python tools/uv_pip.py install -e '.[dev]'       # into the venv of that python

uv is found beside that python (``pip install uv`` in the venv) or at ``$KGBUILD_UV``. Only the
standard library is used: this runs before anything of the project is installed.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

#: pip's setting → uv's flag, for settings that may hold several values (space-separated in
#: pip's files, as pip reads them).
LIST_FLAGS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
}
#: pip's setting → the environment variable uv reads for it.
ENV_SETTINGS = {"cert": "SSL_CERT_FILE", "default-timeout": "UV_HTTP_TIMEOUT"}


def pip_settings(python: str) -> dict[str, str]:
    """pip's effective settings, by name (``global.find-links`` and ``:env:.find-links`` are
    both ``find-links``; the environment's value wins, as it does in pip)."""
    out = subprocess.run(
        [python, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    settings: dict[str, str] = {}
    env: dict[str, str] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        scope, _, name = key.rpartition(".")
        value = value.strip().strip("'\"")
        (env if scope == ":env:" else settings)[name] = value
    return {**settings, **env}


def uv_command(python: str, args: list[str]) -> tuple[list[str], dict[str, str]]:
    """The ``uv pip`` command line and environment equivalent to ``pip <args>`` here."""
    uv = os.environ.get("KGBUILD_UV") or str(Path(python).with_name("uv"))
    settings = pip_settings(python)
    flags: list[str] = []
    for name, flag in LIST_FLAGS.items():
        for value in shlex.split(settings.get(name, "")):
            flags += [flag, value]
    if settings.get("no-index", "").lower() in {"1", "true", "yes", "on"}:
        flags.append("--no-index")
    env = dict(os.environ)
    for name, variable in ENV_SETTINGS.items():
        if settings.get(name) and variable not in env:
            env[variable] = settings[name]
    command, *rest = args
    if command == "install":
        flags += ["--index-strategy", "unsafe-best-match", "--compile-bytecode"]
    return [uv, "pip", command, "--quiet", "--python", python, *flags, *rest], env


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    command, env = uv_command(sys.executable, argv)
    return subprocess.run(command, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
