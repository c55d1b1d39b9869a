"""Integrity of a warehouse: every part of every snapshot against its manifest.

A part's name is the hash of its rows (:func:`kgbuild.store.parts.part_id`) and every row
carries the hash of its content (``_row``), so a part can be verified without any other copy:
read it, re-hash every row, and compare with the stored row hashes and with the name. A
snapshot's tables are then checked against the row counts and multiset hashes its manifest
records. :func:`quick_damage` is the cheap form (the file exists and its Parquet footer reads)
that ``build`` runs before reusing a year and ``stats`` before reporting.

Intact parts are not enough if readers read something else (issue 23, item 10): the catalog's
registry must list exactly the parts the manifests name, each at ``parts/<table>/<id>.parquet``,
and its views (opened as every kgbuild reader opens them) must read no file but those parts —
DuckDB reports the file each row came from (``_file``), so a ``parts/`` folder that shadows the
warehouse's, or a path changed in the catalog, is damage even when every part hashes right.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from kgbuild.store import catalog
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
        if rel != f"parts/{table}/{pid}.parquet":
            problem = "not at parts/<table>/<part id>.parquet, where readers look for it"
        elif full:
            rows, problem = verify_part(root, table, op, pid, rel)
            report.rows += rows
        else:
            quick = quick_damage(root, [{"path": rel, "table": table}])
            problem = quick[0].problem if quick else ""
        if problem:
            report.damaged.append(Damage(rel, table, problem, sorted(sids)))
    if full and not report.damaged:
        report.damaged += _snapshot_content(root, found)
    damaged_tables = {d.table for d in report.damaged}
    report.damaged += catalog_reads(root, found, skip=damaged_tables)
    for path in sorted((root / "parts").rglob("*.parquet")) if (root / "parts").exists() else []:
        rel = str(path.relative_to(root))
        if path.name.startswith(".tmp-"):
            report.temp_files.append(rel)
        elif path.name not in referenced:
            report.unreferenced.append(rel)
    return report


def catalog_reads(
    root: Path, found: list[dict[str, Any]], skip: Collection[str] = ()
) -> list[Damage]:
    """The catalog against the manifests ``found``: the parts its registry lists, and the files
    its views read through a reader's connection (tables in ``skip``, whose parts are already
    damaged, are not read: a missing part fails the view)."""
    path = root / "kg.duckdb"
    if not path.is_file():
        return []
    named = {(m["snapshot_id"], p["table"], p["op"], p["part_id"], p["path"])
             for m in found for p in m["parts"]}  # fmt: skip
    with_manifest = {m["snapshot_id"] for m in found}
    out = []
    with catalog.connect(path, read_only=True) as con:
        listed = set(
            con.execute("SELECT snapshot_id, tbl, op, part_id, path FROM snapshot_parts").fetchall()
        )
        registered = {k[0] for k in listed}
        for sid, table, _, _, rel in sorted(listed - named):
            problem = "the catalog lists this part; the snapshot's manifest does not"
            if sid not in with_manifest:
                problem = "the catalog registers a snapshot that has no manifest"
            out.append(Damage(rel, table, problem, [sid]))
        for sid, table, _, _, rel in sorted(named - listed):
            if sid in registered:
                problem = "the manifest lists this part; the catalog does not"
                out.append(Damage(rel, table, problem, [sid]))
        base = root.resolve()
        for table in catalog.TABLES:
            if table in skip:
                continue
            parts = {str(base / k[4]) for k in listed if k[1] == table}
            try:
                read = con.execute(
                    f"SELECT _file FROM _rows_{table} UNION SELECT _file FROM _dels_{table}"
                ).fetchall()
            except duckdb.Error as exc:
                problem = f"the catalog's views do not read: {catalog.first_line(exc)[:120]}"
                out.append(Damage("kg.duckdb", table, problem))
                continue
            for (file,) in sorted(r for r in read if r[0] is not None and r[0] not in parts):
                problem = "readers read this file, which is not one of the warehouse's parts"
                out.append(Damage(file, table, problem))
    return out


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
