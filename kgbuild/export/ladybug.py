"""LadybugDB (the maintained successor of Kùzu): a Cypher-queryable KG file, no server.

:func:`load_neo4j_csv` reads ``neo4j-admin`` import CSVs — header fields ``name:ID``,
``:LABEL``, ``:START_ID``, ``:END_ID``, ``:TYPE``, ``name:type`` and ``name:type[]`` (Neo4j's
import header format) — into an embedded LadybugDB database: one node table per label (primary
key: the ``:ID`` column), one relationship table per type with every (start label, end label)
pair that occurs, properties typed as the header says. Rows stream through Arrow batches and
``COPY <table> FROM $batch`` (a bound parameter: no file path or value is put into Cypher
text; table and property names must be plain identifiers). The same Cypher as in Neo4j then
works: ``MATCH (c:Compound)-[r:TREATS]->(d:Disease) RETURN c.name, d.name``.

``kgbuild export --format ladybug`` writes the Neo4j CSVs of :mod:`kgbuild.export.neo4j` and
loads them, so the tests of this loader also test those CSVs against a real Cypher database.
A node with several labels goes into its first label's table (a LadybugDB node has one table).
Cells are read as kgbuild's CSVs write them: a leading ``'`` is the spreadsheet mark of
:mod:`kgbuild.store.spreadsheet` and is dropped (what ``unmark.cypher`` does after
``neo4j-admin``), so every value loads exactly as the snapshot holds it.
"""

from __future__ import annotations

import csv
import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from kgbuild.errors import ExportError
from kgbuild.store.spreadsheet import raw_column

#: Neo4j import types → LadybugDB column types (``float`` is kept as DOUBLE, not narrowed).
TYPES: dict[str, tuple[str, pa.DataType]] = {
    "string": ("STRING", pa.string()),
    "char": ("STRING", pa.string()),
    "int": ("INT32", pa.int32()),
    "long": ("INT64", pa.int64()),
    "short": ("INT16", pa.int16()),
    "byte": ("INT8", pa.int8()),
    "float": ("DOUBLE", pa.float64()),
    "double": ("DOUBLE", pa.float64()),
    "boolean": ("BOOLEAN", pa.bool_()),
}
#: Bytes per CSV block read (rows stream in batches of about this size).
BLOCK_BYTES = 8 << 20
#: Rows held for one bulk copy at most (memory bound of the loader).
FLUSH_ROWS = 100_000
#: LadybugDB's buffer pool while loading (its default is most of the machine's memory).
BUFFER_POOL_BYTES = 256 << 20
#: Threads LadybugDB may use while loading.
THREADS = 1
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class Field:
    """One header field: its column name in the file, role, property name and type."""

    column: str
    role: str  # ID | LABEL | START_ID | END_ID | TYPE | IGNORE | property
    name: str
    type: str = "string"
    array: bool = False

    @property
    def ddl(self) -> str:
        base = TYPES[self.type][0]
        return f"{base}[]" if self.array else base


def parse_header(columns: list[str]) -> list[Field]:
    """Neo4j import header fields (``name:type``, ``:ROLE``, ``name:ID(space)``)."""
    fields = []
    for col in columns:
        name, _, spec = col.partition(":")
        spec = re.sub(r"\(.*\)$", "", spec)  # ID spaces: one space here
        if spec in ("ID", "LABEL", "START_ID", "END_ID", "TYPE", "IGNORE"):
            fields.append(Field(col, spec, name or "id"))
            continue
        array = spec.endswith("[]")
        typ = (spec[:-2] if array else spec).lower() or "string"
        if typ not in TYPES:
            raise ExportError("unsupported Neo4j import type", column=col)
        fields.append(Field(col, "property", _ident(name, col), typ, array))
    return fields


def _ident(name: str, where: str) -> str:
    if not _IDENT.fullmatch(name):
        raise ExportError("not a plain identifier (letters, digits, _)", name=name, at=where)
    return name


def _header(path: Path) -> list[str]:
    with open(path, encoding="utf-8", newline="") as fh:
        return next(csv.reader(fh), [])


def _batches(path: Path, columns: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The CSV's rows as string columns, streamed (quotes per RFC 4180, as Neo4j reads them),
    the spreadsheet mark dropped from each cell."""
    cols = _header(path)
    reader = pacsv.open_csv(
        path,
        read_options=pacsv.ReadOptions(block_size=BLOCK_BYTES, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=",", quote_char='"', double_quote=True),
        convert_options=pacsv.ConvertOptions(
            column_types=dict.fromkeys(cols, pa.string()),
            include_columns=columns or cols,
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )
    for batch in reader:
        if batch.num_rows:
            yield pa.RecordBatch.from_arrays(
                [raw_column(c) for c in batch.columns], schema=batch.schema
            )
        pa.default_memory_pool().release_unused()  # keep the loader's footprint flat


def _convert(col: pa.Array, f: Field, delimiter: str) -> pa.Array:
    """A string column of the CSV as the field's type (empty → null; arrays split, empty → [])."""
    arrow = TYPES[f.type][1]
    if f.array:
        parts = pc.split_pattern(col, delimiter)
        values = pc.list_flatten(parts)
        if f.type not in ("string", "char"):
            values = values.cast(arrow)
        lists = pa.ListArray.from_arrays(parts.offsets, values)
        return pc.if_else(pc.equal(col, ""), pa.scalar([], pa.list_(arrow)), lists)
    if f.type in ("string", "char"):
        return col
    nulled = pc.if_else(pc.equal(col, ""), pa.scalar(None, pa.string()), col)
    if f.type == "boolean":
        return pc.equal(pc.utf8_lower(nulled), "true")
    return nulled.cast(arrow)


def _role(fields: list[Field], role: str, path: Path) -> Field:
    found = [f for f in fields if f.role == role]
    if len(found) != 1:
        raise ExportError(f"the CSV header needs exactly one :{role} column", file=path)
    return found[0]


def _first_label(labels: pa.Array, delimiter: str) -> list[str]:
    return [_ident(v.split(delimiter)[0], "label") for v in labels.to_pylist()]


def _load_nodes(con: Any, path: Path, delimiter: str) -> dict[str, str]:
    """Create a node table per label and copy the rows; returns node id → table."""
    fields = parse_header(_header(path))
    id_f, label_f = _role(fields, "ID", path), _role(fields, "LABEL", path)
    props = [f for f in fields if f.role == "property"]
    where: dict[str, str] = {}
    tables: set[str] = set()

    def copy(name: str, rows: pa.Table) -> None:
        if name not in tables:
            cols = ", ".join([f"{id_f.name} STRING", *(f"{f.name} {f.ddl}" for f in props)])
            con.execute(f"CREATE NODE TABLE {name}({cols}, PRIMARY KEY({id_f.name}))")
            tables.add(name)
        con.execute(f"COPY {name} FROM $rows", {"rows": rows})

    pending = _Pending(copy)
    for batch in _batches(path):
        labels = _first_label(batch.column(label_f.column), delimiter)
        ids = batch.column(id_f.column)
        data = {id_f.name: ids}
        data |= {f.name: _convert(batch.column(f.column), f, delimiter) for f in props}
        pending.add(pa.table(data), labels)
        for node_id, name in zip(ids.to_pylist(), labels, strict=True):
            if node_id in where:
                raise ExportError("duplicate node id in the nodes CSV", id=node_id)
            where[node_id] = name
    pending.flush()
    return where


class _Pending:
    """Rows waiting for a bulk copy, per target: each ``COPY`` costs a fixed ~0.1–0.3 s in
    LadybugDB whatever its size, so rows are copied in runs of up to :data:`FLUSH_ROWS`."""

    def __init__(self, copy: Any) -> None:
        self.copy = copy
        self.parts: dict[str, list[pa.Table]] = {}
        self.rows = 0

    def add(self, table: pa.Table, keys: list[str]) -> None:
        key = pa.array(keys)
        runs = sorted(set(keys))
        for k in runs:
            part = table if len(runs) == 1 else table.filter(pc.equal(key, k))
            self.parts.setdefault(k, []).append(part)
        self.rows += table.num_rows
        for k in [k for k in self.parts if k not in runs]:  # input grouped by key: done ones
            self._copy(k)
        if self.rows >= FLUSH_ROWS:
            self.flush()

    def _copy(self, k: str) -> None:
        parts = self.parts.pop(k)
        table = pa.concat_tables(parts)
        self.rows -= table.num_rows
        self.copy(k, table)
        del parts, table
        pa.default_memory_pool().release_unused()  # Arrow's allocator keeps freed pages

    def flush(self) -> None:
        for k in sorted(self.parts):
            self._copy(k)


def _endpoint_tables(ids: pa.Array, where: dict[str, str], path: Path) -> list[str]:
    out = []
    for node_id in ids.to_pylist():
        table = where.get(node_id)
        if table is None:
            raise ExportError("relationship endpoint is not a node of the nodes CSV",
                              id=node_id, file=path)  # fmt: skip
        out.append(table)
    return out


def _load_relationships(con: Any, path: Path, where: dict[str, str], delimiter: str) -> int:
    """Create a relationship table per type (every label pair it joins) and copy the rows."""
    fields = parse_header(_header(path))
    start, end, typ = (_role(fields, r, path) for r in ("START_ID", "END_ID", "TYPE"))
    props = [f for f in fields if f.role == "property"]
    pairs: dict[str, set[tuple[str, str]]] = {}
    for batch in _batches(path, [start.column, end.column, typ.column]):
        types = [_ident(t, "type") for t in batch.column(typ.column).to_pylist()]
        heads = _endpoint_tables(batch.column(start.column), where, path)
        tails = _endpoint_tables(batch.column(end.column), where, path)
        for t, h, x in zip(types, heads, tails, strict=True):
            pairs.setdefault(t, set()).add((h, x))
    clash = set(pairs) & set(where.values())
    if clash:
        raise ExportError("a relationship type has the name of a node label", names=sorted(clash))
    for t, ends in sorted(pairs.items()):
        spec = ", ".join(
            [*(f"FROM {h} TO {x}" for h, x in sorted(ends)), *(f"{f.name} {f.ddl}" for f in props)]
        )
        con.execute(f"CREATE REL TABLE {t}({spec})")

    def copy(k: str, rows: pa.Table) -> None:
        t, h, x = k.split("\x1f")
        con.execute(f"COPY {t} FROM $rows (from='{h}', to='{x}')", {"rows": rows})

    pending = _Pending(copy)
    n = 0
    for batch in _batches(path):
        heads = _endpoint_tables(batch.column(start.column), where, path)
        tails = _endpoint_tables(batch.column(end.column), where, path)
        types = batch.column(typ.column).to_pylist()
        keys = [f"{t}\x1f{h}\x1f{x}" for t, h, x in zip(types, heads, tails, strict=True)]
        data = {"_from": batch.column(start.column), "_to": batch.column(end.column)}
        data |= {f.name: _convert(batch.column(f.column), f, delimiter) for f in props}
        pending.add(pa.table(data), keys)
        n += batch.num_rows
    pending.flush()
    return n


def load_neo4j_csv(
    nodes_csv: Path, relationships_csv: Path, db_path: Path, delimiter: str = "|"
) -> tuple[int, int]:
    """Load Neo4j import CSVs into a new LadybugDB file at ``db_path`` (replaced if it exists,
    written under a temporary name first); returns (nodes, relationships)."""
    import ladybug

    tmp = db_path.with_name(f".tmp-{os.getpid()}-{db_path.name}")
    _remove(tmp)
    try:
        db = ladybug.Database(str(tmp), buffer_pool_size=BUFFER_POOL_BYTES, max_num_threads=THREADS)
        con = ladybug.Connection(db)
        try:
            where = _load_nodes(con, Path(nodes_csv), delimiter)
            n_rels = _load_relationships(con, Path(relationships_csv), where, delimiter)
        finally:
            con.close()
            db.close()
        _remove(db_path)
        for side in sorted(tmp.parent.glob(f"{tmp.name}*")):  # the database and any side file
            os.replace(side, db_path.with_name(db_path.name + side.name[len(tmp.name) :]))
    except BaseException:
        for side in tmp.parent.glob(f"{tmp.name}*"):
            _remove(side)
        raise
    return len(where), n_rels


def _remove(path: Path) -> None:
    for p in [path, *path.parent.glob(f"{path.name}.*")]:
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


def query(db_path: Path, cypher: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
    """Rows of a Cypher query on a LadybugDB file, opened read-only."""
    import ladybug

    db = ladybug.Database(str(db_path), read_only=True, buffer_pool_size=BUFFER_POOL_BYTES)
    con = ladybug.Connection(db)
    try:
        result = con.execute(cypher, params or {})
        rows = []
        while result.has_next():
            rows.append(result.get_next())
        return rows
    finally:
        con.close()
        db.close()
