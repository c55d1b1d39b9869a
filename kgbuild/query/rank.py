"""Ranking the sampled subgraph: personalized PageRank, path buckets, triple scores.

- **PageRank** (RoK): personalized PageRank over the candidate subgraph, restarting at the
  linked entities (question entities weigh :data:`QUESTION_SEED`, choice entities
  :data:`CHOICE_SEED`), so nodes central to *this question's* neighbourhood rank high — not the
  KG's global hubs.
- **Paths** (RoK): bucketed by how many question entities they hold (more first), then by the
  mean PageRank of their nodes; ≤ 5 kept per entity pair (DALK's cap).
- **Triples**: a weighted sum of relevance (PageRank of both endpoints, linked
  endpoints — a question entity counts twice a choice entity —, being on a kept path),
  *specificity* (the pair's normalized PMI, discounted for pairs seen once or twice, and only
  for a fact that reaches the question,
  :func:`kgbuild.query.choices.npmi`: an edge to a hub that co-occurs with everything scores
  ≈ 0 whatever its support — hubs are context, not evidence), what the triple says about the
  choices (the standing of the best-scored choice it bears on, :mod:`kgbuild.query.choices`)
  and calibrated confidence; plus, when the question asks a relation, the fact's weight for
  it and whether it stands behind a ranked answer. Raw support is no longer a
  weight. Ties break by triple id, so
  the order is a function of the snapshot and the question only.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from kgbuild.query.choices import ChoiceScore, npmi
from kgbuild.query.explore import PATHS_PER_PAIR, Candidates
from kgbuild.question.intent import Intent
from kgbuild.search.graph import personalized_pagerank
from kgbuild.search.index import SnapshotIndex

QUESTION_SEED = 1.0
CHOICE_SEED = 0.5
#: Weights of a triple's score (see module docstring); they sum to 1.
W_PAGERANK = 0.15
W_LINKED = 0.15
W_PATH = 0.10
W_SPECIFIC = 0.25
W_CHOICE = 0.25
W_CONFIDENCE = 0.10
#: Added when the question asks a relation: × the fact's relation weight for it
#: (:mod:`kgbuild.question.intent`), so "treats" facts lead "Which drugs treat …?"; and for the
#: facts behind the ranked answers / the asked pair, × their standing. Without either the
#: scores are as before.
W_ASKED = 0.25
W_ANSWER = 0.35


@dataclass(frozen=True, slots=True)
class ScoredTriple:
    edge: int
    score: float
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeptPath:
    nodes: tuple[int, ...]
    edges: tuple[int, ...]
    kind: str  # path:question | path:choice:<i>
    question_entities: int
    mean_pagerank: float


@dataclass(slots=True)
class Ranking:
    pagerank: dict[int, float]
    paths: list[KeptPath]
    triples: list[ScoredTriple] = field(default_factory=list)


def rank_paths(
    cand: Candidates, question_nodes: list[int], choice_nodes: list[list[int]],
    heads: np.ndarray, tails: np.ndarray,
) -> Ranking:  # fmt: skip
    """Personalized PageRank over the candidate subgraph and the kept paths."""
    linked = {*question_nodes, *(n for ch in choice_nodes for n in ch)}
    nodes = np.unique(np.concatenate([heads, tails, np.array(sorted(linked), np.int32)]))
    seeds: dict[int, float] = defaultdict(float)
    for n in {n for ch in choice_nodes for n in ch}:
        seeds[n] += CHOICE_SEED
    for n in set(question_nodes):
        seeds[n] += QUESTION_SEED
    pr = personalized_pagerank(nodes, heads, tails, dict(seeds)) if len(nodes) else {}
    return Ranking(pr, _keep_paths(cand, pr, set(question_nodes)))


def choice_standing(scores: list[ChoiceScore]) -> list[float]:
    """Each choice's score scaled to [0, 1] among the choices (1: the best; 0: the worst or
    none), the weight its facts get in :func:`rank_triples`."""
    vals = [s.score for s in scores if s.score is not None]
    if not vals:
        return [0.0] * len(scores)
    lo, hi = min(vals), max(vals)
    return [
        0.0 if s.score is None else (1.0 if hi == lo else (s.score - lo) / (hi - lo))
        for s in scores
    ]


def rank_triples(
    index: SnapshotIndex,
    cand: Candidates,
    ranking: Ranking,
    question_nodes: list[int],
    choice_nodes: list[list[int]],
    scores: list[ChoiceScore],
    intent: Intent | None = None,
    featured: dict[int, float] | None = None,
) -> list[ScoredTriple]:
    """Scores for every candidate edge (see module docstring), best first. ``intent``: what
    the question asks — a fact of the asked relation gains :data:`W_ASKED` × its weight;
    ``featured``: edges behind the ranked answers or the asked pair, edge → standing in
    [0, 1] (:data:`W_ANSWER` × it)."""
    e = index.edges
    edge_ids = sorted(cand.edges)
    heads, tails = e["head"][edge_ids], e["tail"][edge_ids]
    qset = set(question_nodes)
    cset = {n for ch in choice_nodes for n in ch} - qset
    pr = ranking.pagerank
    on_path: set[int] = {x for p in ranking.paths for x in p.edges}
    pr_max = max(pr.values(), default=0.0) or 1.0
    standing = choice_standing(scores)
    bears: dict[int, float] = {}  # edge → standing of the best choice it bears on
    for i, cs in enumerate(scores):
        mine = np.array(sorted(set(choice_nodes[i])), np.int64)
        touching = np.asarray(edge_ids)[np.isin(heads, mine) | np.isin(tails, mine)]
        for x in {x for x, _ in cs.facts} | set(touching.tolist()):
            bears[x] = max(bears.get(x, 0.0), standing[i])
    asked = intent is not None and bool(intent.asked)
    out = []
    for i, h, t in zip(edge_ids, heads.tolist(), tails.tolist(), strict=True):
        reasons = cand.edges[i]
        if any(r.startswith("path") for r in reasons) and i not in on_path:
            reasons = {r for r in reasons if not r.startswith("path")} or {"path:dropped"}
        sup = int(e["support"][i])
        # specificity counts for a fact that bears on the question (touches a question entity,
        # lies on a kept path, or a choice's sentence supports it) — not for a choice's
        # neighbour the question never reaches — discounted for small counts (Pantel & Lin
        # 2002: PMI overrates pairs seen once)
        bears_on_question = (
            h in qset or t in qset or i in on_path or any(r.startswith("sentence") for r in reasons)
        )
        spec = max(0.0, npmi(index, h, t, sup)) * sup / (sup + 1) if bears_on_question else 0.0
        value = (
            W_PAGERANK * (pr.get(h, 0.0) + pr.get(t, 0.0)) / (2 * pr_max)
            + W_LINKED * (_linked(h, qset, cset) + _linked(t, qset, cset)) / 2
            + W_PATH * (i in on_path)
            + W_SPECIFIC * spec
            + W_CHOICE * bears.get(i, 0.0)
            + W_CONFIDENCE * float(e["confidence"][i])
        )
        if asked:
            value += W_ASKED * intent.weight(e["relation"][i])  # type: ignore[union-attr]
        if featured and i in featured:
            value += W_ANSWER * featured[i]
        out.append(ScoredTriple(i, round(value, 6), tuple(sorted(reasons))))
    triple_ids = e["triple_id"]
    out.sort(key=lambda s: (-s.score, triple_ids[s.edge]))
    return out


def _linked(node: int, qset: set[int], cset: set[int]) -> float:
    """A question entity counts fully, a choice entity half: an edge from a choice to some
    neighbour the question never mentions says little about the question."""
    return 1.0 if node in qset else 0.5 if node in cset else 0.0


def _keep_paths(cand: Candidates, pr: dict[int, float], qset: set[int]) -> list[KeptPath]:
    by_pair: dict[tuple[int, int, str], list[KeptPath]] = defaultdict(list)
    for nodes, edges, kind in cand.paths:
        q = sum(n in qset for n in nodes)
        mean = sum(pr.get(n, 0.0) for n in nodes) / len(nodes)
        by_pair[(nodes[0], nodes[-1], kind)].append(KeptPath(nodes, edges, kind, q, mean))
    kept = []
    for key in sorted(by_pair):
        group = sorted(
            by_pair[key], key=lambda p: (-p.question_entities, -p.mean_pagerank, p.nodes)
        )
        kept += group[:PATHS_PER_PAIR]
    kept.sort(key=lambda p: (-p.question_entities, -p.mean_pagerank, p.nodes))
    return kept
