"""What the snapshot says about each choice: a score, its reasons, its facts and its sentences.

Why: ranking by raw support rewarded what every abstract says ("Alzheimer's disease
associates amyloid-beta", 2,388 PMIDs), which touches every choice alike. A choice is scored
here by how *specific* the snapshot's evidence is to the question and that choice:

- **lexical** — the choice's terms' log lift in the sentences the question retrieves
  (:meth:`kgbuild.search.sentences.SentenceIndex.lift`; Clark et al. 2016's PMI solver), so a
  choice that is a phrase, not a node, is scored too;
- **graph** — for each question entity, its most specific direct edge to one of the choice's
  nodes, by normalized PMI of the pair's documents (Bouma 2009: NPMI = PMI / −log p(a, b),
  in [−1, 1]; 0 for independent pairs, so an edge to a hub that co-occurs with everything
  scores ≈ 0 however large its support), summed over the question entities; a two-hop path
  counts its weaker edge × :data:`HOP_DECAY` (RoK/HyKGE: paths as evidence, hubs never
  intermediates);
- **relation** — when a choice is named in the question, the asked relation's facts between
  each choice and the entity the question asks about (:mod:`kgbuild.query.asked_relation`);
- **score** = lexical + :data:`W_GRAPH` × graph + relation (a choice with none has no score);
  with a choice named in the question the lexical lift is reported, not scored: the question's
  sentences are retrieved by that choice's own name.

The KG-only answer is the best-scored choice (none when nothing scores or the best is tied),
also when the question asks for the exception ("all of the following EXCEPT", "which is NOT";
:func:`asks_for_exception`, reported in the diagnostics). Taking the *worst*-scored choice
there, as a negation-aware solver would, was measured and is worse: on the 75 such MedMCQA
questions the best-scored choice is right 18 times, the worst-scored 16 (chance 19) — the
exception co-occurs with the topic as much as the true choices do (a plausible distractor is
chosen for that), so co-occurrence cannot find it. Such questions need the LLM.
Every score comes with human-readable reasons and the facts (edges) and sentences behind it,
each of which cites PMIDs.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgbuild.search.index import SnapshotIndex
from kgbuild.search.sentences import SENTENCES_PER_CHOICE, SentenceIndex

#: Weight of the graph evidence beside the lexical lift (both are in nats-like units: a lift
#: of 1 is e× the background rate, an NPMI of 1 is perfect co-occurrence).
W_GRAPH = 1.0
#: A two-hop question–choice path counts this fraction of its weaker edge.
HOP_DECAY = 0.5
#: Facts kept per choice.
FACTS_PER_CHOICE = 5


def npmi(index: SnapshotIndex, a: int, b: int, support: int) -> float:
    """Normalized PMI of two nodes' documents (see module docstring); 0 when undefined."""
    n = index.n_docs
    da, db = int(index.node_docs[a]), int(index.node_docs[b])
    s = min(support, da, db)
    if s <= 0 or n <= 0 or s >= n:
        return 0.0
    return math.log(s * n / (da * db)) / -math.log(s / n)


@dataclass(slots=True)
class ChoiceScore:
    """One choice's evidence (``score`` None: the snapshot says nothing about it)."""

    choice: int
    score: float | None = None
    lexical: float | None = None
    graph: float = 0.0
    #: The asked relation's facts with the entities the question asks about
    #: (:mod:`kgbuild.query.asked_relation`; 0 where that term does not apply).
    relation: float = 0.0
    reasons: list[str] = field(default_factory=list)
    #: (edge, specificity) best first: direct question–choice edges, then path edges.
    facts: list[tuple[int, float]] = field(default_factory=list)
    #: (sentence row, BM25) best first.
    sentences: list[tuple[int, float]] = field(default_factory=list)

    def to_dict(self, index: SnapshotIndex) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "score": self.score,
            "lexical": self.lexical,
            "graph": self.graph,
            "relation": self.relation,
            "reasons": self.reasons,
            "triple_ids": [index.edges["triple_id"][e] for e, _ in self.facts],
            "sentences": [sentence_dict(index, r, s) for r, s in self.sentences],
        }


def sentence_dict(index: SnapshotIndex, row: int, score: float) -> dict[str, Any]:
    s = index.sentences
    return {
        "pmid": s["pmid"][row],
        "year": int(s["year"][row]),
        "sentence": " ".join(s["sentence"][row].split()),
        "bm25": score,
        "triple_ids": [index.edges["triple_id"][e] for e in index.sentence_edge_ids(row)],
    }


@dataclass(slots=True)
class PairEdges:
    """The strongest edge per unordered node pair among a question's candidate edges."""

    best: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # → (edge, sup)

    @classmethod
    def of(cls, index: SnapshotIndex, edges: list[int]) -> PairEdges:
        e = index.edges
        out = cls()
        for i in sorted(edges):
            h, t = int(e["head"][i]), int(e["tail"][i])
            key = (min(h, t), max(h, t))
            sup = int(e["support"][i])
            got = out.best.get(key)
            if got is None or sup > got[1]:
                out.best[key] = (i, sup)
        return out

    def get(self, a: int, b: int) -> tuple[int, int] | None:
        return self.best.get((min(a, b), max(a, b)))


def score_choices(
    index: SnapshotIndex,
    lexical: SentenceIndex,
    question: tuple[list[int], np.ndarray],
    choices: list[str],
    question_nodes: list[int],
    choice_nodes: list[list[int]],
    candidate_edges: list[int],
    paths: list[tuple[tuple[int, ...], tuple[int, ...], str]],
    sentence_mask: np.ndarray | None = None,
    relation: list[tuple[float, str, list[int]]] | None = None,
) -> list[ChoiceScore]:
    """Every choice's :class:`ChoiceScore` (see module docstring); ``question``: the
    question's term ids and BM25 scores (computed once per retrieval by the caller);
    ``relation``: per choice, its asked-relation term, reason and facts
    (:func:`kgbuild.query.asked_relation.relation_terms`), added to its score."""
    pairs = PairEdges.of(index, candidate_edges)
    qids, sq = question
    rows, weights = lexical.neighbourhood(sq, mask=sentence_mask)
    # terms every choice shares ("trisomy" in "trisomy 18" / "trisomy 21") cannot tell them
    # apart; the question's own terms say nothing about a choice either
    term_sets = [set(lexical.term_ids(c)) for c in choices]
    shared = set.intersection(*term_sets) if len(term_sets) > 1 else set()
    qset = set(question_nodes)
    # a choice the question names fills a slot of it ("Does APOE interact with APP?", choices
    # APOE and TREM2): the question's sentences are about that choice by construction, so a
    # lift there measures the question's wording, not the choices — facts decide
    named = qset & {n for c in choice_nodes for n in c}
    vocab_of = {v: k for k, v in lexical.vocab.items()} if choices else {}
    out = []
    for i, text in enumerate(choices):
        cs = ChoiceScore(i)
        cids = sorted(term_sets[i] - set(qids) - shared)
        got = lexical.lift(rows, weights, cids)
        if got is not None:
            cs.lexical = round(got[0], 6)
            top = sorted(got[1], key=lambda x: -x[1])[:3]
            cs.reasons.append(
                f"lexical lift {got[0]:+.2f} in the question's {len(rows)} best sentences ("
                + ", ".join(f"'{vocab_of[t]}' {v:+.2f}" for t, v in top)
                + ("; not scored: a choice is named in the question)" if named else ")")
            )
        cs.sentences = lexical.search(qids, cids or sorted(term_sets[i]), SENTENCES_PER_CHOICE,
                                      sentence_mask, sq)  # fmt: skip
        # a choice the question itself names ("Does APOE interact with APP?", choice APOE) is
        # scored by its facts with the question's *other* entities, not dropped
        mine = set(choice_nodes[i])
        cset = (mine - qset) or mine
        # … and no choice is scored by its facts with the slot another choice fills: TREM2's
        # link to APOE says nothing about whether TREM2, in APOE's place, interacts with APP
        _graph(index, pairs, paths, qset - cset - named, cset, i, cs)
        if relation is not None and relation[i][2]:
            cs.relation = relation[i][0]
            cs.reasons.insert(0, relation[i][1])
            rest = [f for f in cs.facts if f[0] not in relation[i][2]]
            cs.facts = [(x, cs.relation) for x in relation[i][2]] + rest[: FACTS_PER_CHOICE - 1]
        if cs.lexical is not None or cs.facts:
            lift = 0.0 if named else (cs.lexical or 0.0)
            cs.score = round(lift + W_GRAPH * cs.graph + cs.relation, 6)
        if cs.score is None:
            cs.reasons.append(
                f"nothing in the snapshot bears on '{text[:60]}'"
                if not cids and not choice_nodes[i]
                else "no sentence or fact joins it to the question"
            )
        out.append(cs)
    return out


def _graph(
    index: SnapshotIndex,
    pairs: PairEdges,
    paths: list[tuple[tuple[int, ...], tuple[int, ...], str]],
    qset: set[int],
    cset: set[int],
    i: int,
    cs: ChoiceScore,
) -> None:
    """Direct edges and two-hop paths from each question entity to the choice's nodes."""
    if not cset or not qset:
        return
    names = index.nodes["display"]
    best: dict[int, tuple[float, str, list[int]]] = {}
    for q in sorted(qset):
        for c in sorted(cset):
            got = pairs.get(q, c)
            if got is None:
                continue
            spec = npmi(index, q, c, got[1])
            if q not in best or spec > best[q][0]:
                best[q] = (spec, f"{names[q]} — {names[c]} NPMI {spec:+.2f} ({got[1]} PMIDs)",
                           [got[0]])  # fmt: skip
    for nodes, edges, kind in paths:
        if kind != f"path:choice:{i}" or len(edges) != 2 or nodes[-1] not in cset:
            continue
        q = nodes[0]
        e = index.edges
        specs = [
            npmi(index, int(e["head"][x]), int(e["tail"][x]), int(e["support"][x])) for x in edges
        ]
        spec = HOP_DECAY * min(specs)
        if spec > best.get(q, (-math.inf,))[0]:
            best[q] = (spec, f"{names[q]} — {names[nodes[1]]} — {names[nodes[-1]]} "
                             f"(two hops, weaker NPMI {min(specs):+.2f})", list(edges))  # fmt: skip
    if not best:
        return
    cs.graph = round(sum(max(0.0, v[0]) for v in best.values()), 6)
    facts: dict[int, float] = {}
    for spec, reason, edges in sorted(best.values(), key=lambda v: (-v[0], v[1])):
        cs.reasons.append(reason)
        for x in edges:
            facts.setdefault(x, round(spec, 6))
    cs.facts = list(facts.items())[:FACTS_PER_CHOICE]


#: The wordings of a question that asks for the one choice that is *not* so.
_EXCEPTION = re.compile(
    r"\b(?:except|excluding|other than|but not)\b"
    r"|\b(?:is|are|was|were|does|do|would|should|can|could|will)\s+not\b"
    r"|\bnot\s+(?:a|an|the|true|correct|seen|associated|characteristic|used|involved|"
    r"found|related|included|typical|caused|indicated|recommended|true)\b"
    r"|\b(?:isn't|aren't|doesn't|don't|cannot)\b"
    r"|\bleast\b|\bfalse\b|\bincorrect\b|\buntrue\b|\bwrong\b",
    re.IGNORECASE,
)


def asks_for_exception(question: str) -> bool:
    """Does the question ask for the choice that is *not* so ("all EXCEPT", "which is NOT",
    "least likely", "false")? Reported, so a reader knows the KG-only pick is weak there.

    Only the asking sentence counts (the last one): a case vignette's "he does not smoke"
    describes the patient, it does not turn the question round."""
    parts = [p for p in re.split(r"(?<=[.!?])\s+", question.strip()) if p.strip()]
    return bool(parts) and bool(_EXCEPTION.search(parts[-1]))


def kg_answer(scores: list[ChoiceScore]) -> int | None:
    """The best-scored choice; None when no choice has a score or the best is tied."""
    vals = [s.score for s in scores if s.score is not None]
    if not vals:
        return None
    best = max(vals)
    if vals.count(best) > 1:
        return None
    return next(s.choice for s in scores if s.score == best)
