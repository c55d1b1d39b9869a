"""Publishing an export folder whole: staged beside its target, sealed by a manifest, swapped in.

Why: writing file by file into ``OUT/<format>/`` meant an export killed while overwriting an
older one left new nodes beside old edges and old metadata — a set that looked complete.
Now each format is written into a fresh staging folder beside its target (same file
system), every file is hashed into ``kgbuild-export.json`` (written last), and the staging folder
takes the target's place in one step: Linux ``renameat2(RENAME_EXCHANGE)`` swaps the two
folders atomically; elsewhere the old folder is renamed aside, the new one renamed in, and the
old one removed (a kill between those two renames leaves no target, never a mixed one). A
reader, or ``kgbuild export --verify``, checks a folder against its manifest.

What a killed export leaves (staging folders, a folder moved aside) is removed by the next
export into the same folder; one export at a time holds the folder (``flock`` on the folder
itself, released by the kernel even on ``kill -9``), so a live export's staging folder is never
taken for a leftover. A target is replaced only when it is an earlier export of that format (its
manifest, or only file names the format writes): a folder of the user's own is never deleted.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import shutil
import sys
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from kgbuild import __version__
from kgbuild.errors import ExportError

#: The manifest each published format folder carries (written last).
MANIFEST = "kgbuild-export.json"
#: Name prefixes of a staging folder and of a replaced folder awaiting removal.
STAGE_PREFIX = ".tmp-export-"
OLD_PREFIX = ".old-export-"
#: The empty file :func:`~kgbuild.store.files.prepare_dir` writes to probe a folder.
WRITE_PROBE = ".kgbuild-write-test-"
#: Leftovers a killed writer may leave inside a format folder (per-file temps, LadybugDB CSVs).
_FILE_LEFTOVERS = (".tmp-", ".csv-", WRITE_PROBE)
_CHUNK = 1 << 20


@contextlib.contextmanager
def folder_lock(out: Path) -> Iterator[None]:
    """Hold ``out`` for one export (an exclusive ``flock`` on the folder itself)."""
    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ExportError(
                "another kgbuild export is writing into this folder", path=out
            ) from None
        yield
    finally:
        os.close(fd)  # releases the lock


def clean_leftovers(out: Path) -> list[Path]:
    """Remove the staging and replaced folders (and write probes) killed exports left in
    ``out`` (call while holding :func:`folder_lock`: then no other export is using them)."""
    removed = []
    for path in sorted(out.iterdir()):
        if path.name.startswith((STAGE_PREFIX, OLD_PREFIX, WRITE_PROBE)):
            _remove(path)
            removed.append(path)
    return removed


def new_stage(out: Path, name: str) -> Path:
    """A fresh, empty staging folder for ``name`` beside its target."""
    path = out / f"{STAGE_PREFIX}{name}-{uuid.uuid4().hex[:12]}"
    path.mkdir()
    return path


def _sha256(path: Path, sync: bool = False) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
        if sync:  # on disk before the manifest that vouches for it
            os.fsync(fh.fileno())
    return h.hexdigest()


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


def seal(folder: Path, about: dict[str, Any], rows: dict[str, int | None]) -> dict[str, Any]:
    """Write the manifest of a finished staging folder: what it is (``about``: format,
    snapshot, KG, year) and every file's size and SHA-256 (``rows`` per file where known).
    Deterministic: no timestamps, sorted keys, the release rather than the code digest (the
    files themselves do not change with an unrelated code edit, so neither does this)."""
    files = {}
    for path in _files(folder):
        rel = path.relative_to(folder).as_posix()
        files[rel] = {"bytes": path.stat().st_size, "sha256": _sha256(path, sync=True)}
        if rows.get(rel) is not None:
            files[rel]["rows"] = rows[rel]
    manifest = {**about, "kgbuild_version": __version__, "files": files}
    tmp = folder / f".tmp-{MANIFEST}"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / MANIFEST)
    return manifest


def check_replaceable(target: Path, known: Iterable[str]) -> None:
    """Refuse to replace ``target`` unless it is an earlier export of this format: every entry
    is listed in its manifest, is a name the format writes (``known``; exports from before
    manifests), or a leftover of a killed writer."""
    if not target.exists():
        return
    if not target.is_dir():
        raise ExportError("export path exists and is not a folder", path=target)
    allowed = set(known) | {MANIFEST}
    with contextlib.suppress(OSError, ValueError):
        allowed |= set(json.loads((target / MANIFEST).read_text(encoding="utf-8"))["files"])
    for entry in target.iterdir():
        if entry.name not in allowed and not entry.name.startswith(_FILE_LEFTOVERS):
            raise ExportError(
                "the export folder holds files kgbuild did not write; not replacing it "
                "(move them, or export elsewhere)",
                path=target,
                file=entry.name,
            )


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders atomically (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    kernel, C library or file system cannot."""
    if sys.platform != "linux":
        return False
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_in(stage: Path, target: Path) -> None:
    """Put the sealed ``stage`` at ``target`` in one step and remove what it replaced."""
    if not target.exists():
        os.rename(stage, target)
    elif _exchange(stage, target):
        _remove(stage)  # now the old export
    else:
        old = target.with_name(f"{OLD_PREFIX}{target.name}-{uuid.uuid4().hex[:12]}")
        os.rename(target, old)
        os.rename(stage, target)
        _remove(old)
    _fsync_dir(target.parent)


def verify(folder: Path) -> list[str]:
    """Problems of an export folder: ``folder`` itself or each format folder in it checked
    against its manifest (missing, changed or unlisted files), and leftovers of a killed
    export. Empty when every folder is whole."""
    folder = Path(folder)
    if not folder.is_dir():
        return [f"{folder}: not a folder"]
    problems = [
        f"{p}: left by an interrupted export"
        for p in sorted(folder.iterdir())
        if p.name.startswith((STAGE_PREFIX, OLD_PREFIX))
    ]
    targets = [folder] if (folder / MANIFEST).exists() else [
        p for p in sorted(folder.iterdir()) if p.is_dir() and (p / MANIFEST).exists()
    ]  # fmt: skip
    if not targets:
        return [*problems, f"{folder}: no {MANIFEST} (not a kgbuild export, or an unfinished one)"]
    for target in targets:
        problems += _verify_one(target)
    return problems


def _verify_one(target: Path) -> list[str]:
    try:
        files = json.loads((target / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return [f"{target / MANIFEST}: unreadable manifest"]
    out = []
    for rel, info in sorted(files.items()):
        path = target / rel
        if not path.is_file():
            out.append(f"{path}: missing")
        elif path.stat().st_size != info["bytes"] or _sha256(path) != info["sha256"]:
            out.append(f"{path}: differs from the manifest")
    for path in _files(target):
        if path.relative_to(target).as_posix() not in files:
            out.append(f"{path}: not in the manifest")
    return out


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
