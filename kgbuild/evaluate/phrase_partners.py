"""How well an unlinked phrase's sentences name its gold relation partners
(:mod:`kgbuild.query.phrase_answer`).

A question about something the KG has no entity for is answered by the entities named in the
sentences writing the phrase. To measure that against gold, a gold entity is pretended
unlinked: for each gold concept with at least :data:`MIN_RELATIONS` relation lines in the file
(BioRED, Luo et al. 2022), and each kind among its partners, the question is "which <kind>
are related to <phrase>?", the phrase being the concept's most written mention surface. Gold:
the concept's relation partners of that kind in the file. Three readings rank candidates of the
kind by distinct PMIDs:

- ``phrase_sentences``: the answer :mod:`kgbuild.query.phrase_answer` gives — concepts named in
  sentences writing the phrase (or its shorter forms), nearest the phrase first among ties;
- ``then_abstracts``: those, then the concepts named elsewhere in the abstracts writing it (the
  tiers the query shows, :mod:`kgbuild.query.phrase_answer`);
- ``phrase_abstracts``: the co-mention baseline — concepts named in abstracts writing it;
- ``linked_sentences``: as if the concept were linked — concepts named in sentences naming one
  of its gold mentions (what a co-occurrence reading of a linked entity sees).

Figures: precision@5 (hits in the first five over five), the same over the answers given
when fewer than five are (``precision@5_given``), and recall@10, averaged over the questions,
with the hit counts.

    python -m kgbuild.evaluate.phrase_partners --gold FILE
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.evaluate.gold import GoldCorpus, read_gold_corpus
from kgbuild.extract.sentences import sentence_spans
from kgbuild.query.phrase_answer import Hit, abstracts, sentences, tally
from kgbuild.question.question_phrase import Phrase, shorter, word_stems

#: Fewest gold relation lines of a concept for it to be asked about.
MIN_RELATIONS = 2
READINGS = ("phrase_sentences", "then_abstracts", "phrase_abstracts", "linked_sentences")


def _rows(gold: GoldCorpus) -> list[tuple[Any, ...]]:
    """The documents as :func:`kgbuild.query.phrase_answer.fetch` returns them."""
    return [(d.pmid, d.year or 0, d.title, d.abstract,
             [{"c": m.concept_id, "a": m.start, "b": m.end}
              for m in gold.mentions.get(d.pmid, []) if m.hetionet_type and m.concept_id])
            for d in gold.documents]  # fmt: skip


def questions(gold: GoldCorpus) -> list[tuple[str, str, str, set[str]]]:
    """(concept, its phrase, partner kind, gold partners of that kind) per question."""
    kinds: dict[str, str] = {}
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    for ms in gold.mentions.values():
        for m in ms:
            if m.hetionet_type and m.concept_id:
                kinds.setdefault(m.concept_id, m.hetionet_type)
                surfaces[m.concept_id][m.text] += 1
    partners: dict[str, set[str]] = defaultdict(set)
    lines: Counter[str] = Counter()
    for r in gold.relations:
        lines[r.a] += 1
        lines[r.b] += 1
        partners[r.a].add(r.b)
        partners[r.b].add(r.a)
    out = []
    for c in sorted(x for x, n in lines.items() if n >= MIN_RELATIONS and surfaces.get(x)):
        phrase = surfaces[c].most_common(1)[0][0]
        by_kind: dict[str, set[str]] = defaultdict(set)
        for p in partners[c]:
            if p in kinds:
                by_kind[kinds[p]].add(p)
        out += [(c, phrase, k, ps) for k, ps in sorted(by_kind.items())]
    return out


def _ranked(hits: list[Hit], kind: str, kinds: dict[str, str], own: str) -> list[str]:
    return [c for c, _ in tally(hits, lambda c: c != own and kinds.get(c) == kind)]


def answers(gold: GoldCorpus, rows: list[tuple[Any, ...]], concept: str, phrase: str,
            kind: str, kinds: dict[str, str]) -> dict[str, list[str]]:  # fmt: skip
    """Each reading's ranked partner concepts for one question."""
    whole = Phrase(phrase, 0, len(phrase), word_stems(phrase))
    forms = [whole, *shorter(whole)]
    pat = re.compile(forms[-1].pattern(), re.IGNORECASE)
    mine = [r for r in rows if pat.search(f"{r[2]} {r[3]}".lower())]
    hits = sentences(mine, forms)
    doc_hits = abstracts(mine)
    linked = []
    for pmid, year, title, abstract, spans in rows:
        at = [(x["a"], x["b"]) for x in spans if x["c"] == concept]
        if not at:
            continue
        text = f"{title} {abstract}"
        for s0, s1 in sentence_spans(text, [(x["a"], x["b"]) for x in spans], [len(title) + 1]):
            inside = [(a, b) for a, b in at if s0 <= a and b <= s1]
            if inside:
                ms = tuple((x["c"], x["a"] - s0, x["b"] - s0) for x in spans
                           if s0 <= x["a"] and x["b"] <= s1)  # fmt: skip
                a, b = inside[0]
                linked.append(Hit(pmid, year, text[s0:s1], (a - s0, b - s0), ms))
    said, docs = _ranked(hits, kind, kinds, concept), _ranked(doc_hits, kind, kinds, concept)
    return {"phrase_sentences": said, "phrase_abstracts": docs,
            "then_abstracts": said + [c for c in docs if c not in set(said)],
            "linked_sentences": _ranked(linked, kind, kinds, concept)}  # fmt: skip


def measure(gold: GoldCorpus) -> dict[str, Any]:
    """Precision@5 and recall@10 of each reading over the questions (module docstring)."""
    rows = _rows(gold)
    kinds = {m.concept_id: m.hetionet_type for ms in gold.mentions.values() for m in ms
             if m.hetionet_type and m.concept_id}  # fmt: skip
    qs = questions(gold)
    sums = {k: {"p5": 0.0, "p5g": 0.0, "r10": 0.0, "hits5": 0, "hits10": 0, "answered": 0}
            for k in READINGS}  # fmt: skip
    for concept, phrase, kind, truth in qs:
        got = answers(gold, rows, concept, phrase, kind, kinds)
        for k in READINGS:
            top = got[k]
            s = sums[k]
            h5, h10 = len(set(top[:5]) & truth), len(set(top[:10]) & truth)
            s["hits5"] += h5
            s["hits10"] += h10
            s["answered"] += bool(top)
            s["p5"] += h5 / 5
            s["p5g"] += h5 / min(5, len(top)) if top else 0.0
            s["r10"] += h10 / len(truth)
    n = max(len(qs), 1)
    return {"gold": gold.path.name, "questions": len(qs),
            "gold_partners": sum(len(t) for *_, t in qs),
            **{k: {"precision@5": round(v["p5"] / n, 3),
                   "precision@5_given": round(v["p5g"] / n, 3),
                   "recall@10": round(v["r10"] / n, 3),
                   "hits@5": v["hits5"], "hits@10": v["hits10"], "answered": v["answered"]}
               for k, v in sums.items()}}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gold", type=Path, required=True, help="a gold file (BioRED)")
    a = p.parse_args(argv)
    print(json.dumps(measure(read_gold_corpus(a.gold))))


if __name__ == "__main__":
    main()
