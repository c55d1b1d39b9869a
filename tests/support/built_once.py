"""Expensive test artifacts built once per test run and shared: a warehouse many modules read
is published once, not once per module (and not once per pytest-xdist worker).

``built_once(root, name, inputs, build)`` builds into ``root/<name>-<hash of inputs>`` under a
file lock: the first process to ask builds, the others wait and then read the same folder. The
key holds every input that can change the artifact (the hash of the files and the code that
make it), so a changed input builds anew rather than reusing a stale copy. A failed build leaves
no folder behind, and the next process to ask tries again and fails the same way.

The shared folder is read-only by contract: a test that writes to its warehouse takes
``private_copy`` (a copy in its own temp folder), so no test sees another's writes.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from filelock import FileLock


def digest(inputs: Iterable[str | Path]) -> str:
    """A short hash of strings and of files' bytes (a Path is read)."""
    h = hashlib.sha256()
    for item in inputs:
        h.update(item.read_bytes() if isinstance(item, Path) else item.encode())
        h.update(b"\0")
    return h.hexdigest()[:16]


def built_once(
    root: Path, name: str, inputs: Iterable[str | Path], build: Callable[[Path], None]
) -> Path:
    """The folder ``build(folder)`` made for these inputs in this run, built now if no process
    has yet."""
    root.mkdir(parents=True, exist_ok=True)
    folder = root / f"{name}-{digest(inputs)}"
    done = folder.with_name(folder.name + ".done")
    with FileLock(str(folder) + ".lock"):
        if not done.exists():
            if folder.exists():
                shutil.rmtree(folder)  # a build that failed half-way
            try:
                build(folder)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            done.touch()
    return folder


def private_copy(shared: Path, dest: Path) -> Path:
    """A copy of a shared artifact for a test that writes to it."""
    shutil.copytree(shared, dest, symlinks=True)
    return dest
