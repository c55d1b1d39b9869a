"""Relation extraction scored against gold relation lines (BioRED, BC5CDR CID).

What is compared. Gold relations are document-level, between concept IDs, unordered (BioRED:
Luo et al. 2022; BC5CDR: Wei et al. 2016); so are predictions: every triple with evidence in a
document is a claim of that document about the pair of its endpoints, whatever its direction.
A triple's canonical relation becomes a gold type through :mod:`kgbuild.evaluate.mapping`; when a
pair has triples of several types, the pair's type is the most specific (BioRED's Association
last), then the one with most evidence sentences, then table order.

Measures, micro-averaged over pairs (BioCreative VIII BioRED track, Islamaj et al. 2024):
``pair`` (the pair is related), ``pair+type``, ``pair+novelty`` and ``all`` (pair, type and
novelty). kgbuild does not predict novelty: every prediction is taken as the paper's own
finding (``Novel``; ``--assume-novelty``), so the novelty measures show what a novelty-blind
extractor scores. BC5CDR has one type: ``CID`` (= ``pair+type``).

Set aside, counted and never scored: triples with an endpoint that is not an entity of the
document's gold annotations (a free-text node an LLM named, or an ID from another document),
since the gold says nothing about them; and triples whose relation asserts nothing in the
scheme (``isa``, ``part_of``…: the mapping's ``-`` rows).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.evaluate.bootstrap import scores
from kgbuild.evaluate.gold import NOVEL, GoldCorpus, GoldRelation
from kgbuild.evaluate.mapping import Scheme

MEASURES = {"biored": ("pair", "pair+type", "pair+novelty", "all"), "cdr": ("pair+type",)}
#: What each measure compares, after the pair: (type?, novelty?).
PARTS = {
    "pair": (False, False),
    "pair+type": (True, False),
    "pair+novelty": (False, True),
    "all": (True, True),
}


@dataclass(frozen=True, slots=True)
class PredictedTriple:
    """One triple with its evidence in one document (as the scratch warehouse holds it)."""

    pmid: str
    head: str
    relation: str
    tail: str
    n_evidence: int = 1


@dataclass(frozen=True, slots=True)
class Fact:
    """A scored unit: an unordered pair in a document, its type and novelty."""

    pmid: str
    pair: tuple[str, str]
    kinds: str
    rel_type: str
    novelty: str

    def key(self, measure: str) -> tuple[str, ...]:
        with_type, with_novelty = PARTS[measure]
        return (
            self.pmid,
            *self.pair,
            self.rel_type if with_type else "",
            self.novelty if with_novelty else "",
        )


def measures_for(scheme: Scheme) -> tuple[str, ...]:
    return MEASURES.get(scheme.name, ("pair", "pair+type"))


def gold_facts(relations: Iterable[GoldRelation]) -> list[Fact]:
    return [Fact(r.pmid, r.pair, r.kinds, r.rel_type, r.novelty) for r in relations]


def predicted_facts(
    triples: Iterable[PredictedTriple], gold: GoldCorpus, scheme: Scheme, novelty: str = NOVEL
) -> tuple[list[Fact], dict[str, Any]]:
    """One fact per predicted pair (type chosen as the module docstring says), and what was
    set aside: ``outside_gold_entities`` and ``outside_scheme`` (by relation) triple counts."""
    by_pair: dict[tuple[str, tuple[str, str]], Counter[str]] = defaultdict(Counter)
    outside_entities = 0
    outside_scheme: Counter[str] = Counter()
    for t in triples:
        index = gold.entities.get(t.pmid, {})
        if t.head not in index or t.tail not in index:
            outside_entities += 1
            continue
        gold_type = scheme.gold_type(t.relation, index[t.head], index[t.tail])
        if gold_type is None:
            outside_scheme[t.relation] += 1
            continue
        pair = (t.head, t.tail) if t.head <= t.tail else (t.tail, t.head)
        by_pair[(t.pmid, pair)][gold_type] += t.n_evidence
    facts = []
    for (pmid, pair), types in sorted(by_pair.items()):
        chosen = min(types, key=lambda g: (scheme.rank(g)[0], -types[g], scheme.rank(g)[1]))
        index = gold.entities[pmid]
        kinds = "-".join(sorted((index[pair[0]] or "?", index[pair[1]] or "?")))
        facts.append(Fact(pmid, pair, kinds, chosen, novelty))
    aside = {
        "outside_gold_entities": outside_entities,
        "outside_scheme": dict(sorted(outside_scheme.items())),
    }
    return facts, aside


def per_document_counts(
    pmids: list[str], gold: Iterable[Fact], pred: Iterable[Fact], measure: str
) -> np.ndarray:
    """Rows (tp, n_predicted, tp, n_gold) per gold document, in ``pmids`` order."""
    row = {p: i for i, p in enumerate(pmids)}
    g = {f.key(measure) for f in gold if f.pmid in row}
    p = {f.key(measure) for f in pred if f.pmid in row}
    out = np.zeros((len(pmids), 4), dtype=np.int64)
    for k in p:
        out[row[k[0]], 1] += 1
    for k in g:
        out[row[k[0]], 3] += 1
    for k in g & p:
        out[row[k[0]], 0] += 1
        out[row[k[0]], 2] += 1
    return out


def score_facts(
    pmids: list[str],
    gold: list[Fact],
    pred: list[Fact],
    scheme: Scheme,
    idx: np.ndarray,
) -> dict[str, Any]:
    """Every measure overall, ``pair+type`` per gold type and ``pair`` per kind pair, each with
    bootstrap intervals; plus the per-document counts a later comparison resamples."""
    out: dict[str, Any] = {"measures": {}, "per_type": {}, "per_kinds": {}, "per_document": {}}
    for measure in measures_for(scheme):
        counts = per_document_counts(pmids, gold, pred, measure)
        out["measures"][measure] = scores(counts, idx)
        out["per_document"][measure] = counts.tolist()
    types = list(scheme.types) + sorted({f.rel_type for f in gold} - set(scheme.types))
    for t in types:
        g = [f for f in gold if f.rel_type == t]
        p = [f for f in pred if f.rel_type == t]
        if g or p:
            counts = per_document_counts(pmids, g, p, "pair+type")
            out["per_type"][t] = scores(counts, idx)
    for kinds in sorted({f.kinds for f in gold} | {f.kinds for f in pred}):
        g = [f for f in gold if f.kinds == kinds]
        p = [f for f in pred if f.kinds == kinds]
        out["per_kinds"][kinds] = scores(per_document_counts(pmids, g, p, "pair"), idx)
    return out
