"""The claim reader in SQL: the template tests of :mod:`kgbuild.belief.claims_read`, for DuckDB.

The ``conflicts`` view reads every candidate sentence of a snapshot in one SQL statement
(:mod:`kgbuild.belief.conflicts`); these functions write the reader's tests as SQL
expressions over columns: the cheap cuts (:func:`cue_sql`, :func:`worth_reading_sql`), the
cut of a sentence into ``pre``/``mid``/``post`` (:func:`pieces_sql`, :func:`norm_sql`), the
checks on ``pre`` (:func:`blocked_sql`, :func:`question_sql`) and the first template reading
a row (:func:`template_sql`). The regex strings are the very ones Python reads (DuckDB's RE2
and ``re.ASCII`` read them alike), so the gold measurement of the Python reader
(``bench/claim_reader_gold.py``) measures the view.
"""

from __future__ import annotations

from kgbuild.belief.claims_grammar import (
    ABBREV,
    AND_START,
    CUE,
    MAX_MID,
    PRE_AGENT,
    PRE_BLOCK,
    PRE_MEASURE,
    PRE_QUESTION,
    STARTER,
)
from kgbuild.belief.claims_templates import TEMPLATES, Template


def cue_sql(mid: str) -> str:
    """SQL: ``mid`` (normalized) holds a :data:`CUE` and begins as a template can
    (:data:`STARTER`) — the cheap first cut of :func:`~kgbuild.belief.claims_read.worth_reading`."""
    # the anchored STARTER first: RE2 reads a row's first word only
    return (
        f"(regexp_matches({mid}, {sql_literal(STARTER)}) "
        f"AND regexp_matches({mid}, {sql_literal(CUE)}))"
    )


def _opens_with_and(t: Template) -> bool:
    """Whether ``t``'s ``mid`` is "[(abbrev)] and …" (the pair is coordinated)."""
    return t.mid.startswith(rf"{ABBREV}[ ]+and[ ]+")


def worth_reading_sql(mid: str, templates: tuple[Template, ...] = TEMPLATES) -> str:
    """SQL of :func:`~kgbuild.belief.claims_read.worth_reading` on the ``mid`` SQL expression, and a
    ``mid`` some template of ``templates`` matches whole: the view cuts the text before and after
    the mentions (long strings) only for the rows that pass. Pure speed: a row it drops is read by
    no template. (One regex per template, OR-ed: an alternation of all of them is far slower in RE2;
    split on :data:`AND_START`, so a row is tried on the templates that can read it only.)"""
    coord = [t for t in templates if _opens_with_and(t)]
    other = [t for t in templates if not _opens_with_and(t)]

    def any_of(ts: list[Template]) -> str:
        """The full matches of ``ts``, each group of one gate behind one partial match."""
        groups: dict[str | None, list[Template]] = {}
        for t in ts:
            groups.setdefault(t.gate, []).append(t)
        out = []
        for gate, members in groups.items():
            full = " OR ".join(f"regexp_full_match({mid}, {sql_literal(t.mid)})" for t in members)
            out.append(f"({full})" if gate is None else
                       f"(regexp_matches({mid}, {sql_literal(gate)}) AND ({full}))")  # fmt: skip
        return " OR ".join(out) or "false"

    starts = f"regexp_matches({mid}, {sql_literal(AND_START)})"
    return (
        f"(length({mid}) <= {MAX_MID} AND CASE WHEN {starts} THEN ({any_of(coord)}) "
        f"ELSE ({any_of(other)}) END)"
    )


def question_sql(pre: str) -> str:
    """SQL: the sentence asks or plans rather than states (:data:`PRE_QUESTION` on ``pre``)."""
    return f"regexp_full_match({pre}, {sql_literal(PRE_QUESTION)})"


def sql_literal(text: str) -> str:
    """``text`` as an SQL string literal (single quotes doubled)."""
    return "'" + text.replace("'", "''") + "'"


def norm_sql(expr: str) -> str:
    """SQL of :func:`~kgbuild.belief.claims_read.normalize`. The regex runs only where a tab,
    newline or double space is (rare in abstracts): over every candidate pair of a snapshot it is
    the costly part."""
    low = f"lower({expr})"
    odd = " OR ".join(f"contains({low}, {c})" for c in ("'  '", "chr(9)", "chr(10)", "chr(13)"))
    return f"(CASE WHEN {odd} THEN regexp_replace({low}, '\\s+', ' ', 'g') ELSE {low} END)"


def pieces_sql(sentence: str, s1: str, e1: str, s2: str, e2: str) -> tuple[str, str, str]:
    """SQL expressions of (pre, mid, post) as :func:`~kgbuild.belief.claims_read.pieces` cuts them;
    ``s1``…``e2`` are SQL expressions of 0-based offsets into the sentence, the first span before
    the second."""
    return (
        norm_sql(f"substr({sentence}, 1, {s1})"),
        norm_sql(f"substr({sentence}, ({e1}) + 1, ({s2}) - ({e1}))"),
        norm_sql(f"substr({sentence}, ({e2}) + 1)"),
    )


def blocked_sql(pre: str) -> str:
    """SQL: ``pre`` keeps the first mention from being a free subject/object
    (:data:`PRE_BLOCK`, unless :data:`PRE_MEASURE` or :data:`PRE_AGENT`)."""
    return (
        f"(regexp_full_match({pre}, {sql_literal(PRE_BLOCK)}) "
        f"AND NOT regexp_full_match({pre}, {sql_literal(PRE_MEASURE)}) "
        f"AND NOT regexp_full_match({pre}, {sql_literal(PRE_AGENT)}))"
    )


def template_sql(
    pre: str,
    mid: str,
    post: str,
    templates: tuple[Template, ...] = TEMPLATES,
    blocked: str | None = None,
) -> str:
    """An SQL CASE giving the name of the first template of ``templates`` reading the pieces
    (SQL expressions, e.g. column names), NULL when none does. The question check of
    :func:`~kgbuild.belief.claims_read.template_matches` is not in it: filter on ``NOT
    question_sql(pre)`` where it is not NULL (once a row, not once a template). Each condition tests
    ``mid`` first: DuckDB evaluates the rest of a conjunction only on the rows that pass, and a
    template's ``mid`` rejects nearly every row cheaply. ``blocked``: a column holding
    :func:`blocked_sql` of ``pre``, computed once a row (the CASE would repeat its three regexes per
    template)."""
    block = blocked or blocked_sql(pre)
    whens = []
    for t in templates:
        pre_ok = (
            f"regexp_full_match({pre}, {sql_literal(t.pre)})"
            if t.pre is not None
            else f"NOT {block}"
        )
        gate = f"regexp_matches({mid}, {sql_literal(t.gate)}) AND " if t.gate is not None else ""
        whens.append(
            f"WHEN {gate}regexp_full_match({mid}, {sql_literal(t.mid)}) "
            f"AND regexp_full_match({post}, {sql_literal(t.post)}) AND {pre_ok} "
            f"THEN {sql_literal(t.name)}"
        )
    return f"CASE {' '.join(whens)} END" if whens else "NULL"


def templates_values_sql(templates: tuple[Template, ...] = TEMPLATES) -> str:
    """A VALUES list ``(template, polarity, subject, symmetric)`` of ``templates``."""
    rows = ", ".join(
        f"({sql_literal(t.name)}, {sql_literal(t.polarity)}, {t.subject}, "
        f"{str(t.symmetric).upper()})"
        for t in templates
    )
    return f"(VALUES {rows}) AS tpl(template, polarity, subject_pos, is_symmetric)"


__all__ = [
    "blocked_sql",
    "cue_sql",
    "norm_sql",
    "pieces_sql",
    "question_sql",
    "sql_literal",
    "template_sql",
    "templates_values_sql",
    "worth_reading_sql",
]
