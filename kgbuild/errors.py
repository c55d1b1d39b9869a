"""One exception base for everything a user can cause.

The CLI turns a :class:`KgbuildError` into one clear line (no traceback); anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations


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


class QueryError(KgbuildError):
    """A query was refused or failed (bad SQL, write on a read-only connection)."""


class SourceError(KgbuildError):
    """A live literature source (E-utilities, PubTator3) failed for good: a permanent HTTP error,
    retries exhausted, or a body that stayed malformed; the message names the URL path."""


class ExportError(KgbuildError):
    """An export cannot be written: the output path is a file, is not writable, or a format is
    unknown."""
