"""Answering with an LLM: entities → retrieval → self-aware rerank → answer citing PMIDs.

DALK's pipeline (§3.2) with the retrieval of :mod:`kgbuild.query.engine`: the LLM names the
question's entities (optional; the dictionary links run anyway) and reads what it asks
(optional, :mod:`kgbuild.query.llm_intent`: its valid fields replace the rule reader's),
retrieval gathers a pool of :data:`RERANK_POOL` triples, the LLM keeps ≤ k of them (DALK's
self-aware retrieval; when its answer is unreadable the retrieval's own top k stand), the kept
triples become the context (same hard token budget), and the answer must cite PMIDs from that
context: cited PMIDs that are not in it are reported as invalid, never shown as support.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from kgbuild.link.linker import Link
from kgbuild.llm.client import LLMClient, LLMSettings
from kgbuild.llm.options import make_client
from kgbuild.query import llm as qllm
from kgbuild.query.context import build_context, render_triple
from kgbuild.query.engine import QueryEngine, Retrieval, engine_for
from kgbuild.query.entity_lists import LETTERS
from kgbuild.query.limits import DEFAULT_K, DEFAULT_TOKEN_BUDGET
from kgbuild.query.llm_intent import merge_intent, read_intent_llm
from kgbuild.question.intent import Intent

#: Triples retrieved for the LLM to rerank (DALK reranked its ≤ 5 paths + ≤ 5 neighbour groups).
RERANK_POOL = 25


@dataclass(slots=True)
class Answer:
    retrieval: Retrieval
    context: str
    kept: list[int]  # indices into retrieval.triples, in the LLM's order
    choice: int | None
    text: str
    cited: list[str]
    invalid_citations: list[str]
    named_entities: dict[str, Any]
    usage: qllm.Usage = field(default_factory=qllm.Usage)
    #: The LLM's reading of what the question asks (None: not asked; ``reading`` None: unreadable).
    intent_reading: dict[str, Any] | None = None

    @property
    def letter(self) -> str | None:
        return LETTERS[self.choice] if self.choice is not None else None

    def to_dict(self) -> dict[str, Any]:
        u = self.usage
        return {
            "answer": self.letter if self.retrieval.choices else self.text,
            "choice": self.choice,
            "choice_text": self.retrieval.choices[self.choice] if self.choice is not None else None,
            "parsed": self.choice is not None or not self.retrieval.choices,
            "explanation": self.text,
            "cited_pmids": self.cited,
            "invalid_citations": self.invalid_citations,
            "context": self.context,
            "kept_triples": self.kept,
            "named_entities": self.named_entities,
            "intent_reading": self.intent_reading,
            "llm": {
                "calls": u.calls,
                "cached": u.cached,
                "failed": u.failed,
                "prompt_tokens": u.prompt_tokens,
                "completion_tokens": u.completion_tokens,
                "cost_usd": u.cost_usd,
                "prompts": sorted(set(u.prompts)),
                "answers_cut": u.cut,
            },
            "truncated": u.cut > 0,
            "retrieval": self.retrieval.to_dict(),
        }


def answer_question(
    engine: QueryEngine,
    client: LLMClient,
    question: str,
    choices: list[str] | None = None,
    *,
    k: int = DEFAULT_K,
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    llm_entities: bool = True,
    llm_intent: bool = True,
    rerank: bool = True,
    **options: Any,
) -> Answer:
    """The whole LLM pipeline for one question (see module docstring)."""
    choices = [c.strip() for c in choices or []]
    usage = qllm.Usage()
    entities: list[Link] = []
    named: dict[str, Any] = {}
    if llm_entities:
        found = qllm.extract_entities(client, question, choices, usage)
        named = {
            "question": found.question,
            "choices": {str(i): v for i, v in sorted(found.choices.items())},
        }
        linker = engine.state().linker
        embed = options.get("embed", "mentions") != "off"
        entities = linker.link_names(found.question, "question", embed=embed)
        for i, names in sorted(found.choices.items()):
            entities += linker.link_names(names, f"choice:{i}", embed=embed)
    reader: Callable[[Intent], Intent] | None = None
    intent_reading = None
    if llm_intent:
        reading = read_intent_llm(client, question, choices, usage)
        intent_reading = {"reading": reading.to_dict() if reading is not None else None}
        reader = partial(merge_intent, reading=reading)
    pool = max(k, RERANK_POOL) if rerank else k
    r = engine.retrieve(
        question,
        choices,
        k=pool,
        token_budget=max(token_budget, 8000),
        entities=entities,
        intent_reader=reader,
        **options,
    )
    kept = list(range(min(k, len(r.triples))))
    if rerank and r.triples:
        facts = [render_triple(t).split("\n", 1)[0].split("] ", 1)[1] for t in r.triples]
        chosen = qllm.rerank(client, question, choices, facts, k, usage)
        if chosen:
            kept = chosen
    # the index the retrieval read: an as-of question's is that year's snapshot's
    idx = engine.for_year(r.as_of_year).state().index if r.as_of_year else engine.state().index
    edge_of = {tid: i for i, tid in enumerate(idx.edges["triple_id"])} if kept else {}
    ranked = [
        (edge_of[r.triples[i].triple_id], r.triples[i].score, r.triples[i].reasons) for i in kept
    ]
    as_of = r.diagnostics["filters"]["as_of_year"]
    triples, context, _ = build_context(idx, ranked, k, token_budget, as_of, r.sentence_rows,
                                        choices, r.answering)  # fmt: skip
    parsed = qllm.answer(client, question, choices, context, usage)
    # a PMID counts as cited support only if the context showed it (a fact's or a sentence's)
    shown = {x["pmid"] for x in [*r.sentences, *r.answering] if f"PMID {x['pmid']} (" in context}
    valid = {p for t in triples for p in t.pmids} | shown
    cited = [p for p in dict.fromkeys(parsed.cited) if p in valid]
    invalid = [p for p in dict.fromkeys(parsed.cited) if p not in valid]
    return Answer(r, context, kept, parsed.choice, parsed.text, cited, invalid, named, usage,
                  intent_reading)  # fmt: skip


def answer(
    question: str,
    choices: list[str] | None = None,
    *,
    snapshot: str = "latest",
    warehouse: Path | str | None = None,
    settings: LLMSettings | None = None,
    **options: Any,
) -> Answer:
    """``answer("Which gene …?", ["APOE", "APP"])`` with the LLM endpoint of the environment."""
    engine = engine_for(warehouse, snapshot)
    client = make_client(settings or LLMSettings.from_env(), engine.wh.root)
    try:
        return answer_question(engine, client, question, choices, **options)
    finally:
        client.close()
