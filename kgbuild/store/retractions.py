"""Retracted papers in the catalog's SQL: not served from the snapshot that records them on.

A paper PubMed marked retracted before kgbuild fetched it never becomes a document (ingest
rejects it: ``doc_status``). A paper built in an earlier year and retracted since is recorded in
the ``retractions`` table by the build of a later snapshot (:mod:`kgbuild.pipeline.retractions`,
PubMed sources only); from that snapshot on its evidence is not served. Earlier snapshots keep
serving it: they are the KG as the literature stood then, and a snapshot never changes.

Where the exclusion goes: every reader that means "served" decides it from the status of
``evidence_status_at`` — ``served_evidence_at`` (``kg_edges``), the confidence model's served rows
and its ``support`` feature (:mod:`kgbuild.belief.confidence`), the export's evidence stream
(:mod:`kgbuild.export.source`), the belief model (:mod:`kgbuild.belief.history`). Filtering
``served_evidence_at`` alone would leave those four serving the paper (and the export would stop
on evidence of a triple it no longer lists). So a retracted paper's rows get the status
:data:`RETRACTED` in ``evidence_status_at`` (:func:`evidence_status_sql`): none of them is
asserted any more, ``kg_edges_all`` counts them (``n_retracted``), and ``evidence_at`` keeps what
the sentence itself said. The join is a hash join whose build side is the retracted PMIDs (a
handful), so the evidence still streams.

``retracted_at(sid)`` lists a snapshot's retracted papers with what they supported, and
``retractions_diff(a, b)`` the papers retracted between two snapshots
(:func:`define_retraction_views`).
"""

from __future__ import annotations

import duckdb

from kgbuild.store.curations import CURATED_OUT, demoted_sql

#: The status a retracted paper's evidence rows read as in ``evidence_status_at``.
RETRACTED = "retracted"
#: How a PMID's rows sort: numerically for PubMed's digit-only ids, without a cast that fails on
#: another source's ids.
PMID_ORDER = "length(pmid), pmid"


def retracted_pmids_sql(sid: str = "sid") -> str:
    """The distinct PMIDs snapshot ``sid`` records as retracted (an SQL query)."""
    return f"SELECT DISTINCT pmid AS _retracted_pmid FROM retractions_at({sid})"


def evidence_status_sql(sid: str = "sid") -> str:
    """The body of the catalog's ``evidence_status_at(sid)`` with retractions applied: as
    before (``epistemic`` 'unclassified' and ``verified`` '' for rows of parts older than issue
    24), except that every row of a paper ``retractions_at(sid)`` records reads as
    :data:`RETRACTED`, and a sentence a curator took out (:mod:`kgbuild.store.curations`) as
    ``curated_out``. A LEFT JOIN, not NOT IN: DuckDB streams the evidence past the small
    hash table of retracted PMIDs."""
    return f"""
        SELECT e.* REPLACE (
                   CASE WHEN r._retracted_pmid IS NOT NULL THEN '{RETRACTED}'
                        WHEN c._c_pmid IS NOT NULL
                             AND list_contains(c._c_md5s, md5(e.sentence)) THEN '{CURATED_OUT}'
                        ELSE coalesce(e.epistemic, 'unclassified') END AS epistemic,
                   coalesce(e.verified, '') AS verified)
        FROM (SELECT * FROM evidence_at({sid}) UNION ALL BY NAME
              SELECT NULL::VARCHAR AS epistemic, NULL::VARCHAR AS epistemic_cue,
                     NULL::VARCHAR AS verified, NULL::DOUBLE AS verifier_score WHERE false) e
        LEFT JOIN ({retracted_pmids_sql(sid)}) r ON r._retracted_pmid = e.pmid
        LEFT JOIN ({demoted_sql()}) c
          ON c._c_pmid = e.pmid AND c._c_triple = e.triple_id
    """


def retracted_sql(sid: str = "sid") -> str:
    """One row per paper snapshot ``sid`` records as retracted: its document (publication
    year, title, journal), when and how the retraction was found, and what the paper had
    supported — evidence rows and triples, the triples it asserted, and how many of those
    ``kg_edges`` no longer serves (no other paper asserts them)."""
    return f"""
        WITH r AS (SELECT * FROM retractions_at({sid})),
        ev AS (
            SELECT e.pmid, e.triple_id,
                   coalesce(e.epistemic, 'unclassified') IN ('asserted', 'unclassified')
                     AND coalesce(e.verified, '') <> 'no' AS asserted
            FROM (SELECT * FROM evidence_at({sid}) UNION ALL BY NAME
                  SELECT NULL::VARCHAR AS epistemic, NULL::VARCHAR AS verified WHERE false) e
            SEMI JOIN r ON r.pmid = e.pmid),
        served AS (SELECT DISTINCT triple_id FROM served_evidence_at({sid})),
        per AS (
            SELECT ev.pmid, count(*) AS n_evidence, count(DISTINCT ev.triple_id) AS n_triples,
                   count(DISTINCT ev.triple_id) FILTER (WHERE ev.asserted) AS n_asserted,
                   count(DISTINCT ev.triple_id)
                     FILTER (WHERE ev.asserted AND s.triple_id IS NULL) AS n_unserved
            FROM ev LEFT JOIN served s ON s.triple_id = ev.triple_id
            GROUP BY ev.pmid)
        SELECT r.pmid, d.year AS publication_year, d.title, d.journal, r.checked_year,
               r.source, r.reason,
               coalesce(per.n_evidence, 0) AS n_evidence,
               coalesce(per.n_triples, 0) AS n_triples,
               coalesce(per.n_asserted, 0) AS n_triples_asserted,
               coalesce(per.n_unserved, 0) AS n_triples_unserved
        FROM r LEFT JOIN documents_at({sid}) d ON d.pmid = r.pmid
        LEFT JOIN per ON per.pmid = r.pmid
        ORDER BY length(r.pmid), r.pmid
    """


def retractions_diff_sql(a: str = "a", b: str = "b") -> str:
    """The papers retracted between snapshots ``a`` and ``b``: ``added`` — recorded in ``b``
    and not in ``a`` (retracted since ``a``, when ``a`` is an ancestor of ``b``) — and
    ``removed`` (recorded in ``a`` only: ``b`` is on another lineage, or older)."""
    return f"""
        SELECT 'added' AS change, n.* FROM retractions_at({b}) n
        ANTI JOIN retractions_at({a}) o ON o.pmid = n.pmid
        UNION ALL
        SELECT 'removed' AS change, o.* FROM retractions_at({a}) o
        ANTI JOIN retractions_at({b}) n ON n.pmid = o.pmid
        ORDER BY change, length(pmid), pmid
    """


def define_retraction_views(con: duckdb.DuckDBPyConnection, create: str) -> None:
    """``retracted_at(sid)`` (:func:`retracted_sql`) and ``retractions_diff(a, b)``
    (:func:`retractions_diff_sql`); ``create`` as the catalog's ``rebuild_views`` says it
    (``CREATE OR REPLACE`` or ``CREATE OR REPLACE TEMP``). Call after ``served_evidence_at``
    exists: ``retracted_at`` reads it."""
    con.execute(f"{create} MACRO retracted_at(sid) AS TABLE {retracted_sql('sid')}")
    con.execute(f"{create} MACRO retractions_diff(a, b) AS TABLE {retractions_diff_sql()}")
