"""The snapshot's abstracts as a BM25 index, built when the build makes the snapshot ready.

One document per abstract (title and abstract: Robertson's BM25 over whole documents, since a
sentence index misses the abstract whose answer is spread over two sentences), terms as
:func:`kgbuild.search.sentences.terms` makes them (normalised, stopwords out, Snowball-stemmed).
It is saved in the snapshot's index folder with a sidecar like the sentences' BM25 arrays
(:mod:`kgbuild.search.index`): a reader opens it in milliseconds and never trusts a file its
sidecar does not vouch for. What a question reads from it is :mod:`kgbuild.corpus.passages`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.search.sentences import SentenceIndex, terms

#: The catalog rows an index is built from: every document of the snapshot, in PMID order.
DOCUMENTS_SQL = "SELECT pmid, year, title, abstract FROM documents_at(?) ORDER BY pmid"


#: Documents whose terms a build keeps between its snapshots at most (a list of ~150 stems
#: each: ~0.2 GB at the cap); beyond it, a document's terms are stemmed again each year.
TERM_CACHE_DOCS = 200_000


def document_text(title: str | None, abstract: str | None) -> str:
    """The text a document is indexed by (as
    :func:`kgbuild.corpus.documents.doc_sentences` reads it)."""
    return f"{title or ''} {abstract or ''}"


@dataclass(slots=True)
class AbstractIndex:
    """BM25 over one snapshot's documents (row = document, in PMID order)."""

    bm25: SentenceIndex
    pmids: list[str]
    years: np.ndarray

    @classmethod
    def build(cls, rows: list[tuple[Any, ...]],
              term_cache: dict[bytes, list[str]] | None = None) -> AbstractIndex:  # fmt: skip
        """From ``(pmid, year, title, abstract)`` rows. ``term_cache``: a document's terms by
        the digest of its text, shared by the snapshots one build makes ready (each year's
        snapshot holds every earlier year's documents: stemming is most of the cost)."""
        corpus = []
        for _, _, title, abstract in rows:
            text = document_text(title, abstract)
            if term_cache is None:
                corpus.append(terms(text))
                continue
            key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            got = term_cache.get(key)
            if got is None:
                got = terms(text)
                if len(term_cache) < TERM_CACHE_DOCS:
                    term_cache[key] = got
            corpus.append(got)
        return cls(
            SentenceIndex.build_terms(corpus),
            [str(r[0]) for r in rows],
            np.array([int(r[1] or 0) for r in rows], np.int32),
        )

    @property
    def n_docs(self) -> int:
        return len(self.pmids)

    def idf(self, term: str) -> float:
        """BM25's IDF of a term (a term no abstract writes weighs most)."""
        t = self.bm25.vocab.get(term)
        df = self.bm25.df(t) if t is not None else 0
        return math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))

    def scores(self, query_terms: list[str]) -> np.ndarray:
        """BM25 of every document for a query of terms (each counted once)."""
        return self.bm25.scores(self.bm25.term_ids(query_terms))

    def ranked(self, question_terms: list[str], n: int) -> list[int]:
        """The ``n`` documents of highest BM25 for the question's terms, best first."""
        return self.bm25.top(self.scores(question_terms), n)
