"""Belief in each fact as the literature stood in each year.

Every snapshot is the KG as it stood at the end of its year, and every evidence row keeps its
epistemic status, so "what did the literature support in 2015" is a query over the 2015
snapshot: per triple, the asserted / hedged (hypothesis) / negated evidence rows and their
distinct PMIDs, and a belief.

The aggregation is INDRA's belief model (Gyori et al. 2017, *Mol Syst Biol* 13:954, "From word
models to executable models of signaling networks using automated assembly", Methods: "belief
scores"; INDRA's ``BeliefEngine``/``SimpleScorer``): a statement is wrong only if every piece
of evidence for it is wrong, and evidence is wrong either at random (independently per piece)
or systematically (one error shared by all pieces: the same reader misreading the same
phrasing in every abstract). With ``p_k`` the probability that paper ``k`` states the fact
and ``ε`` the systematic error rate::

    P(every reading wrong) = ε + (1 − ε) · ∏_k (1 − p_k)
    belief_for             = 1 − P(every reading wrong) = (1 − ε) · (1 − ∏_k (1 − p_k))

Where INDRA uses one hand-set random-error rate per reader, ``p_k`` here is measured: the
calibrated evidence confidence (:mod:`kgbuild.belief.confidence`: the fitted model's
P(the sentence states the triple) where the model covers the method, the extractor's own
probability otherwise) of paper ``k``'s best row as of that snapshot. Rows of one paper are one
reading (they repeat each other), so a paper counts once. ``ε`` = :data:`SYSTEMATIC_ERROR`,
INDRA's default systematic error of its text-mining readers (``default_belief_probs.json``:
``syst`` 0.05 for REACH, Sparser, TRIPS…); it caps a belief below 0.95 however many papers
agree, which is the point: a thousand abstracts read by one classifier share its blind spots.

Negated evidence (INDRA has none: its handling is an open pull request) is aggregated the same
way into ``belief_against`` — each negated row priced as the probability that its sentence
states the (negative) relation about the pair, i.e. the same model with the row read as
stated. The two are combined by Dempster's rule (Dempster 1967; Shafer 1976, *A Mathematical
Theory of Evidence*, ch. 3: two simple support functions, one for the fact and one against)::

    belief = belief_for · (1 − belief_against) / (1 − belief_for · belief_against)

so one negating abstract against twenty-four asserting ones lowers the belief (0.95 → 0.89
at belief_against 0.58) rather than overturning it, and two equal sides meet in the middle.

Whether a fact is *contested* is not this module's call: that is what the ``conflicts`` view
reads (:mod:`kgbuild.belief.conflicts`: a sentence read as stating the claim against one read
as denying it or stating the opposite direction), which ``kgbuild diff`` and retrieval add to
the status. Kept apart because reading every co-mention sentence costs a second and a half
on the DALK KG and ``belief_at`` answers in 0.2 s; a negated row weighs on the belief here,
by its probability, whatever the reading.

The belief of a snapshot's rows is calibrated row by row by ``kgbuild audit score`` (its
``by_year`` table: the judged rows present in each year's snapshot, with that year's
probabilities — what the belief of that year is built from).
"""

from __future__ import annotations

import duckdb

from kgbuild.belief.confidence import confidence_sql, load_model, row_features_sql
from kgbuild.belief.history_key import define_history_key

#: INDRA's default systematic error rate of a text-mining reader (see the module docstring).
SYSTEMATIC_ERROR = 0.05
#: A probability is clipped below 1 before ln(1 − p): one row at P = 1.0 must not make
#: ln(0) of the whole product.
_P_MAX = 0.999999

#: The statuses a fact can have in one snapshot (``kgbuild diff`` adds ``contested``: listed by
#: the ``conflicts`` view).
FACT_STATUSES = ("asserted", "hedged", "negated", "unasserted")


def _or(p: str) -> str:
    """INDRA's aggregation of per-paper probabilities ``p`` (an SQL column, NULL for papers
    that do not bear on this side) into P(some reading right), as an aggregate expression."""
    # not least(p, max): DuckDB's least() skips NULLs, and a NULL here means "no such paper"
    clipped = f"CASE WHEN {p} > {_P_MAX} THEN {_P_MAX} ELSE {p} END"
    prod = f"exp(sum(ln(1 - {clipped})))"
    return f"coalesce((1 - {SYSTEMATIC_ERROR}) * (1 - {prod}), 0)"


def belief_sql(sid: str = "sid") -> str:
    """The belief rows of snapshot ``sid`` (an SQL expression): one row per triple."""
    model = load_model()
    stated = confidence_sql(model)
    return f"""
WITH r AS (
    SELECT triple_id, pmid, year, epistemic, verified, {stated} AS p,
           -- a negated row priced as if stated: P(the sentence says it — negatively)
           CASE WHEN epistemic = 'negated' THEN {stated.replace("epistemic_negated", "0.0")}
           END AS p_negated
    FROM ({row_features_sql(sid, extra=("e.year",))})),
paper AS (
    SELECT triple_id, pmid, min(year) AS year,
           max(p) FILTER (WHERE epistemic = 'asserted' AND verified <> 'no') AS p_for,
           max(p_negated) AS p_against,
           count(*) FILTER (WHERE epistemic = 'asserted' AND verified <> 'no') AS n_for,
           count(*) FILTER (WHERE epistemic = 'hypothesis') AS n_hedged,
           count(*) FILTER (WHERE epistemic = 'negated') AS n_negated
    FROM r GROUP BY triple_id, pmid),
agg AS (
    SELECT triple_id,
           sum(n_for)::BIGINT AS n_asserted, count(p_for) AS pmids_asserted,
           sum(n_hedged)::BIGINT AS n_hedged, count(*) FILTER (WHERE n_hedged > 0) AS pmids_hedged,
           sum(n_negated)::BIGINT AS n_negated, count(p_against) AS pmids_negated,
           min(year) FILTER (WHERE p_for IS NOT NULL) AS first_asserted,
           min(year) FILTER (WHERE p_against IS NOT NULL) AS first_negated,
           {_or("p_for")} AS belief_for, {_or("p_against")} AS belief_against
    FROM paper GROUP BY triple_id),
ent AS (SELECT id, display_name AS name FROM entity_names_at({sid}))
SELECT t.triple_id, t.head_id, h.name AS head_name, t.relation, t.tail_id, x.name AS tail_name,
       a.n_asserted, a.pmids_asserted, a.n_hedged, a.pmids_hedged, a.n_negated, a.pmids_negated,
       a.first_asserted, a.first_negated,
       round(a.belief_for, 4) AS belief_for, round(a.belief_against, 4) AS belief_against,
       round(a.belief_for * (1 - a.belief_against)
             / (1 - a.belief_for * a.belief_against), 4) AS belief,
       CASE WHEN a.pmids_asserted > 0 THEN 'asserted'
            WHEN a.pmids_hedged > 0 THEN 'hedged'
            WHEN a.pmids_negated > 0 THEN 'negated'
            ELSE 'unasserted' END AS status
FROM triples_at({sid}) t JOIN agg a USING (triple_id)
LEFT JOIN ent h ON h.id = t.head_id LEFT JOIN ent x ON x.id = t.tail_id"""


#: What DuckDB's ``typeof`` says of a whole number (a year must be one).
_WHOLE_NUMBER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                       "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")  # fmt: skip


def define_belief_views(con: duckdb.DuckDBPyConnection, create: str) -> None:
    """``belief_of(sid)``: the belief rows of one snapshot (view ``belief``: the head's);
    ``belief_at(year[, kg_name])``: of
    the snapshot of that year in the head's lineage (an error naming the years there are when
    there is none); ``belief_history(key[, kg_name])``: one row per snapshot year of the
    head's lineage and fact, that year's belief in the triple ``key`` names, or in every fact
    of the node it names (:mod:`kgbuild.belief.history_key`; a year a fact did not exist: no
    row; a key that names nothing: an error, never 0 rows)."""
    con.execute(f"{create} MACRO belief_of(sid) AS TABLE {belief_sql('sid')}")
    con.execute(f"{create} VIEW belief AS SELECT * FROM belief_of(head_snapshot())")
    # the years of a KG's head lineage, one snapshot per year (the nearest ancestor)
    con.execute(f"""
        {create} MACRO lineage_years(kg_name := NULL) AS TABLE
        SELECT s.as_of_year AS year, arg_min(s.snapshot_id, l.distance) AS snapshot_id
        FROM snapshot_lineage l JOIN snapshots s ON s.snapshot_id = l.ancestor_id
        WHERE l.snapshot_id = head_snapshot(kg_name := kg_name)
        GROUP BY s.as_of_year
    """)
    # arguments are checked before any work: a NULL year, an unknown KG, a year or an ID of
    # the wrong type, each one line naming what is valid (before: 0 rows, or a 30 s scan)
    con.execute(f"""
        {create} MACRO checked_kg(kg_name) AS (
            CASE WHEN kg_name IS NULL THEN NULL
                 WHEN typeof(kg_name) <> 'VARCHAR'
                      OR NOT EXISTS (SELECT 1 FROM snapshots WHERE kg = kg_name::VARCHAR)
                 THEN error('no KG named ' || kg_name::VARCHAR || '; the KGs there are: '
                            || coalesce((SELECT string_agg(DISTINCT kg, ', ' ORDER BY kg)
                                         FROM snapshots), 'none'))
                 ELSE kg_name::VARCHAR END)
    """)
    con.execute(f"""
        {create} MACRO checked_year(yr, fn) AS (
            CASE WHEN yr IS NULL
                 THEN error(fn || ': the year is NULL; give a whole year such as 2015')
                 WHEN typeof(yr) NOT IN ({", ".join(f"'{t}'" for t in _WHOLE_NUMBER_TYPES)})
                 THEN error(fn || ': the year must be a whole number such as 2015, not '
                            || typeof(yr) || ' ' || yr::VARCHAR)
                 ELSE yr::BIGINT END)
    """)
    define_history_key(con, create)
    # a year before the first snapshot or after the last is outside: an error, not silence
    # (after the last, the newest snapshot would answer for a year nobody has read yet)
    con.execute(f"""
        {create} MACRO belief_at(yr, kg_name := NULL) AS TABLE
        SELECT * FROM belief_of(coalesce(
            CASE WHEN checked_year(yr, 'belief_at') <= (SELECT max(year)
                      FROM lineage_years(kg_name := checked_kg(kg_name)))
                 THEN snapshot_asof(yr, kg_name := checked_kg(kg_name)) END,
            error('no snapshot of ' || coalesce(kg_name::VARCHAR, (SELECT kg FROM snapshots
                      WHERE snapshot_id = head_snapshot()), '?') || ' as of ' || yr
                  || '; the years there are: ' || coalesce((
                      SELECT string_agg(year::VARCHAR, ', ' ORDER BY year)
                      FROM lineage_years(kg_name := checked_kg(kg_name))), 'none'))))
    """)
    con.execute(f"""
        {create} MACRO belief_history(key, kg_name := NULL) AS TABLE
        SELECT y.year, y.snapshot_id, b.* EXCLUDE (triple_id), b.triple_id
        FROM lineage_years(kg_name := checked_kg(kg_name)) y,
             LATERAL (SELECT * FROM belief_of(y.snapshot_id)
                      WHERE list_has_any(history_key(key, checked_kg(kg_name)),
                                         [triple_id, head_id, tail_id])) b
        ORDER BY y.year, b.triple_id
    """)
