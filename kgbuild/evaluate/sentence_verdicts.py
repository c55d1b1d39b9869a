"""How well a yes/no verdict read from sentences (:mod:`kgbuild.query.verdict_sentences`)
says "yes" to a gold relation.

Every pair of gold concepts named together in one sentence of a gold document is a yes/no
question: "is A related to B?" (predicate ``associates``) on BioRED (Luo et al. 2022), "does
chemical A cause disease B?" (``causes``) on BC5CDR, whose relations are chemical-induced
disease (Li et al. 2016). Gold yes: the document has a relation line for the pair (either
direction). Three readings of the same sentences answer it:

- ``comention``: every co-mentioned pair is "yes" (the baseline a co-occurrence KG gives);
- ``no_cue``: "yes" unless every sentence naming both negates or hedges it (the epistemic
  rules alone, :func:`kgbuild.extract.epistemics.classify`);
- ``cues``: the asked predicate's cues and opposite cues with negation, decided over the
  document's sentences as the verdict decides over PMIDs (:func:`kgbuild.query.verdict.decide`).

    python -m kgbuild.evaluate.sentence_verdicts --gold FILE --asked associates|causes
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from typing import Any

from kgbuild.evaluate.gold import GoldCorpus, read_gold_corpus
from kgbuild.extract.sentences import sentence_spans
from kgbuild.query.verdict import decide
from kgbuild.query.verdict_sentences import Side, read
from kgbuild.question.predicates import Predicate, predicate_for

#: The kinds a pair is asked of, per asked predicate (BC5CDR relates chemicals to diseases).
KINDS = {"causes": ("Compound", "Disease")}
READINGS = ("comention", "no_cue", "cues")


def _no_cue(pred: Predicate) -> Predicate:
    """``pred`` with a cue every sentence carries and no opposite: only negation and hedging
    are read."""
    return replace(pred, cues=re.compile(""), against=None)


def questions(gold: GoldCorpus, asked: str) -> list[tuple[Any, str, str, bool]]:
    """(document, a, b, gold yes) of every pair of gold concepts named in one sentence."""
    kinds = KINDS.get(asked)
    related = {(r.pmid, *sorted((r.a, r.b))) for r in gold.relations}
    out = []
    for doc in gold.documents:
        ms = [m for m in gold.mentions.get(doc.pmid, []) if m.hetionet_type and m.concept_id]
        kind = {m.concept_id: m.hetionet_type for m in ms}
        spans = sentence_spans(doc.text, [(m.start, m.end) for m in ms], [len(doc.title) + 1])
        pairs: set[tuple[str, str]] = set()
        for s0, s1 in spans:
            ids = sorted({str(m.concept_id) for m in ms if s0 <= m.start and m.end <= s1})
            pairs |= set(combinations(ids, 2))
        for a, b in sorted(pairs):
            if kinds and sorted((kind[a], kind[b])) != sorted(kinds):
                continue
            out.append((doc, a, b, (doc.pmid, a, b) in related))
    return out


def answer(doc: Any, a: str, b: str, gold: GoldCorpus, pred: Predicate) -> str:
    """The sentence reading's answer to "A {pred} B?" over one document."""
    ms = [m for m in gold.mentions.get(doc.pmid, []) if m.concept_id in (a, b)]
    spans = [{"k": 0 if m.concept_id == a else 1, "a": m.start, "b": m.end} for m in ms]
    sides = [Side(a, ids=(a,)), Side(b, ids=(b,))]
    got = read([(doc.pmid, doc.year, doc.title, doc.abstract, spans)], sides, [], pred)
    # one document: its sentences vote (a PMID would count once)
    yes = sum(x["reading"] == "yes" for x in got.shown)
    no = sum(x["reading"] == "no" for x in got.shown)
    return decide(yes, no, got.sentences)


def _figures(said: list[bool], gold: list[bool]) -> dict[str, Any]:
    tp = sum(s and g for s, g in zip(said, gold, strict=True))
    fp = sum(s and not g for s, g in zip(said, gold, strict=True))
    fn = sum(g and not s for s, g in zip(said, gold, strict=True))
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "fp": fp, "fn": fn, "precision": round(p, 3), "recall": round(r, 3),
            "f1": round(f, 3)}  # fmt: skip


def measure(gold: GoldCorpus, asked: str) -> dict[str, Any]:
    """Precision, recall and F1 of "yes" for each reading, over the co-mentioned pairs."""
    pred = predicate_for([asked])
    qs = questions(gold, asked)
    truth = [g for *_, g in qs]
    said = {
        "comention": [True] * len(qs),
        "no_cue": [answer(d, a, b, gold, _no_cue(pred)) == "yes" for d, a, b, _ in qs],
        "cues": [answer(d, a, b, gold, pred) == "yes" for d, a, b, _ in qs],
    }
    return {"gold": str(gold.path.name), "asked": asked, "questions": len(qs),
            "gold_yes": sum(truth),
            **{k: _figures(said[k], truth) for k in READINGS}}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gold", type=Path, required=True, help="a gold file (BioRED, BC5CDR)")
    p.add_argument("--asked", default="associates", help="the asked predicate")
    a = p.parse_args(argv)
    print(json.dumps(measure(read_gold_corpus(a.gold), a.asked)))


if __name__ == "__main__":
    main()
