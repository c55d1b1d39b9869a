"""The sentences of the catalog's abstracts, as every corpus reader meets them.

A reader fetches rows ``(pmid, year, title, abstract, [{c, a, b}])`` — a document and its
mentions with offsets into ``title + " " + abstract``, as the annotators write them — and
reads them sentence by sentence, cut with the extractor's own splitter
(:func:`kgbuild.extract.sentences.sentence_spans`, which never cuts inside a mention) so a
sentence here is the unit a fact was read in. A run-on "sentence" longer than
:data:`kgbuild.corpus.marks.MAX_SENTENCE` (a hostile abstract) is skipped.
"""

from __future__ import annotations

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
