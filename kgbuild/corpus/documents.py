"""The sentences of the catalog's abstracts, as every corpus reader meets them.

A reader fetches rows ``(pmid, year, title, abstract, [{c, a, b}])`` — a document and its
mentions with offsets into ``title + " " + abstract``, as the annotators write them — and
reads them sentence by sentence, cut with the extractor's own splitter
(:func:`kgbuild.extract.sentences.sentence_spans`, which never cuts inside a mention) so a
sentence here is the unit a fact was read in. A run-on "sentence" longer than
:data:`kgbuild.corpus.marks.MAX_SENTENCE` (a hostile abstract) is skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kgbuild.corpus.marks import MAX_SENTENCE
from kgbuild.extract.sentences import sentence_spans

#: A mention: (concept, start, end).
Mention = tuple[str, int, int]


@dataclass(frozen=True, slots=True)
class DocSentence:
    """One sentence of a document: its text and the mentions inside it (offsets in it)."""

    pmid: str
    year: int
    text: str
    mentions: tuple[Mention, ...]


def row_mentions(spans: Any) -> list[Mention]:
    """A catalog row's mention structs as (concept, start, end) tuples."""
    return [(str(x["c"]), int(x["a"]), int(x["b"])) for x in spans or []]


def doc_sentences(pmid: Any, year: Any, title: str | None, abstract: str | None,
                  mentions: list[Mention]) -> Iterator[DocSentence]:  # fmt: skip
    """The sentences of one document (title first), each with its mentions."""
    text = f"{title or ''} {abstract or ''}"
    for s0, s1 in sentence_spans(text, [(a, b) for _, a, b in mentions], [len(title or "") + 1]):
        if s1 - s0 > MAX_SENTENCE:
            continue
        inside = tuple((c, a - s0, b - s0) for c, a, b in mentions if s0 <= a and b <= s1)
        yield DocSentence(str(pmid), int(year or 0), text[s0:s1], inside)


def lowered_text(alias: str = "x") -> str:
    """SQL for a document's title and abstract as one lower-cased text (the text the
    annotators' offsets count in, lower-cased): what every corpus reader's pattern reads."""
    col = f"{alias}." if alias else ""
    return f"lower(coalesce({col}title, '') || ' ' || coalesce({col}abstract, ''))"


def whole_words(text: str) -> str:
    """RE2 (no look-around) finding ``text`` as whole words in :func:`lowered_text`."""
    return rf"(?:^|[^a-z0-9]){re.escape(text.lower())}(?:[^a-z0-9]|$)"


#: The document filters :func:`ranked_documents` takes (SQL over the document ``x``; named
#: parameters only — the question's text never reaches the SQL as text).
WRITES = f"regexp_matches({lowered_text()}, $p)"
NAMES = "x.pmid IN (SELECT pmid FROM mentions_at($sid) WHERE concept_id = $c)"


#: The ranked documents ``d`` (pmid, year, title, abstract, rank ``n``) with every normalised
#: mention, in rank order: the rows every corpus reader takes.
_WITH_MENTIONS = (
    "SELECT d.pmid, d.year, d.title, d.abstract, list(struct_pack(c := m.concept_id, "
    'a := m.start, b := m."end")) FILTER (WHERE m.concept_id IS NOT NULL) '
    "FROM d LEFT JOIN mentions_at($sid) m USING (pmid) GROUP BY ALL "
    "ORDER BY any_value(d.n) DESC, d.year DESC, d.pmid"
)


def ranked_documents(wh: Any, snapshot_id: str, match: str, params: dict[str, Any],
                     ids: list[str], as_of: int | None,
                     limit: int) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of at most ``limit`` documents ``match``
    (:data:`WRITES` a pattern ``$p``, :data:`NAMES` a concept ``$c``) with every normalised
    mention: those naming more of ``ids`` first, then newest (one read-only catalog query)."""
    if match not in (WRITES, NAMES):
        raise ValueError("unknown document filter")
    sql = (
        "WITH q AS (SELECT pmid, count(DISTINCT concept_id) AS n FROM mentions_at($sid) "
        "WHERE list_contains($ids::VARCHAR[], concept_id) GROUP BY pmid), "
        "d AS (SELECT x.pmid, x.year, x.title, x.abstract, coalesce(q.n, 0) AS n "
        "FROM documents_at($sid) x LEFT JOIN q USING (pmid) "
        f"WHERE ($asof IS NULL OR x.year <= $asof) AND {match} "
        f"ORDER BY n DESC, x.year DESC, x.pmid LIMIT {int(limit)}) " + _WITH_MENTIONS
    )
    return wh.query(sql, {**params, "sid": snapshot_id, "asof": as_of, "ids": ids})


def writing_most(wh: Any, snapshot_id: str, concepts: list[str], patterns: list[str],
                 as_of: int | None, limit: int) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of at most ``limit`` documents naming one of
    ``concepts``: those writing more of ``patterns`` (RE2, over the lower-cased title and
    abstract) first, then newest (one read-only catalog query; the patterns are parameters)."""
    text = lowered_text()
    said = " + ".join(f"CAST(regexp_matches({text}, $p{i}) AS INTEGER)"
                      for i in range(len(patterns))) or "0"  # fmt: skip
    sql = (
        "WITH d AS (SELECT x.pmid, x.year, x.title, x.abstract, "
        f"({said}) AS n FROM documents_at($sid) x "
        "WHERE ($asof IS NULL OR x.year <= $asof) AND x.pmid IN (SELECT pmid FROM "
        "mentions_at($sid) WHERE list_contains($ids::VARCHAR[], concept_id)) "
        f"ORDER BY n DESC, x.year DESC, x.pmid LIMIT {int(limit)}) " + _WITH_MENTIONS
    )
    params = {f"p{i}": p for i, p in enumerate(patterns)}
    return wh.query(sql, {**params, "sid": snapshot_id, "asof": as_of, "ids": concepts})
