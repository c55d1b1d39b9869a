"""Content-addressed Parquet parts: the append-only storage under every snapshot.

A snapshot never copies its parent. It adds *add* parts (rows new or changed since its parent)
and *del* parts (hashes of rows its parent had and it has not); its content is the chain of
parts of its lineage (merge-on-read, as Iceberg/Delta delete files). Storage therefore grows
with what changes, not with (snapshots × KG size).

Every row carries ``_row``, a hash of its full content, and ``_part``, the part it belongs to.
Table content hashes are multiset sums of row hashes (AdHash, Bellare & Micciancio 1997): order
independent, updated in O(changed rows) per snapshot, and equal for equal content.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a part is written or checked, not by every reader
    import pyarrow as pa

_MOD = 1 << 256


def _cell(v: object) -> str:
    if v is None:
        return "\x00"
    if isinstance(v, list):
        return "\x1e".join(_cell(x) for x in v)
    return str(v)


def row_hashes(table: pa.Table) -> list[str]:
    """Hash of each row's full content (column order of the schema), hex, 32 bytes."""
    cols = [table.column(name).to_pylist() for name in table.column_names]
    out = []
    for row in zip(*cols, strict=True):
        payload = "\x1f".join(map(_cell, row)).encode("utf-8")
        out.append(hashlib.blake2b(payload, digest_size=32).hexdigest())
    return out


def adhash(hashes: list[str] | set[str], start: int = 0, sign: int = 1) -> int:
    """Add (or with ``sign=-1`` remove) row hashes to a multiset hash."""
    acc = start
    for h in hashes:
        acc = (acc + sign * int(h, 16)) % _MOD
    return acc


def hex256(value: int) -> str:
    return f"{value:064x}"


def part_id(table: str, op: str, hashes: list[str]) -> str:
    """A part's name follows from its content: same rows, same part, written once."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{table}/{op}".encode())
    for h in sorted(hashes):
        digest.update(bytes.fromhex(h))
    return digest.hexdigest()


def write_part(root: Path, table: str, op: str, data: pa.Table | None, hashes: list[str]) -> str:
    """Write one part atomically (temp file + rename) unless it exists; return its id.

    An add part holds the rows plus ``_row``/``_part``; a del part (``data=None``) holds only
    the ``_row`` hashes of rows that leave the snapshot.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    pid = part_id(table, op, hashes)
    path = part_path(root, table, pid)
    if _intact(path, len(hashes)):
        return pid  # written before (same rows, same name); a damaged copy is rewritten
    path.parent.mkdir(parents=True, exist_ok=True)
    if data is None:
        base = pa.table({"_row": pa.array(hashes, pa.string())})
    else:
        base = data.append_column("_row", pa.array(hashes, pa.string()))
    full = base.append_column("_part", pa.array([pid] * len(hashes), pa.string()))
    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}.parquet")
    pq.write_table(full, tmp, compression="zstd")
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return pid


def _intact(path: Path, rows: int) -> bool:
    """The part file exists, its footer reads and it holds ``rows`` rows."""
    import pyarrow.parquet as pq

    try:
        return pq.read_metadata(path).num_rows == rows
    except (OSError, ValueError):  # missing, truncated, not Parquet
        return False


def part_path(root: Path, table: str, pid: str) -> Path:
    return root / "parts" / table / f"{pid}.parquet"
