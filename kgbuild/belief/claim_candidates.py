"""Where a claim may be read: candidate mention pairs of one sentence, and the sentence cited.

Every pair of annotated mentions of one document whose concepts are two KG nodes and whose
gap is at most :data:`~kgbuild.belief.claims_grammar.MAX_MID` characters with no sentence
boundary in it is a candidate (:func:`candidate_ctes`); the sentence around it is cut by the
rule of the extractors' splitter (:data:`BOUNDARY`, abbreviations such as "e.g." and "vs."
masked: :data:`ABBREVIATIONS`), read within :data:`WINDOW` characters of the pair, and shown
whole for the rows read only (:func:`cited_sql`). SQL only: the reading of the pieces is the
claim reader's (:mod:`kgbuild.belief.claims_read_sql`), the assembly of the claims
:mod:`kgbuild.belief.snapshot_claims`'s.
"""

from __future__ import annotations

from kgbuild.belief.claims_grammar import MAX_MID
from kgbuild.belief.claims_read_sql import norm_sql, sql_literal

#: Longest text of a sentence read before the first mention and after the second (a sentence
#: longer than that is read from this far back: a cheap bound on the string work per row).
WINDOW = 200
#: Longest text searched for the cited sentence's ends (the sentence shown whole, found only
#: for the rows read).
SENTENCE_CHARS = 2000
#: A sentence boundary (on the masked text, :func:`_mask_sql`): . ! ? (closing quotes or
#: brackets) whitespace, then an upper-case letter, digit or bracket — the rule of
#: :func:`kgbuild.extract.sentences.sentence_spans`, which cut the extractor's sentences.
_END, _WS, _NEXT = r"""[.!?]["')\]]*\s+""", r"\s+", r"""[A-Z0-9(\["']"""
BOUNDARY = _END + _NEXT
_LAST_BOUNDARY = f"^(.*{_END}){_NEXT}"  # greedy: the last boundary of a window
_FIRST_BOUNDARY = f"^(.*?{_END[: -len(_WS)]}){_WS}{_NEXT}"  # lazy: the first one
#: Words whose period is no sentence end (the splitter's list, and single letters: "vitamin
#: E. The" stays one sentence there too).
ABBREVIATIONS = (
    "e\\.g", "i\\.e", "et", "al", "vs", "fig", "figs", "ref", "refs", "no", "approx", "ca", "cf",
    "dr", "mr", "mrs", "ms", "prof", "st", "sp", "spp", "resp", "eq", "eqs", "vol", "inc", "ltd",
    "co", "jr", "sr", "[a-z]",
)  # fmt: skip


def _mask_sql(expr: str) -> str:
    """``expr`` with the period of every abbreviation (:data:`ABBREVIATIONS`) replaced by
    ``_``: the same length, so offsets found in it index the text itself."""
    words = "|".join(ABBREVIATIONS)
    return f"regexp_replace({expr}, '(^|[^A-Za-z])({words})\\.', '\\1\\2_', 'gi')"


def candidate_ctes(sid: str, fits: str) -> str:
    """The CTEs (``ment`` … ``cut``) of every candidate of snapshot ``sid``: a pair of
    annotated mentions of two KG nodes in one sentence, the second starting at most
    :data:`MAX_MID` characters after the first ends, whose normalized text between (``mid``)
    passes the SQL condition ``fits``; ``cut`` holds its pieces (``pre``, ``mid``, ``post``),
    ``s0`` (where its sentence starts) and the document's ``text``."""
    last, first, boundary = (sql_literal(p) for p in (_LAST_BOUNDARY, _FIRST_BOUNDARY, BOUNDARY))
    return f"""
WITH ment AS (
    SELECT DISTINCT m.pmid, m.start AS s, m."end" AS e, m.text, m.concept_id AS id
    FROM mentions_at({sid}) m
    WHERE m.concept_id IN (SELECT id FROM entities_at({sid})) AND m."end" > m.start),
doc AS (
    SELECT pmid, year, title || ' ' || abstract AS text, length(title) AS tlen
    FROM documents_at({sid})),
pair AS MATERIALIZED (
    SELECT a.pmid, a.s AS s1, a.e AS e1, b.s AS s2, b.e AS e2, a.id AS id1, b.id AS id2,
           a.text AS t1, b.text AS t2, d.year, d.tlen,
           lower(substr(d.text, a.e + 1, b.s - a.e)) AS lmid
    FROM ment a JOIN ment b ON b.pmid = a.pmid AND b.s >= a.e AND b.s - a.e <= {MAX_MID}
         AND b.id <> a.id
    JOIN doc d ON d.pmid = a.pmid
    WHERE a.e <= d.tlen OR a.s > d.tlen),
fit AS MATERIALIZED (
    SELECT * FROM (SELECT * EXCLUDE (lmid), {norm_sql("lmid")} AS mid FROM pair
                   WHERE e2 <= tlen OR s1 > tlen)
    WHERE {fits}),
one AS MATERIALIZED (
    -- the document's text joins again only here: carried through the cuts above, every
    -- candidate pair would copy its abstract
    SELECT f.*, d.text,
           -- where the window before the first mention starts: WINDOW back, not before the
           -- abstract when the pair is in it
           greatest(s1 - {WINDOW}, CASE WHEN s1 > f.tlen THEN f.tlen + 1 ELSE 0 END) AS w0,
           least(e2 + {WINDOW}, CASE WHEN e2 <= f.tlen THEN f.tlen ELSE length(d.text) END)
             AS w1
    FROM fit f JOIN doc d ON d.pmid = f.pmid),
sent AS (
    SELECT *,
           w0 + length(regexp_extract({_mask_sql("substr(text, w0 + 1, s1 - w0 + 1)")},
                                      {last}, 1)) AS s0,
           regexp_extract({_mask_sql("substr(text, e2 + 1, w1 - e2)")},
                          {first}, 1) AS after_cut
    FROM one
    WHERE NOT regexp_matches({_mask_sql("substr(text, e1 + 1, s2 - e1)")}, {boundary})),
cut AS MATERIALIZED (
    SELECT *, {norm_sql("substr(text, s0 + 1, s1 - s0)")} AS pre,
           {norm_sql("post_raw")} || ' ' AS post
    FROM (SELECT *, CASE WHEN after_cut = '' THEN substr(text, e2 + 1, w1 - e2)
                         ELSE after_cut END AS post_raw FROM sent))"""


def cited_sql(rows: str) -> str:
    """The SELECT of ``rows`` (candidates of :func:`candidate_ctes`) with ``sentence``: the
    sentence around the pair, whole, found again on a longer window (for the rows read only)."""
    last, first = sql_literal(_LAST_BOUNDARY), sql_literal(_FIRST_BOUNDARY)
    return f"""
    SELECT *, trim(substr(text, c0 + 1, c1 - c0)) AS sentence
    FROM (SELECT *,
                 x0 + length(regexp_extract({_mask_sql("substr(text, x0 + 1, s1 - x0 + 1)")},
                                            {last}, 1)) AS c0,
                 e2 + coalesce(nullif(length(regexp_extract(
                     {_mask_sql("substr(text, e2 + 1, x1 - e2)")}, {first}, 1)),
                     0), x1 - e2) AS c1
          FROM (SELECT *, greatest(s1 - {SENTENCE_CHARS},
                                   CASE WHEN s1 > tlen THEN tlen + 1 ELSE 0 END) AS x0,
                       least(e2 + {SENTENCE_CHARS},
                             CASE WHEN e2 <= tlen THEN tlen ELSE length(text) END) AS x1
                FROM {rows}))"""


__all__ = ["ABBREVIATIONS", "BOUNDARY", "SENTENCE_CHARS", "WINDOW", "candidate_ctes", "cited_sql"]
