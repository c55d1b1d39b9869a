"""Ceilings: how much of a gold file an extractor could get right at best.

- **The mapping's ceiling**: a gold relation can be matched only when both its endpoints are KG
  nodes of the document (DALK Table 10 makes Gene, Chemical and Disease mentions with an ID
  nodes; BioRED's variants, species and cell lines are not) and, for the typed measures, when
  some canonical relation between the two kinds maps to its type
  (:func:`kgbuild.evaluate.mapping.reachable_types`; BioRED's Cotreatment and Comparison have
  none). Precision 1 on exactly those relations gives recall R and F1 = 2R / (1 + R).
- **Candidate-pair ceilings**, per extractor: which pairs it even looks at, computed with the
  extractors' own functions on the gold mentions. ``cooccurrence`` sees two nodes in one
  sentence whose kinds have a co-occurrence relation, and asserts that one relation
  (``data/cooccurrence_relations.tsv``); ``pairwise`` asks DALK Table 11's kind pairs
  (``extract.pairwise.candidate_pairs``), any relation being a possible answer (the "others"
  option); ``generative`` may name any two nodes of the abstract, so its ceiling is the
  mapping's.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from kgbuild.evaluate.gold import GoldCorpus
from kgbuild.evaluate.mapping import Scheme, reachable_types
from kgbuild.evaluate.relations import PARTS, gold_facts, measures_for
from kgbuild.extract import cooccurrence
from kgbuild.extract.pairwise import candidate_pairs, doc_nodes

#: Candidate pair → relations the extractor can assert for it (None: any canonical relation).
Candidates = dict[tuple[str, str], frozenset[str] | None]
EXTRACTORS = ("cooccurrence", "pairwise", "generative")


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def extractor_candidates(gold: GoldCorpus, pmid: str) -> dict[str, Candidates]:
    """Per extractor, the pairs of one gold document it can assert a relation for."""
    doc = next(d for d in gold.documents if d.pmid == pmid)
    mentions = gold.mentions[pmid]
    cooc: dict[tuple[str, str], set[str]] = {}
    for t in cooccurrence.extract(doc, mentions)[0]:
        cooc.setdefault(_pair(t.head_id, t.tail_id), set()).add(t.relation)
    pairwise = {_pair(q.head.id, q.tail.id): None for q in candidate_pairs(mentions)}
    nodes = [n.id for n in doc_nodes(mentions)]
    generative = {_pair(a, b): None for a, b in combinations(nodes, 2)}
    return {
        "cooccurrence": {k: frozenset(v) for k, v in cooc.items()},
        "pairwise": pairwise,
        "generative": generative,
    }


def _reachable(
    scheme: Scheme, rel_type: str, kind_a: str, kind_b: str, relations: frozenset[str] | None
) -> bool:
    if relations is None:
        return rel_type in reachable_types(scheme, kind_a, kind_b)
    return any(scheme.gold_type(r, kind_a, kind_b) == rel_type for r in relations)


def _loss(gold: GoldCorpus, pmid: str, curie: str) -> str | None:
    """Why a gold endpoint is not a node of its document (None: it is one)."""
    if curie in gold.nodes(pmid):
        return None
    kind = gold.entities[pmid].get(curie)
    if kind is None:
        return "id not annotated in the document"
    if kind in ("Gene", "Compound", "Disease"):
        return "second ID of a composite mention"
    return f"{kind} is not a KG node kind"


def ceilings(gold: GoldCorpus, scheme: Scheme, novelty: str) -> dict[str, Any]:
    """The mapping's ceiling and every extractor's candidate-pair ceiling, per measure, with
    the mapping's losses by reason (see the module docstring)."""
    facts = gold_facts(gold.relations)
    measures = measures_for(scheme)
    cands = {p: extractor_candidates(gold, p) for p in gold.pmids}
    losses: Counter[str] = Counter()
    for f in facts:
        reasons = {_loss(gold, f.pmid, c) for c in f.pair} - {None}
        for r in sorted(reasons):  # type: ignore[type-var]
            losses[f"endpoint: {r}"] += 1
        if not reasons:
            ka, kb = (gold.entities[f.pmid][c] for c in f.pair)
            if f.rel_type not in reachable_types(scheme, ka, kb):
                losses[f"type: no canonical relation for {f.rel_type} between {f.kinds}"] += 1
    out: dict[str, Any] = {"losses": dict(sorted(losses.items(), key=lambda x: -x[1]))}
    for name in ("mapping", *EXTRACTORS):
        source = "generative" if name == "mapping" else name
        per: dict[str, Any] = {}
        for measure in measures:
            with_type, with_novelty = PARTS[measure]
            keys = {f.key(measure) for f in facts}
            hit = set()
            for f in facts:
                cand = cands.get(f.pmid, {}).get(source, {})
                if f.pair not in cand:
                    continue
                ka, kb = (gold.entities[f.pmid][c] for c in f.pair)
                if with_type and not _reachable(scheme, f.rel_type, ka, kb, cand[f.pair]):
                    continue
                if with_novelty and f.novelty != novelty:
                    continue
                hit.add(f.key(measure))
            r = len(hit) / len(keys) if keys else 0.0
            per[measure] = {
                "reachable": len(hit),
                "n_gold": len(keys),
                "recall": round(r, 4),
                "f1": round(2 * r / (1 + r), 4),
            }
        out[name] = per
    return out
