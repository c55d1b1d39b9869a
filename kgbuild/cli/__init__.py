"""``kgbuild`` command line: the same functions the Prefect flows call, one command per verb.

Errors a user can cause (a missing path, an unknown year or snapshot, bad SQL) print one line
and exit with status 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import sys

from rich.markup import escape

# The warehouse's commands register on import, in the order --help lists them.
from kgbuild.cli import build, snapshots, explore, outputs  # noqa: F401  isort: skip
from kgbuild.cli.app import app, err
from kgbuild.errors import KgbuildError, disk_full

__all__ = ["app", "main"]


def main() -> None:
    """Console entry point: user errors, and a full disk, become one line on stderr and exit
    status 2; anything else is a bug and keeps its traceback."""
    try:
        app()
    except KgbuildError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except Exception as exc:
        full = disk_full(exc)
        if not full:
            raise
        err.print(
            f"[red]error:[/red] disk full ({full}); nothing was published half-written: free "
            "some space and run the same command again",
            highlight=False,
            soft_wrap=True,
        )
        sys.exit(2)
