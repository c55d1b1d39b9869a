"""One exception base for everything a user can cause.

The CLI turns a :class:`KgbuildError` into one clear line (no traceback); anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations

import errno
from pathlib import Path


class KgbuildError(Exception):
    """Base of all errors a user can cause; ``context`` adds key=value detail to the message."""

    def __init__(self, message: str, **context: object) -> None:
        self.message = message
        self.context = context
        detail = ", ".join(f"{k}={v}" for k, v in context.items())
        super().__init__(f"{message} ({detail})" if detail else message)


class InputError(KgbuildError):
    """Bad or missing input: a path, a year range, a file format."""


class ConfigError(KgbuildError):
    """A configuration value is missing or invalid."""


class StoreError(KgbuildError):
    """The warehouse or catalog cannot do what was asked (unknown snapshot, locked file...)."""


class NoWarehouse(StoreError):
    """Nothing to read: no warehouse at ``root``, or one with no snapshot published yet. The
    one message every reader (``stats``, ``sql``, ``ask``, ``serve``…) gives on a first run,
    saying what to do next; raised where the store finds the warehouse empty."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        shown = str(self.root)
        if not self.root.is_absolute() and not shown.startswith("."):
            shown = f"./{shown}"  # a path the user can tell is relative to where they are
        what = (
            f"nothing built in {shown} yet: build a KG first"
            if self.root.is_dir()
            else f"no warehouse at {shown} yet: build one first"
        )
        super().__init__(
            f"{what} with `make build` or `kgbuild build --domain alzheimers` "
            "(or point -w at an existing warehouse)"
        )

    def __reduce__(self) -> tuple[type[NoWarehouse], tuple[Path]]:
        return NoWarehouse, (self.root,)  # pickled (a Prefect task's error): rebuilt from root


class Busy(StoreError):
    """Another process holds the warehouse (a build) or its catalog (a publish) longer than
    this one would wait: nothing is wrong, a later attempt will get through."""


class QueryError(KgbuildError):
    """A query was refused or failed (bad SQL, write on a read-only connection)."""


class SourceError(KgbuildError):
    """A live literature source (E-utilities, PubTator3) failed for good: a permanent HTTP error,
    retries exhausted, or a body that stayed malformed; the message names the URL path."""


class IntegrityError(KgbuildError):
    """An invariant kgbuild checks on its own work failed (a record read but given no status, a
    part whose content does not match its manifest): the build stops rather than lose data."""


#: How a full disk shows through the libraries that write: the OS (ENOSPC, EDQUOT, EFBIG),
#: DuckDB and pyarrow (their own messages), SQLite ("database or disk is full").
_DISK_FULL = ("no space left on device", "disk is full", "disk quota exceeded", "file too large")


def disk_full(exc: BaseException) -> str:
    """A short description when ``exc`` (or what caused it) is a full disk, else ''."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, OSError) and cur.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
            return f"{cur.strerror}: {cur.filename}" if cur.filename else str(cur.strerror)
        text = str(cur).lower()
        if any(k in text for k in _DISK_FULL):
            return str(cur).strip().splitlines()[0][:200]
        cur = cur.__cause__ or cur.__context__
    return ""


class ExportError(KgbuildError):
    """An export cannot be written: the output path is a file, is not writable, or a format is
    unknown."""
