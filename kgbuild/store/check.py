"""Integrity of a warehouse: every part of every snapshot against its manifest.

A part's name is the hash of its rows (:func:`kgbuild.store.parts.part_id`) and every row
carries the hash of its content (``_row``), so a part can be verified without any other copy:
read it, re-hash every row, and compare with the stored row hashes and with the name. A
snapshot's tables are then checked against the row counts and multiset hashes its manifest
records. :func:`quick_damage` is the cheap form (the file exists and its Parquet footer reads)
that ``build`` runs before reusing a year and ``stats`` before reporting.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from kgbuild.store.parts import adhash, hex256, part_id, row_hashes


@dataclass(slots=True)
class Damage:
    """One damaged object: a part (or a manifest), what is wrong, which snapshots need it."""

    path: str
    table: str
    problem: str
    snapshots: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CheckReport:
    snapshots: int = 0
    parts: int = 0
    rows: int = 0
    damaged: list[Damage] = field(default_factory=list)
    #: Temporary files a killed writer left (removed by the next build).
    temp_files: list[str] = field(default_factory=list)
    #: Part files no manifest names (a writer died between a part and its manifest; harmless).
    unreferenced: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.damaged

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def manifests(root: Path) -> tuple[list[dict[str, Any]], list[Damage]]:
    """Every readable manifest of the warehouse, and a Damage for each unreadable one."""
    found, bad = [], []
    for path in sorted((root / "snapshots").glob("*.json")):
        if path.name.startswith(".tmp-"):
            continue
        try:
            found.append(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            bad.append(Damage(str(path.relative_to(root)), "", f"unreadable manifest: {exc}"))
    return found, bad


def quick_damage(root: Path, parts: list[dict[str, Any]]) -> list[Damage]:
    """Parts that are missing or whose Parquet footer does not read (a truncated file)."""
    out = []
    for p in parts:
        path = root / p["path"]
        try:
            pq.read_metadata(path)
        except FileNotFoundError:
            out.append(Damage(p["path"], p["table"], "missing"))
        except (OSError, ValueError) as exc:  # pyarrow: ArrowInvalid is a ValueError
            out.append(Damage(p["path"], p["table"], f"unreadable: {str(exc)[:120]}"))
    return out


def verify_part(root: Path, table: str, op: str, pid: str, rel: str) -> tuple[int, str]:
    """(rows, problem) of one part: '' when every row hash and the name match the content."""
    path = root / rel
    try:
        data = pq.read_table(path)
    except FileNotFoundError:
        return 0, "missing"
    except (OSError, ValueError) as exc:
        return 0, f"unreadable: {str(exc)[:120]}"
    stored = data.column("_row").to_pylist() if "_row" in data.column_names else []
    if op == "add":
        content = data.drop_columns([c for c in ("_row", "_part") if c in data.column_names])
        actual = row_hashes(content)
        changed = sum(a != b for a, b in zip(actual, stored, strict=False))
        if len(actual) != len(stored) or changed:
            return len(actual), f"{changed} of {len(actual)} rows do not match their hashes"
    if part_id(table, op, stored) != pid:
        return len(stored), "rows do not match the part's name (rows added or removed)"
    return len(stored), ""


def check_warehouse(root: Path, full: bool = True) -> CheckReport:
    """Verify every part of every snapshot (``full``: re-hash every row and every snapshot's
    tables; else the quick footer check only)."""
    root = Path(root)
    report = CheckReport()
    found, report.damaged = manifests(root)
    report.snapshots = len(found)
    users: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for m in found:
        for p in m["parts"]:
            users[(p["table"], p["op"], p["part_id"], p["path"])].append(m["snapshot_id"])
    referenced = {Path(k[3]).name for k in users}
    for (table, op, pid, rel), sids in sorted(users.items()):
        report.parts += 1
        if full:
            rows, problem = verify_part(root, table, op, pid, rel)
            report.rows += rows
        else:
            quick = quick_damage(root, [{"path": rel, "table": table}])
            problem = quick[0].problem if quick else ""
        if problem:
            report.damaged.append(Damage(rel, table, problem, sorted(sids)))
    if full and not report.damaged:
        report.damaged += _snapshot_content(root, found)
    for path in sorted((root / "parts").rglob("*.parquet")) if (root / "parts").exists() else []:
        rel = str(path.relative_to(root))
        if path.name.startswith(".tmp-"):
            report.temp_files.append(rel)
        elif path.name not in referenced:
            report.unreferenced.append(rel)
    return report


def _snapshot_content(root: Path, found: list[dict[str, Any]]) -> list[Damage]:
    """Each snapshot's tables (merge-on-read of its parts, as the catalog's ``<table>_at``
    macros read them) against the rows and multiset hash its manifest records: catches a
    manifest that names the wrong parts."""
    cache: dict[str, list[str]] = {}

    def hashes(rel: str) -> list[str]:
        if rel not in cache:
            cache[rel] = pq.read_table(root / rel, columns=["_row"])["_row"].to_pylist()
        return cache[rel]

    out = []
    for m in found:
        for table, info in m["tables"].items():
            adds: dict[str, tuple[int, str]] = {}  # part id -> (deepest depth, path)
            deleted: dict[str, int] = {}  # row hash -> deepest depth of a del part naming it
            for p in m["parts"]:
                if p["table"] != table:
                    continue
                if p["op"] == "add":
                    depth = max(p["depth"], adds.get(p["part_id"], (-1, ""))[0])
                    adds[p["part_id"]] = (depth, p["path"])
                else:
                    for h in hashes(p["path"]):
                        deleted[h] = max(deleted.get(h, -1), p["depth"])
            live = [h for d, rel in adds.values() for h in hashes(rel) if deleted.get(h, -1) <= d]
            if len(live) != info["rows"] or hex256(adhash(live)) != info["content_hash"]:
                out.append(
                    Damage(
                        f"snapshots/{m['snapshot_id']}.json",
                        table,
                        f"{table} as read ({len(live)} rows) does not match the manifest "
                        f"({info['rows']} rows, hash {info['content_hash'][:12]}…)",
                        [m["snapshot_id"]],
                    )
                )
    return out
