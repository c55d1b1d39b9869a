"""What retrieval returns (:class:`Retrieval`, its JSON) and the checks and small helpers every
interface shares: input limits (one clear :class:`~kgbuild.errors.InputError` each), paths and
filters as JSON, per-stage timings."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from kgbuild.errors import InputError
from kgbuild.link.linker import Link, unique_nodes
from kgbuild.query.context import ContextTriple
from kgbuild.query.explore import Filters
from kgbuild.query.limits import (
    MAX_CHOICE_CHARS,
    MAX_CHOICES,
    MAX_HOPS,
    MAX_K,
    MAX_QUESTION_CHARS,
    MAX_TOKEN_BUDGET,
    MIN_TOKEN_BUDGET,
    NO_ENTITY,
)
from kgbuild.query.rank import KeptPath
from kgbuild.search.index import SnapshotIndex


@dataclass(slots=True)
class Retrieval:
    """What retrieval found for one question (``to_dict`` is the JSON the CLI/HTTP print)."""

    snapshot_id: str
    kg: str
    as_of_year: int
    question: str
    choices: list[str]
    links: list[Link]
    paths: list[dict[str, Any]]
    triples: list[ContextTriple]
    context: str
    choice_support: list[float]
    kg_answer: int | None
    diagnostics: dict[str, Any]
    #: Per choice: score, lexical lift, graph NPMI, reasons, facts and sentences.
    choice_scores: list[dict[str, Any]] = field(default_factory=list)
    #: Evidence sentences in the context, each with what it was found for and its PMID.
    sentences: list[dict[str, Any]] = field(default_factory=list)
    #: The same sentences as (found for, sentence row, BM25), to rebuild a context from.
    sentence_rows: list[tuple[str, int, float]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    #: What the question asks (:mod:`kgbuild.question.intent`): relations, answer_type, yes_no.
    intent: dict[str, Any] = field(default_factory=dict)
    #: For a "which X …" question: the answer entities, best first
    #: (:mod:`kgbuild.query.answer_entities`), each a dict with id, name, type, score,
    #: relation, support, facts, sentence, pmid.
    answers: list[dict[str, Any]] = field(default_factory=list)
    #: For a yes/no question about a pair: that pair's evidence (:mod:`kgbuild.query.verdict`).
    verdict: dict[str, Any] | None = None
    #: For options the facts do not separate: what the sentences say about each
    #: (:mod:`kgbuild.corpus.choice_reading`); its ``choice``, when set, is ``kg_answer``.
    choice_reading: dict[str, Any] | None = None
    #: The abstracts that best match the question and write most of it
    #: (:mod:`kgbuild.search.abstracts`): pmid, year, title, sentence, score, cover, terms.
    passages: list[dict[str, Any]] = field(default_factory=list)
    #: For options neither the facts nor their sentences answer: the one the abstracts that
    #: best match the question write most about (:func:`kgbuild.corpus.passages.
    #: choice_from_abstracts`); its ``choice``, when set, is ``kg_answer``.
    abstract_choice: dict[str, Any] | None = None
    #: For an open question: the sentences of those abstracts that best answer it, as the
    #: answer-sentence reader rates them (:mod:`kgbuild.corpus.answer_reader`): pmid, year,
    #: sentence, score (log-odds).
    answering: list[dict[str, Any]] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """Something in the snapshot bears on the question: a linked entity, for a choice
        that names no node evidence sentences, or abstracts that write most of the question.
        A question's own BM25 sentences do not count: nearly any words find some, and a
        question that names nothing in the snapshot is told so (exit 2), not shown unrelated
        sentences; a shown abstract writes at least half the question's weighted words."""
        return (
            any(x.node is not None for x in self.links)
            or bool(self.passages)
            or any(s.get("for", "").startswith("choice") for s in self.sentences)
            # an unlinked phrase's own sentences (kgbuild/query/phrase_answer.py)
            or bool(self.verdict and self.verdict.get("phrase") and self.verdict["sentences"])
            # organisms read from the corpus's Species mentions (kgbuild/corpus/organisms.py)
            or any(a.get("type") == "Organism" for a in self.answers)
        )

    @property
    def message(self) -> str | None:
        return None if self.found else NO_ENTITY

    def question_nodes(self) -> list[int]:
        return unique_nodes([x for x in self.links if x.where == "question"])

    def choice_nodes(self) -> list[list[int]]:
        return [
            unique_nodes([x for x in self.links if x.where == f"choice:{i}"])
            for i in range(len(self.choices))
        ]

    def unlinked(self) -> list[str]:
        return [x.surface for x in self.links if x.node is None]

    def to_dict(self, timings: bool = True) -> dict[str, Any]:
        d = {
            "snapshot": {"id": self.snapshot_id, "kg": self.kg, "as_of_year": self.as_of_year},
            "question": self.question,
            "choices": self.choices,
            "message": self.message,
            "links": [x.to_dict() for x in self.links if x.node is not None],
            "unlinked": self.unlinked(),
            "paths": self.paths,
            "triples": [t.to_dict() for t in self.triples],
            "context": self.context,
            "choice_support": self.choice_support,
            "choice_scores": self.choice_scores,
            "sentences": self.sentences,
            "kg_answer": self.kg_answer,
            "choice_reading": self.choice_reading,
            "intent": self.intent,
            "answers": [public_answer(a) for a in self.answers],
            "verdict": None if self.verdict is None else public_answer(self.verdict),
            "passages": self.passages,
            "abstract_choice": self.abstract_choice,
            "answering": self.answering,
            "diagnostics": self.diagnostics,
        }
        if timings:
            d["timings_ms"] = self.timings
        return d


def public_answer(a: dict[str, Any]) -> dict[str, Any]:
    """An answer or verdict as JSON: without the index's internal edge numbers."""
    return {k: v for k, v in a.items() if k != "edges"}


def validate(question: Any, choices: Any, k: int, hops: int, budget: int) -> list[str]:
    """The checks every interface shares; a violation is one clear :class:`InputError`."""
    if not isinstance(question, str) or not question.strip():
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(
            f"the question is too long ({len(question):,} characters; at most "
            f"{MAX_QUESTION_CHARS:,})"
        )
    choices = list(choices or [])
    if len(choices) > MAX_CHOICES:
        raise InputError(f"too many choices ({len(choices)}; at most {MAX_CHOICES})")
    for c in choices:
        if not isinstance(c, str) or not c.strip():
            raise InputError("a choice is empty")
        if len(c) > MAX_CHOICE_CHARS:
            raise InputError(f"a choice is too long (at most {MAX_CHOICE_CHARS} characters)")
    if not 1 <= k <= MAX_K:
        raise InputError(f"k must be between 1 and {MAX_K}")
    if not 1 <= hops <= MAX_HOPS:
        raise InputError(f"hops must be between 1 and {MAX_HOPS}")
    if not MIN_TOKEN_BUDGET <= budget <= MAX_TOKEN_BUDGET:
        raise InputError(f"token budget must be between {MIN_TOKEN_BUDGET} and {MAX_TOKEN_BUDGET}")
    return [c.strip() for c in choices]


def path_dict(idx: SnapshotIndex, p: KeptPath) -> dict[str, Any]:
    e = idx.edges
    steps = []
    for (a, _b), edge in zip(pairwise(p.nodes), p.edges, strict=True):
        forward = int(e["head"][edge]) == a
        steps.append(
            {"relation": e["relation"][edge], "forward": forward, "triple_id": e["triple_id"][edge]}
        )
    return {
        "kind": p.kind,
        "nodes": [idx.nodes["display"][n] for n in p.nodes],
        "ids": [idx.nodes["id"][n] for n in p.nodes],
        "steps": steps,
        "question_entities": p.question_entities,
        "mean_pagerank": round(p.mean_pagerank, 6),
    }


def filters_dict(f: Filters) -> dict[str, Any]:
    return {
        "relations": sorted(f.relations),
        "kinds": sorted(f.kinds),
        "min_support": f.min_support,
        "min_confidence": f.min_confidence,
        "as_of_year": f.as_of_year,
        "all_evidence": f.all_evidence,
    }


class Timer:
    def __init__(self) -> None:
        self.t0 = self.t = time.perf_counter()
        self.laps: dict[str, float] = {}

    def lap(self, name: str, total: bool = False) -> None:
        now = time.perf_counter()
        self.laps[name] = round(1000 * (now - (self.t0 if total else self.t)), 3)
        self.t = now
