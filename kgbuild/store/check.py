"""Integrity of a warehouse: every part of every snapshot against its manifest.

A part's name is the hash of its rows (:func:`kgbuild.store.parts.part_id`) and every row
carries the hash of its content (``_row``), so a part can be verified without any other copy:
read it, re-hash every row, and compare with the stored row hashes and with the name. A
snapshot's tables are then checked against the row counts and multiset hashes its manifest
records. :func:`quick_damage` is the cheap form (the file exists and its Parquet footer reads)
that ``build`` runs before reusing a year and ``stats`` before reporting.

Intact parts are not enough if readers read something else: the catalog's
registry must list exactly the parts the manifests name, each at ``parts/<table>/<id>.parquet``,
and its views (opened as every kgbuild reader opens them) must read no file but those parts —
DuckDB reports the file each row came from (``_file``), so a ``parts/`` folder that shadows the
warehouse's, or a path changed in the catalog, is damage even when every part hashes right.

The query stage's caches (``index/``) are checked by the rules their readers apply
(:mod:`kgbuild.store.cache_seal`): a cached file whose bytes do not match its sidecar, or a
sidecar naming another content hash than its snapshot's, is damage — never served, rebuilt by
the next ``serve``/``ask`` that opens it, as the problem line says.

Files no snapshot needs are *leftovers*, each with what happens to it, checked against what a
build actually removes (:meth:`~kgbuild.store.snapshots.Warehouse.repair` and the build's
scratch clean-up): a killed writer's ``parts/<table>/.tmp-*.parquet`` and
``snapshots/.tmp-*.json`` and the ``scratch/`` folder go with the next build; anything else
(a part no manifest names, a file kgbuild never writes, a cache no snapshot opens) stays until
removed by hand, and the report says so rather than promise a clean-up that never comes.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq

from kgbuild.store import catalog
from kgbuild.store.cache_seal import (
    INDEX_VERSION,
    NOT_CACHES,
    TABLES_SIDECAR,
    index_folders,
    sidecar_files,
    sidecars,
    verify_component,
)
from kgbuild.store.curations import digest as curation_digest
from kgbuild.store.parts import adhash, hex256, part_id, row_hashes

#: A part's file name as kgbuild writes it (:func:`kgbuild.store.parts.part_id`).
_PART_NAME = re.compile(r"[0-9a-f]{32}\.parquet")
#: The ``table`` of a query cache's damage rows.
QUERY_CACHE = "query cache"
#: What happens to a leftover (:class:`Leftover`'s ``fate``).
BUILD_REMOVES = "the next `kgbuild build` removes them"
BY_HAND = "no build removes them: delete them by hand if unwanted"


@dataclass(slots=True)
class Damage:
    """One damaged object: a part (or a manifest), what is wrong, which snapshots need it."""

    path: str
    table: str
    problem: str
    snapshots: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Leftover:
    """A file or folder no snapshot needs: what it is, and what happens to it (``fate``).
    ``removed_by_build`` is True only for what the next build really removes (tested)."""

    path: str
    what: str
    fate: str
    removed_by_build: bool = False


@dataclass(slots=True)
class CheckReport:
    snapshots: int = 0
    parts: int = 0
    rows: int = 0
    damaged: list[Damage] = field(default_factory=list)
    #: A killed writer's temporary part files, ``parts/<table>/.tmp-*.parquet``: exactly the
    #: ones the next build removes (other leftovers are in ``leftovers``, with their fate).
    temp_files: list[str] = field(default_factory=list)
    #: Always empty: a part no manifest names is *not* removed by a build, so
    #: it is a leftover (``leftovers``) saying so, not a file "the next build cleans up".
    unreferenced: list[str] = field(default_factory=list)
    #: Every file or folder no snapshot needs, with what happens to it.
    leftovers: list[Leftover] = field(default_factory=list)
    #: Query cache folders (``index/``) whose sidecars were verified.
    caches: int = 0

    @property
    def ok(self) -> bool:
        return not self.damaged

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}

    def notes(self) -> list[str]:
        """One line per kind of leftover: how many, what they are, what happens to them, and
        the paths (the text ``kgbuild check`` should print for them)."""
        groups: dict[tuple[str, str], list[str]] = defaultdict(list)
        for x in self.leftovers:
            groups[(x.what, x.fate)].append(x.path)
        out = []
        for (what, fate), paths in groups.items():
            shown = ", ".join(paths[:5]) + (
                f", … ({len(paths) - 5} more)" if len(paths) > 5 else ""
            )
            out.append(f"{len(paths)} {what}: {fate}: {shown}")
        return out


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


def check_warehouse(root: Path, full: bool = True, kg: str | None = None) -> CheckReport:
    """Verify every part of every snapshot (``full``: re-hash every row and every snapshot's
    tables; else the quick footer check only) and the query caches in ``index/`` (``full``:
    hash every cached file; else compare sizes), and list what no snapshot needs with what
    happens to it. ``kg``: re-hash that KG's snapshots only and report their damage (and the
    warehouse's own); the catalog, caches and leftovers are still judged against every snapshot
    (another KG's parts are not leftovers)."""
    root = Path(root)
    report = CheckReport()
    every, report.damaged = manifests(root)
    found = [m for m in every if kg is None or m["kg"] == kg]
    report.snapshots = len(found)
    users: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    for m in found:
        for p in m["parts"]:
            users[(p["table"], p["op"], p["part_id"], p["path"])].append(m["snapshot_id"])
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
    report.damaged += catalog_reads(root, every, skip=damaged_tables)
    report.leftovers += part_leftovers(root, {p["path"] for m in every for p in m["parts"]})
    report.temp_files = [x.path for x in report.leftovers if x.path.startswith("parts/")
                         and x.removed_by_build]  # fmt: skip
    cache_damage, cache_leftovers, report.caches = query_caches(root, every, full)
    report.damaged += cache_damage
    report.leftovers += cache_leftovers
    if kg is not None:  # another KG's damage is not this check's (the warehouse's own is)
        mine = {m["snapshot_id"] for m in found}
        report.damaged = [d for d in report.damaged if not d.snapshots or mine & set(d.snapshots)]
    return report


def part_leftovers(root: Path, referenced: Collection[str]) -> list[Leftover]:
    """Files under ``parts/`` no manifest names, and a killed build's temporary manifests and
    scratch folder, each with its fate as the next build decides it: ``Warehouse.repair``
    removes ``parts/*/.tmp-*.parquet`` and ``snapshots/.tmp-*.json``, the build removes
    ``scratch/``; nothing removes anything else."""
    out = []
    parts = root / "parts"
    for path in sorted(p for p in parts.rglob("*") if p.is_file()) if parts.is_dir() else []:
        rel = path.relative_to(root).as_posix()
        depth = len(path.relative_to(parts).parts)
        if rel in referenced:
            continue
        if depth == 2 and path.name.startswith(".tmp-") and path.suffix == ".parquet":
            out.append(Leftover(rel, "temporary part file(s) of a killed writer", BUILD_REMOVES,
                                True))  # fmt: skip
        elif depth == 2 and path.parent.name in catalog.TABLES and _PART_NAME.fullmatch(path.name):
            out.append(Leftover(rel, "part file(s) no snapshot names (harmless: no reader reads "
                                "them)", BY_HAND))  # fmt: skip
        else:
            out.append(Leftover(rel, "file(s) kgbuild never writes under parts/ (no reader "
                                "reads them)", BY_HAND))  # fmt: skip
    manifests_dir = root / "snapshots"
    for path in sorted(manifests_dir.glob(".tmp-*.json")) if manifests_dir.is_dir() else []:
        if path.is_file():
            out.append(
                Leftover(
                    path.relative_to(root).as_posix(),
                    "temporary manifest(s) of a killed writer",
                    BUILD_REMOVES,
                    True,
                )
            )
    scratch = root / "scratch"  # kgbuild.pipeline.build.SCRATCH (a layer above this one)
    for path in sorted(scratch.iterdir()) if scratch.is_dir() else []:
        out.append(Leftover(path.relative_to(root).as_posix(), "scratch folder(s) of a build "
                            "that is running or was killed", BUILD_REMOVES, True))  # fmt: skip
    return out


def _cache_fate(sid: str, all_evidence: bool, vectors: bool = False) -> str:
    """Who rebuilds a cache that does not verify: the reader that next opens it (each verifies
    before use; see :mod:`kgbuild.search.index`)."""
    who = f"the next `kgbuild serve`/`ask` on snapshot {sid}"
    if all_evidence:
        who += " that reads every evidence row (--all-evidence, or a request's all_evidence)"
    if vectors:
        return f"never used as is: {who} that embeds text recomputes it first"
    return f"never served: {who} rebuilds it first"


def query_caches(root: Path, found: list[dict[str, Any]],
                 full: bool = True) -> tuple[list[Damage], list[Leftover], int]:  # fmt: skip
    """The query caches under ``<root>/index`` against their sidecars and snapshots, by the
    rules the readers apply (:func:`kgbuild.store.cache_seal.verify_component`): damage for a
    cache a reader would rebuild (bytes or snapshot do not match), leftovers for what no
    reader reads; and how many cache folders were verified. ``full``: hash every file, else
    compare sizes. A cache kept elsewhere (``--index-dir``) is not seen here."""
    index = root / "index"
    if not index.is_dir():
        return [], [], 0
    expected = index_folders(found, curation_digest(root))
    damage, leftovers, verified = [], [], 0
    for path in sorted(index.iterdir()):
        rel = path.relative_to(root).as_posix()
        if path.name in NOT_CACHES:
            continue
        if path.name.startswith(".tmp-"):
            leftovers.append(Leftover(rel, "temporary file(s) of a killed or running "
                                      "query-cache writer (never read)", BY_HAND))  # fmt: skip
            continue
        if not path.is_dir() or path.name not in expected:
            what = ("query cache folder(s) no snapshot of this warehouse opens (another "
                    "snapshot, content or confidence model; never read)") if path.is_dir() else (
                    "file(s) kgbuild never writes in index/ (never read)")  # fmt: skip
            leftovers.append(Leftover(rel, what, BY_HAND))
            continue
        m, all_evidence = expected[path.name]
        sid = m["snapshot_id"]
        try:
            version = json.loads((path / TABLES_SIDECAR).read_text()).get("index_version")
        except (OSError, ValueError, AttributeError):
            version = INDEX_VERSION  # unreadable: verify_component reports it as damage
        if version != INDEX_VERSION:
            leftovers.append(Leftover(rel, f"query cache(s) of another kgbuild version (index "
                                      f"v{version}, this reads v{INDEX_VERSION}; not verifiable)",
                                      _cache_fate(sid, all_evidence)))  # fmt: skip
            continue
        verified += 1
        covered = set()
        for side in sidecars(path) or [TABLES_SIDECAR]:
            covered |= {side, *sidecar_files(path, side)}
            vectors = side.endswith(".seal.json") and side.startswith("vectors-")
            for file, problem in verify_component(path, side, sid, m["content_hash"], full):
                damage.append(Damage(f"{rel}/{file}", QUERY_CACHE,
                                     f"{problem}; {_cache_fate(sid, all_evidence, vectors)}",
                                     [sid]))  # fmt: skip
        for file in sorted(p for p in path.rglob("*") if p.is_file()):
            inner = file.relative_to(path).as_posix()
            if inner in covered:
                continue
            what = ("temporary file(s) of a killed or running query-cache writer (never read)"
                    if any(x.startswith(".tmp-") for x in file.relative_to(path).parts)
                    else "query cache file(s) no sidecar vouches for (never read)")  # fmt: skip
            leftovers.append(Leftover(f"{rel}/{inner}", what, BY_HAND))
    return damage, leftovers, verified


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
