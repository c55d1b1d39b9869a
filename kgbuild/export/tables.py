"""Standalone Parquet or TSV files of one snapshot: every table, and ``kg_edges``.

Each file stands alone (no warehouse, no kgbuild needed to read it): pyarrow, pandas, polars,
Spark or a fresh DuckDB read it directly. Tables keep kgbuild's record schema (types and the
``kgbuild.record`` / ``kgbuild.schema_version`` schema metadata); ``kg_edges.*`` adds the view
analysts usually want first (names, kinds, support, confidence, year span).

Deterministic: rows are ordered (natural key, then every column; ``kg_edges`` by triple id),
Parquet row groups have a fixed size whatever batch sizes DuckDB hands out, compression is fixed
(zstd level 3), and no file carries a timestamp. TSV: a header line, RFC 4180 quoting (strings in
double quotes, quotes doubled), nulls as empty fields, lists as JSON arrays, and every text column
safe to open in a spreadsheet (:mod:`kgbuild.store.spreadsheet`: a value that begins with ``=``,
``+``, ``-``, ``@``, tab, CR or ``'`` gets a ``'`` in front; number columns are left as they
are). Parquet keeps every value as stored.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from kgbuild.export.source import staged_edges, stream
from kgbuild.records import KEYS, arrow_schemas, schema_for
from kgbuild.store import catalog
from kgbuild.store.files import atomic_path
from kgbuild.store.spreadsheet import text_batch

#: Rows per Parquet row group (fixed, so files do not depend on DuckDB's batch sizes).
ROW_GROUP_ROWS = 65_536
PARQUET_OPTIONS = {"compression": "zstd", "compression_level": 3, "version": "2.6"}
#: The derived view exported beside the tables.
EDGES_VIEW = "kg_edges"


def table_names() -> tuple[str, ...]:
    return (*catalog.TABLES, EDGES_VIEW)


def order_by(table: str) -> str:
    """The table's natural key, then every other column: a total order whose comparisons
    mostly stop at the key (cheaper to sort than ``ORDER BY ALL`` over long sentences)."""
    if table == EDGES_VIEW:
        return "triple_id"
    names = [f.name for f in arrow_schemas()[table]]
    cols = [*KEYS[table], *(n for n in names if n not in KEYS[table])]
    return ", ".join(f'"{c}"' for c in cols)


def _select(
    con: duckdb.DuckDBPyConnection, table: str, sid: str, json_lists: bool, source: str = ""
) -> str:
    """The export query of one table; ``source``: a query to read instead of ``<table>_at``
    (``kg_edges`` from its staged parts: :func:`kgbuild.export.source.staged_edges`)."""
    # table names come from kgbuild's own list, never from a user
    source = f"({source})" if source else f"{table}_at($sid)"
    order = order_by(table)
    if not json_lists:
        return f"SELECT * FROM {source} ORDER BY {order}"
    rel = con.sql(f"SELECT * FROM {source} LIMIT 0", params={"sid": sid})
    cols = [
        f'to_json("{c}") AS "{c}"' if str(t).endswith("[]") else f'"{c}"'
        for c, t in zip(rel.columns, rel.types, strict=True)
    ]
    return f"SELECT {', '.join(cols)} FROM {source} ORDER BY {order}"


def _rechunk(batches: Iterator[pa.RecordBatch], rows: int) -> Iterator[pa.Table]:
    """Tables of exactly ``rows`` rows (the last one shorter), whatever the batch sizes."""
    pending: list[pa.RecordBatch] = []
    n = 0
    for batch in batches:
        pending.append(batch)
        n += batch.num_rows
        while n >= rows:
            table = pa.Table.from_batches(pending)
            yield table.slice(0, rows)
            rest = table.slice(rows)
            pending, n = rest.to_batches(), rest.num_rows
    if n:
        yield pa.Table.from_batches(pending)


def _schema(table: str, arrow: pa.Schema) -> pa.Schema:
    return schema_for(table) if table in catalog.TABLES else arrow


def write_parquet(
    con: duckdb.DuckDBPyConnection, table: str, sid: str, path: Path, source: str = ""
) -> int:
    """One table of snapshot ``sid`` as a Parquet file; returns its row count."""
    sql = _select(con, table, sid, False, source)
    reader = con.sql(sql, params={"sid": sid}).to_arrow_reader(ROW_GROUP_ROWS)
    schema = _schema(table, reader.schema)
    n = 0
    with (
        atomic_path(path) as tmp,
        pq.ParquetWriter(tmp, schema, **PARQUET_OPTIONS) as out,  # type: ignore[arg-type]
    ):
        for chunk in _rechunk((b for b in reader if b.num_rows), ROW_GROUP_ROWS):
            out.write_table(chunk.cast(schema), row_group_size=ROW_GROUP_ROWS)
            n += chunk.num_rows
    return n


def write_tsv(
    con: duckdb.DuckDBPyConnection, table: str, sid: str, path: Path, source: str = ""
) -> int:
    """One table of snapshot ``sid`` as a TSV file (lists as JSON, text columns spreadsheet-safe);
    returns its row count."""
    sql = _select(con, table, sid, True, source)
    batches = (text_batch(b) for b in stream(con, sql, {"sid": sid}))
    options = pacsv.WriteOptions(delimiter="\t", include_header=True)
    n = 0
    with atomic_path(path) as tmp:
        first = next(batches, None)
        if first is None:  # an empty table still gets its header line
            rel = con.sql(sql + " LIMIT 0", params={"sid": sid})
            pacsv.write_csv(rel.to_arrow_table(), tmp, options)
            return 0
        with pacsv.CSVWriter(tmp, first.schema, write_options=options) as out:
            out.write_batch(first)
            n += first.num_rows
            for batch in batches:
                out.write_batch(batch)
                n += batch.num_rows
    return n


def export_tables(con: duckdb.DuckDBPyConnection, sid: str, out_dir: Path, fmt: str) -> dict:
    """Every table of ``sid`` (and ``kg_edges``) under ``out_dir`` as ``<table>.parquet`` or
    ``<table>.tsv``; returns ``{table: (path, rows)}``."""
    write = write_parquet if fmt == "parquet" else write_tsv
    written = {}
    for table in catalog.TABLES:
        path = out_dir / f"{table}.{fmt}"
        written[table] = (path, write(con, table, sid, path))
    path = out_dir / f"{EDGES_VIEW}.{fmt}"
    with staged_edges(con, sid) as edges:
        written[EDGES_VIEW] = (path, write(con, EDGES_VIEW, sid, path, edges))
    return written
