"""Every claim read in a snapshot, one row per oriented pair, paper, sentence and polarity.

What is read: every sentence where both concepts are mentioned, not only the one an extractor
cited. The snapshot keeps every annotated mention (``mentions_at``: offsets into
``documents_at``'s title || ' ' || abstract); every pair of mentions of one document whose
concepts are two KG nodes (a mention's ``concept_id`` is its node id: the resolve stage wrote
the node id there — orthologs mapped to the human gene, mislinks dropped — keeping the
annotator's in ``annotator_id``) and whose gap is at most
:data:`~kgbuild.belief.claims_grammar.MAX_MID` characters with no sentence boundary in it is a
candidate; the sentence around it is cut by the rule of the extractors' splitter
(:data:`~kgbuild.belief.claim_candidates.BOUNDARY`, abbreviations such as "e.g." and "vs." masked),
and its pieces go to the templates. The first version of the conflicts read the one sentence per
(pair, abstract) an extractor cited and trusted its type; a blind skim found 2 of 50 listed
conflicts real (same direction with different things measured, the relation between other entities
of the sentence, the pair not stated). So: the extractor's types are not read at all; the templates
are strict on what surrounds the mentions (the object must not be a modifier — "Abeta-induced
toxicity", "APP/PS1 mice" —, the subject must not be inside a larger phrase — "inhibition of X", "X
knockdown"); what changes about the object (its measure: "Y aggregation", "Y release", bare or "Y
levels" — :data:`MEASURES`) is part of the pair, so "X reduces Y aggregation" and "X increases Y
levels" are not one conflict; a mention's variant marker ("APOE4") is part of its concept; a
sentence that asks, plans or proposes is not read; and a paper read on both sides of a conflict
joins neither.

:func:`claims_sql` is the template reader's claims; :func:`candidates_sql` the same candidates
for another reader (the LLM reader, :mod:`kgbuild.belief.claims_llm`), whose readings
:func:`claims_from_sql` turns into the same rows. The conflicts are assembled from these rows
(:mod:`kgbuild.belief.conflicts`); :class:`ConflictFilters` says what is read.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kgbuild.belief.claim_candidates import candidate_ctes, cited_sql
from kgbuild.belief.claims_grammar import VARIANT
from kgbuild.belief.claims_read_sql import (
    blocked_sql,
    cue_sql,
    question_sql,
    sql_literal,
    template_sql,
    templates_values_sql,
    worth_reading_sql,
)
from kgbuild.belief.claims_templates import BY_NAME, TEMPLATES
from kgbuild.errors import InputError


@dataclass(frozen=True, slots=True)
class ConflictFilters:
    """What is read (the defaults are what ``conflicts_at`` and the command use;
    ``bench/conflicts_sample.py`` and the tests change them to measure them).

    - ``templates``: the names of the :data:`kgbuild.belief.claims_templates.TEMPLATES` read (a
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
    of = sql_literal(".*[^a-z]" + _MEASURE + " (?:of|for) ")
    noun = sql_literal("^(?:[ ]*[(][^()]*[)])?[ ]+" + _MEASURE + "[^a-z-]")
    word = (
        f"coalesce(nullif(regexp_extract({before}, {of}, 1), ''), "
        f"regexp_extract({after}, {noun}, 1))"
    )
    cases = " ".join(
        f"WHEN {sql_literal(w)} THEN {sql_literal(c)}" for w, c in MEASURES.items() if c
    )
    return f"(CASE {word} {cases} ELSE '' END)"


def _read_where(filters: ConflictFilters) -> str:
    """The SQL condition on ``pre`` of a row that may be read: not a question, and (with
    ``skip_hedged``) not a proposal."""
    hedge = (
        f"AND NOT regexp_full_match(pre, {sql_literal(PRE_HEDGE)})" if filters.skip_hedged else ""
    )
    return f"NOT {question_sql('pre')} {hedge}"


def _oriented_sql(rows: str, filters: ConflictFilters, strength: dict[str, int]) -> str:
    """The claims of ``rows`` (read rows with the sentence: ``template``, ``polarity``,
    ``subject_pos``, ``is_symmetric`` and the candidate's columns), one row per (oriented
    pair, paper, sentence, polarity) and per orientation it holds in — the CTEs after the
    reading and the final SELECT of :func:`claims_sql`; ``strength``: by template."""
    variant = (
        (lambda text: f"regexp_extract(lower({text}), {sql_literal(VARIANT)}, 1)")
        if filters.variants
        else (lambda text: "''")
    )
    values = ", ".join(f"({sql_literal(n)}, {v})" for n, v in strength.items())
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
    second starting at most :data:`~kgbuild.belief.claims_grammar.MAX_MID` characters after the
    first ends, in one sentence (no :data:`~kgbuild.belief.claim_candidates.BOUNDARY` between them;
    not one in the title, the other in the abstract). The cheap cuts (:func:`cue_sql`,
    :func:`worth_reading_sql` on the text between) come first; the sentence around the pair is found
    only for the few thousand rows some template's ``mid`` fits."""
    unknown = set(filters.templates) - set(BY_NAME)
    if unknown:
        raise InputError("unknown claim template", name=",".join(sorted(unknown)))
    kept = tuple(t for t in TEMPLATES if t.name in filters.templates)
    fits = f"{cue_sql('mid')} AND {worth_reading_sql('mid', kept)}"
    return f"""{candidate_ctes(sid, fits)},
read AS (
    SELECT * FROM (SELECT *, {template_sql("pre", "mid", "post", kept, "blocked")} AS template
                   FROM (SELECT *, {blocked_sql("pre")} AS blocked FROM cut))
    JOIN {templates_values_sql(kept)} USING (template)
    WHERE {_read_where(filters)}),
-- the sentence cited, whole: found again on a longer window, for the rows read only
cited AS ({cited_sql("read")}),{_oriented_sql("cited", filters, STRENGTH)}"""


def candidates_sql(sid: str = "sid", filters: ConflictFilters = DEFAULT_FILTERS) -> str:
    """A SELECT of the candidates a reader other than the templates reads (the LLM reader,
    :mod:`kgbuild.belief.claims_llm`): the candidates of :func:`claims_sql` up to the template
    read — the same pairs, sentences and cheap cue cut (:func:`cue_sql`, so the rows asked
    stay few), no question, no proposal (``skip_hedged``) — with the sentence whole
    (``sentence``) and the two mentions' offsets in it (``a0``, ``a1``, ``b0``, ``b1``), and
    the columns :func:`claims_from_sql` needs."""
    rows = f"(SELECT * FROM cut WHERE {_read_where(filters)})"
    return f"""{candidate_ctes(sid, cue_sql("mid"))},
cited AS ({cited_sql(rows)})
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


__all__ = [
    "DEFAULT_FILTERS",
    "MEASURES",
    "STRENGTH",
    "ConflictFilters",
    "candidates_sql",
    "claims_from_sql",
    "claims_sql",
]
