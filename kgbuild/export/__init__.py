"""Exports of one snapshot to the formats people take a KG into.

| format | what | module |
|---|---|---|
| ``parquet`` | every table + ``kg_edges``, standalone Parquet | :mod:`.tables` |
| ``tsv`` | the same as TSV (lists as JSON) | :mod:`.tables` |
| ``kgx`` | KGX nodes/edges TSV, Biolink categories and predicates | :mod:`.kgx` |
| ``neo4j`` | ``neo4j-admin database import full`` CSVs + the command | :mod:`.neo4j` |
| ``ladybug`` | an embedded LadybugDB (Cypher) database file | :mod:`.ladybug` |

Each format goes to its own folder under the output folder (``OUT/kgx/…``), published whole
(:mod:`.publish`: staged, sealed by ``kgbuild-export.json``, swapped in). Rows stream out of
DuckDB in Arrow batches (:mod:`.source`), so memory stays bounded whatever the snapshot's size,
and every file is deterministic: the same snapshot gives byte-identical files.
"""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

from kgbuild.errors import ExportError
from kgbuild.export import kgx, ladybug, neo4j, publish, tables
from kgbuild.export.source import open_catalog
from kgbuild.store.files import LIST_DELIMITER, prepare_dir
from kgbuild.store.snapshots import Warehouse

FORMATS = ("parquet", "tsv", "kgx", "neo4j", "ladybug")
#: File name of the LadybugDB database in ``OUT/ladybug/``.
LADYBUG_FILE = "kg.lbug"

#: Per file: its path and row count (None for a file that is not rows: metadata, a script).
Written = dict[str, tuple[Path, int | None]]


def parse_formats(values: list[str] | str) -> list[str]:
    """``["kgx,neo4j", "tsv"]`` → formats in :data:`FORMATS` order, each once."""
    items = [values] if isinstance(values, str) else values
    wanted = {v.strip().lower() for item in items for v in item.split(",") if v.strip()}
    unknown = wanted - set(FORMATS)
    if unknown or not wanted:
        raise ExportError(
            f"unknown export format; choose from {', '.join(FORMATS)}",
            given=",".join(sorted(unknown)) or "nothing",
        )
    return [f for f in FORMATS if f in wanted]


def known_files(fmt: str, folder: Path) -> set[str]:
    """The names in ``folder`` an export of ``fmt`` writes (how an export from before manifests
    is recognised as one, so it may be replaced)."""
    if fmt in ("parquet", "tsv"):
        return {f"{t}.{fmt}" for t in tables.table_names()}
    if fmt == "kgx":
        return {*kgx.FILES, "kgx_metadata.json"}
    if fmt == "neo4j":
        return {"nodes.csv", "relationships.csv", "import.sh", "unmark.cypher"}
    names = [p.name for p in folder.iterdir()] if folder.is_dir() else []
    return {n for n in names if n.startswith(LADYBUG_FILE)}  # the database and its side files


def export_snapshot(
    wh: Warehouse, snapshot_id: str, out_dir: Path, formats: list[str]
) -> dict[str, Written]:
    """Write ``snapshot_id`` in each format under ``out_dir/<format>/``; returns, per format,
    ``{file: (path, rows)}``. Each format folder is published whole (:mod:`.publish`): staged,
    sealed by its manifest, then swapped in, so a killed export leaves the old folder or the
    new one, never a mix; the next export removes what a killed one left."""
    formats = parse_formats(formats)
    out = prepare_dir(Path(out_dir))
    for fmt in formats:  # before any work: never delete a folder of the user's own
        publish.check_replaceable(out / fmt, known_files(fmt, out / fmt))
    manifest = wh.manifest(snapshot_id)
    about = {"snapshot_id": snapshot_id, "kg": manifest["kg"], "as_of_year": manifest["as_of_year"]}
    with publish.folder_lock(out):
        publish.clean_leftovers(out)
        stages = {fmt: publish.new_stage(out, fmt) for fmt in formats}
        try:
            written = _write(wh, snapshot_id, out, stages, about)
            for fmt in formats:
                rows = {} if fmt == "ladybug" else {n: r for n, (_, r) in written[fmt].items()}
                publish.seal(stages[fmt], {"format": fmt, **about}, rows)
            for fmt in formats:
                publish.check_replaceable(out / fmt, known_files(fmt, out / fmt))
                publish.swap_in(stages[fmt], out / fmt)
        finally:
            publish.clean_leftovers(out)  # the stages of a failed export
    return {
        fmt: {name: (out / fmt / path.relative_to(stages[fmt]), n) for name, (path, n) in w.items()}
        for fmt, w in written.items()
    }


def _write(
    wh: Warehouse, snapshot_id: str, out: Path, dirs: dict[str, Path], about: dict
) -> dict[str, Written]:
    """Every format's files into its (staging) folder in ``dirs``."""
    written: dict[str, Written] = {}
    with contextlib.ExitStack() as stack:
        csvs = None
        with open_catalog(wh.catalog_path, out, publish.STAGE_PREFIX) as con:
            for fmt in dirs:
                if fmt in ("parquet", "tsv"):
                    written[fmt] = tables.export_tables(con, snapshot_id, dirs[fmt], fmt)
                elif fmt == "kgx":
                    written[fmt] = kgx.export_kgx(con, snapshot_id, dirs[fmt], about)
                elif fmt == "neo4j":
                    written[fmt] = csvs = neo4j.export_neo4j(con, snapshot_id, dirs[fmt])
            if "ladybug" in dirs and csvs is None:  # the CSVs it loads, in a staging folder
                tmp = stack.enter_context(
                    tempfile.TemporaryDirectory(prefix=f"{publish.STAGE_PREFIX}csv-", dir=out)
                )
                csvs = neo4j.export_neo4j(con, snapshot_id, Path(tmp))
        if "ladybug" in dirs and csvs is not None:  # DuckDB is closed: its memory is free
            target = dirs["ladybug"] / LADYBUG_FILE
            n_nodes, n_rels = ladybug.load_neo4j_csv(
                csvs["nodes.csv"][0], csvs["relationships.csv"][0], target, LIST_DELIMITER
            )
            written["ladybug"] = {
                LADYBUG_FILE: (target, n_nodes),
                "relationships": (target, n_rels),
            }
    return written
