"""Each shown abstract by its sentence closest to the question: its words and its meaning.

The abstracts that best match a question (:mod:`kgbuild.corpus.passages`) were each shown by the
sentence that writes most of the question's rare words. That sentence is most often the
abstract's background or methods, which names what the question names; the sentence that
answers says it in other words ("How do papers predict and then prove that a microRNA targets
a gene?" is answered by "Computational analysis using TargetScan … predicted miRNAs have a
conserved binding site with APP"). Dense retrieval closes that gap where BM25 cannot (Karpukhin
et al. 2020, DPR; BioASQ's snippet task is won by lexical retrieval re-ranked by an encoder), and
a hybrid of both beats either alone (Ma et al. 2021, "A replication study of dense passage
retriever"). The encoder is the one the linker already loads (all-MiniLM-L6-v2, run in numpy:
:mod:`kgbuild.search.numpy_encoder`), so no model is added.

How: the :data:`SENTENCES_EMBEDDED` sentences of the matching abstracts that write most of the
question's IDF weight (and at least two of its terms) are embedded with the question; each
scores :data:`LEXICAL_SHARE` × its IDF cover + the rest × its cosine to the question, less
:data:`RANK_PRIOR` × ln(1 + its abstract's BM25 rank). Each abstract is shown by its best
sentence, the abstracts ordered by it.

The hand weights are the fallback now: a logistic regression trained on the sentences blind
judges quoted as answers scores the same candidates (:mod:`kgbuild.corpus.answer_reader`; held
out by walk, the quoted sentence first for 16 of 80 questions against the hybrid's 12, among
three 39 against 33), and :func:`read_abstracts` also returns the three sentences that best
answer the question. What follows measured the hybrid.

Measured against the blind corpus-ceiling judgments (``data/walks/ceiling``, walk 13's and walk
15's ``ceiling.tsv``: the PMIDs a judge found stating each gold answer) by
``bench/walk_evidence.py``, before → after: a judged abstract among the five shown, walks 8–11
55 → 58 of 105, walk 13 20 → 21 of 23, walk 15 (held out from the constants' choice) 11 → 12 of
26; the judge's quoted sentence among them 16 → 17, 5 → 6, 2 → 4. The first shown is a judged
one less often on walks 8–11 (32 → 28; walk 13 15 → 17, walk 15 5 → 8): a stronger
:data:`RANK_PRIOR` (0.15, 0.3) keeps it (30, 33) but shows fewer among five (56, 55). A blind
walk of 32 new questions (walk 16, ``data/walks/README.md``) judged 10 → 10 right: its judges
read the answer line and the facts, and the abstracts block changed no label. Options are read
per choice, so a question with choices keeps the sentence that writes most of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kgbuild.corpus.answer_reader import AnswerReader, Candidate, candidates, features, load
from kgbuild.corpus.passages import ABSTRACTS_SHOWN
from kgbuild.search.abstracts import AbstractIndex

#: Abstracts (BM25 ranks) whose sentences compete to be shown.
ABSTRACTS_READ = 30
#: Sentences embedded per question: those writing most of its IDF weight. 24 take 0.4–0.55 s
#: here (40: 0.7–0.8 s, which put a first ``kgbuild ask`` at 2.65–3.05 s against its 3 s
#: target; 24: 2.43–2.54 s); on walks 8–11, 40 showed a judged abstract among five for 59
#: questions, 24 for 58.
SENTENCES_EMBEDDED = 24
#: Weight of the sentence's IDF cover of the question; the rest is its cosine to the question.
LEXICAL_SHARE = 0.3
#: Penalty per ln(1 + BM25 rank) of the sentence's abstract: the abstract as a whole matters.
RANK_PRIOR = 0.05

#: Encodes texts to unit vectors (the linker's query encoder).
Encode = Callable[[list[str]], np.ndarray]


def closest_sentences(index: AbstractIndex, question: str, matching: list[dict[str, Any]],
                      texts: dict[str, Any], encode: Encode,
                      n: int = ABSTRACTS_SHOWN, reader: AnswerReader | bool | None = True,
                      ) -> list[dict[str, Any]]:  # fmt: skip
    """The ``n`` abstracts of ``matching`` (:func:`kgbuild.corpus.passages.passages` rows, with
    their ``texts``: year, title, abstract) whose sentence is closest to ``question``, each
    row's ``sentence`` that sentence and ``closeness`` its score: :func:`answering_sentences`,
    each abstract by its best. An abstract with no sentence writing two of the question's terms
    is not shown; with none at all, the rows are returned as they came."""
    return read_abstracts(index, question, matching, texts, encode, n, reader)[0]


#: Sentences shown as the ones that best answer the question, and at most this many of them
#: from one abstract (an abstract's result and its conclusion often say it twice).
ANSWERING_SHOWN = 3
ANSWERING_PER_ABSTRACT = 2


def read_abstracts(index: AbstractIndex, question: str, matching: list[dict[str, Any]],
                   texts: dict[str, Any], encode: Encode, n: int = ABSTRACTS_SHOWN,
                   reader: AnswerReader | bool | None = True,
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    """(:func:`closest_sentences`' abstracts, the :data:`ANSWERING_SHOWN` sentences that best
    answer the question: pmid, year, sentence, score — the reader's log-odds, or the hybrid's
    score without a reader)."""
    scored, closings = answering_sentences(index, question, matching, texts, encode, reader)
    if not scored:
        return matching[:n], []
    best: dict[int, tuple[float, str]] = {}
    said: list[dict[str, Any]] = []
    per: dict[int, int] = {}
    for score, c in scored:
        best.setdefault(c.abstract, (score, c.text))
        if len(said) < ANSWERING_SHOWN and per.get(c.abstract, 0) < ANSWERING_PER_ABSTRACT:
            per[c.abstract] = per.get(c.abstract, 0) + 1
            said.append({"pmid": c.pmid, "year": int(texts[c.pmid][0] or 0),
                         "sentence": c.text, "score": round(score, 4)})  # fmt: skip
    out = []
    for i in list(best)[:n]:
        row, (score, text), closing = matching[i], best[i], closings[i]
        out.append({**row, "sentence": text, "closing": closing if closing != text else None,
                    "closeness": round(score, 4)})  # fmt: skip
    return out, said


def answering_sentences(index: AbstractIndex, question: str, matching: list[dict[str, Any]],
                        texts: dict[str, Any], encode: Encode,
                        reader: AnswerReader | bool | None = True,
                        ) -> tuple[list[tuple[float, Candidate]], list[str | None]]:  # fmt: skip
    """The :data:`SENTENCES_EMBEDDED` candidate sentences of the matching abstracts
    (:func:`kgbuild.corpus.answer_reader.candidates`), best first by the trained reader's
    log-odds that each answers the question (``reader``: True for the shipped one, None for
    none) or, without one, by the hybrid of the module docstring; and each abstract's closing
    sentence."""
    cands, closings = candidates(index, question, matching, texts, SENTENCES_EMBEDDED)
    if not cands:
        return [], closings
    vectors = encode([question] + [c.text for c in cands])
    cosine = vectors[1:] @ vectors[0]
    model = load() if reader is True else reader or None
    if model is not None:
        scores = model.score(features(cands, cosine)).tolist()
    else:
        scores = hybrid_scores(cands, cosine).tolist()
    order = sorted(range(len(cands)), key=lambda k: (-round(scores[k], 9), k))
    return [(float(scores[k]), cands[k]) for k in order], closings


def hybrid_scores(cands: list[Candidate], cosine: np.ndarray) -> np.ndarray:
    """The hand-weighted hybrid of the module docstring, per candidate (the trained reader's
    fallback, and its baseline in :mod:`kgbuild.evaluate.answer_reader`)."""
    cover = np.array([c.cover for c in cands], dtype=float)
    rank = np.log1p(np.array([c.abstract_rank for c in cands], dtype=float))
    cos = np.asarray(cosine, dtype=float)
    return LEXICAL_SHARE * cover + (1 - LEXICAL_SHARE) * cos - RANK_PRIOR * rank


#: Sentences a sentence reader re-orders by closeness to the question: its first, in its own
#: order (the encoder reads ~50 short sentences per second here).
CLOSEST_READ = 24


def closest_first(items: list[Any], sentence: Callable[[Any], str], question: str,
                  encode: Encode | None, group: Callable[[Any], Any],
                  n: int = CLOSEST_READ) -> list[Any]:  # fmt: skip
    """``items`` (a sentence reader's hits, in its order) with its first ``n`` re-ordered
    within their ``group`` (the reader's own key: the question's entities a sentence names, the
    form of the phrase it writes) by cosine to the question, in place of newest-first. A
    reader's sentences name what the question names, and the one that answers it says so in
    other words ("ponezumab … binds specifically to the C-terminus of Abeta40" for "which bit
    of amyloid beta does it grab onto?"): the same hybrid as the abstracts' sentences above.
    Unchanged without an encoder, or when it fails."""
    if encode is None or len(items) < 2:
        return items
    head = items[:n]
    try:
        vectors = encode([question] + [sentence(x) for x in head])
    except Exception:  # a model folder that went missing: the reader's own order stands
        return items
    cosine = (vectors[1:] @ vectors[0]).tolist()
    order = sorted(range(len(head)), key=lambda i: (group(head[i]), -round(cosine[i], 6), i))
    return [head[i] for i in order] + items[n:]
