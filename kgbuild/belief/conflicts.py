"""Facts the literature disagrees on, both sides cited (issue 42, item 3; ``kgbuild conflicts``).

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

What is read: every sentence where both concepts are mentioned, not only the one an extractor
cited. The snapshot keeps every annotated mention (``mentions_at``: offsets into
``documents_at``'s title || ' ' || abstract); every pair of mentions of one document whose
concepts are two KG nodes (a mention's ``concept_id`` is its node id: the resolve stage wrote
the node id there — orthologs mapped to the human gene, mislinks dropped — keeping the
annotator's in ``annotator_id``) and whose gap is at most :data:`MAX_MID` characters with no
sentence boundary in it is a candidate; the sentence around it is cut by the rule of the
extractors' splitter (:data:`BOUNDARY`, abbreviations such as "e.g." and "vs." masked), and
its pieces go to the templates. The first version of this module read the one sentence per
(pair, abstract) an extractor cited and trusted its type; a blind skim found 2 of 50 listed
conflicts real (same direction with different things measured, the relation between other
entities of the sentence, the pair not stated). So: the extractor's types are not read at
all; the templates are strict on what surrounds the mentions (the object must not be a
modifier — "Abeta-induced toxicity", "APP/PS1 mice" —, the subject must not be inside a
larger phrase — "inhibition of X", "X knockdown"); what changes about the object (its
measure: "Y aggregation", "Y release", bare or "Y levels" — :data:`MEASURES`) is part of the
pair, so "X reduces Y aggregation" and "X increases Y levels" are not one conflict; a
mention's variant marker ("APOE4") is part of its concept; a sentence that asks, plans or
proposes is not read; and a paper read on both sides of a conflict joins neither.

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
template (:data:`STRENGTH`: a verb stating the effect before a nominal or correlational
construction before a bare association), then the newest.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import duckdb

from kgbuild.belief.claims_read import (
    AFFIRM,
    BY_NAME,
    CONTRADICTS,
    DENY,
    MAX_MID,
    TEMPLATES,
    VARIANT,
    blocked_sql,
    cue_sql,
    norm_sql,
    question_sql,
    template_sql,
    templates_values_sql,
    worth_reading_sql,
)
from kgbuild.errors import InputError

#: The conflict kinds, in the order they are listed.
KINDS = ("negated", "opposite_direction")
Kind = Literal["negated", "opposite_direction"]
#: Cited rows listed per side (one per PMID, best first).
SIDE_ROWS = 3


@dataclass(frozen=True, slots=True)
class ConflictFilters:
    """What is read (the defaults are what ``conflicts_at`` and the command use;
    ``bench/conflicts_sample.py`` and the tests change them to measure them).

    - ``templates``: the names of the :data:`kgbuild.belief.claims_read.TEMPLATES` read (a
      sentence no kept template reads joins no side);
    - ``variants``: a mention's variant marker ("APOE4") is part of its concept;
    - ``skip_hedged``: a sentence whose text before the first mention proposes or speculates
      (:data:`PRE_HEDGE`: "we propose that X reduces Y") is not read — a speculation
      contradicts nothing;
    - ``cross_paper``: a paper read on both sides of a conflict joins neither (an abstract
      stating both "X raised Y in young mice" and "X did not affect Y in old mice" reports
      two conditions, not a disagreement; a sentence read both ways is ambiguous).
    """

    templates: tuple[str, ...] = tuple(t.name for t in TEMPLATES)
    variants: bool = True
    skip_hedged: bool = True
    cross_paper: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "templates": list(self.templates)}


DEFAULT_FILTERS = ConflictFilters()

#: Text before the first mention that makes the sentence a proposal, not a finding.
PRE_HEDGE = r".*\b(?:propos[a-z]*|postulat[a-z]*|speculat[a-z]*|conceivabl[a-z]*)\b.*"
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
#: How strong a reading is, by template: a verb stating the effect (or denying it) first,
#: then nominal/correlational constructions, then a bare association. The best rows of a
#: side are the strongest, then the newest.
STRENGTH: dict[str, int] = {
    t.name: (
        3 if t.name.startswith(("active_", "passive_", "deny_"))
        else 1 if t.name == "associated" else 2
    )
    for t in TEMPLATES
}  # fmt: skip


#: What a claim says changes about a mention, by the measure noun written with it ("Y
#: levels", "the aggregation of Y"): the class is part of the conflict's key, so "X reduces Y
#: aggregation" and "X increases Y levels" (both can hold) are two pairs. Amounts (a bare
#: mention, its levels or expression) are one class, '', and so is the risk or incidence of a
#: disease ("X increases AD" and "X increases the risk of AD" say the same).
MEASURES: dict[str, str] = {
    **dict.fromkeys(("levels", "level", "expression", "content", "concentration",
                     "concentrations", "mrna", "protein", "number", "risk", "incidence"), ""),
    **dict.fromkeys(("production", "secretion", "release", "synthesis", "generation"),
                    "production"),
    **dict.fromkeys(("accumulation", "deposition", "plaques", "deposits", "burden", "load",
                     "pathology"), "deposition"),
    **dict.fromkeys(("activity", "activities"), "activity"),
    **dict.fromkeys(("severity", "progression", "development", "onset"), "progression"),
    "aggregation": "aggregation", "formation": "formation", "growth": "growth",
    "symptoms": "symptoms",
}  # fmt: skip
_MEASURE = "(" + "|".join(sorted(MEASURES, key=lambda w: (-len(w), w))) + ")"


def _measure_sql(before: str, after: str) -> str:
    """SQL: the measure class (:data:`MEASURES`) of a mention, from the normalized text
    ``before`` it (the last "<measure> of|for" there: "the levels of Y", "the risk of Y") or
    ``after`` it ("Y levels", "Y (abbrev) aggregation"); '' when none."""
    of = _q(".*[^a-z]" + _MEASURE + " (?:of|for) ")
    noun = _q("^(?:[ ]*[(][^()]*[)])?[ ]+" + _MEASURE + "[^a-z-]")
    word = (
        f"coalesce(nullif(regexp_extract({before}, {of}, 1), ''), "
        f"regexp_extract({after}, {noun}, 1))"
    )
    cases = " ".join(f"WHEN {_q(w)} THEN {_q(c)}" for w, c in MEASURES.items() if c)
    return f"(CASE {word} {cases} ELSE '' END)"


def _q(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _mask_sql(expr: str) -> str:
    """``expr`` with the period of every abbreviation (:data:`ABBREVIATIONS`) replaced by
    ``_``: the same length, so offsets found in it index the text itself."""
    words = "|".join(ABBREVIATIONS)
    return f"regexp_replace({expr}, '(^|[^A-Za-z])({words})\\.', '\\1\\2_', 'gi')"


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
        affirm.append(f"(polarity = {_q(a)} AND ({' OR '.join(f'has_{d}' for d in by)}))")
    deny = [
        f"(polarity = {_q(d)} AND ({' OR '.join(f'has_{a}' for a in CONTRADICTS[d])}))"
        for d in DENY
    ]
    return " OR ".join(affirm), " OR ".join(deny)


def _candidate_ctes(sid: str, fits: str) -> str:
    """The CTEs (``ment`` … ``cut``) of every candidate of snapshot ``sid``: a pair of
    annotated mentions of two KG nodes in one sentence, the second starting at most
    :data:`MAX_MID` characters after the first ends, whose normalized text between (``mid``)
    passes the SQL condition ``fits``; ``cut`` holds its pieces (``pre``, ``mid``, ``post``),
    ``s0`` (where its sentence starts) and the document's ``text``."""
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
                                      {_q(_LAST_BOUNDARY)}, 1)) AS s0,
           regexp_extract({_mask_sql("substr(text, e2 + 1, w1 - e2)")},
                          {_q(_FIRST_BOUNDARY)}, 1) AS after_cut
    FROM one
    WHERE NOT regexp_matches({_mask_sql("substr(text, e1 + 1, s2 - e1)")}, {_q(BOUNDARY)})),
cut AS MATERIALIZED (
    SELECT *, {norm_sql("substr(text, s0 + 1, s1 - s0)")} AS pre,
           {norm_sql("post_raw")} || ' ' AS post
    FROM (SELECT *, CASE WHEN after_cut = '' THEN substr(text, e2 + 1, w1 - e2)
                         ELSE after_cut END AS post_raw FROM sent))"""


def _cited_sql(rows: str) -> str:
    """The SELECT of ``rows`` (candidates of :func:`_candidate_ctes`) with ``sentence``: the
    sentence around the pair, whole, found again on a longer window (for the rows read only)."""
    return f"""
    SELECT *, trim(substr(text, c0 + 1, c1 - c0)) AS sentence
    FROM (SELECT *,
                 x0 + length(regexp_extract({_mask_sql("substr(text, x0 + 1, s1 - x0 + 1)")},
                                            {_q(_LAST_BOUNDARY)}, 1)) AS c0,
                 e2 + coalesce(nullif(length(regexp_extract(
                     {_mask_sql("substr(text, e2 + 1, x1 - e2)")}, {_q(_FIRST_BOUNDARY)}, 1)),
                     0), x1 - e2) AS c1
          FROM (SELECT *, greatest(s1 - {SENTENCE_CHARS},
                                   CASE WHEN s1 > tlen THEN tlen + 1 ELSE 0 END) AS x0,
                       least(e2 + {SENTENCE_CHARS},
                             CASE WHEN e2 <= tlen THEN tlen ELSE length(text) END) AS x1
                FROM {rows}))"""


def _read_where(filters: ConflictFilters) -> str:
    """The SQL condition on ``pre`` of a row that may be read: not a question, and (with
    ``skip_hedged``) not a proposal."""
    hedge = f"AND NOT regexp_full_match(pre, {_q(PRE_HEDGE)})" if filters.skip_hedged else ""
    return f"NOT {question_sql('pre')} {hedge}"


def _oriented_sql(rows: str, filters: ConflictFilters, strength: dict[str, int]) -> str:
    """The claims of ``rows`` (read rows with the sentence: ``template``, ``polarity``,
    ``subject_pos``, ``is_symmetric`` and the candidate's columns), one row per (oriented
    pair, paper, sentence, polarity) and per orientation it holds in — the CTEs after the
    reading and the final SELECT of :func:`claims_sql`; ``strength``: by template."""
    variant = (
        (lambda text: f"regexp_extract(lower({text}), {_q(VARIANT)}, 1)")
        if filters.variants
        else (lambda text: "''")
    )
    values = ", ".join(f"({_q(n)}, {v})" for n, v in strength.items())
    return f"""
oriented AS (
    SELECT pmid, year, sentence, s0, template, polarity, is_symmetric,
           CASE WHEN subject_pos = 1 THEN meas1 ELSE meas2 END AS subj_meas,
           CASE WHEN subject_pos = 1 THEN meas2 ELSE meas1 END AS obj_meas,
           CASE WHEN subject_pos = 1 THEN id1 ELSE id2 END AS subj,
           CASE WHEN subject_pos = 1 THEN {variant("t1")} ELSE {variant("t2")} END AS subj_var,
           CASE WHEN subject_pos = 1 THEN t1 ELSE t2 END AS subj_text,
           CASE WHEN subject_pos = 1 THEN id2 ELSE id1 END AS obj,
           CASE WHEN subject_pos = 1 THEN {variant("t2")} ELSE {variant("t1")} END AS obj_var,
           CASE WHEN subject_pos = 1 THEN t2 ELSE t1 END AS obj_text
    FROM (SELECT *, {_measure_sql("pre", "mid || ' '")} AS meas1,
                 {_measure_sql("' ' || mid", "post")} AS meas2 FROM {rows})),
both_ways AS (
    SELECT * FROM oriented
    UNION ALL BY NAME
    SELECT * EXCLUDE (subj, subj_var, subj_text, subj_meas, obj, obj_var, obj_text, obj_meas),
           obj AS subj, obj_var AS subj_var, obj_text AS subj_text, obj_meas AS subj_meas,
           subj AS obj, subj_var AS obj_var, subj_text AS obj_text, subj_meas AS obj_meas
    FROM oriented WHERE is_symmetric)
-- one row per (oriented pair, paper, sentence, polarity): the strongest template read there
SELECT * FROM both_ways JOIN (VALUES {values}) AS st(template, strength) USING (template)
QUALIFY row_number() OVER (PARTITION BY subj, subj_var, subj_meas, obj, obj_var, obj_meas,
                                        pmid, s0, polarity
                           ORDER BY strength DESC, template, subj_text, obj_text) = 1"""


def claims_sql(sid: str = "sid", filters: ConflictFilters = DEFAULT_FILTERS) -> str:
    """A SELECT of every claim the reader reads in snapshot ``sid``, one row per (oriented
    pair, paper, sentence, polarity) and per orientation it holds in (a symmetric claim:
    both): ``subj``/``obj`` (node ids), ``subj_var``/``obj_var`` (variant markers, '' none),
    ``subj_text``/``obj_text`` (the mentions), ``pmid``, ``year``, ``sentence``, ``template``,
    ``polarity``, ``is_symmetric``, ``strength``.

    Read over every pair of annotated mentions of a document whose concepts are two KG nodes
    (``mentions_at`` concept ids are node ids: the resolve stage rewrote them — orthologs to
    the human gene, mislinks dropped — keeping the annotator's own in ``annotator_id``), the
    second starting at most :data:`MAX_MID` characters after the first ends, in one sentence
    (no :data:`BOUNDARY` between them; not one in the title, the other in the abstract). The
    cheap cuts (:func:`cue_sql`, :func:`worth_reading_sql` on the text between) come first;
    the sentence around the pair is found only for the few thousand rows some template's
    ``mid`` fits."""
    unknown = set(filters.templates) - set(BY_NAME)
    if unknown:
        raise InputError("unknown claim template", name=",".join(sorted(unknown)))
    kept = tuple(t for t in TEMPLATES if t.name in filters.templates)
    fits = f"{cue_sql('mid')} AND {worth_reading_sql('mid', kept)}"
    return f"""{_candidate_ctes(sid, fits)},
read AS (
    SELECT * FROM (SELECT *, {template_sql("pre", "mid", "post", kept, "blocked")} AS template
                   FROM (SELECT *, {blocked_sql("pre")} AS blocked FROM cut))
    JOIN {templates_values_sql(kept)} USING (template)
    WHERE {_read_where(filters)}),
-- the sentence cited, whole: found again on a longer window, for the rows read only
cited AS ({_cited_sql("read")}),{_oriented_sql("cited", filters, STRENGTH)}"""


def candidates_sql(sid: str = "sid", filters: ConflictFilters = DEFAULT_FILTERS) -> str:
    """A SELECT of the candidates a reader other than the templates reads (the LLM reader,
    :mod:`kgbuild.belief.claims_llm`): the candidates of :func:`claims_sql` up to the template
    read — the same pairs, sentences and cheap cue cut (:func:`cue_sql`, so the rows asked
    stay few), no question, no proposal (``skip_hedged``) — with the sentence whole
    (``sentence``) and the two mentions' offsets in it (``a0``, ``a1``, ``b0``, ``b1``), and
    the columns :func:`claims_from_sql` needs."""
    rows = f"(SELECT * FROM cut WHERE {_read_where(filters)})"
    return f"""{_candidate_ctes(sid, cue_sql("mid"))},
cited AS ({_cited_sql(rows)})
SELECT pmid, year, s0, id1, id2, t1, t2, pre, mid, post, sentence,
       s1 - off AS a0, e1 - off AS a1, s2 - off AS b0, e2 - off AS b1
FROM (SELECT *, c0 + length(substr(text, c0 + 1, c1 - c0))
                   - length(ltrim(substr(text, c0 + 1, c1 - c0))) AS off FROM cited)"""


def claims_from_sql(rows: str, strength: dict[str, int], filters: ConflictFilters) -> str:
    """:func:`claims_sql`'s SELECT over readings made elsewhere (the LLM reader): ``rows`` (a
    table or a subquery) holds :func:`candidates_sql`'s columns and ``template``,
    ``polarity``, ``subject_pos`` (1: the first mention is the subject), ``is_symmetric``;
    ``strength``: how strong a reading of each template is (the best rows of a side first)."""
    return f"WITH{_oriented_sql(rows, filters, strength)}"


def conflicts_sql(
    sid: str = "sid", filters: ConflictFilters = DEFAULT_FILTERS, claims: str | None = None
) -> str:
    """The SELECT of every conflict of snapshot ``sid`` (an SQL expression: the ``sid`` of a
    macro, a quoted id, a ``$sid`` parameter), one row per (kind, subject, object), with the
    columns of :class:`Conflict` (``evidence_a``/``evidence_b``: lists of structs, best
    first; ``triples_a``/``triples_b``: the KG triples joining the pair, either orientation,
    that cite a paper of that side). ``claims``: a SELECT of the claims with
    :func:`claims_sql`'s columns (another reader's, :func:`claims_from_sql`); default the
    template reader's."""
    flags = ", ".join(f"bool_or(polarity = {_q(p)}) AS has_{p}" for p in (*AFFIRM, *DENY))
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


@dataclass(slots=True)
class CitedRow:
    """One cited sentence of a side: the paper (``pmid``, ``year``), the ``sentence`` as the
    abstract has it, the two mentions it was read on (``subject_text``, ``object_text``) and
    what the claim reader read (``template``, ``polarity``)."""

    pmid: str
    year: int | None
    sentence: str
    subject_text: str
    object_text: str
    template: str
    polarity: str


@dataclass(slots=True)
class Conflict:
    """An oriented pair the literature disagrees on: ``head`` is the claims' subject, ``tail``
    their object (``*_variant``: a variant marker of the mention, "4" of APOE4; '' none). Side
    A: the claims of an effect or association (``negated``) or the "raises" side
    (``opposite_direction``); side B: the denials, or the "lowers" side. ``polarities_*`` and
    ``templates_*``: what the claim reader read on each side. ``n_a``/``n_b``: distinct PMIDs
    per side; ``rows_a``/``rows_b``: sentences read; ``year_appeared``: the first year both
    sides had a paper (the later of the two first years); ``triples_a``/``triples_b``: the KG
    triples joining the pair (either orientation) cited by a paper of that side — what
    retrieval and the belief mark contested (may be empty: the sentences are read whatever
    the extractor made of them)."""

    kind: str
    head_id: str
    head_name: str | None
    head_variant: str
    head_measure: str
    tail_id: str
    tail_name: str | None
    tail_variant: str
    tail_measure: str
    polarities_a: list[str]
    polarities_b: list[str]
    templates_a: list[str]
    templates_b: list[str]
    n_a: int
    n_b: int
    rows_a: int
    rows_b: int
    first_year_a: int
    first_year_b: int
    year_appeared: int
    triples_a: list[str]
    triples_b: list[str]
    evidence_a: list[CitedRow]
    evidence_b: list[CitedRow]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Conflict:
        row = dict(row)
        for side in ("evidence_a", "evidence_b"):
            row[side] = [CitedRow(**e) for e in row[side] or []]
        return cls(**row)


@dataclass(slots=True)
class ConflictReport:
    """Counts per kind and the listed conflicts (at most ``limit``, :data:`ORDER_BY`)."""

    kg: str
    snapshot_id: str
    as_of_year: int
    kind: str | None
    limit: int
    filters: ConflictFilters
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    conflicts: list[Conflict] = field(default_factory=list)
    #: Another reader's name and what its reading cost (the LLM reader's
    #: :class:`~kgbuild.belief.claims_llm.ReadStats`); None: the template reader.
    reading: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: every listed conflict with both sides' cited rows."""
        extra = {} if self.reading is None else {"reading": dict(self.reading)}
        return {
            **extra,
            "kg": self.kg,
            "snapshot": self.snapshot_id,
            "as_of_year": self.as_of_year,
            "kind": self.kind,
            "limit": self.limit,
            "filters": self.filters.to_dict(),
            "counts": dict(self.counts),
            "conflicts": [asdict(c) for c in self.conflicts],
        }


def fetch_conflicts(
    con: duckdb.DuckDBPyConnection,
    snapshot_id: str,
    kind: str | None = None,
    limit: int | None = None,
    filters: ConflictFilters = DEFAULT_FILTERS,
    claims: str | None = None,
) -> tuple[dict[str, int], list[Conflict]]:
    """(count per kind, the conflicts of ``kind`` — every kind when None — in
    :data:`ORDER_BY`, at most ``limit``) of a snapshot, on an open catalog connection.
    ``claims``: another reader's claims (:func:`conflicts_sql`)."""
    if kind is not None and kind not in KINDS:
        raise InputError(f"--kind must be one of {', '.join(KINDS)}", kind=kind)
    sql = conflicts_sql("$sid", filters, claims)
    con.execute(f"CREATE OR REPLACE TEMP TABLE _conflicts AS {sql}", {"sid": snapshot_id})
    try:
        counts = dict.fromkeys(KINDS, 0)
        for k, n in con.execute("SELECT kind, count(*) FROM _conflicts GROUP BY 1").fetchall():
            counts[k] = n
        cur = con.execute(
            f"SELECT * EXCLUDE (rank) FROM (SELECT *, row_number() OVER (ORDER BY {ORDER_BY}) "
            "AS rank FROM _conflicts WHERE $kind IS NULL OR kind = $kind) "
            "WHERE $limit IS NULL OR rank <= $limit ORDER BY rank",
            {"kind": kind, "limit": limit},
        )
        cols = [d[0] for d in cur.description]
        rows = [Conflict.from_row(dict(zip(cols, r, strict=True))) for r in cur.fetchall()]
    finally:
        con.execute("DROP TABLE IF EXISTS _conflicts")
    return counts, rows


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
    "DEFAULT_FILTERS", "KINDS", "CitedRow", "Conflict", "ConflictFilters", "ConflictReport",
    "candidates_sql", "claims_from_sql", "claims_sql", "conflicts_sql", "contested_triples",
    "contested_triples_sql", "define_conflict_views", "fetch_conflicts",
]  # fmt: skip
