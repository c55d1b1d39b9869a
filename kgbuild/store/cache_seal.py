"""Sidecars that make a cache derived from a snapshot verifiable before it is used.

The query stage caches what it reads from a snapshot inside the warehouse
(``index/<snapshot_id>-<content_hash[:16]>-<confidence model>[-all]/``): six Arrow tables, the
BM25 arrays of the evidence sentences and the node-name vectors. A cache file is only as good
as the snapshot it was built from and the bytes on disk, and a changed byte that keeps every
row count (a renamed node, a swapped sentence) passes any structural check. So each cached
component carries a small JSON *sidecar* naming both:

- the snapshot it was built from: ``snapshot_id`` and ``content_hash``, as the snapshot's
  manifest records them (the hash ``kgbuild check`` verifies against the parts' rows);
- the SHA-256 and size of each of its files (paths relative to the index folder);
- the SHA-256 of its own other fields, so an edited sidecar (a row count, a hash) is caught too.

Components and their sidecars: the tables (``meta.json``, with the row counts), the BM25 arrays
(``bm25/seal.json``) and each embedding model's vectors (``vectors-<model>.seal.json``).

A sidecar is written *last*, by temp file + rename, from the bytes that were written, so a
sidecar on disk vouches only for complete files. A reader hashes the very bytes it then parses
(:func:`read_verified`: one read, so no edit can slip in between the check and the use) and
rebuilds whatever does not match; ``kgbuild check`` applies the same rules
(:func:`verify_component`), so what check calls sound is what a reader would use.

What a sidecar is not: a signature. Someone who can rewrite a cache file can rewrite its
sidecar too; the sidecar catches damage, stale caches and edits that leave it alone (the
reported attack: names changed inside ``nodes.arrow``). A cache that must resist a writer of
the warehouse belongs in a folder only its owner can write (``--index-dir``).

This module is in ``store``, below ``query`` in the layering, so that ``check`` can verify
caches without importing the query stage.
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from kgbuild.belief.confidence import model_digest

#: Bump when the cache's layout or meaning changes: older caches are then rebuilt, never read.
#: 5: every cached file has its SHA-256 in a sidecar naming the snapshot.
#: 6: nodes' display names read from ``entities.display_name``, aliases cleaned.
#: 7: each evidence row keeps its epistemic status (``refuted`` when the verifier said no), so
#: answers read from every evidence row say how their sentence states the fact.
#: 8: each edge's belief and contested mark.
#: 9: aliases only from trusted mentions, per-node surface forms, readable display names.
#: 10: each short gene key's tag share in the abstracts that write it (search.tag_share).
#: 11: a gene's reviewed product names (data/gene_product_names.tsv) are its vocabulary keys.
INDEX_VERSION = 11
#: The tables' sidecar (it is also the index's description: kg, year, row counts).
TABLES_SIDECAR = "meta.json"
#: The BM25 arrays' folder inside an index folder, and its sidecar.
BM25_DIR = "bm25"
BM25_SIDECAR = f"{BM25_DIR}/seal.json"
#: The abstracts' BM25 index (kgbuild.search.abstracts) inside an index folder, and its sidecar.
ABSTRACTS_DIR = "abstracts"
ABSTRACTS_SIDECAR = f"{ABSTRACTS_DIR}/seal.json"
#: Suffix of a vectors file's sidecar (``vectors-<model>.npy`` → ``vectors-<model>.seal.json``).
SEAL_SUFFIX = ".seal.json"
#: Files of the index folder (``<index_dir>/``) that are not snapshot caches: the query side's
#: old per-text embedding cache (SQLite, with its journal files). Queries no longer read it.
NOT_CACHES = ("embeddings.sqlite", "embeddings.sqlite-wal", "embeddings.sqlite-shm")
_CHUNK = 1 << 20


class CacheMismatch(Exception):
    """Why a cached file may not be used, in one line (a reader rebuilds it)."""


def digest(data: bytes | memoryview) -> str:
    """SHA-256 of bytes in memory, hex."""
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str:
    """SHA-256 of a file, read in 1 MiB chunks (memory stays flat whatever its size)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def entry(data: bytes | memoryview) -> dict[str, Any]:
    """What a sidecar records of one file: its hash and size."""
    return {"sha256": digest(data), "bytes": len(data)}


def write_atomic(path: Path, data: bytes | memoryview) -> None:
    """Write ``data`` to ``path`` by a temp file in the same folder renamed into place: a
    reader sees the old file or the new one, never half of one. Not fsync'ed: a cache torn by a
    crash fails its hash and is rebuilt."""
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}-{path.name}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_sidecar(path: Path, snapshot_id: str, content_hash: str,
                  files: dict[str, dict[str, Any]], **extra: Any) -> None:  # fmt: skip
    """Write a component's sidecar (call it after its files are in place: it vouches for
    them)."""
    body = {
        **extra,
        "index_version": INDEX_VERSION,
        "snapshot_id": snapshot_id,
        "content_hash": content_hash,
        "files": files,
    }
    body["sidecar_sha256"] = _body_digest(body)
    write_atomic(path, json.dumps(body, indent=1, sort_keys=True).encode())


def _body_digest(body: dict[str, Any]) -> str:
    """SHA-256 of a sidecar's other fields (canonical JSON): an edited sidecar — a row count,
    a hash — is caught alike by a reader and by ``check``."""
    rest = {k: v for k, v in body.items() if k != "sidecar_sha256"}
    return digest(json.dumps(rest, sort_keys=True).encode())


def read_sidecar(path: Path, snapshot_id: str | None = None,
                 content_hash: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A sidecar that names this index version and, when given, this snapshot; else
    :class:`CacheMismatch` saying why."""
    try:
        body = json.loads(path.read_text())
    except FileNotFoundError:
        raise CacheMismatch(f"no sidecar {path.name}") from None
    except (OSError, ValueError) as exc:
        raise CacheMismatch(f"sidecar {path.name} unreadable: {str(exc)[:80]}") from None
    if not isinstance(body, dict):
        raise CacheMismatch(f"sidecar {path.name} is not a JSON object")
    if body.get("index_version") != INDEX_VERSION:
        raise CacheMismatch(
            f"written by index version {body.get('index_version')}; this kgbuild reads "
            f"{INDEX_VERSION}"
        )
    if not isinstance(body.get("files"), dict):
        raise CacheMismatch(f"sidecar {path.name} lists no files")
    if body.get("sidecar_sha256") != _body_digest(body):
        raise CacheMismatch(f"sidecar {path.name} was edited (its own hash does not match)")
    if snapshot_id is not None and body.get("snapshot_id") != snapshot_id:
        raise CacheMismatch(f"sidecar names snapshot {body.get('snapshot_id')}, not {snapshot_id}")
    if content_hash is not None and body.get("content_hash") != content_hash:
        raise CacheMismatch(
            f"sidecar names content hash {str(body.get('content_hash'))[:12]}…, the snapshot's "
            f"is {content_hash[:12]}…"
        )
    return body


def read_verified(folder: Path, rel: str, sidecar: dict[str, Any]) -> bytes:
    """The bytes of ``folder/rel`` if the sidecar lists the file and they match its hash and
    size; else :class:`CacheMismatch`. The caller parses these same bytes."""
    want = sidecar["files"].get(rel)
    if not isinstance(want, dict):
        raise CacheMismatch(f"{rel} is not in its sidecar")
    try:
        data = (folder / rel).read_bytes()
    except OSError as exc:
        raise CacheMismatch(f"{rel} unreadable: {exc.strerror or exc}") from None
    if len(data) != want.get("bytes") or digest(data) != want.get("sha256"):
        raise CacheMismatch(f"{rel}'s bytes do not match its sidecar (sha256)")
    return data


def verify_component(folder: Path, sidecar_rel: str, snapshot_id: str, content_hash: str,
                     full: bool = True) -> list[tuple[str, str]]:  # fmt: skip
    """(file, problem) for one component, by the rules its reader applies: the sidecar reads
    and names this index version and snapshot, and each file it lists has its size and (with
    ``full``) its SHA-256. Empty when the component would be used as it is."""
    try:
        sidecar = read_sidecar(folder / sidecar_rel, snapshot_id, content_hash)
    except CacheMismatch as exc:
        return [(sidecar_rel, str(exc))]
    out = []
    for rel, want in sorted(sidecar["files"].items()):
        path = folder / rel
        if not isinstance(want, dict) or not _inside(folder, path):
            out.append((sidecar_rel, f"sidecar entry {rel!r} is not a file of this folder"))
            continue
        try:
            size = path.stat().st_size
            same = size == want.get("bytes") and (
                not full or file_digest(path) == want.get("sha256")
            )
        except OSError:
            out.append((rel, "missing"))
            continue
        if not same:
            out.append((rel, "bytes do not match its sidecar (sha256)" if full else "size differs"))
    return out


def sidecar_files(folder: Path, sidecar_rel: str) -> set[str]:
    """The files a sidecar lists (none when it does not read)."""
    try:
        body = json.loads((folder / sidecar_rel).read_text())
        return {str(k) for k in body.get("files", {})}
    except (OSError, ValueError, AttributeError):
        return set()


def sidecars(folder: Path) -> list[str]:
    """The sidecars present in an index folder, relative to it."""
    found = [r for r in (TABLES_SIDECAR, BM25_SIDECAR, ABSTRACTS_SIDECAR) if (folder / r).is_file()]
    found += sorted(p.name for p in folder.glob(f"*{SEAL_SUFFIX}") if p.is_file())
    return found


def index_folder_name(
    manifest: dict[str, Any], all_evidence: bool = False, curations: str = ""
) -> str:
    """The index folder of a snapshot: its id, its content hash and the calibrated confidence
    model (another model, other confidences: another cache); ``-all`` when it indexes every
    evidence row; ``-c<digest>`` when curations apply (:func:`kgbuild.store.curations.digest`:
    a new curation, another set of served rows)."""
    name = f"{manifest['snapshot_id']}-{manifest['content_hash'][:16]}-{model_digest()[:8]}"
    return name + ("-all" if all_evidence else "") + (f"-c{curations}" if curations else "")


def index_folders(
    manifests: Iterable[dict[str, Any]], curations: str = ""
) -> dict[str, tuple[dict[str, Any], bool]]:
    """Folder name → (manifest, all_evidence) for every index folder a reader of these
    snapshots opens (``curations``: the curation log's digest)."""
    return {index_folder_name(m, a, curations): (m, a) for m in manifests for a in (False, True)}


def _inside(folder: Path, path: Path) -> bool:
    """``path`` stays inside ``folder`` (a sidecar cannot point a check elsewhere)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
