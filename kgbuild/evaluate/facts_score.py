"""Scoring ranked answers against gold answers: recall@10, MRR, hits@1 and "stated".

Per question (one entity asked about, several gold answers):

- **recall@10**: gold answers among the first 10 ranked answers, over the gold answers — micro
  (pooled over every gold answer) and macro (mean of the questions' recalls); a question with
  more than 10 gold answers cannot reach 1, so the ceiling (Σ min(10, answers) / Σ answers) is
  reported beside it;
- **MRR**: mean over questions of 1/rank of the first gold answer (0 when none is in the
  first 10: MRR@10, Voorhees 1999, TREC-8 QA);
- **hits@1**: share of questions whose first answer is gold;
- **recall@10 with a fact**: recall@10 counting only the gold answers a served KG fact backs
  (an engine may also rank entities joined by a fact whose evidence is not served, or merely
  named in the same abstract; they count in recall@10, and ``found_by_basis`` says how many);
- **stated**: of the gold answers in the first 10, the share whose *shown sentence* states the
  fact, by an automatic proxy: the sentence comes from a PMID whose relation lines hold that
  gold pair, and it contains a gold mention text (case-insensitive) of each of the two
  entities in that PMID. A sentence that names both under those names but says something
  else about them passes the proxy; one that states the fact with a pronoun or a name the
  annotators did not mark fails it.

Intervals: percentile bootstrap over questions (:mod:`kgbuild.evaluate.bootstrap`; a question's
answers are not independent, so the question is the unit resampled).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgbuild.evaluate.bootstrap import CONFIDENCE, N_RESAMPLES, SEED, resample_indices

TOP = 10
#: Why a gold answer is not among the first 10, in the order they are checked: the asked
#: entity is no KG node; the answer is none; the question's text did not link to the asked
#: entity; no triple joins the two; triples join them but none has served evidence (only
#: background, hedged, negated… rows, which the query side does not serve by default); a
#: served triple joins them but the engine did not rank the answer at all; it ranked it 11th
#: or lower.
MISS_REASONS = (
    "question_entity_not_in_kg",
    "answer_not_in_kg",
    "question_entity_not_linked",
    "pair_not_joined",
    "joined_not_served",
    "joined_not_ranked",
    "ranked_below_10",
)


@dataclass(frozen=True, slots=True)
class Ranked:
    """One ranked answer: its KG node id, the sentence (with its PMID) shown for it, whether a
    served KG fact backs it (``False``: the engine names it for another reason — a fact whose
    evidence is not served, or only a shared abstract), and that reason (the engine's
    ``basis``: ``fact``, ``weaker_fact``, ``same_abstract``)."""

    id: str
    sentence: str = ""
    pmid: str = ""
    fact: bool = True
    basis: str = ""


@dataclass(slots=True)
class Scored:
    """One asked question, scored: per gold answer its rank (1-based, ``None``: not in the
    first 10), whether its shown sentence states the fact, and why it was missed."""

    form: str
    question: str
    entity: str
    gold: list[str]
    ranked: list[str]
    ranks: list[int | None]
    stated: list[bool]
    misses: dict[str, int] = field(default_factory=dict)
    path: str = ""
    #: Gold answers found in the first 10 whose ranked answer no served KG fact backs.
    without_fact: int = 0
    #: Per gold answer found in the first 10: the basis of its ranked answer.
    bases: list[str] = field(default_factory=list)

    @property
    def found(self) -> int:
        return sum(1 for r in self.ranks if r is not None)

    @property
    def recall(self) -> float:
        return self.found / len(self.ranks) if self.ranks else 0.0

    @property
    def reciprocal_rank(self) -> float:
        got = [r for r in self.ranks if r is not None]
        return 1.0 / min(got) if got else 0.0

    @property
    def hit_at_1(self) -> bool:
        return 1 in self.ranks


def ranks_of(gold: list[str], ranked: list[str], top: int = TOP) -> list[int | None]:
    """Each gold answer's 1-based rank among the first ``top`` ranked answers, else None."""
    where = {}
    for i, a in enumerate(ranked[:top], start=1):
        where.setdefault(a, i)
    return [where.get(g) for g in gold]


def is_stated(
    sentence: str, pmid: str, pair_pmids: set[str], asked: Iterable[str], answer: Iterable[str]
) -> bool:
    """The "stated" proxy: ``sentence`` comes from a PMID annotated with the gold pair and
    holds a gold mention text of each entity (``asked``/``answer``: that PMID's texts)."""
    if not sentence or pmid not in pair_pmids:
        return False
    low = " ".join(sentence.split()).lower()
    return any(t and t in low for t in asked) and any(t and t in low for t in answer)


def _columns(rows: list[Scored]) -> np.ndarray:
    """Per question: found, gold answers, recall, reciprocal rank, hit@1, stated, found
    with a fact."""
    return np.array(
        [
            [
                r.found,
                len(r.ranks),
                r.recall,
                r.reciprocal_rank,
                float(r.hit_at_1),
                sum(r.stated),
                r.found - r.without_fact,
            ]
            for r in rows
        ],
        dtype=float,
    ).reshape(-1, 7)


def _measures(c: np.ndarray) -> dict[str, np.ndarray]:
    """Measures from per-question columns; ``c`` is (…, questions, 7)."""
    found, gold, stated = c[..., 0].sum(-1), c[..., 1].sum(-1), c[..., 5].sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return {
            "recall_at_10": np.where(gold > 0, found / np.maximum(gold, 1), 0.0),
            "recall_at_10_with_fact": np.where(
                gold > 0, c[..., 6].sum(-1) / np.maximum(gold, 1), 0.0
            ),
            "recall_at_10_macro": c[..., 2].mean(-1),
            "mrr": c[..., 3].mean(-1),
            "hits_at_1": c[..., 4].mean(-1),
            "stated_share": np.where(found > 0, stated / np.maximum(found, 1), 0.0),
        }


def summarize(rows: list[Scored], resamples: int = N_RESAMPLES, seed: int = SEED) -> dict[str, Any]:
    """Point figures with 95% bootstrap intervals over the questions, and the misses."""
    out: dict[str, Any] = {"questions": len(rows), "gold_answers": sum(len(r.ranks) for r in rows)}
    if not rows:
        return out
    c = _columns(rows)
    point = _measures(c)
    idx = resample_indices(len(rows), resamples, seed)
    boot = _measures(c[idx])
    lo, hi = (1 - CONFIDENCE) / 2 * 100, (1 + CONFIDENCE) / 2 * 100
    for name, value in point.items():
        out[name] = round(float(value), 4)
        out[f"{name}_ci"] = [round(float(np.percentile(boot[name], q)), 4) for q in (lo, hi)]
    out["found"] = int(c[:, 0].sum())
    # a question with more than 10 gold answers cannot find them all in its first 10
    out["recall_at_10_ceiling"] = round(float(np.minimum(c[:, 1], TOP).sum() / c[:, 1].sum()), 4)
    out["stated"] = int(c[:, 5].sum())
    bases: dict[str, int] = {}
    for r in rows:
        for b in r.bases:
            bases[b or "fact"] = bases.get(b or "fact", 0) + 1
    out["found_by_basis"] = dict(sorted(bases.items()))
    misses = dict.fromkeys(MISS_REASONS, 0)
    for r in rows:
        for k, v in r.misses.items():
            misses[k] += v
    out["misses"] = misses
    return out


def score_questions(
    rows: list[Scored], resamples: int = N_RESAMPLES, seed: int = SEED
) -> dict[str, Any]:
    """Overall and per question form (forms in first-seen order)."""
    forms = list(dict.fromkeys(r.form for r in rows))
    return {
        "overall": summarize(rows, resamples, seed),
        "per_form": {
            f: summarize([r for r in rows if r.form == f], resamples, seed) for f in forms
        },
    }
