"""The abstracts that best match a question, each shown by its sentence that writes most of it.

The facts answer only what the reading turned into a served triple, and the retrieval reaches
only abstracts that served a fact about the question's entities. Blind judges, asked where
DALK's abstracts state the gold answers of the newcomer walks (``data/walks/ceiling``), found it
stated for 105 of walks 8–11's 128 questions; the answer printed one of their abstracts for 59.
Ranking every abstract of the snapshot by BM25 of the question's words
(:mod:`kgbuild.search.abstracts`) — the baseline of literature search (PubMed's Best Match
starts from BM25: Fiorini et al. 2018, PLoS Biol; BioASQ's document and snippet baselines are
BM25 too) — puts one of them among the first five for 62, and for 22 of walk 13's 23
(``bench/walk_evidence.py``). So every answer shows them, labelled as what the abstracts write,
not facts of the KG.

An abstract is shown only when it writes at least :data:`MIN_COVER` of the question's terms,
weighted by their IDF (a term no abstract writes weighs most), and :data:`MIN_TERMS` of them: BM25
ranks whatever shares one rare word ("What is the capital city of France?" finds French
cohorts, covering 0.3 of it), and a question the corpus does not write is told so rather than
shown abstracts that match one word. Its sentence is the one whose distinct question terms
weigh most (IDF), the earliest on ties; beside it, the abstract's closing sentence, where it
says what was found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kgbuild.corpus.documents import doc_sentences
from kgbuild.search.abstracts import AbstractIndex
from kgbuild.search.sentences import terms

#: Abstracts shown per answer.
ABSTRACTS_SHOWN = 5
#: Abstracts read (their text fetched) to find the shown ones among.
ABSTRACTS_READ = 12
#: Least share of the question's IDF weight an abstract must write to be shown.
MIN_COVER = 0.5
#: Least number of the question's distinct terms an abstract must write to be shown.
MIN_TERMS = 2
#: The read abstracts' text (one query for all of them).
TEXTS_SQL = (
    "SELECT pmid, year, title, abstract FROM documents_at(?) "
    "WHERE pmid IN (SELECT unnest(?::VARCHAR[]))"
)


#: A structured abstract's closing section: where it says what was found.
CLOSING = re.compile(r"^\s*(conclusions?|interpretation|significance|implications)\b\W",
                     re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Read:
    """What one abstract shows for a question."""

    #: Its sentence whose distinct question terms weigh most (the earliest on ties).
    best: str
    #: Its closing sentence (the labelled conclusion's first, else the last), when another
    #: sentence than ``best`` and the abstract has more than the title.
    closing: str | None
    #: The question terms the whole document writes.
    written: set[str]


def read_abstract(pmid: str, year: int, title: str | None, abstract: str | None,
                  weights: dict[str, float]) -> Read:  # fmt: skip
    """The best-matching and closing sentences of a document, and the question terms it
    writes. The closing sentence is shown beside the best match because the matching sentence
    of an abstract is most often its methods (it names what the question names) and its
    conclusion says what was found: a yes/no question's answer."""
    best, best_w = "", -1.0
    written: set[str] = set()
    sentences = list(doc_sentences(pmid, year, title, abstract, []))
    for ds in sentences:
        has = set(terms(ds.text)) & weights.keys()
        written |= has
        w = sum(weights[t] for t in has)
        if w > best_w:
            best, best_w = ds.text, w
    closing = closing_sentence([ds.text for ds in sentences], bool(title))
    return Read(best, closing if closing != best else None, written)


def closing_sentence(sentences: list[str], has_title: bool) -> str | None:
    """An abstract's closing sentence: its labelled conclusion's first, else its last, when it
    has more than the title (and one sentence)."""
    body = sentences[1:] if has_title else sentences
    closing = next((s for s in body if CLOSING.match(s)), None)
    if closing is None and len(body) > 1:
        closing = body[-1]
    return closing


def passages(wh: Any, snapshot_id: str, index: AbstractIndex, question: str,
             n: int = ABSTRACTS_SHOWN, texts: dict[str, Any] | None = None,
             read: int = ABSTRACTS_READ,
             min_cover: float = MIN_COVER) -> list[dict[str, Any]]:  # fmt: skip
    """The abstracts that best match ``question`` and write enough of it (module docstring;
    ``min_cover``: the least share of its IDF weight kept), best first among the ``read`` BM25
    ranks: pmid, year, title, sentence (the best match), closing (its conclusion, see
    :func:`read_abstract`), BM25 score and rank (0 = best), cover (IDF share of the question's
    terms the abstract writes) and the question terms (stems) it writes."""
    qt = sorted(set(terms(question)))
    if len(qt) < MIN_TERMS:
        return []
    scores = index.scores(qt)
    rows = index.bm25.top(scores, read)
    if not rows:
        return []
    # a term no abstract writes weighs most ("donanemab" in a corpus that predates it): the
    # abstracts that match the rest of the question do not answer it
    weights = {t: index.idf(t) for t in qt}
    total = sum(weights.values())
    pmids = [index.pmids[r] for r in rows]
    # the read abstracts' (year, title, abstract) land in ``texts`` when given: a reader of the
    # same abstracts (the yes/no verdict) needs no second query
    texts = {} if texts is None else texts
    texts.update({str(p): (y, t, a)
                  for p, y, t, a in wh.query(TEXTS_SQL, [snapshot_id, pmids])})  # fmt: skip
    out = []
    for rank, (r, pmid) in enumerate(zip(rows, pmids, strict=True)):
        if pmid not in texts:
            continue
        year, title, abstract = texts[pmid]
        got = read_abstract(pmid, int(year or 0), title, abstract, weights)
        cover = sum(weights[t] for t in got.written) / total
        if cover < min_cover or len(got.written) < MIN_TERMS:
            continue
        out.append({"pmid": pmid, "year": int(year or 0), "title": title or "",
                    "sentence": got.best, "closing": got.closing,
                    "score": round(float(scores[r]), 4), "rank": rank, "cover": round(cover, 3),
                    "terms": sorted(got.written)})  # fmt: skip
        if len(out) >= n:
            break
    return out


#: Abstracts that best match the question, read for a choice the facts do not give.
CHOICE_ABSTRACTS = 20


def choice_from_abstracts(index: AbstractIndex, question: str,
                          choices: list[str]) -> dict[str, Any] | None:  # fmt: skip
    """The option the abstracts that best match the question write most about, for options
    the facts leave without an answer: each option's own terms (not the question's, not
    shared by every option) scored by their BM25 in the question's :data:`CHOICE_ABSTRACTS`
    best abstracts, summed (Clark et al. 2016's IR solver, with whole abstracts for its
    sentences). None when no option's own terms occur there.

    Not for "all EXCEPT" questions: the option asked for is the one the abstracts do not say.
    Kept because it was better on every multiple-choice set at hand, filling only the
    questions the facts left without an answer (KG-only answer, then this): the walks' 36
    questions 17 → 21 right, ADQA MedMCQA 73 → 75 of 210 and MedQA 39 → 43 of 152 (the DALK
    build; ``docs/querying.md``). Replacing the facts' answer with it was not: 21, 68, 41."""
    qt = sorted(set(terms(question)))
    rows = index.ranked(qt, CHOICE_ABSTRACTS)
    if not rows or len(choices) < 2:
        return None
    own_terms = [set(terms(c)) for c in choices]
    shared = set.intersection(*own_terms) | set(qt)
    # each option's BM25 in the question's abstracts (its own terms only)
    per_doc = [index.scores(sorted(own - shared))[rows] for own in own_terms]
    scores = [float(x.sum()) for x in per_doc]
    if max(scores) <= 0:
        return None
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    said = per_doc[best].tolist()
    pmids = [index.pmids[r] for r, s in zip(rows, said, strict=True) if s > 0]
    return {"choice": best, "scores": [round(s, 4) for s in scores], "pmids": pmids[:5],
            "abstracts": len(rows)}  # fmt: skip
