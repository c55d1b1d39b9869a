"""Facts the literature disagrees on, both sides cited (``kgbuild conflicts``).

A conflict is about one oriented pair of concepts, subject → object, and stands on sentences
that *state* a claim between the two, as written — read by the claim reader of
:mod:`kgbuild.belief.claims_read` (a few explicit templates over the text before, between and
after the two mentions: "X reduces Y", "Y was increased by X", "X-induced Y", "the Y inhibitor
X", "X did not affect Y", "no association between X and Y"…). Two kinds:

- ``opposite_direction`` — sentences read as "X raises Y" (side A: increases, induces,
  X-induced Y, a risk factor for, positively correlated) against sentences read as "X lowers
  Y" (side B: reduces, inhibits, prevents, an inhibitor of, negatively correlated);
- ``negated`` — sentences claiming an effect or an association (side A) against explicit
  denials of it (side B): "X did not affect Y", "Y was unaffected by X", "X had no effect on
  Y", "X reduced A without affecting Y" deny an effect ("X did not increase Y" only an
  increase); "X was not associated with Y", "X and Y were not correlated" deny any claim
  about the two. Group comparisons ("did not differ between X+ and X- groups") are read by
  no template.

The claims a conflict stands on are read by :mod:`kgbuild.belief.snapshot_claims` (every
sentence where both concepts are mentioned, not only the one an extractor cited; the
candidates: :mod:`kgbuild.belief.claim_candidates`); the listed conflicts as records:
:mod:`kgbuild.belief.conflict_report`.

The orientation is the sentence's (the subject of the template). Symmetric claims
(correlations, associations) count in both orientations; a conflict of symmetric rows only is
listed once. ``triples_a``/``triples_b`` are the KG triples joining the pair (either
orientation) cited by a paper of that side: what the belief (``status`` 'contested') and
retrieval mark.

Measured: the reader's sign precision on BioRED gold (``bench/claim_reader_gold.py``: Train,
where it was tuned, and Dev, held out) and the blind judging sheet of listed DALK conflicts
(``bench/conflicts_sample.py``). Narrow by design (a missed claim costs a conflict, a misread
one lists a false one): on the DALK warehouse (9,764 abstracts; 140k candidate mention pairs)
it reads 991 claims in 846 sentences of 679 papers over 806 oriented pairs, and lists 2
conflicts (1 negated, 1 opposite_direction) — few pairs are read in two papers at all.

One SQL statement (:func:`conflicts_sql`): the candidate pairs, the cheap cuts, the reading,
the sides, their counts and first years and the cited sentences are computed in DuckDB. Each
side lists at most :data:`SIDE_ROWS` sentences, one per PMID, best first: the strongest
template (:data:`~kgbuild.belief.snapshot_claims.STRENGTH`: a verb stating the effect before a
nominal or correlational construction before a bare association), then the newest.
"""

from __future__ import annotations

from typing import Literal

import duckdb

from kgbuild.belief.claims_read_sql import sql_literal
from kgbuild.belief.claims_templates import AFFIRM, CONTRADICTS, DENY
from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS, ConflictFilters, claims_sql

#: The conflict kinds, in the order they are listed.
KINDS = ("negated", "opposite_direction")
Kind = Literal["negated", "opposite_direction"]
#: Cited rows listed per side (one per PMID, best first).
SIDE_ROWS = 3


def _side_sql(rows: str) -> str:
    """Per (kind, key, side): counts, first year, what was read and the best rows (one per
    PMID) of ``rows``."""
    ev = (
        "{'pmid': pmid, 'year': year, 'sentence': sentence, 'subject_text': subj_text, "
        "'object_text': obj_text, 'template': template, 'polarity': polarity}"
    )
    return f"""
    SELECT kind, subj, subj_var, subj_meas, obj, obj_var, obj_meas, side,
           count(DISTINCT pmid) AS n_pmids,
           count(*) AS n_rows, min(year) AS first_year,
           bool_and(is_symmetric) AS all_symmetric,
           list(DISTINCT pmid) AS pmids,
           list_sort(list_distinct(list(polarity))) AS polarities,
           list_sort(list_distinct(list(template))) AS templates,
           list({ev} ORDER BY rank_key DESC) FILTER (WHERE pmid_rank = 1) AS evidence
    FROM (SELECT *, row_number() OVER (PARTITION BY kind, subj, subj_var, subj_meas, obj,
                                       obj_var, obj_meas, side, pmid ORDER BY rank_key DESC)
                    AS pmid_rank
          FROM {rows})
    GROUP BY kind, subj, subj_var, subj_meas, obj, obj_var, obj_meas, side"""


def _contradicted_sql() -> tuple[str, str]:
    """(affirmation, denial) SQL conditions of a claim row on a key with the ``has_<polarity>``
    flags: the row is contradicted by some row of the other side (:data:`CONTRADICTS`)."""
    affirm = []
    for a in AFFIRM:
        by = [d for d in DENY if a in CONTRADICTS[d]]
        affirm.append(f"(polarity = {sql_literal(a)} AND ({' OR '.join(f'has_{d}' for d in by)}))")
    deny = [
        f"(polarity = {sql_literal(d)} AND ({' OR '.join(f'has_{a}' for a in CONTRADICTS[d])}))"
        for d in DENY
    ]
    return " OR ".join(affirm), " OR ".join(deny)


def conflicts_sql(
    sid: str = "sid", filters: ConflictFilters = DEFAULT_FILTERS, claims: str | None = None
) -> str:
    """The SELECT of every conflict of snapshot ``sid`` (an SQL expression: the ``sid`` of a
    macro, a quoted id, a ``$sid`` parameter), one row per (kind, subject, object), with the
    columns of :class:`~kgbuild.belief.conflict_report.Conflict` (``evidence_a``/``evidence_b``:
    lists of structs, best first; ``triples_a``/``triples_b``: the KG triples joining the pair,
    either orientation, that cite a paper of that side). ``claims``: a SELECT of the claims with
    :func:`claims_sql`'s columns (another reader's,
    :func:`~kgbuild.belief.snapshot_claims.claims_from_sql`); default the template reader's."""
    flags = ", ".join(f"bool_or(polarity = {sql_literal(p)}) AS has_{p}" for p in (*AFFIRM, *DENY))
    affirm_hit, deny_hit = _contradicted_sql()
    key = "subj, subj_var, subj_meas, obj, obj_var, obj_meas"
    both = (
        f"""
    -- a paper on both sides of a conflict joins neither (two conditions, or an ambiguous
    -- sentence, not a disagreement between papers)
    QUALIFY count(DISTINCT side) OVER (PARTITION BY kind, {key}, pmid) = 1"""
        if filters.cross_paper
        else ""
    )
    return f"""
WITH c AS MATERIALIZED ({claims or claims_sql(sid, filters)}),
keyed AS (SELECT * FROM c JOIN (SELECT {key}, {flags} FROM c GROUP BY {key}) USING ({key})),
rows AS (
    SELECT * FROM (
        SELECT 'opposite_direction' AS kind, CASE WHEN polarity = 'up' THEN 'a' ELSE 'b' END
               AS side, * FROM keyed WHERE (polarity = 'up' AND has_down)
                                        OR (polarity = 'down' AND has_up)
        UNION ALL BY NAME
        SELECT 'negated' AS kind, 'a' AS side, * FROM keyed WHERE {affirm_hit}
        UNION ALL BY NAME
        SELECT 'negated' AS kind, 'b' AS side, * FROM keyed WHERE {deny_hit}){both}),
ranked AS (SELECT *, (strength, year, pmid, sentence) AS rank_key FROM rows),
sides AS ({_side_sql("ranked")}),
pairs AS (
    SELECT a.*, b.n_pmids AS n_b, b.n_rows AS rows_b, b.first_year AS first_year_b,
           b.polarities AS polarities_b, b.templates AS templates_b, b.pmids AS pmids_b,
           b.evidence AS evidence_b
    FROM sides a JOIN sides b ON b.kind = a.kind AND b.subj = a.subj
         AND b.subj_var = a.subj_var AND b.subj_meas = a.subj_meas AND b.obj = a.obj
         AND b.obj_var = a.obj_var AND b.obj_meas = a.obj_meas AND b.side = 'b'
    WHERE a.side = 'a'
      -- a conflict of symmetric claims only is listed once, in the (lower, higher) order
      AND NOT (a.all_symmetric AND b.all_symmetric
               AND (a.subj, a.subj_var, a.subj_meas) > (a.obj, a.obj_var, a.obj_meas))),
-- the pair's triples (either orientation) and the papers citing them
cited AS (
    SELECT DISTINCT t.triple_id, t.head_id, t.tail_id, e.pmid
    FROM triples_at({sid}) t JOIN evidence_at({sid}) e ON e.triple_id = t.triple_id
    WHERE (t.head_id, t.tail_id) IN (SELECT (subj, obj) FROM pairs)
       OR (t.tail_id, t.head_id) IN (SELECT (subj, obj) FROM pairs)),
trip AS (
    SELECT p.kind, p.subj, p.subj_var, p.subj_meas, p.obj, p.obj_var, p.obj_meas,
           list_sort(list(DISTINCT c.triple_id) FILTER (WHERE list_contains(p.pmids, c.pmid)))
             AS triples_a,
           list_sort(list(DISTINCT c.triple_id) FILTER (WHERE list_contains(p.pmids_b, c.pmid)))
             AS triples_b
    FROM pairs p JOIN cited c ON (c.head_id = p.subj AND c.tail_id = p.obj)
                              OR (c.head_id = p.obj AND c.tail_id = p.subj)
    GROUP BY ALL),
names AS (SELECT id, display_name FROM entity_names_at({sid}))
SELECT p.kind, p.subj AS head_id, hn.display_name AS head_name, p.subj_var AS head_variant,
       p.subj_meas AS head_measure, p.obj AS tail_id, tn.display_name AS tail_name,
       p.obj_var AS tail_variant, p.obj_meas AS tail_measure,
       p.polarities AS polarities_a, p.polarities_b, p.templates AS templates_a, p.templates_b,
       p.n_pmids AS n_a, p.n_b, p.n_rows AS rows_a, p.rows_b,
       p.first_year AS first_year_a, p.first_year_b,
       greatest(p.first_year, p.first_year_b) AS year_appeared,
       coalesce(t.triples_a, []::VARCHAR[]) AS triples_a,
       coalesce(t.triples_b, []::VARCHAR[]) AS triples_b,
       p.evidence[1:{SIDE_ROWS}] AS evidence_a, p.evidence_b[1:{SIDE_ROWS}] AS evidence_b
FROM pairs p
LEFT JOIN trip t ON t.kind = p.kind AND t.subj = p.subj AND t.subj_var = p.subj_var
     AND t.subj_meas = p.subj_meas AND t.obj = p.obj AND t.obj_var = p.obj_var
     AND t.obj_meas = p.obj_meas
LEFT JOIN names hn ON hn.id = p.subj
LEFT JOIN names tn ON tn.id = p.obj
"""


#: The order conflicts are listed in: the most cited on both sides first (a conflict between
#: ten papers and eight says more than one between one and one), then the newest.
ORDER_BY = "least(n_a, n_b) DESC, n_a + n_b DESC, year_appeared DESC, head_id, tail_id, kind"


def define_conflict_views(con: duckdb.DuckDBPyConnection, create: str) -> None:
    """Create the macro ``conflicts_at(sid)`` (every conflict of a snapshot, with the default
    :class:`ConflictFilters`) and the view ``conflicts`` (of ``head_snapshot()``). ``create``:
    ``CREATE OR REPLACE`` or ``CREATE OR REPLACE TEMP`` (what ``catalog.rebuild_views`` uses).
    Needs the macros ``rebuild_views`` defines first (evidence_status_at, entity_names_at…)."""
    con.execute(f"{create} MACRO conflicts_at(sid) AS TABLE {conflicts_sql('sid')}")
    con.execute(f"{create} VIEW conflicts AS SELECT * FROM conflicts_at(head_snapshot())")


def contested_triples_sql(sid: str = "sid") -> str:
    """A SELECT of ``triple_id``: every triple cited on either side of a conflict of snapshot
    ``sid`` (default filters), for the query module to mark a fact as contested."""
    return (
        f"SELECT DISTINCT unnest(triples_a || triples_b) AS triple_id FROM ({conflicts_sql(sid)})"
    )


def contested_triples(con: duckdb.DuckDBPyConnection, sid: str) -> set[str]:
    """The triples of snapshot ``sid`` cited on either side of a conflict: the triples whose
    evidence rows were read on a side (a claim, a denial, either direction). Served
    with a "contested" mark, not hidden: the user sees there is disagreement."""
    return {r[0] for r in con.execute(contested_triples_sql("$sid"), {"sid": sid}).fetchall()}


__all__ = [
    "KINDS",
    "ORDER_BY",
    "conflicts_sql",
    "contested_triples",
    "contested_triples_sql",
    "define_conflict_views",
]
