"""Reading a source folder without trusting it: what is walked, what is opened, how much is held.

A source folder may hold a symlink to a system file, a FIFO (opening one for reading waits for
a writer forever), a device, a multi-GB file without a newline, or the warehouse a previous
build wrote into it (``--source .`` with the default ``./warehouse``). So the walk
never follows a link out of the folder and never enters a warehouse; a file is opened only if
it is a regular file (checked again on the open descriptor, so a file swapped for a FIFO after
the walk is refused too, not waited on); and files are read in blocks of :data:`CHUNK_BYTES`,
lines cut to a cap, so memory never follows one file's size. Nothing in the folder is passed
over in silence: a folder named like a corpus file, a file of no corpus format and a
link of any name leading out or nowhere each come back with the reason they are not read, and
CR, CRLF and LF are each one line break, in any mix (:func:`line_breaks`).
"""

from __future__ import annotations

import codecs
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

from kgbuild.errors import InputError

#: Bytes read at a time from a source file.
CHUNK_BYTES = 1 << 20
#: What marks a folder as a kgbuild warehouse (:class:`kgbuild.store.snapshots.Warehouse`).
WAREHOUSE_MARKERS = ("kg.duckdb", "parts")
#: A skipped entry: (problem kind, why), reported as one rejected record of the file.
Refusal = tuple[str, str]


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words, for a problem row."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for binary reading, only if it is a regular file. ``O_NONBLOCK`` makes
    opening a FIFO return at once (rather than wait for a writer), and the check is made on the
    open descriptor, so nothing can be swapped in between the check and the read."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"{file_kind(mode)} is not a regular file; not read", path=path)
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return fh


def blocks(fh: BinaryIO, utf16: bool = False) -> Iterator[bytes]:
    """The stream in blocks of :data:`CHUNK_BYTES`; ``utf16``: decoded from UTF-16 (either
    byte order, by its BOM) and re-encoded as UTF-8, block by block."""
    decoder = codecs.getincrementaldecoder("utf-16")(errors="replace") if utf16 else None
    while block := fh.read(CHUNK_BYTES):
        yield decoder.decode(block).encode("utf-8") if decoder else block
    if decoder:
        yield decoder.decode(b"", final=True).encode("utf-8")


def line_breaks(chunks: Iterable[bytes], seen: Counter[str] | None = None) -> Iterator[bytes]:
    """The stream with every line break as LF: CRLF, a lone CR and LF, in any mix (a
    file mixing them, split on LF, kept each lone CR inside a line, and every title ran on into
    its abstract). A CR ending one block and an LF starting the next are one CRLF, not a break
    and an empty line (which would end a document early): the CR is held back until the next
    block says which it is. ``seen`` counts the breaks by kind (``cr``, ``crlf``, ``lf``)."""
    seen = Counter() if seen is None else seen
    held = False  # the last block ended in a CR, not yet passed on
    for block in chunks:
        if not block:
            continue
        head = b""
        if held:
            head, crlf = b"\n", block.startswith(b"\n")
            seen["crlf" if crlf else "cr"] += 1
            block = block[1:] if crlf else block
        held = block.endswith(b"\r")
        block = block[:-1] if held else block
        crlf = block.count(b"\r\n")
        cr = block.count(b"\r") - crlf
        seen["crlf"] += crlf
        seen["cr"] += cr
        seen["lf"] += block.count(b"\n") - crlf
        if cr or crlf:
            block = block.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        yield head + block
    if held:
        seen["cr"] += 1
        yield b"\n"


def bounded_lines(chunks: Iterable[bytes], sep: bytes, cap: int) -> Iterator[tuple[bytes, int]]:
    """Lines split on ``sep`` (removed) as ``(first cap bytes, full length)``, the last one
    being what follows the last ``sep`` (``b""`` after a final one), as ``bytes.split`` gives
    them; memory stays within a block plus ``cap`` bytes, whatever the file holds."""
    head, size = bytearray(), 0  # the line that runs on from one block into the next
    for block in chunks:
        *done, last = block.split(sep)
        for i, piece in enumerate(done):
            if i == 0 and size:
                head += piece[: max(0, cap - len(head))]
                yield bytes(head), size + len(piece)
                head, size = bytearray(), 0
            else:
                yield piece[:cap], len(piece)
        head += last[: max(0, cap - len(head))]
        size += len(last)
    yield bytes(head), size


def looks_like_warehouse(folder: Path) -> bool:
    """Whether ``folder`` is a kgbuild warehouse (a catalog and a parts folder): its manifests
    and caches are a build's output, never its input."""
    catalog, parts = (folder / name for name in WAREHOUSE_MARKERS)
    return catalog.is_file() and parts.is_dir()


def _inside(path: str, root: str, excluded: set[str]) -> bool:
    def under(p: str, folder: str) -> bool:
        return p == folder or p.startswith(folder.rstrip(os.sep) + os.sep)

    return under(path, root) and not any(under(path, e) for e in excluded)


def walk(
    root: Path,
    wanted: Callable[[str], bool],
    exclude: Iterable[Path] = (),
    formats: str = "a corpus format",
) -> list[tuple[Path, Refusal | None]]:
    """Every entry under ``root``, sorted, each with why it is skipped (None: read it): the
    files whose name is ``wanted`` are read, and nothing else in the folder is passed over in
    silence. Folders in ``exclude`` and folders that look like a warehouse are not
    entered (a build's output is never its input). A symlink is read only if it is ``wanted``
    and resolves to a regular file inside ``root`` that the walk does not read anyway (so
    once); a link leading out of ``root`` (or into an excluded folder), a broken link and
    anything not a regular file (FIFO, socket, device) is skipped with a reason. Linked folders
    are never entered; one leading outside is reported. Skipped with a reason too: a folder
    whose name is ``wanted`` (``2018.pubtator/``: entered, its files read on their own) and a
    file of no wanted name (``unknown_format``, ``formats`` says what would be read), except
    one a wanted link reads. Files of no wanted name inside a hidden folder (``.git``) are one
    row for the outermost hidden folder, not one per file.
    """
    real_root = os.path.realpath(root)
    excluded = {os.path.realpath(p) for p in exclude}
    out: list[tuple[Path, Refusal | None]] = []
    links: list[tuple[Path, bool]] = []  # (link, whether its name is wanted)
    regular: set[str] = set()
    unknown: list[Path] = []  # regular files of no wanted name: reported unless a link reads them

    def unlisted(exc: OSError) -> None:
        out.append((Path(exc.filename), ("unreadable", f"folder not listed ({exc.strerror})")))

    for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted):  # never enters links
        here = Path(dirpath)
        keep = []
        for name in sorted(dirnames):
            sub = here / name
            if sub.is_symlink():
                links.append((sub, wanted(name)))
            elif os.path.realpath(sub) not in excluded and not looks_like_warehouse(sub):
                keep.append(name)
                if wanted(name):  # a folder named like a corpus file: said, and entered
                    why = "a folder, not a file; the files in it are read on their own"
                    out.append((sub, ("not_regular", why)))
        dirnames[:] = keep
        for name in filenames:
            path = here / name
            try:
                mode = os.lstat(path).st_mode
            except OSError as exc:  # gone since the listing: said, not skipped in silence
                out.append((path, ("unreadable", f"file not read ({exc.strerror})")))
                continue
            if stat.S_ISLNK(mode):
                links.append((path, wanted(name)))
            elif not stat.S_ISREG(mode):
                out.append((path, ("not_regular", f"{file_kind(mode)}; not read")))
            elif wanted(name):
                out.append((path, None))
                regular.add(os.path.realpath(path))
            else:
                unknown.append(path)
    for link, named in sorted(links):
        if named:
            read, refusal = _follow(link, real_root, excluded, regular)
        else:  # its target, if inside, is walked where it is: only a way out or a dead end
            read, refusal = False, _dead_end(link, real_root, excluded)
        if read:
            out.append((link, None))
        elif refusal is not None:
            out.append((link, refusal))
    out += _unknown_files(root, [p for p in unknown if os.path.realpath(p) not in regular], formats)
    return sorted(out)


def _unknown_files(root: Path, paths: list[Path], formats: str) -> list[tuple[Path, Refusal]]:
    """One ``unknown_format`` refusal per file of no wanted name; files inside a hidden folder
    (a name starting with ".", as ``.git``) count into one refusal of the outermost one."""
    out: list[tuple[Path, Refusal]] = []
    hidden: dict[Path, list[Path]] = {}
    for path in paths:
        parts = path.relative_to(root).parts
        at = next((i for i, part in enumerate(parts[:-1]) if part.startswith(".")), None)
        if at is not None:
            hidden.setdefault(root.joinpath(*parts[: at + 1]), []).append(path)
            continue
        if path.name.lower().startswith("pmid-"):  # DALK ships its PMID lists beside the corpus
            why = f"{path.name!r} is a PMID list (pmid-*), not a corpus file; not read"
        else:
            why = f"{path.name!r} is not named as {formats}; not read"
        out.append((path, ("unknown_format", why)))
    for folder, inside in hidden.items():
        n, first = len(inside), str(inside[0].relative_to(folder))
        why = f"hidden folder with {n:,} file{'s' if n > 1 else ''} not named as {formats}"
        out.append((folder, ("unknown_format", f"{why} (e.g. {first!r}); not read")))
    return out


def _dead_end(link: Path, root: str, excluded: set[str]) -> Refusal | None:
    """Why a link of no wanted name loses something (it leads out of ``root``, or nowhere), or
    None: what it leads to inside ``root`` is walked, and reported, where it is."""
    target = os.path.realpath(link)
    if not _inside(target, root, excluded):
        return ("outside_source", "symlink leading outside --source; not followed")
    if not os.path.exists(target):
        return ("broken_link", "symlink that cannot be followed; not read")
    return None


def _follow(
    link: Path, root: str, excluded: set[str], regular: set[str]
) -> tuple[bool, Refusal | None]:
    """Whether to read the symlink ``link``, else why not (None: nothing lost, e.g. a link to
    a file or folder of ``root`` that the walk reads where it is)."""
    target = os.path.realpath(link)
    if not _inside(target, root, excluded):
        return False, ("outside_source", "symlink leading outside --source; not followed")
    try:
        mode = os.stat(target).st_mode
    except OSError as exc:
        return False, ("broken_link", f"symlink that cannot be followed ({exc.strerror})")
    if stat.S_ISDIR(mode) or target in regular:
        return False, None
    if not stat.S_ISREG(mode):
        return False, ("not_regular", f"symlink to {file_kind(mode)}; not read")
    regular.add(target)
    return True, None
