"""Output folders and files of an export: checked up front, written atomically, text made safe.

A user's export path is only ever used as a file system path (never inside SQL or Cypher text).
A path that is an existing file, or a folder that cannot be written, is one clear
:class:`ExportError` before any work starts. Each file is written under a temporary name and
renamed into place, so an interrupted export never leaves a half-written file under its real
name. Text cells are made safe to open in a spreadsheet (:func:`text`, :func:`join_list`:
:mod:`kgbuild.store.spreadsheet`); numbers (:func:`fmt_number`) are written as they are.
"""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from kgbuild.errors import ExportError
from kgbuild.store.spreadsheet import text_cell

#: Delimiter of list values in KGX TSV and Neo4j CSV cells (KGX's own; Neo4j's --array-delimiter).
LIST_DELIMITER = "|"
#: What a list delimiter *inside* one list element is written as (both formats reserve ``|``).
DELIMITER_STANDIN = "¦"
_SPACE = re.compile(r"[\t\r\n\x0b\x0c\x1c-\x1f\x85\u2028\u2029]+")


def prepare_dir(path: Path) -> Path:
    """Create ``path`` (and parents) for writing; a clear error if it cannot be."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ExportError("export path exists and is not a folder", path=path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".kgbuild-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        msg = f"cannot write to the export folder: {exc.strerror or exc}"
        raise ExportError(msg, path=path) from None
    return path


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary sibling of ``path`` to write; renamed onto ``path`` when the block succeeds."""
    tmp = path.with_name(f".tmp-{os.getpid()}-{path.name}")
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        if tmp.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_text(path: Path) -> Iterator[IO[str]]:
    """A UTF-8 text file (``\\n`` line ends) written atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8", newline="") as fh:
        yield fh


def one_line(value: Any) -> str:
    """A cell value on one line: tabs, line and record separators become one space."""
    if value is None:
        return ""
    return _SPACE.sub(" ", str(value)).strip()


def text(value: Any) -> str:
    """A text cell: one line (:func:`one_line`), safe to open in a spreadsheet."""
    return text_cell(one_line(value))


def join_list(values: Iterable[Any] | None) -> str:
    """List values as one text cell: ``a|b|c``, a ``|`` inside a value written as ``¦``; the
    cell is safe to open in a spreadsheet (its first value may get the ``'`` mark)."""
    if not values:
        return ""
    return text_cell(
        LIST_DELIMITER.join(
            one_line(v).replace(LIST_DELIMITER, DELIMITER_STANDIN) for v in values if v is not None
        )
    )


def writer(fh: IO[str], delimiter: str) -> Any:
    """A csv writer: minimal RFC 4180 quoting (a cell with a quote is quoted, quotes doubled)."""
    return csv.writer(fh, delimiter=delimiter, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)


def fmt_number(value: Any) -> str:
    """Numbers as text that does not change between runs (``repr`` of floats; empty for null)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)
