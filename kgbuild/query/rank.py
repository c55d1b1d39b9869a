"""Ranking the sampled subgraph: personalized PageRank, path buckets, triple scores, choices.

- **PageRank** (RoK): personalized PageRank over the candidate subgraph, restarting at the
  linked entities (question entities weigh :data:`QUESTION_SEED`, choice entities
  :data:`CHOICE_SEED`), so nodes central to *this question's* neighbourhood rank high — not the
  KG's global hubs.
- **Paths** (RoK): bucketed by how many question entities they hold (more first), then by the
  mean PageRank of their nodes; ≤ 5 kept per entity pair (DALK's cap).
- **Triples**: a weighted sum of relevance (PageRank of both endpoints, linked endpoints, being
  on a kept path) and trust (calibrated confidence, log support). Ties break by triple id, so the
  order is a function of the snapshot and the question only.
- **Choices**: a choice's support is the score of the retrieved triples that join it to the
  question (directly, or on a kept question–choice path) — the KG-only answer is the choice
  with the most, and none when no choice has any.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from kgbuild.query.explore import PATHS_PER_PAIR, Candidates
from kgbuild.query.graph import personalized_pagerank
from kgbuild.query.index import SnapshotIndex

QUESTION_SEED = 1.0
CHOICE_SEED = 0.5
#: Weights of a triple's score (see module docstring); they sum to 1.
W_PAGERANK = 0.30
W_LINKED = 0.25
W_PATH = 0.15
W_CONFIDENCE = 0.15
W_SUPPORT = 0.15
#: A question–choice path counts this much less per hop beyond the first (choice support).
HOP_DECAY = 0.5


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
    triples: list[ScoredTriple]
    paths: list[KeptPath]
    pagerank: dict[int, float]
    choice_support: list[float]


def rank(
    index: SnapshotIndex,
    cand: Candidates,
    question_nodes: list[int],
    choice_nodes: list[list[int]],
) -> Ranking:
    """Scores for every candidate edge and the kept paths (see module docstring)."""
    e = index.edges
    edge_ids = sorted(cand.edges)
    heads, tails = e["head"][edge_ids], e["tail"][edge_ids]
    linked = {*question_nodes, *(n for ch in choice_nodes for n in ch)}
    nodes = np.unique(np.concatenate([heads, tails, np.array(sorted(linked), np.int32)]))
    seeds: dict[int, float] = defaultdict(float)
    for n in {n for ch in choice_nodes for n in ch}:
        seeds[n] += CHOICE_SEED
    for n in set(question_nodes):
        seeds[n] += QUESTION_SEED
    pr = personalized_pagerank(nodes, heads, tails, dict(seeds)) if len(nodes) else {}
    qset = set(question_nodes)
    paths = _keep_paths(cand, pr, qset)
    on_path: set[int] = {x for p in paths for x in p.edges}
    pr_max = max(pr.values(), default=0.0) or 1.0
    sup_max = math.log1p(max((int(e["support"][i]) for i in edge_ids), default=1)) or 1.0
    scored = []
    for i, h, t in zip(edge_ids, heads.tolist(), tails.tolist(), strict=True):
        reasons = cand.edges[i]
        if any(r.startswith("path") for r in reasons) and i not in on_path:
            reasons = {r for r in reasons if not r.startswith("path")} or {"path:dropped"}
        relevance = (
            W_PAGERANK * (pr.get(h, 0.0) + pr.get(t, 0.0)) / (2 * pr_max)
            + W_LINKED * ((h in linked) + (t in linked)) / 2
            + W_PATH * (i in on_path)
        )
        trust = (
            W_CONFIDENCE * float(e["confidence"][i])
            + W_SUPPORT * math.log1p(int(e["support"][i])) / sup_max
        )
        scored.append(ScoredTriple(i, round(relevance + trust, 6), tuple(sorted(reasons))))
    triple_ids = e["triple_id"]
    scored.sort(key=lambda s: (-s.score, triple_ids[s.edge]))
    return Ranking(scored, paths, pr, _choice_support(index, scored, paths, qset, choice_nodes))


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


def _choice_support(
    index: SnapshotIndex,
    scored: list[ScoredTriple],
    paths: list[KeptPath],
    qset: set[int],
    choice_nodes: list[list[int]],
) -> list[float]:
    """Per choice: for each question entity, its strongest connection to the choice — a direct
    triple's score, or a kept path's mean triple score × HOP_DECAY per extra hop — summed over
    the question entities. Taking each entity's best connection (not all of them) keeps a
    choice that is merely well connected (dopamine, via every disorder) from outweighing one
    the question's entities name directly."""
    score = {s.edge: s.score for s in scored}
    e = index.edges
    out = []
    for i, nodes in enumerate(choice_nodes):
        cset = set(nodes) - qset
        best: dict[int, float] = {}
        for s in scored:
            h, t = int(e["head"][s.edge]), int(e["tail"][s.edge])
            q = h if t in cset and h in qset else t if h in cset and t in qset else None
            if q is not None:
                best[q] = max(best.get(q, 0.0), s.score)
        for p in paths:
            if p.kind != f"path:choice:{i}" or p.nodes[-1] not in cset or len(p.edges) < 2:
                continue
            strength = sum(score.get(x, 0.0) for x in p.edges) / len(p.edges)
            strength *= HOP_DECAY ** (len(p.edges) - 1)
            best[p.nodes[0]] = max(best.get(p.nodes[0], 0.0), strength)
        out.append(round(sum(best.values()), 6))
    return out


def kg_answer(support: list[float]) -> int | None:
    """The choice with the strongest support; None when none has any or the best is tied."""
    if not support:
        return None
    best = max(support)
    if best <= 0 or support.count(best) > 1:
        return None
    return support.index(best)
