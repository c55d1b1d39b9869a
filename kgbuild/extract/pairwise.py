"""Pair-wise extraction (DALK Tables 9–11): ask about each typed entity pair of an abstract.

Candidate pairs are the document's normalized entities whose kinds have relations in DALK
Table 11 (``data/type_pair_relations.tsv``). Each unordered pair is asked once, head first as
the table orients it: symmetric relations are never asked twice, and a directed relation
(Gene regulates Gene) is offered both ways ("regulates" / "is regulated by"). Options are the
pair's Hetionet relations, no-relation, and others (a predicate of at most 5 words).

Two modes:
- ``per-pair``: faithful to DALK, one call per pair. DALK's design costs ≈63 calls per abstract
  on its corpus (277,851 typed ordered pairs over 9,644 abstracts, plus one summary call per
  entity); here the abstract itself is the context, so there are no summary calls.
- ``batched``: every pair of an abstract in one structured call, chunked at ``chunk_size``
  pairs, so an abstract costs one call unless it has very many pairs.

A document asks about at most ``MAX_PAIRS_PER_DOCUMENT`` pairs (:mod:`kgbuild.extract.caps`):
over it, the pairs of its most-mentioned concepts, and the document ends ``partial``.
"""

from __future__ import annotations

import string
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import combinations, islice
from typing import Any

from kgbuild.errors import ConfigError
from kgbuild.extract import prompts
from kgbuild.extract.base import Ask, Bound, LLMExtractor
from kgbuild.extract.caps import (
    CHUNK_SIZE,
    MAX_PAIRS_PER_DOCUMENT,
    cap_reason,
    count_pairs,
    rank_key,
    ranked_pairs,
)
from kgbuild.extract.claims import MAX_PREDICATE_WORDS, DocClaims
from kgbuild.extract.ground import Grounding
from kgbuild.extract.parse import Choice, parse_choice, parse_choices
from kgbuild.llm.client import LLMClient
from kgbuild.names import most_frequent
from kgbuild.records import Document, Mention
from kgbuild.schema import relations_for

MODES = ("per-pair", "batched")
NO_RELATION = "no-relation"
#: The reverse reading of a directed relation, offered as its own option.
_PASSIVE = {"regulates": "is regulated by"}
#: Completion tokens a batched answer needs per pair ('{"pair": 12, "answer": "C", …}').
TOKENS_PER_PAIR = 20
OTHERS = "others, please specify by generating a short predicate in 5 words"


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    name: str
    kind: str
    spans: tuple[tuple[int, int], ...]

    def grounding(self) -> Grounding:
        return Grounding(self.id, self.kind, "exact", self.spans)


@dataclass(frozen=True, slots=True)
class Option:
    text: str
    relation: str | None = None  # None: no-relation / others
    swap: bool = False  # "is regulated by": the tail is the subject


@dataclass(frozen=True, slots=True)
class PairQuestion:
    head: Node
    tail: Node
    options: tuple[Option, ...]

    def letters(self) -> dict[str, Option]:
        return dict(zip(string.ascii_uppercase, self.options, strict=False))


def doc_nodes(mentions: list[Mention]) -> list[Node]:
    """The document's KG concepts: most frequent surface form, kind, every span; by ID."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    spans: dict[str, list[tuple[int, int]]] = defaultdict(list)
    kinds: dict[str, str] = {}
    for m in mentions:
        if m.concept_id and m.hetionet_type:
            forms[m.concept_id][m.text] += 1
            spans[m.concept_id].append((m.start, m.end))
            kinds.setdefault(m.concept_id, m.hetionet_type)
    return [
        Node(cid, most_frequent(forms[cid]), kinds[cid], tuple(spans[cid])) for cid in sorted(forms)
    ]


def _allowed(kind_a: str, kind_b: str) -> bool:
    return bool(relations_for(kind_a, kind_b))


def count_candidate_pairs(nodes: list[Node]) -> int:
    """How many questions :func:`candidate_pairs` would ask without a cap (not enumerated)."""
    return count_pairs(Counter(n.kind for n in nodes), _allowed)


def candidate_pairs(
    mentions: list[Mention], cap: int = MAX_PAIRS_PER_DOCUMENT
) -> list[PairQuestion]:
    """One question per unordered pair of concepts whose kinds have Table 11 relations, at
    most ``cap``: over it, the pairs of the most-mentioned concepts (then earliest, then by ID),
    enumerated lazily, so a document of 600 concepts never builds its 179,700 pairs."""
    nodes = doc_nodes(mentions)
    pairs: Iterable[tuple[Node, Node]] = combinations(nodes, 2)
    if count_candidate_pairs(nodes) > cap:
        ranked = sorted(nodes, key=lambda n: rank_key(len(n.spans), min(n.spans)[0], n.id))
        kept = islice(((a, b) for a, b in ranked_pairs(ranked) if _allowed(a.kind, b.kind)), cap)
        pairs = sorted(((a, b) if a.id < b.id else (b, a) for a, b in kept),
                       key=lambda p: (p[0].id, p[1].id))  # fmt: skip
    out = []
    for a, b in pairs:
        allowed = relations_for(a.kind, b.kind)
        if not allowed:
            continue
        head, tail = (a, b) if a.kind == b.kind or a.kind == allowed[0].head_kind else (b, a)
        options: list[Option] = []
        for o in allowed:
            options.append(Option(o.relation, o.relation))
            if o.direction == "directed":
                options.append(Option(_PASSIVE[o.relation], o.relation, swap=True))
        options += [Option(NO_RELATION), Option(OTHERS)]
        out.append(PairQuestion(head, tail, tuple(options)))
    return out


class PairwiseExtractor(LLMExtractor):
    method = "pairwise"
    extractor = "kgbuild.pairwise/1"

    def __init__(
        self, client: LLMClient, mode: str = "batched", chunk_size: int = CHUNK_SIZE
    ) -> None:
        if mode not in MODES:
            raise ConfigError("unknown pair-wise mode", mode=mode, known=", ".join(MODES))
        super().__init__(
            client, prompts.load("pairwise" if mode == "per-pair" else "pairwise_batched")
        )
        self.mode, self.chunk_size = mode, chunk_size
        self.expected_completion_tokens = 120 if mode == "per-pair" else 10 * TOKENS_PER_PAIR

    def config(self) -> dict[str, Any]:
        return {
            **super().config(),
            "mode": self.mode,
            "chunk_size": self.chunk_size,
            "max_pairs_per_document": MAX_PAIRS_PER_DOCUMENT,
        }

    def bound(self, doc: Document, mentions: list[Mention]) -> Bound | None:
        """Over ``MAX_PAIRS_PER_DOCUMENT`` candidate pairs: the reason, and the calls saved."""
        total = count_candidate_pairs(doc_nodes(mentions))
        if total <= MAX_PAIRS_PER_DOCUMENT:
            return None
        limit = f"{MAX_PAIRS_PER_DOCUMENT:,} per document"
        reason = cap_reason(total, MAX_PAIRS_PER_DOCUMENT, "candidate pairs", limit)
        return Bound(reason, self._calls(total) - self._calls(MAX_PAIRS_PER_DOCUMENT))

    def _calls(self, n_pairs: int) -> int:
        """Calls asking about ``n_pairs`` pairs: one each per-pair, one per chunk batched."""
        return n_pairs if self.mode == "per-pair" else -(-n_pairs // self.chunk_size)

    def plan(self, doc: Document, mentions: list[Mention]) -> list[Ask]:
        pairs = candidate_pairs(mentions)
        base = {"title": doc.title, "abstract": doc.abstract}
        if self.mode == "per-pair":
            return [
                Ask(
                    self.request(
                        self.prompt.messages(
                            **base,
                            head=q.head.name,
                            head_kind=q.head.kind.lower(),
                            tail=q.tail.name,
                            tail_kind=q.tail.kind.lower(),
                            options="\n".join(f"{k}. {o.text}" for k, o in q.letters().items()),
                        ),
                        doc.pmid,
                    ),
                    [q],
                )
                for q in pairs
            ]
        asks = []
        for i in range(0, len(pairs), self.chunk_size):
            chunk = pairs[i : i + self.chunk_size]
            lines = [
                f'{n}. "{q.head.name}" ({q.head.kind}) and "{q.tail.name}" ({q.tail.kind}): '
                + "; ".join(f"{k}. {_short(o)}" for k, o in q.letters().items())
                for n, q in enumerate(chunk, 1)
            ]
            req = self.request(self.prompt.messages(**base, pairs="\n".join(lines)), doc.pmid)
            req = replace(req, max_tokens=TOKENS_PER_PAIR * len(chunk) + 100)
            asks.append(Ask(req, chunk))
        return asks

    def read(self, ask: Ask, content: str, claims: DocClaims) -> str:
        questions: list[PairQuestion] = ask.context
        parsed = parse_choice(content) if self.mode == "per-pair" else parse_choices(content)
        key = (lambda n: 0) if self.mode == "per-pair" else (lambda n: n)
        missing = 0
        for n, q in enumerate(questions, 1):
            choice = parsed.choices.get(key(n))
            if choice is None:
                missing += 1
                claims.reject(q.head.name, "", q.tail.name, "no answer for this pair")
                continue
            self._apply(q, choice, claims)
        if missing and not parsed.problem:
            return f"{missing} pair(s) unanswered"
        return parsed.problem

    def _apply(self, q: PairQuestion, choice: Choice, claims: DocClaims) -> None:
        option = q.letters().get(choice.letter)
        if option is None:
            claims.reject(q.head.name, choice.letter, q.tail.name, "answer is not an option")
            return
        if option.text == NO_RELATION:
            return
        relation = option.relation
        if relation is None:  # others: the predicate the model wrote
            relation = choice.predicate
            if not relation or len(relation.split()) > MAX_PREDICATE_WORDS:
                claims.reject(
                    q.head.name, relation, q.tail.name, "others without a short predicate"
                )
                return
        head, tail = (q.tail, q.head) if option.swap else (q.head, q.tail)
        claims.add(head.grounding(), head.name, relation, tail.grounding(), tail.name)


def _short(option: Option) -> str:
    return "others" if option.text == OTHERS else option.text
