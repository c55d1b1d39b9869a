"""Which sentence of the abstracts that match a question answers it: a reader trained on
blind-judged answers.

The abstracts block showed each abstract by a hand-weighted hybrid of the sentence's IDF cover of
the question and its MiniLM cosine (:mod:`kgbuild.corpus.answer_sentences`). Blind judges who
saw only the questions and the corpus quoted, for each question of walks 8–11, 13 and 15 whose
gold answer DALK states, the sentence that states it (``data/walks/ceiling/judged.tsv``,
``walk13/ceiling.tsv``, ``walk15/ceiling.tsv``). Those quotes are the supervision: each
candidate sentence is labelled by whether it is the judge's quote, and a logistic regression over
cheap features of the sentence, its abstract and its place among the candidates learns what the
hybrid weighed by hand — the answer-sentence selection of BioASQ's snippet task and of WikiQA
(Yang et al. 2015), here with features rather than a fine-tuned encoder, which this machine
cannot train well (the sentence reader's learning curve: ``data/judged``).

What it learned (``data/answer_sentence_model.json``): the cosine to the question and its gap to
the best candidate's weigh most; the study's aim ("we investigated …") and the title are seldom
the answer; a labelled conclusion, a sentence with figures and an abstract that writes more of
the question gain; the "found"/"suggest" words alone count for nothing.

Candidates, features and scoring are this module's, used alike by the trainer
(:mod:`kgbuild.evaluate.answer_reader`) and the query, so training sees what the query sees.
The model is JSON (:data:`MODEL_PATH`): feature names and weights in raw feature units, checked
against :data:`FEATURE_SET`; without it (missing, foreign, malformed) the hybrid stands.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.corpus.documents import doc_sentences
from kgbuild.corpus.passages import CLOSING, MIN_TERMS, closing_sentence
from kgbuild.search.abstracts import AbstractIndex
from kgbuild.search.sentences import terms

#: The shipped model (written by ``python -m kgbuild.evaluate.answer_reader``).
MODEL_PATH = Path(__file__).resolve().parents[2] / "data" / "answer_sentence_model.json"
#: The model file's format, and the feature set its weights are for.
FORMAT = "kgbuild-answer-sentence-model/1"
FEATURE_SET = "kgbuild-answer-sentence-features/1"

#: A sentence that reports a finding.
FINDING = re.compile(r"\b(suggest|conclu|indicat|demonstrat|show|found|reveal|identif|confirm)",
                     re.IGNORECASE)  # fmt: skip
#: A sentence that states the study's aim, not what it found.
AIM = re.compile(r"\b(we (investigated|examined|aimed|sought|assessed|evaluated|studied|"
                 r"analy[sz]ed)|the aim|objective|to investigate|to determine|to examine|"
                 r"purpose)\b", re.IGNORECASE)  # fmt: skip
HEDGE = re.compile(r"\b(may|might|could|possibl|potential)", re.IGNORECASE)
DIGIT = re.compile(r"\d")

#: Feature names, in the order :func:`features` writes them.
FEATURES = (
    "cover", "cosine", "log_abstract_rank", "abstract_cover", "terms", "rarest_share",
    "title", "closing", "closing_label", "position", "log_length", "finding", "aim", "digit",
    "hedge", "log_cosine_rank", "log_cover_rank", "best_in_abstract", "abstract_best_cosine",
    "cosine_gap", "cover_gap",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Candidate:
    """One sentence of a matching abstract that writes at least :data:`MIN_TERMS` of the
    question's terms."""

    text: str
    #: Row of the matching abstracts it comes from (their BM25 order).
    abstract: int
    pmid: str
    #: Its abstract's BM25 rank (0 = best) and IDF cover of the question.
    abstract_rank: int
    abstract_cover: float
    #: Its place in the document (0 = title) and the document's sentences.
    position: int
    sentences: int
    title: bool
    closing: bool
    #: Share of the question's IDF weight it writes, its distinct question terms, and the share
    #: held by the rarest of them.
    cover: float
    terms: int
    rarest_share: float


def candidates(index: AbstractIndex, question: str, matching: list[dict[str, Any]],
               texts: dict[str, Any], n: int,
               ) -> tuple[list[Candidate], list[str | None]]:  # fmt: skip
    """The ``n`` sentences of the ``matching`` abstracts (:func:`kgbuild.corpus.passages.passages`
    rows, ``texts`` their year, title, abstract) that write most of the question's IDF weight
    and at least :data:`MIN_TERMS` of its terms, earlier abstracts first on ties; and each
    abstract's closing sentence (:func:`kgbuild.corpus.passages.closing_sentence`)."""
    weights = {t: index.idf(t) for t in set(terms(question))}
    total = sum(weights.values()) or 1.0
    cands: list[Candidate] = []
    closings: list[str | None] = []
    for i, row in enumerate(matching):
        year, title, abstract = texts[row["pmid"]]
        sentences = [ds.text for ds in doc_sentences(row["pmid"], year, title, abstract, [])]
        closing = closing_sentence(sentences, bool(title))
        closings.append(closing)
        for j, text in enumerate(sentences):
            has = set(terms(text)) & weights.keys()
            if len(has) < MIN_TERMS:
                continue
            cands.append(Candidate(
                text, i, str(row["pmid"]), int(row.get("rank", i)), float(row.get("cover", 0.0)),
                j, len(sentences), bool(title) and j == 0, text == closing,
                sum(weights[t] for t in has) / total, len(has),
                max(weights[t] for t in has) / total,
            ))  # fmt: skip
    order = sorted(range(len(cands)), key=lambda k: (-cands[k].cover, k))[:n]
    return [cands[k] for k in sorted(order)], closings


def features(cands: list[Candidate], cosine: np.ndarray) -> np.ndarray:
    """One row of :data:`FEATURES` per candidate (``cosine``: each one's to the question)."""
    cos = np.asarray(cosine, dtype=float)
    cover = np.array([c.cover for c in cands], dtype=float)
    cos_rank = np.argsort(np.argsort(-cos, kind="stable"), kind="stable")
    cover_rank = np.argsort(np.argsort(-cover, kind="stable"), kind="stable")
    best: dict[int, float] = {}
    for c, x in zip(cands, cos.tolist(), strict=True):
        best[c.abstract] = max(best.get(c.abstract, -1.0), x)
    rows = []
    for k, c in enumerate(cands):
        rows.append([
            c.cover, cos[k], math.log1p(c.abstract_rank), c.abstract_cover, c.terms,
            c.rarest_share, c.title, c.closing, bool(CLOSING.match(c.text)),
            c.position / max(c.sentences, 1), math.log1p(len(c.text)),
            bool(FINDING.search(c.text)), bool(AIM.search(c.text)), bool(DIGIT.search(c.text)),
            bool(HEDGE.search(c.text)), math.log1p(cos_rank[k]), math.log1p(cover_rank[k]),
            cos[k] >= best[c.abstract], best[c.abstract], cos[k] - cos.max(),
            c.cover - cover.max(),
        ])  # fmt: skip
    return np.array(rows, dtype=float).reshape(len(cands), len(FEATURES))


@dataclass(frozen=True, slots=True)
class AnswerReader:
    """A linear scorer over :data:`FEATURES` (weights in raw feature units)."""

    weights: np.ndarray
    intercept: float

    def score(self, x: np.ndarray) -> np.ndarray:
        """Each row's log-odds of being the sentence that answers the question."""
        return x @ self.weights + self.intercept


def reader_from(meta: dict[str, Any]) -> AnswerReader:
    """The reader a model file's JSON describes; ValueError when it is of another format or
    feature set, or names other features."""
    if meta.get("format") != FORMAT or meta.get("feature_set") != FEATURE_SET:
        raise ValueError(f"not a {FORMAT} model for {FEATURE_SET}")
    coef = meta.get("coefficients") or {}
    if set(coef) != set(FEATURES) | {"intercept"}:
        raise ValueError("its coefficients name other features than " + FEATURE_SET)
    weights = np.array([float(coef[f]) for f in FEATURES])
    if not np.isfinite(weights).all() or not math.isfinite(float(coef["intercept"])):
        raise ValueError("its coefficients are not finite numbers")
    return AnswerReader(weights, float(coef["intercept"]))


@lru_cache(maxsize=4)
def load(path: Path = MODEL_PATH) -> AnswerReader | None:
    """The shipped reader, or None when its file is missing or unreadable (the hand-weighted
    hybrid then ranks the sentences)."""
    try:
        return reader_from(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, AttributeError):
        return None
