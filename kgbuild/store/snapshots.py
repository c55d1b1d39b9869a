"""Publishing, reading and comparing versioned snapshots.

A snapshot is identified by (KG name, as-of year, build id, parent) and named by a hash of
(KG name, year, parent, content hash): publishing identical content on the same lineage twice
is a no-op, which makes an identical re-run idempotent.

Publishing is atomic in three steps: (1) content-addressed parts are written to temp files and
renamed into place; (2) the manifest (``snapshots/<id>.json``) is written the same way; (3) the
snapshot is registered in the catalog in one transaction. A crash before (3) leaves only files no
reader can see; :meth:`Warehouse.repair` registers complete manifests the catalog misses.
"""

from __future__ import annotations

import json
import os
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from kgbuild.errors import NoWarehouse, StoreError
from kgbuild.records import KEYS, REGISTRY_COUNTS, SnapshotCounts, stable_id, to_arrow
from kgbuild.store import catalog
from kgbuild.store.parts import adhash, hex256, part_path, row_hashes, write_part

if TYPE_CHECKING:  # a snapshot writer builds Arrow tables; a reader of the catalog needs none
    import pyarrow as pa

#: Tables whose rows can change between snapshots (an entity gains aliases); others only grow.
KEYED_TABLES = frozenset({"entities"})
#: Staged rows of an append-only table are written out as a part once they take this much
#: Arrow memory (:meth:`SnapshotWriter.spill`): a year's evidence never waits in memory whole.
PART_BYTES = 4 * 2**20


#: Tables added after snapshots were published: hashed only when they hold rows.
_LATE_TABLES = frozenset({"retractions"})


@dataclass(slots=True)
class SnapshotInfo:
    snapshot_id: str
    kg: str
    as_of_year: int
    build_id: str
    parent_id: str | None
    depth: int
    content_hash: str
    created: bool = True
    counts: SnapshotCounts = field(default_factory=SnapshotCounts)

    @classmethod
    def from_manifest(cls, m: dict[str, Any], created: bool = False) -> SnapshotInfo:
        return cls(
            m["snapshot_id"],
            m["kg"],
            m["as_of_year"],
            m["build_id"],
            m["parent_id"],
            m["depth"],
            m["content_hash"],
            created,
            SnapshotCounts.from_dict(m["counts"]),
        )


@dataclass(slots=True)
class _TableState:
    acc: int = 0
    rows: int = 0
    keys: dict[tuple[Any, ...], str] = field(default_factory=dict)
    adds: list[pa.Table] = field(default_factory=list)
    add_hashes: list[str] = field(default_factory=list)
    dels: list[str] = field(default_factory=list)
    #: Add parts already written for the snapshot being staged (:meth:`SnapshotWriter.spill`).
    written: list[str] = field(default_factory=list)


def _cut(ref: str, most: int = 60) -> str:
    """A reference as quoted in an error: a 5,000-character one does not flood the terminal."""
    return repr(ref if len(ref) <= most else ref[:most] + "…")


def _years(rows: list[dict[str, Any]]) -> str:
    """The as-of years of ``rows`` as runs: "2011–2020", "2015, 2017–2018"."""
    runs: list[list[int]] = []
    for y in sorted({int(r["as_of_year"]) for r in rows}):
        if runs and y == runs[-1][1] + 1:
            runs[-1][1] = y
        else:
            runs.append([y, y])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)


def _inventory(rows: list[dict[str, Any]]) -> str:
    """What a warehouse holds, for an error about a reference to nothing: ``KG@YEARS`` per KG."""
    by_kg: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_kg[r["kg"]].append(r)
    return "; ".join(f"{kg}@{_years(mine)}" for kg, mine in sorted(by_kg.items()))


def _newest(rows: list[dict[str, Any]]) -> str:
    """The most recently published of ``rows`` (the catalog's ``head_snapshot`` order)."""
    return str(max(rows, key=lambda r: (r["created_at"], r["depth"]))["snapshot_id"])


#: The catalog connection a :meth:`Warehouse.reader` block holds in this thread (or task).
_HELD: ContextVar[tuple[Path, duckdb.DuckDBPyConnection] | None] = ContextVar(
    "kgbuild_held_reader", default=None
)


class Warehouse:
    """A warehouse folder: ``parts/``, ``snapshots/`` manifests and the ``kg.duckdb`` catalog."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise StoreError("the warehouse path is a file, not a folder", warehouse=self.root)
        self.catalog_path = self.root / "kg.duckdb"
        self.manifests = self.root / "snapshots"

    def init(self) -> None:
        self.manifests.mkdir(parents=True, exist_ok=True)
        with catalog.connect(self.catalog_path) as con:
            catalog.ensure_schema(con)

    # ---- reading -------------------------------------------------------------------------
    def require(self) -> Warehouse:
        """This warehouse, to read, if a snapshot was ever published in it (registered in the
        catalog, or a manifest ``kgbuild check`` can read); else :class:`NoWarehouse`, the
        first-run message (build one first). Never creates anything."""
        if self.snapshots() or any(self.manifests.glob("*.json")):
            return self
        raise NoWarehouse(self.root)

    def query(self, sql: str, params: list[Any] | dict[str, Any] | None = None
              ) -> list[tuple[Any, ...]]:  # fmt: skip
        """Rows of one read-only catalog query; ``params`` positional (``?``) or named
        (``$name``). Inside :meth:`reader`, on its connection."""
        with self._read() as con:
            return con.execute(sql, params or []).fetchall()

    @contextmanager
    def _read(self) -> Iterator[duckdb.DuckDBPyConnection]:
        held = _HELD.get()
        if held is not None and held[0] == self.catalog_path:
            yield held[1]
            return
        with catalog.connect(self.catalog_path, read_only=True) as con:
            yield con

    @contextmanager
    def reader(self) -> Iterator[Callable[..., list[tuple[Any, ...]]]]:
        """One read-only connection for a batch of reads: inside the block, this thread's
        :meth:`query` and :meth:`snapshots` on this catalog use it (nested blocks share it).
        Opening one costs ~40 ms (DuckDB loads the catalog's views and macros; 21 ms even in
        memory) and checking its views ~10 ms, more than most of a report's or a small
        snapshot's queries take. Hold it for the batch only, and never write inside it: a
        reader holds the file's shared lock, and a publish waits for it."""
        with self._read() as con:
            token = _HELD.set((self.catalog_path, con))
            try:
                yield self.query
            finally:
                _HELD.reset(token)

    def snapshots(self, kg: str | None = None) -> list[dict[str, Any]]:
        if not self.catalog_path.exists():
            return []
        with self._read() as con:
            cur = con.execute(
                "SELECT * EXCLUDE (manifest) FROM snapshots WHERE ? IS NULL OR kg = ? "
                "ORDER BY kg, created_at, depth",
                [kg, kg],
            )
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]

    def resolve(self, ref: str) -> str:
        """A snapshot id from an id, a unique id prefix, ``KG@YEAR``, ``KG@latest`` or ``latest``.

        ``latest`` is the newest snapshot only while the warehouse holds a single KG: with
        several, it would silently move to whichever KG was built last (a reader started on KG
        A would start answering from KG B), so it is an error that lists them. A blank
        reference is an error too, never "the only snapshot" (an empty prefix matches every
        id)."""
        ref = (ref or "").strip()
        if not ref:
            raise StoreError(
                "empty snapshot reference: give an id, an id prefix, KG@YEAR, KG@latest or latest"
            )
        rows = self.snapshots()
        if not rows:
            raise NoWarehouse(self.root)
        if ref == "latest":
            kgs = sorted({r["kg"] for r in rows})
            if len(kgs) > 1:
                raise StoreError(
                    f"this warehouse holds several KGs ({', '.join(kgs)}): name one with "
                    "--kg NAME (or KG@latest, KG@YEAR)"
                )
            return _newest(rows)
        if "@" in ref:
            kg, _, year = ref.partition("@")
            mine = [r for r in rows if r["kg"] == kg]
            if year != "latest" and not (year.isascii() and year.isdigit() and len(year) <= 4):
                raise StoreError(
                    f"use KG@YEAR or KG@latest, e.g. alzheimers@2015 (not {_cut(ref)})"
                )
            if not mine:
                raise StoreError(
                    f"no snapshot of that KG{'' if year == 'latest' else ' at or before that year'}"
                    f": {_cut(ref)} (KGs here: {', '.join(sorted({r['kg'] for r in rows}))})"
                )
            if year == "latest":
                return _newest(mine)
            if int(year) > max(int(r["as_of_year"]) for r in mine):
                # not "the newest": a KG as of a year it was never built for is unknown (a
                # typo, or a refresh that has not run), and answering from an older year
                # without a word would pass that year's literature off as the asked one's
                raise StoreError(
                    f"no snapshot of that KG as of that year: {_cut(ref)} ({kg} has "
                    f"{_years(mine)}; {kg}@latest is its newest)"
                )
            found = self.query("SELECT snapshot_asof(?, kg_name := ?)", [int(year), kg])
            if not found or found[0][0] is None:
                raise StoreError(
                    f"no snapshot of that KG at or before that year: {_cut(ref)} "
                    f"({kg} has {_years(mine)})"
                )
            return found[0][0]
        hits = [r["snapshot_id"] for r in rows if r["snapshot_id"].startswith(ref)]
        if not hits and ref.isascii() and ref.isdigit() and len(ref) == 4:  # a bare year
            kgs = sorted({r["kg"] for r in rows})
            if len(kgs) == 1:  # as unambiguous as ``latest`` is here
                return self.resolve(f"{kgs[0]}@{ref}")
            raise StoreError(
                f"a year alone names no KG here ({', '.join(kgs)}): add --kg NAME or write KG@{ref}"
            )
        if len(hits) != 1:
            what = "unknown snapshot" if not hits else "ambiguous snapshot prefix"
            raise StoreError(f"{what} {_cut(ref)}: snapshots here are {_inventory(rows)}")
        return hits[0]

    def scope(self, ref: str | None, kg: str | None) -> str:
        """``ref`` read within KG ``kg`` (a command's ``--kg``): the reference to resolve.

        No ``kg``: ``ref`` as given (``latest`` when None). With one: ``latest`` (or None)
        becomes ``KG@latest`` and a bare year ``KG@YEAR``; a ``KG@…`` of the same KG or an id of
        one of its snapshots stays as it is; a reference to another KG's snapshot is an error,
        never silently one or the other."""
        if kg is None:
            return "latest" if ref is None else ref
        ref = "latest" if ref is None else ref.strip()
        kgs = sorted({r["kg"] for r in self.snapshots()})
        if kg not in kgs:  # said as `kgbuild sql --kg` says it
            raise StoreError(f"no KG named {kg!r} here (KGs: {', '.join(kgs) or 'none'})")
        if ref == "latest" or (ref.isascii() and ref.isdigit() and len(ref) == 4):
            return f"{kg}@{ref}"
        if "@" in ref:
            other = ref.partition("@")[0]
            if other != kg:
                raise StoreError(
                    f"snapshot {_cut(ref)} belongs to KG {other!r}, not --kg {kg}: give one of them"
                )
            return ref
        other = self.query("SELECT kg FROM snapshots WHERE snapshot_id = ?", [self.resolve(ref)])[
            0
        ][0]
        if other != kg:
            raise StoreError(f"snapshot {_cut(ref)} belongs to KG {other!r}, not --kg {kg}")
        return ref

    def pin(self, ref: str) -> str:
        """The reference a long-lived reader (``kgbuild serve``) follows for ``ref``: bound to
        one KG for good. ``latest`` becomes ``KG@latest`` of the KG it names now, so a KG
        built into the same warehouse later is never served in its place, while newer
        snapshots of the same KG still are; an id prefix becomes the full id; ``KG@YEAR``
        already names its KG."""
        return self.pinned(ref)[0]

    def pinned(self, ref: str) -> tuple[str, str]:
        """(:meth:`pin` of ``ref``, the snapshot id it names now): one resolution, where a
        reader needs both (each opens the catalog: 0.06 s of a ``kgbuild ask`` process)."""
        sid = self.resolve(ref)
        ref = ref.strip()
        if ref == "latest":
            return f"{self.manifest(sid)['kg']}@latest", sid
        return (ref if "@" in ref else sid), sid

    def manifest(self, snapshot_id: str) -> dict[str, Any]:
        path = self.manifests / f"{snapshot_id}.json"
        if not path.exists():
            raise StoreError("snapshot manifest missing", snapshot=snapshot_id)
        return json.loads(path.read_text())

    def find_by_inputs(self, kg: str, inputs: str, parent_id: str | None) -> str | None:
        """A published snapshot built from exactly these inputs on this lineage, if any: the
        fingerprint it was first published under, or one a later build reproduced it under
        (another code version that gave the same content)."""
        if not self.catalog_path.exists():
            return None
        rows = self.query(
            "SELECT s.snapshot_id FROM snapshots s "
            "LEFT JOIN snapshot_fingerprints f ON f.snapshot_id = s.snapshot_id AND f.inputs = ? "
            "WHERE s.kg = ? AND (s.inputs = ? OR f.inputs IS NOT NULL) "
            "AND s.parent_id IS NOT DISTINCT FROM ? ORDER BY s.created_at DESC LIMIT 1",
            [inputs, kg, inputs, parent_id],
        )
        return rows[0][0] if rows else None

    def record_fingerprint(self, snapshot_id: str, inputs: str, code_version: str) -> None:
        """Remember that ``inputs`` (a year's fingerprint) reproduced ``snapshot_id``, so the
        next build with the same code and inputs reuses it instead of rebuilding the year."""
        with catalog.connect(self.catalog_path) as con:
            catalog.ensure_schema(con)
            if con.execute(
                "SELECT 1 FROM snapshot_fingerprints WHERE inputs = ? AND snapshot_id = ?",
                [inputs, snapshot_id],
            ).fetchone():
                return
            con.execute(
                "INSERT INTO snapshot_fingerprints VALUES (?, ?, ?, ?)",
                [inputs, snapshot_id, code_version, datetime.now(UTC).replace(tzinfo=None)],
            )

    # ---- writing -------------------------------------------------------------------------
    def writer(self, kg: str, parent_id: str | None = None) -> SnapshotWriter:
        self.init()
        return SnapshotWriter(self, kg, parent_id)

    def register(self, manifest: dict[str, Any]) -> None:
        """Register a complete manifest in one catalog transaction (no-op if registered)."""
        sid = manifest["snapshot_id"]
        for p in manifest["parts"]:
            if not (self.root / p["path"]).exists():
                raise StoreError("snapshot part missing; not registering", part=p["path"])
        with catalog.connect(self.catalog_path) as con:
            catalog.ensure_schema(con)
            con.execute("BEGIN TRANSACTION")
            try:
                if con.execute("SELECT 1 FROM snapshots WHERE snapshot_id = ?", [sid]).fetchone():
                    con.execute("ROLLBACK")
                    return
                c = SnapshotCounts.from_dict(manifest["counts"]).to_dict()
                con.execute(
                    "INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                    "?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        sid,
                        manifest["kg"],
                        manifest["as_of_year"],
                        manifest["build_id"],
                        manifest["parent_id"],
                        manifest["depth"],
                        manifest["created_at"],
                        manifest["content_hash"],
                        manifest["inputs"],
                        manifest["code_version"],
                        manifest["config"].get("extractor"),
                        *(c[name] for name in REGISTRY_COUNTS),
                        json.dumps(manifest, sort_keys=True),
                    ],
                )
                con.executemany(
                    "INSERT INTO snapshot_parts VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        [sid, p["table"], p["part_id"], p["op"], p["depth"], p["path"]]
                        for p in manifest["parts"]
                    ],
                )
                lineage = [[sid, sid, 0]]
                if manifest["parent_id"]:
                    lineage += [
                        [sid, a, d + 1]
                        for a, d in con.execute(
                            "SELECT ancestor_id, distance FROM snapshot_lineage "
                            "WHERE snapshot_id = ?",
                            [manifest["parent_id"]],
                        ).fetchall()
                    ]
                con.executemany("INSERT INTO snapshot_lineage VALUES (?, ?, ?)", lineage)
                catalog.refresh_part_views(con)  # macros are this version's: ensure_schema
                con.execute("COMMIT")
            except Exception:
                con.execute("ROLLBACK")
                raise

    def log_build(self, row: dict[str, Any]) -> None:
        """Record one build run (what it published and what its LLM client spent): the run log
        behind per-build accounting. Not snapshot content, so not in any content hash."""
        with catalog.connect(self.catalog_path) as con:
            catalog.ensure_schema(con)
            con.execute(
                "INSERT OR REPLACE INTO builds VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    row["build_id"],
                    row["kg"],
                    row["started_at"],
                    row["finished_at"],
                    row["extractor"],
                    row["published"],
                    row["reused"],
                    json.dumps(row["llm_usage"], sort_keys=True),
                ],
            )

    def repair(self) -> list[str]:
        """Register complete manifests the catalog lacks (a crash between steps 2 and 3) and
        remove temporary files killed writers left. Call only while holding the build lock
        (:mod:`kgbuild.store.lock`): another writer's temporary files are in use."""
        self.init()
        with catalog.connect(self.catalog_path) as con:
            known = {r[0] for r in con.execute("SELECT snapshot_id FROM snapshots").fetchall()}
        manifests = []
        for path in sorted(self.manifests.glob("*.json")):
            if path.name.startswith(".tmp-"):  # a writer died before its rename: never published
                path.unlink(missing_ok=True)
                continue
            manifests.append(json.loads(path.read_text()))
        for path in (self.root / "parts").glob("*/.tmp-*.parquet"):  # likewise, for parts
            path.unlink(missing_ok=True)
        added = []
        for m in sorted(manifests, key=lambda m: m["depth"]):
            if m["snapshot_id"] not in known:
                self.register(m)
                added.append(m["snapshot_id"])
        return added


class SnapshotWriter:
    """Stages the changes of one lineage and publishes a snapshot per :meth:`commit`."""

    def __init__(self, wh: Warehouse, kg: str, parent_id: str | None) -> None:
        self.wh, self.kg = wh, kg
        self.parent_id = parent_id
        self.tables: dict[str, _TableState] = defaultdict(_TableState)
        self.parts: list[dict[str, Any]] = []
        self.depth = 0
        if parent_id:
            self._restore(parent_id)

    def _restore(self, sid: str) -> None:
        m = self.wh.manifest(sid)
        self.parts, self.depth = list(m["parts"]), m["depth"] + 1
        for t, info in m["tables"].items():
            st = self.tables[t]
            st.acc, st.rows = int(info["content_hash"], 16), info["rows"]
        with catalog.connect(self.wh.catalog_path, read_only=True) as con:
            for t in KEYED_TABLES:
                key = ", ".join(f'"{k}"' for k in KEYS[t])
                for *k, h in con.execute(f"SELECT {key}, _row FROM _{t}_at(?)", [sid]).fetchall():
                    self.tables[t].keys[tuple(k)] = h

    def add(self, table: str, records: list[Any]) -> None:
        """Stage new rows of an append-only table (or upsert rows of a keyed table)."""
        if not records:
            return
        data = to_arrow(table, records)
        hashes = row_hashes(data)
        st = self.tables[table]
        if table in KEYED_TABLES:
            keep = []
            key_cols = [data.column(k).to_pylist() for k in KEYS[table]]
            for i, h in enumerate(hashes):
                key = tuple(col[i] for col in key_cols)
                old = st.keys.get(key)
                if old == h:
                    continue
                if old is not None:
                    st.dels.append(old)
                    st.acc, st.rows = adhash([old], st.acc, -1), st.rows - 1
                st.keys[key] = h
                keep.append(i)
            if not keep:  # every row unchanged: nothing to stage
                return
            data, hashes = data.take(keep), [hashes[i] for i in keep]
        st.adds.append(data)
        st.add_hashes.extend(hashes)
        st.acc, st.rows = adhash(hashes, st.acc), st.rows + len(hashes)

    def spill(self, min_bytes: int | None = None) -> None:
        """Write the staged rows of every append-only table holding ``min_bytes`` or more as a
        part now, so memory holds at most one part's worth per table. A snapshot's
        content hash is a sum over rows (:mod:`kgbuild.store.parts`): how its rows are cut
        into parts does not change it."""
        min_bytes = PART_BYTES if min_bytes is None else min_bytes
        for t, st in self.tables.items():
            if t in KEYED_TABLES or not st.add_hashes:
                continue
            if sum(a.nbytes for a in st.adds) >= min_bytes:
                self._write_adds(t, st)

    def _write_adds(self, table: str, st: _TableState) -> None:
        import pyarrow as pa

        st.written.append(
            write_part(self.wh.root, table, "add", pa.concat_tables(st.adds), st.add_hashes)
        )
        st.adds, st.add_hashes = [], []

    def content_hash(self) -> str:
        """The snapshot's content id over every table. A table added after snapshots were
        published (``retractions``) joins the hash only once it has rows, so the
        same content keeps its id across the upgrade (a rebuild is "same content", not new)."""
        return stable_id(
            *(
                f"{t}:{hex256(self.tables[t].acc)}:{self.tables[t].rows}"
                for t in catalog.TABLES
                if t not in _LATE_TABLES or self.tables[t].rows
            ),
            size=32,
        )

    def commit(
        self,
        as_of_year: int,
        build_id: str,
        config: dict[str, Any],
        inputs: str,
        code_version: str,
        counts: SnapshotCounts,
    ) -> SnapshotInfo:
        """Publish everything staged since the last commit as the snapshot for ``as_of_year``."""
        content = self.content_hash()
        sid = stable_id(self.kg, as_of_year, self.parent_id, content, size=10)
        existing = self.wh.manifests / f"{sid}.json"
        new_parts = []
        # Parts are written even when the manifest exists: a rebuild of a damaged year
        # rewrites its missing or truncated parts (same rows, same names).
        for t in catalog.TABLES:
            st = self.tables[t]
            if st.add_hashes:
                self._write_adds(t, st)
            new_parts.extend((t, pid, "add") for pid in st.written)
            if st.dels:
                new_parts.append((t, write_part(self.wh.root, t, "del", None, st.dels), "del"))
        parts = self.parts + [
            {
                "table": t,
                "part_id": pid,
                "op": op,
                "depth": self.depth,
                "path": str(part_path(Path("."), t, pid)),
            }
            for t, pid, op in new_parts
        ]
        manifest = {
            "snapshot_id": sid,
            "kg": self.kg,
            "as_of_year": as_of_year,
            "build_id": build_id,
            "parent_id": self.parent_id,
            "depth": self.depth,
            "created_at": datetime.now(UTC).replace(tzinfo=None).isoformat(),
            "content_hash": content,
            "inputs": inputs,
            "code_version": code_version,
            "config": config,
            "counts": counts.to_dict(),
            "parts": parts,
            "tables": {
                t: {"rows": self.tables[t].rows, "content_hash": hex256(self.tables[t].acc)}
                for t in catalog.TABLES
            },
        }
        created = not existing.exists()
        if created:
            tmp = self.wh.manifests / f".tmp-{uuid.uuid4().hex}.json"
            tmp.write_text(json.dumps(manifest, indent=1, sort_keys=True))
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, existing)
        else:
            manifest = json.loads(existing.read_text())
        self.wh.register(manifest)
        if manifest["inputs"] != inputs:  # reproduced by other code or config: remember it
            self.wh.record_fingerprint(sid, inputs, code_version)
        for st in self.tables.values():
            st.adds, st.add_hashes, st.dels, st.written = [], [], [], []
        self.parts, self.parent_id, self.depth = manifest["parts"], sid, manifest["depth"] + 1
        return SnapshotInfo.from_manifest(manifest, created)
