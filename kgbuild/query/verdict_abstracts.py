"""A yes/no verdict read from the abstracts that best match the question, when neither the
facts nor the sentences naming the linked pair decide.

The facts and :mod:`kgbuild.query.verdict_sentences` read a question through the entities it
links, so a question whose subject is no entity ("does more education protect against AD",
"is the rate of new dementia cases going down") is read through whatever did link — there,
"cognitive reserve" as Cognition Disorders, answered "mixed" from sentences about AD and
cognition. The abstracts that best match the whole question (BM25 over every title and
abstract, :mod:`kgbuild.corpus.passages`) are about what was asked: "Several epidemiological
studies have found a lower incidence of Alzheimer's disease in highly educated populations".
So their sentences that write most of the question are read for the asked predicate's cues
(:mod:`kgbuild.question.predicates`) with the extractor's epistemic rules
(:func:`kgbuild.extract.epistemics.classify`: a negated cue states the opposite, a hedged one
nothing), the question's rarest terms standing for the pair. One abstract is one vote: its
finding (a negated statement overrules its aims, as in the sentence reading), else its closing
sentence's, else its sentences' majority.

Judged as PubMed's own question answering is (BioASQ yes/no, Tsatsaronis et al. 2015): the
answer of the documents retrieved for the question. Measured by ``bench/yes_no_verdicts.py``
(the walks' yes/no questions with the writer's gold, the DALK questions, BioRED Dev's).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kgbuild.corpus.documents import doc_sentences
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.corpus.passages import CLOSING
from kgbuild.query.verdict import decide
from kgbuild.query.verdict_sentences import cue_reading
from kgbuild.question.predicates import Predicate
from kgbuild.search.abstracts import AbstractIndex
from kgbuild.search.sentences import terms

#: Least share of the question's IDF weight one sentence must write to be read for it.
SENTENCE_COVER = 0.4
#: Least number of the question's distinct terms a read sentence writes.
MIN_TERMS = 2
#: Abstracts stating one side needed for a verdict: one abstract's cue is too often about
#: another role of its terms (tuned on the walks 5–13, ``bench/yes_no_verdicts.py``).
MIN_STATING = 2
#: Sentences shown as the verdict's evidence.
MAX_SHOWN = 5
#: The fact verdicts an abstracts' verdict replaces: none that decides.
REPLACEABLE = ("no evidence", "no stated evidence", "not found", "mixed")


#: A word of a sentence, as the BM25 terms are cut from it.
_WORD = re.compile(r"[^\W_][\w'-]*")


Span = tuple[int, int]


def _marks(sentence: str, stems: set[str], pred: Predicate) -> tuple[list[Span], list[Span]]:
    """(where the question's terms are first written in the sentence, in its order; those of
    them that are no cue of the asked predicate: the pair the epistemic rules read between —
    in "smoking did not protect against AD" the negation governs "protect", not a side)."""
    first: dict[str, tuple[int, int]] = {}
    cue: set[str] = set()
    for m in _WORD.finditer(sentence):
        for t in terms(m.group()):
            if t in stems and t not in first:
                first[t] = (m.start(), m.end())
                if pred.cues.fullmatch(m.group()) or (
                    pred.against is not None and pred.against.fullmatch(m.group())
                ):
                    cue.add(t)
    marks = sorted(first.values())
    return marks, sorted(v for t, v in first.items() if t not in cue)


def abstract_says(pmid: str, year: int, title: str | None, abstract: str | None,
                  weights: dict[str, float], pred: Predicate,
                  ) -> tuple[str, list[dict[str, Any]]]:  # fmt: skip
    """(what the abstract says: "yes", "no", "hedged" or "", its read sentences). A sentence is
    read when it writes :data:`SENTENCE_COVER` of the question's weight and :data:`MIN_TERMS`
    of its terms; its question terms are marked."""
    total = sum(weights.values()) or 1.0
    read: list[dict[str, Any]] = []
    for i, ds in enumerate(doc_sentences(pmid, year, title, abstract, [])):
        has = sorted(set(terms(ds.text)) & weights.keys())
        if len(has) < MIN_TERMS or sum(weights[t] for t in has) / total < SENTENCE_COVER:
            continue
        marks, sides = _marks(ds.text, set(has), pred)
        if len(sides) < 2:
            continue
        # the first and last of the question's non-cue words stand for the pair
        said = cue_reading(pred, ds.text, ds.text, 0, [sides[0], sides[-1], *marks]) or ""
        read.append({"pmid": pmid, "year": year, "reading": said, "index": i,
                     "closing": bool(CLOSING.match(ds.text)),
                     "sentence": excerpt(ds.text, disjoint_spans(marks))})  # fmt: skip
    readings = [x["reading"] for x in read]
    if "negated" in readings:  # the finding overrules the title's or the aims' claim
        return "no", read
    closing = [x["reading"] for x in read if x["closing"] and x["reading"]]
    if closing:  # none negated (above): its conclusion's "yes", "no" or "hedged"
        return closing[-1], read
    votes = Counter(r for r in readings if r in ("yes", "no"))
    if votes["yes"] != votes["no"]:
        return max(votes, key=lambda r: votes[r]), read
    return ("hedged" if "hedged" in readings else ""), read


def abstract_verdict(index: AbstractIndex, question: str, pmids: list[str],
                     texts: dict[str, Any], pred: Predicate,
                     base: dict[str, Any] | None) -> dict[str, Any] | None:  # fmt: skip
    """The verdict the abstracts ``pmids`` (those that best match the question and write half
    of it, :func:`kgbuild.corpus.passages.passages`, best first; ``texts``: their year, title
    and abstract, as that read them) give for
    ``pred``, replacing ``base`` (the facts' or the pair sentences' verdict) when that one does
    not decide (:data:`REPLACEABLE`) and this one does; else None (``base`` stands)."""
    if base is not None and base.get("answer") not in REPLACEABLE:
        return None
    qt = sorted(set(terms(question)))
    if len(qt) < MIN_TERMS or not pmids:
        return None
    weights = {t: index.idf(t) for t in qt}
    said: dict[str, set[str]] = {"yes": set(), "no": set(), "hedged": set()}
    shown: list[dict[str, Any]] = []
    sentences = 0
    for pmid in pmids:
        if pmid not in texts:
            continue
        year, title, abstract = texts[pmid]
        answer, read = abstract_says(pmid, int(year or 0), title, abstract, weights, pred)
        sentences += len(read)
        if answer in said:
            said[answer].add(pmid)
        if answer in ("yes", "no"):  # its sentence that says so (the finding: the last)
            want = ("yes",) if answer == "yes" else ("no", "negated")
            says = [x for x in read if x["reading"] in want]
            if says:
                shown.append({**says[-1], "reading": answer})
    yes, no = len(said["yes"]), len(said["no"])
    if max(yes, no) < MIN_STATING:
        return None
    answer = decide(yes, no, len(pmids))
    if answer not in ("yes", "no"):
        return None
    line = (f"{answer} (read from the {len(pmids)} abstracts that best match the question, not "
            f"KG facts): {yes} state it (asked: '{pred.says}')")  # fmt: skip
    line += f", {no} the opposite" if no else ""
    line += f", {len(said['hedged'])} hedge" if said["hedged"] else ""
    if base is not None and base.get("answer") in REPLACEABLE:
        line += f"; the facts: {base['answer']}"
    shown.sort(key=lambda x: (x["reading"] != answer, pmids.index(x["pmid"])))
    out = {k: v for k, v in (base or {}).items() if k not in ("pair", "edges", "names")}
    out.update(basis="abstracts", answer=answer, line=line, edges=[],
               sentences=[{k: x[k] for k in ("pmid", "year", "reading", "sentence")}
                          for x in shown[:MAX_SHOWN]],
               sentence_counts={"sentences": sentences, "abstracts": len(pmids), "yes": yes,
                                "no": no, "hedged": len(said["hedged"])},
               pmids=sorted(said["yes"]) + sorted(said["no"]))  # fmt: skip
    out.setdefault("predicate", pred.says)
    return out
