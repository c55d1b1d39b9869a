"""Streaming one snapshot's rows out of the DuckDB catalog, in a stable order, in bounded memory.

Why a connection of its own: an export reads whole tables (a 1M-triple snapshot has millions of
evidence rows), so DuckDB gets a memory limit and a spill folder *at connect time* (its config
dict; nothing is interpolated into SQL text), and rows leave it as Arrow record batches through
bound parameters, never through ``COPY … TO '<path>'`` (a user's path in SQL text is an
injection and breaks on a quote). Every query orders by a key, so files are byte-identical
across runs.

The graph queries (:func:`node_rows`, :func:`edge_rows`) export what ``kg_edges`` serves (issue
24: triples with asserted, not-refuted evidence) and read that evidence once, in triple order —
support, evidence count, PMIDs, the first supporting sentences and the calibrated confidence of
``kg_edges`` (:mod:`kgbuild.belief.confidence`: the best row's probability).
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from kgbuild.belief.confidence import (
    confidence_sql,
    load_model,
    row_features_sql,
    triple_support_sql,
)
from kgbuild.errors import StoreError
from kgbuild.store import catalog
from kgbuild.store.edges import STAGED, stage_edges

#: DuckDB's working memory for an export; it spills to a temp folder beyond this.
MEMORY_LIMIT = "384MB"
#: Rows per Arrow batch handed to a writer.
BATCH_ROWS = 65_536
#: Supporting sentences kept per edge in graph formats (all PMIDs are kept; every sentence is
#: in the ``evidence`` table of the Parquet/TSV export).
MAX_SENTENCES = 3
_LOCK_WAIT_S = 30.0


@contextmanager
def open_catalog(
    catalog_path: Path, spill_in: Path, spill_prefix: str
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only catalog connection (:func:`catalog.connect`: parts resolve in the warehouse
    only) with a memory limit and a private spill folder in ``spill_in`` (the export's own
    folder, not the system's temp folder: an export writes nowhere else, and a killed one's
    spill folder, named ``spill_prefix``…, is removed with its other leftovers by the next)."""
    with tempfile.TemporaryDirectory(prefix=f"{spill_prefix}spill-", dir=spill_in) as spill:
        settings = {"memory_limit": MEMORY_LIMIT, "temp_directory": spill, "threads": 2}
        with catalog.connect(catalog_path, True, _LOCK_WAIT_S, settings) as con:
            yield con


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


#: Graph nodes: every endpoint of a served triple (DALK Table 1's #nodes, of the graph
#: ``kg_edges`` serves), with its entity row when there is one (an endpoint without one
#: keeps its id as name and no kind; nothing is dropped). ``name`` is the node's display name
#: (``entity_names_at``), the one SQL, ask and serve show.
NODES_SQL = """
WITH served AS (
    SELECT head_id, tail_id FROM triples_at($sid)
    WHERE triple_id IN (SELECT triple_id FROM served_evidence_at($sid))),
ends AS (SELECT head_id AS id FROM served UNION SELECT tail_id FROM served),
deg AS (
    SELECT id, count(*) AS degree FROM (
        SELECT head_id AS id FROM served UNION ALL SELECT tail_id FROM served)
    GROUP BY id)
SELECT e.id, coalesce(n.display_name, e.id) AS name, coalesce(n.type, '') AS kind,
       coalesce(n.aliases, []::VARCHAR[]) AS aliases, n.first_year, deg.degree
FROM ends e LEFT JOIN entity_names_at($sid) n USING (id) JOIN deg USING (id)
ORDER BY e.id
"""

#: Triples served by default (at least one asserted, not-refuted evidence row: ``kg_edges``)
#: with their endpoints' kinds, in an export order (``{order}``).
TRIPLES_SQL = """
WITH ent AS (SELECT id, type FROM entities_at($sid))
SELECT t.triple_id, t.head_id, coalesce(h.type, '') AS head_kind, t.relation,
       t.tail_id, coalesce(x.type, '') AS tail_kind, t.relation_raw, t.metaedge
FROM triples_at($sid) t LEFT JOIN ent h ON h.id = t.head_id LEFT JOIN ent x ON x.id = t.tail_id
WHERE t.triple_id IN (SELECT triple_id FROM served_evidence_at($sid))
ORDER BY {order}
"""


#: The temporary table (one per export cursor) of the triples with their support.
TRIPLES_TABLE = "_export_triples"


def evidence_sql(order: str) -> str:
    """The served evidence in the same order as TRIPLES_SQL, then by PMID and evidence id, each
    row with the calibrated model's probability (``confidence``, as ``kg_edges`` computes it).
    Only the columns the edge figures need; the sort spills to disk, so memory stays bounded.

    One read of the evidence (the feature query carries the columns the edges need,
    not a second read joined back on ``evidence_id``) and one join of the triples, which come
    with their support from :data:`TRIPLES_TABLE` (:func:`prepare_triples`), made before this
    query runs: each of those was a 1M-row hash table that, beside the sort, did not fit an
    export's memory at 1M triples."""
    features = row_features_sql(
        "$sid", extra=("e.year", "e.model", "e.sentence", "t.relation", "t.head_id", "t.tail_id"),
        triples=TRIPLES_TABLE,
    )  # fmt: skip
    return f"""
WITH f AS ({features}),
ent AS (SELECT id, type FROM entities_at($sid))
SELECT t.triple_id, t.pmid, t.year, t.method, t.model,
       {confidence_sql(load_model())} AS confidence, t.sentence,
       coalesce(h.type, '') AS head_kind, coalesce(x.type, '') AS tail_kind
FROM f t LEFT JOIN ent h ON h.id = t.head_id LEFT JOIN ent x ON x.id = t.tail_id
WHERE t.epistemic = 'asserted' AND t.verified <> 'no'
ORDER BY {order}, t.pmid, t.evidence_id
"""


def prepare_triples(con: duckdb.DuckDBPyConnection, sid: str) -> None:
    """Make :data:`TRIPLES_TABLE` on ``con`` (temporary: this cursor's own, spilled to the
    export's temp folder; a read-only catalog allows it) for :func:`evidence_sql`."""
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {TRIPLES_TABLE} AS {triple_support_sql('$sid')}",
        {"sid": sid},
    )


@contextmanager
def staged_edges(con: duckdb.DuckDBPyConnection, sid: str) -> Iterator[str]:
    """The SELECT of snapshot ``sid``'s ``kg_edges`` over parts staged as temporary tables on
    ``con`` (:func:`kgbuild.store.edges.stage_edges`: one 1M-row relation per query, not
    three in one plan), dropped when done so the next format has the memory back."""
    try:
        prepare_triples(con, sid)
        sql = stage_edges(con, sid, load_model(), TRIPLES_TABLE)
        con.execute(f"DROP TABLE {TRIPLES_TABLE}")
        yield sql
    finally:
        for table in (*STAGED.values(), TRIPLES_TABLE):
            con.execute(f"DROP TABLE IF EXISTS {table}")


#: Edge orders: by triple id, or grouped by (relation, head kind, tail kind) — what a graph
#: database loads in one bulk copy per relationship table and label pair.
BY_ID = "t.triple_id"
BY_TYPE = "t.relation, head_kind, tail_kind, t.triple_id"


def node_rows(con: duckdb.DuckDBPyConnection, sid: str) -> Iterator[dict[str, Any]]:
    """Graph nodes, one dict per node, ordered by id."""
    for batch in stream(con, NODES_SQL, {"sid": sid}):
        yield from batch.to_pylist()


def round4(v: float) -> float:
    """``round(x, 4)`` the way DuckDB does it in ``kg_edges`` (half away from zero on x·10⁴);
    Python's ``round`` rounds the exact binary value instead and differs at ties."""
    return math.floor(v * 10_000 + 0.5) / 10_000


def _aggregate(triple: dict[str, Any], evidence: list[dict[str, Any]]) -> dict[str, Any]:
    """A triple with its served evidence's figures: support (distinct PMIDs), evidence count,
    year span, PMIDs, methods, models, the first sentence of each of the first PMIDs, and the
    calibrated confidence of ``kg_edges`` (its best row's probability)."""
    pmids: dict[str, None] = {}
    sentences: list[str] = []
    for e in evidence:  # ordered by pmid, evidence id
        if e["pmid"] not in pmids:
            pmids[e["pmid"]] = None
            if len(sentences) < MAX_SENTENCES and e["sentence"] is not None:
                sentences.append(e["sentence"])
    ps = [e["confidence"] for e in evidence if e["confidence"] is not None]
    years = [e["year"] for e in evidence if e["year"] is not None]
    return {
        **triple,
        "support": len(pmids),
        "n_evidence": len(evidence),
        "confidence": round4(max(ps)) if ps else None,
        "first_year": min(years) if years else None,
        "last_year": max(years) if years else None,
        "pmids": list(pmids),
        "methods": sorted({e["method"] for e in evidence if e["method"] is not None}),
        "models": sorted({e["model"] for e in evidence if e["model"] is not None}),
        "sentences": sentences,
    }


def edge_rows(
    con: duckdb.DuckDBPyConnection, sid: str, order: str = BY_ID
) -> Iterator[dict[str, Any]]:
    """Graph edges, one dict per triple, in ``order``: two sorted streams (triples, evidence)
    merged here, so no per-triple list is ever held by DuckDB (an aggregate with list states
    cannot spill: at 1M triples it ran out of the export's memory limit)."""
    params = {"sid": sid}
    triples = stream(con, TRIPLES_SQL.replace("{order}", order), params)
    cur2 = con.cursor()  # the second stream needs its own cursor
    try:
        prepare_triples(cur2, sid)
        evidence = (
            row for batch in stream(cur2, evidence_sql(order), params) for row in batch.to_pylist()
        )
        pending = next(evidence, None)
        for batch in triples:
            for triple in batch.to_pylist():
                ev = []
                while pending is not None and pending["triple_id"] == triple["triple_id"]:
                    ev.append(pending)
                    pending = next(evidence, None)
                yield _aggregate(triple, ev)
        if pending is not None:
            raise StoreError("evidence of a triple the snapshot does not have",
                             triple=pending["triple_id"])  # fmt: skip
    finally:
        cur2.close()
