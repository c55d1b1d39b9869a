"""The SQL of ``kg_edges`` / ``kg_edges_all``: one definition, read two ways.

The catalog's macros (:func:`kgbuild.store.catalog.rebuild_views`) compute an edge's figures in
one query: its evidence aggregated per triple (``ev``), the calibrated model's best row
(``conf``: :mod:`kgbuild.belief.confidence`) and the endpoints' display names (``ent``), joined
to the triples. That is right for a query of a few edges, but at 1M triples a single plan holds
three 1M-row relations side by side, and which of them DuckDB builds hash tables on is the
optimizer's choice: when a LEFT JOIN was added to every evidence read (retracted papers), it
chose differently and the export of ``kg_edges`` ran out of its 384 MB (0 of 4 runs at 200k
triples under 200 MB, against 4 of 4 before). So the export stages the same three parts as
temporary tables first (:func:`stage_edges`: each a query of its own, spilled to the export's
temp folder) and joins them in a fourth; both readings share :func:`edge_evidence_sql` and
:func:`edges_select_sql`, so the file and the view cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import duckdb

from kgbuild.belief.confidence import edge_confidence_sql

#: Evidence statuses counted per edge by ``kg_edges_all`` (kgbuild.extract.epistemics.STATUSES,
#: 'unclassified' for rows of parts written before statuses existed, 'retracted', 'curated_out':
#: kgbuild.store.curations).
EPISTEMIC = (
    "asserted", "hypothesis", "negated", "background", "not_in_sentence", "unstated",
    "unsupported", "proposed", "unclassified", "retracted", "curated_out",
)  # fmt: skip
#: The temporary tables :func:`stage_edges` makes (one export connection's own); ``evc``, the
#: evidence figures with the confidence, is the one the final query joins (``ev`` and ``conf``
#: are dropped once it is made).
STAGED = {"ev": "_edges_ev", "conf": "_edges_conf", "evc": "_edges_evc", "ent": "_edges_ent"}


def edge_evidence_sql(source: str, all_statuses: bool) -> str:
    """Per triple of ``source`` (a table expression of evidence rows with statuses): evidence
    count, support (distinct PMIDs), year span, methods and models; ``all_statuses``: a count
    per status too (``kg_edges_all``)."""
    per_status = (
        ", " + ", ".join(f"count(*) FILTER (WHERE epistemic = '{s}') AS n_{s}" for s in EPISTEMIC)
        + ", count(*) FILTER (WHERE verified = 'no') AS n_verified_no"
        if all_statuses else ""
    )  # fmt: skip
    return f"""
        SELECT triple_id, count(*) AS n_evidence, count(DISTINCT pmid) AS support,
               min(year) AS first_year, max(year) AS last_year,
               -- not list(DISTINCT … ORDER BY …): an ordered aggregate keeps a sort
               -- buffer per group outside what DuckDB can spill
               list_sort(list_distinct(list(method))) AS methods,
               list_sort(list_distinct(list(model) FILTER (WHERE model IS NOT NULL))) AS models
               {per_status}
        FROM {source} GROUP BY triple_id"""


def entity_names_sql(sid: str) -> str:
    """Each node's display name and kind (``entity_names_at``)."""
    return f"SELECT id, display_name AS name, type FROM entity_names_at({sid})"


def edges_select_sql(sid: str, ev: str, conf: str | None, ent: str, all_statuses: bool) -> str:
    """The edges of snapshot ``sid`` from the relations named ``ev``, ``conf`` and ``ent``
    (CTEs or tables of :func:`edge_evidence_sql`, the confidence and :func:`entity_names_sql`;
    ``conf`` None: ``ev`` carries ``confidence`` itself): ``kg_edges`` keeps the triples with
    served evidence, ``kg_edges_all`` (``all_statuses``) every triple with its per-status
    counts."""
    status_cols = (
        ", " + ", ".join(f"coalesce(ev.n_{s}, 0) AS n_{s}" for s in EPISTEMIC)
        + ", coalesce(ev.n_verified_no, 0) AS n_verified_no"
        if all_statuses else ""
    )  # fmt: skip
    where = "" if all_statuses else "WHERE ev.triple_id IS NOT NULL"
    return f"""
        SELECT t.triple_id, t.head_id, h.name AS head_name, h.type AS head_type, t.relation,
               t.tail_id, x.name AS tail_name, x.type AS tail_type, t.metaedge,
               coalesce(ev.support, 0) AS support, coalesce(ev.n_evidence, 0) AS n_evidence,
               {"conf" if conf else "ev"}.confidence, ev.first_year, ev.last_year, ev.methods,
               ev.models {status_cols}
        FROM triples_at({sid}) t LEFT JOIN {ev} ev USING (triple_id)
        {f"LEFT JOIN {conf} conf USING (triple_id)" if conf else ""}
        LEFT JOIN {ent} h ON h.id = t.head_id LEFT JOIN {ent} x ON x.id = t.tail_id
        {where}"""


def edges_macro_sql(model: Mapping[str, Any], all_statuses: bool) -> str:
    """The body of ``kg_edges_at(sid)`` (``all_statuses``: ``kg_edges_all_at``)."""
    source = "evidence_status_at(sid)" if all_statuses else "served_evidence_at(sid)"
    return f"""
        WITH ev AS ({edge_evidence_sql(source, all_statuses)}),
        conf AS (  -- the calibrated model: the best row's P(supported)
            {edge_confidence_sql(model, "sid", served=not all_statuses)}),
        ent AS ({entity_names_sql("sid")})
        {edges_select_sql("sid", "ev", "conf", "ent", all_statuses)}"""


def stage_edges(
    con: duckdb.DuckDBPyConnection, sid: str, model: Mapping[str, Any], triples: str
) -> str:
    """Make :data:`STAGED` on ``con`` for snapshot ``sid`` (temporary tables: a read-only
    catalog allows them) and return the SELECT of ``kg_edges`` over them, with ``$sid`` as its
    parameter. ``triples``: a table of the triples with their support, made beforehand
    (:func:`kgbuild.export.source.prepare_triples`), which the confidence features join.

    One 1M-row join per query: the evidence figures, the confidence, the two joined (``evc``),
    then the triples with ``evc`` and the names. Measured on the 1M-triple bench snapshot under
    384 MB: 3 of 3 runs, where the single plan of the view ran out in most."""
    params = {"sid": sid}
    parts = {
        "ev": edge_evidence_sql("served_evidence_at($sid)", False),
        "conf": edge_confidence_sql(model, "$sid", served=True, triples=triples),
        "ent": entity_names_sql("$sid"),
    }
    for key, sql in parts.items():
        con.execute(f"CREATE OR REPLACE TEMP TABLE {STAGED[key]} AS {sql}", params)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE {STAGED['evc']} AS SELECT ev.*, conf.confidence "
        f"FROM {STAGED['ev']} ev LEFT JOIN {STAGED['conf']} conf USING (triple_id)"
    )
    for key in ("ev", "conf"):
        con.execute(f"DROP TABLE {STAGED[key]}")
    return edges_select_sql("$sid", STAGED["evc"], None, STAGED["ent"], False)
