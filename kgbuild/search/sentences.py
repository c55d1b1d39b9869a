"""The snapshot's evidence sentences as a lexical index (BM25), and what a question's sentences
say about each choice.

Graph facts only reach a choice that is a node; a choice that is a phrase ("alteration of
consciousness", "NMDA receptor inhibition") is found in the sentences instead. Each
distinct served evidence sentence of the snapshot is one document of a BM25 index (bm25s,
Lù 2024: Lucene's BM25 over sparse matrices; DuckDB's FTS extension downloads itself at run
time and fails offline). Terms are the linker's normalized tokens (:func:`kgbuild.search.text.
tokens`) without stopwords, Snowball-stemmed (PyStemmer), so "plaques" finds "plaque".

Two uses:

- :meth:`SentenceIndex.search` — the sentences that bear on a query that must share terms with
  a choice *and* the question (Clark et al. 2016's IR solver: a sentence about the question
  alone says nothing about the choice);
- :meth:`SentenceIndex.lift` — how much more often a choice's terms occur in the sentences the
  question retrieves than in the whole snapshot: the log ratio of the two rates, averaged over
  the choice's terms. This is the question–choice PMI of Clark et al.'s PMI solver, with the
  question's BM25 neighbourhood standing in for its n-grams; a term every abstract uses
  ("Alzheimer", "amyloid") has a rate near its background rate and lifts nothing, so hubs are
  context, not evidence.

The BM25 arrays are saved in the snapshot's index folder as ``.npy`` files read without
pickle, so a tampered cache can give wrong answers, never run code.
"""

from __future__ import annotations

import json
import math
import shutil
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.search.text import STOPWORDS, singular, tokens

#: BM25 parameters (Lucene's defaults, as bm25s and Elasticsearch use).
BM25_K1 = 1.5
BM25_B = 0.75
#: Sentences that stand for the question's neighbourhood in :meth:`SentenceIndex.lift`.
LIFT_SENTENCES = 30
#: Sentences kept per choice (and for the question alone) in a retrieval's context.
SENTENCES_PER_CHOICE = 3
_ARRAYS = ("data", "indices", "indptr")
#: The stopwords as :func:`tokens` writes them: it singularizes first ("does" → "doe"), so the
#: plain list let "does" into every question's terms and every sentence's.
_STOP_TOKENS = STOPWORDS | {singular(w) for w in STOPWORDS}


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import Stemmer  # PyStemmer: Snowball's English stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    return str(_stemmer().stemWord(token))


def terms(text: str) -> list[str]:
    """The index terms of a text: normalized tokens, not stopwords, stemmed (numbers kept:
    "trisomy 21" is not "trisomy 18")."""
    return [_stem(t) for t in tokens(text)
            if t not in _STOP_TOKENS and (len(t) > 1 or t.isdigit())]  # fmt: skip


@dataclass(frozen=True, slots=True)
class SentenceHit:
    """One sentence a query found: its row, BM25 score and the choice it was found for."""

    row: int
    score: float
    choice: int | None  # None: found for the question alone


class SentenceIndex:
    """BM25 over one snapshot's distinct evidence sentences (rows of ``sentences``)."""

    def __init__(self, vocab: dict[str, int], data: np.ndarray, indices: np.ndarray,
                 indptr: np.ndarray, n_docs: int) -> None:  # fmt: skip
        #: term → column; column t's documents are ``indices[indptr[t]:indptr[t+1]]`` with
        #: their BM25 term scores in ``data`` (a CSC matrix, as bm25s keeps it).
        self.vocab = vocab
        self.data = data
        self.indices = indices
        self.indptr = indptr
        self.n_docs = n_docs

    # ---- building and the cache ---------------------------------------------------------------
    @classmethod
    def build(cls, texts: list[str]) -> SentenceIndex:
        """Index ``texts`` (one document each, in row order)."""
        return cls.build_terms([terms(t) for t in texts])

    @classmethod
    def build_terms(cls, corpus: list[list[str]]) -> SentenceIndex:
        """Index documents given as their :func:`terms` (one list each, in row order)."""
        import bm25s
        from bm25s.tokenization import Tokenized

        if not any(corpus):
            return cls({}, np.zeros(0, np.float32), np.zeros(0, np.int32),
                       np.zeros(1, np.int64), len(corpus))  # fmt: skip
        # our own term numbering (sorted), so the saved arrays are a function of the texts
        vocab = {t: i for i, t in enumerate(sorted({t for doc in corpus for t in doc}))}
        bm = bm25s.BM25(k1=BM25_K1, b=BM25_B)
        bm.index(Tokenized([[vocab[t] for t in doc] for doc in corpus], vocab),
                 create_empty_token=False, show_progress=False)  # fmt: skip
        s = bm.scores
        return cls(
            vocab,
            np.asarray(s["data"], np.float32),
            np.asarray(s["indices"], np.int32),
            np.asarray(s["indptr"], np.int64),
            int(s["num_docs"]),
        )

    def save(self, folder: Path) -> None:
        """Write the arrays and vocabulary into ``folder`` (atomically, a temp folder renamed)."""
        tmp = folder.parent / f".tmp-{uuid.uuid4().hex}"
        tmp.mkdir(parents=True)
        try:
            for name in _ARRAYS:
                np.save(tmp / f"{name}.npy", getattr(self, name), allow_pickle=False)
            (tmp / "vocab.json").write_text(
                json.dumps({"n_docs": self.n_docs, "vocab": self.vocab}, sort_keys=True)
            )
            shutil.rmtree(folder, ignore_errors=True)
            tmp.replace(folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @classmethod
    def load(cls, folder: Path, n_docs: int) -> SentenceIndex | None:
        """The saved index, or None when it is missing, damaged or not for ``n_docs`` rows."""
        try:
            meta = json.loads((folder / "vocab.json").read_text())
            arrays = [np.load(folder / f"{n}.npy", allow_pickle=False) for n in _ARRAYS]
            vocab = {str(k): int(v) for k, v in meta["vocab"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        data, indices, indptr = arrays
        ok = (
            meta.get("n_docs") == n_docs
            and data.ndim == indices.ndim == indptr.ndim == 1
            and len(data) == len(indices)
            and len(indptr) == len(vocab) + 1
            and (not len(indices) or (int(indices.min()) >= 0 and int(indices.max()) < n_docs))
            and int(indptr[-1]) == len(data)
            and bool(np.all(np.diff(indptr) >= 0))
            and all(0 <= v < len(vocab) for v in vocab.values())
        )
        return cls(vocab, data, indices, indptr, n_docs) if ok else None

    # ---- scoring -----------------------------------------------------------------------------
    def term_ids(self, text_or_terms: str | list[str]) -> list[int]:
        ts = terms(text_or_terms) if isinstance(text_or_terms, str) else text_or_terms
        return sorted({self.vocab[t] for t in ts if t in self.vocab})

    def scores(self, ids: list[int]) -> np.ndarray:
        """BM25 of every sentence for a query of term ids (each term counted once)."""
        if not ids:
            return np.zeros(self.n_docs, np.float64)
        spans = [(int(self.indptr[t]), int(self.indptr[t + 1])) for t in ids]
        rows = np.concatenate([self.indices[a:b] for a, b in spans])
        vals = np.concatenate([self.data[a:b] for a, b in spans])
        return np.bincount(rows, weights=vals, minlength=self.n_docs)

    def df(self, t: int) -> int:
        return int(self.indptr[t + 1] - self.indptr[t])

    def top(self, scores: np.ndarray, n: int, mask: np.ndarray | None = None) -> list[int]:
        """The ``n`` best rows with a positive score (within ``mask``), best first, ties by row."""
        s = scores if mask is None else np.where(mask, scores, 0)
        pos = np.flatnonzero(s > 0)
        if not len(pos):
            return []
        if len(pos) > n:  # the n-th best score; rows tied with it are taken lowest first
            nth = np.partition(s[pos], len(pos) - n)[len(pos) - n]
            pos = pos[s[pos] >= nth]
        return sorted(pos.tolist(), key=lambda r: (-float(s[r]), r))[:n]

    def search(self, question_ids: list[int], choice_ids: list[int],
               n: int = SENTENCES_PER_CHOICE, mask: np.ndarray | None = None,
               question_scores: np.ndarray | None = None) -> list[tuple[int, float]]:  # fmt: skip
        """Sentences for question + choice that share a term with the choice and, when the
        question has terms in the index, with the question too (rows and scores); ``mask``:
        the rows allowed (filters)."""
        if not choice_ids:
            return []
        sc = self.scores(choice_ids)
        if question_ids:
            sq = self.scores(question_ids) if question_scores is None else question_scores
            keep = (sc > 0) & (sq > 0)
            total = sq + sc
        else:
            keep, total = sc > 0, sc
        if mask is not None:
            keep &= mask
        return [(r, round(float(total[r]), 4)) for r in self.top(total, n, keep)]

    def neighbourhood(self, question_scores: np.ndarray, n: int = LIFT_SENTENCES,
                      mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The question's ``n`` best sentences (by its BM25 ``question_scores``, within
        ``mask``) and their weights (BM25 shares summing to 1)."""
        sq = question_scores
        rows = np.array(self.top(sq, n, mask), np.int64)
        if not len(rows):
            return rows, np.zeros(0, np.float64)
        w = sq[rows].astype(np.float64)
        return rows, w / w.sum()

    def lift(self, rows: np.ndarray, weights: np.ndarray, choice_ids: list[int]
             ) -> tuple[float, list[tuple[int, float]]] | None:  # fmt: skip
        """Mean log lift of the choice's terms in the question's sentences (see module
        docstring), and each term's lift; None when the choice has no indexed term or the
        question found no sentence. Additive smoothing of half a sentence keeps a term seen
        once from dominating."""
        if not choice_ids or not len(rows):
            return None
        alpha = 0.5 / len(rows)
        per = []
        for t in choice_ids:
            a, b = int(self.indptr[t]), int(self.indptr[t + 1])
            inside = np.isin(rows, self.indices[a:b], assume_unique=True)
            rate = float(weights[inside].sum())
            background = (b - a) / max(1, self.n_docs)
            per.append((t, math.log((rate + alpha) / (background + alpha))))
        return sum(v for _, v in per) / len(per), per
