"""Streaming one snapshot's rows out of the DuckDB catalog, in a stable order, in bounded memory.

Why a connection of its own: an export reads whole tables (a 1M-triple snapshot has millions of
evidence rows), so DuckDB gets a memory limit and a spill folder *at connect time* (its config
dict; nothing is interpolated into SQL text), and rows leave it as Arrow record batches through
bound parameters, never through ``COPY … TO '<path>'`` (a user's path in SQL text is an
injection and breaks on a quote). Every query orders by a key, so files are byte-identical
across runs.

The graph queries (:func:`node_rows`, :func:`edge_rows`) read ``evidence_at`` once: per
(triple, PMID) first, then per triple — support, evidence count, PMIDs, the first supporting
sentences and the noisy-OR confidence of ``kg_edges`` (iKraph: 1 − ∏(1 − p_doc)).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from kgbuild.errors import StoreError

#: DuckDB's working memory for an export; it spills to a temp folder beyond this.
MEMORY_LIMIT = "384MB"
#: Rows per Arrow batch handed to a writer.
BATCH_ROWS = 65_536
#: Supporting sentences kept per edge in graph formats (all PMIDs are kept; every sentence is
#: in the ``evidence`` table of the Parquet/TSV export).
MAX_SENTENCES = 3
_LOCK_WAIT_S = 30.0


@contextmanager
def open_catalog(catalog_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only catalog connection with a memory limit and a private spill folder; waits
    while another process holds the file's write lock (as :func:`catalog.connect` does)."""
    if not catalog_path.exists():
        raise StoreError("no catalog yet: build a KG first", catalog=catalog_path)
    with tempfile.TemporaryDirectory(prefix="kgbuild-export-") as spill:
        config = {"memory_limit": MEMORY_LIMIT, "temp_directory": spill, "threads": 2}
        deadline = time.monotonic() + _LOCK_WAIT_S
        while True:
            try:
                con = duckdb.connect(str(catalog_path), read_only=True, config=config)
                break
            except duckdb.IOException as exc:
                if "lock" not in str(exc).lower() or time.monotonic() > deadline:
                    raise StoreError(f"cannot open catalog: {exc}", catalog=catalog_path) from exc
                time.sleep(0.2)
        try:
            yield con
        finally:
            con.close()


def stream(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    params: list[Any] | dict[str, Any],
    rows: int = BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """Record batches of a query with bound parameters (non-empty batches only)."""
    reader = con.sql(sql, params=params).to_arrow_reader(rows)
    for batch in reader:
        if batch.num_rows:
            yield batch


#: Graph nodes: every triple endpoint (DALK Table 1's #nodes), with its entity row when there
#: is one (an endpoint without one keeps its id as name and no kind; nothing is dropped).
NODES_SQL = """
WITH ends AS (
    SELECT head_id AS id FROM triples_at($sid) UNION SELECT tail_id FROM triples_at($sid)),
deg AS (
    SELECT id, count(*) AS degree FROM (
        SELECT head_id AS id FROM triples_at($sid) UNION ALL SELECT tail_id FROM triples_at($sid))
    GROUP BY id)
SELECT e.id, coalesce(n.name, e.id) AS name, coalesce(n.type, '') AS kind,
       coalesce(n.aliases, []::VARCHAR[]) AS aliases, n.first_year, deg.degree
FROM ends e LEFT JOIN entities_at($sid) n USING (id) JOIN deg USING (id)
ORDER BY e.id
"""

#: Graph edges: a triple with its evidence aggregated (one pass over the evidence).
EDGES_SQL = f"""
WITH per_doc AS (
    SELECT triple_id, pmid, count(*) AS n, max(confidence) AS p,
           min(year) AS y0, max(year) AS y1,
           list(DISTINCT method ORDER BY method) AS methods,
           list(DISTINCT model ORDER BY model) FILTER (WHERE model IS NOT NULL) AS models,
           min_by(sentence, evidence_id) AS sentence
    FROM evidence_at($sid) GROUP BY triple_id, pmid),
ev AS (
    SELECT triple_id, count(*) AS support, sum(n)::BIGINT AS n_evidence,
           round(1 - exp(sum(ln(greatest(1 - p, 1e-9)))), 4) AS confidence,
           min(y0) AS first_year, max(y1) AS last_year,
           list(pmid ORDER BY pmid) AS pmids,
           list_sort(list_distinct(flatten(list(methods)))) AS methods,
           list_sort(list_distinct(flatten(list(models)))) AS models,
           min_by(sentence, pmid, {MAX_SENTENCES}) AS sentences
    FROM per_doc GROUP BY triple_id),
ent AS (SELECT id, type FROM entities_at($sid))
SELECT t.triple_id, t.head_id, coalesce(h.type, '') AS head_kind, t.relation,
       t.tail_id, coalesce(x.type, '') AS tail_kind, t.relation_raw, t.metaedge,
       coalesce(ev.support, 0) AS support, coalesce(ev.n_evidence, 0) AS n_evidence,
       ev.confidence, ev.first_year, ev.last_year,
       coalesce(ev.pmids, []::VARCHAR[]) AS pmids, coalesce(ev.methods, []::VARCHAR[]) AS methods,
       coalesce(ev.models, []::VARCHAR[]) AS models,
       coalesce(ev.sentences, []::VARCHAR[]) AS sentences
FROM triples_at($sid) t LEFT JOIN ev USING (triple_id)
LEFT JOIN ent h ON h.id = t.head_id LEFT JOIN ent x ON x.id = t.tail_id
ORDER BY {{order}}
"""
#: Edge orders: by triple id, or grouped by (relation, head kind, tail kind) — what a graph
#: database loads in one bulk copy per relationship table and label pair.
BY_ID = "t.triple_id"
BY_TYPE = "t.relation, head_kind, tail_kind, t.triple_id"


def node_rows(con: duckdb.DuckDBPyConnection, sid: str) -> Iterator[pa.RecordBatch]:
    return stream(con, NODES_SQL, {"sid": sid})


def edge_rows(
    con: duckdb.DuckDBPyConnection, sid: str, order: str = BY_ID
) -> Iterator[pa.RecordBatch]:
    return stream(con, EDGES_SQL.replace("{order}", order), {"sid": sid})
