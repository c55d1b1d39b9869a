"""What every extractor hands back for a year slice, and the LLM extractors' shared loop.

An LLM extractor only says which requests a document needs (:meth:`LLMExtractor.plan`) and how
to read one answer into claims (:meth:`LLMExtractor.read`). This loop sends a whole year slice
through the one LLM client at once (bounded concurrency, cache, retries), then gives every built
document an :class:`~kgbuild.records.ExtractionStatus`, every request an
:class:`~kgbuild.records.LLMCall` row, and every dropped claim a
:class:`~kgbuild.records.Rejection`: DALK's code lost 1,007 of 9,764 abstracts to a bare
``except``; here a document ends ``done``, ``partial`` or ``failed`` with a reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

from kgbuild.extract.claims import DocClaims, Provenance
from kgbuild.extract.ground import DocumentGrounder
from kgbuild.extract.prompts import Prompt
from kgbuild.extract.supported import score_claims, verifier_ref
from kgbuild.llm.client import LLMClient, LLMError, LLMRequest, LLMResult
from kgbuild.llm.tokens import estimate_tokens
from kgbuild.records import (
    Abbreviation,
    Document,
    Entity,
    Evidence,
    ExtractionStatus,
    LLMCall,
    Mention,
    Rejection,
    Triple,
)


@dataclass(slots=True)
class ExtractionResult:
    triples: list[Triple] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    statuses: list[ExtractionStatus] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    calls: list[LLMCall] = field(default_factory=list)
    #: Free-text nodes (``free:…``) with the surface form first seen.
    free_nodes: list[Entity] = field(default_factory=list)
    #: Abbreviations found defined in the documents (normalized), for resolution.
    abbreviations: list[Abbreviation] = field(default_factory=list)


class SliceExtractor(Protocol):
    method: str

    def config(self) -> dict[str, Any]:
        """What changes the output (recorded in the manifest and the year fingerprint)."""
        ...

    def extract(
        self, docs: list[Document], mentions: dict[str, list[Mention]]
    ) -> ExtractionResult: ...

    def close(self) -> None:
        """Release what the extractor holds (the LLM response cache)."""
        ...


@dataclass(slots=True)
class Ask:
    """One planned request of a document, with what is needed to read its answer."""

    request: LLMRequest
    context: Any = None


@dataclass(frozen=True, slots=True)
class Bound:
    """A document over a per-document cap (:mod:`kgbuild.extract.caps`): the status reason,
    and the calls the cap saves (what ``--estimate`` reports)."""

    reason: str
    calls_saved: int


@dataclass(slots=True)
class Estimate:
    """What a build would send, before spending: calls, cache hits, tokens and cost; and the
    documents over the pair cap, with the calls that cap saves."""

    docs: int = 0
    calls: int = 0
    cached: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    capped_docs: int = 0
    calls_saved: int = 0


class LLMExtractor:
    """Plan → one batched pass through the client → read; subclasses fill in plan and read."""

    method = "llm"
    extractor = "kgbuild.llm/1"
    #: Completion tokens assumed per request by ``--estimate`` when the cache has no history.
    expected_completion_tokens = 200

    def __init__(self, client: LLMClient, prompt: Prompt) -> None:
        self.client = client
        self.prompt = prompt

    def config(self) -> dict[str, Any]:
        s = self.client.settings
        return {
            "method": self.method,
            "prompt": self.prompt.ref,
            "model": s.model,
            "temperature": s.temperature,
            "max_tokens": s.max_tokens,
            "verifier": verifier_ref(),
        }

    def close(self) -> None:
        self.client.close()

    def plan(self, doc: Document, mentions: list[Mention]) -> list[Ask]:
        raise NotImplementedError

    def bound(self, doc: Document, mentions: list[Mention]) -> Bound | None:
        """Whether :meth:`plan` leaves out part of ``doc`` to stay within a per-document cap;
        such a document ends ``partial`` with the reason. None: the plan asks everything."""
        return None

    def read(self, ask: Ask, content: str, claims: DocClaims) -> str:
        """Add the answer's claims to ``claims``; return a problem description or ''."""
        raise NotImplementedError

    def request(self, messages: list[dict[str, str]], tag: str) -> LLMRequest:
        return LLMRequest(messages, self.prompt.ref, self.prompt.response_format(), tag)

    def extract(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> ExtractionResult:
        plans = [self.plan(d, mentions.get(d.pmid, [])) for d in docs]
        bounds = [self.bound(d, mentions.get(d.pmid, [])) for d in docs]
        answers = iter(self.client.complete_many([a.request for p in plans for a in p]))
        out = ExtractionResult()
        free: dict[str, Entity] = {}
        for doc, asks, bound in zip(docs, plans, bounds, strict=True):
            claims = DocClaims(
                doc,
                DocumentGrounder(doc, mentions.get(doc.pmid, [])),
                Provenance(
                    self.method, self.extractor, self.client.settings.model, self.prompt.ref
                ),
            )
            results = [next(answers) for _ in asks]
            out.statuses.append(self._read_doc(doc, asks, results, claims, out.calls, bound))
            out.triples.extend(claims.triples.values())
            out.evidence.extend(claims.evidence.values())
            out.rejections.extend(claims.rejections)
            out.abbreviations.extend(
                Abbreviation(doc.pmid, s, lf) for s, lf in claims.abbreviation_pairs
            )
            for nid, name in claims.free_nodes.items():
                free.setdefault(nid, Entity(nid, name, "", [name], doc.year))
        out.free_nodes = list(free.values())
        score_claims(out.triples, out.evidence, docs, mentions)  # the verifier reads
        return out

    def _read_doc(
        self,
        doc: Document,
        asks: list[Ask],
        results: list[LLMResult | LLMError],
        claims: DocClaims,
        calls: list[LLMCall],
        bound: Bound | None = None,
    ) -> ExtractionStatus:
        n: Counter[str] = Counter()
        problems: list[str] = []
        model, ref = self.client.settings.model, self.prompt.ref
        for i, (ask, res) in enumerate(zip(asks, results, strict=True)):
            if isinstance(res, LLMError):
                n["failed"] += 1
                problems.append(str(res))
                calls.append(LLMCall(doc.pmid, doc.year, self.method, i, model, ref, "failed",
                                     error=str(res)))  # fmt: skip
                continue
            outcome = "truncated" if res.truncated else "ok"
            n[outcome] += 1
            n["prompt_tokens"] += res.prompt_tokens
            n["completion_tokens"] += res.completion_tokens
            calls.append(
                LLMCall(doc.pmid, doc.year, self.method, i, model, ref, outcome,
                        res.prompt_tokens, res.completion_tokens, res.cost_usd)
            )  # fmt: skip
            problem = self.read(ask, res.content, claims)
            if problem:
                problems.append(problem)
        if claims.injection:
            problems.append(
                "instruction-like sentence in the abstract (prompt injection suspected)"
            )
        if n["failed"]:
            status = "failed"
            head = f"{n['failed']} of {len(asks)} call(s) failed"
        elif n["truncated"]:
            status, head = "partial", f"{n['truncated']} answer(s) cut off (max_tokens or size cap)"
        elif bound:
            status, head = "partial", bound.reason
        else:
            status, head = "done", "ok" if asks else "nothing to ask (no candidate pairs)"
        if bound:
            problems.append(bound.reason)  # after a failure's head; once if it is the head
        reason = "; ".join(dict.fromkeys([head, *problems]))[:500]
        return ExtractionStatus(
            doc.pmid, doc.year, self.method, status, reason, len(asks), len(claims.triples),
            len(claims.rejections), n["prompt_tokens"], n["completion_tokens"],
            self.client.cost(n["prompt_tokens"], n["completion_tokens"]), model, ref,
        )  # fmt: skip

    def estimate(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> Estimate:
        """Calls, tokens and cost a build of ``docs`` would spend; cached answers cost 0."""
        est = Estimate(docs=len(docs))
        for doc in docs:
            if bound := self.bound(doc, mentions.get(doc.pmid, [])):
                est.capped_docs += 1
                est.calls_saved += bound.calls_saved
            for ask in self.plan(doc, mentions.get(doc.pmid, [])):
                if self.client.cached(ask.request) is not None:
                    est.cached += 1
                    continue
                est.calls += 1
                est.prompt_tokens += sum(
                    estimate_tokens(m["content"]) for m in ask.request.messages
                )
                est.completion_tokens += min(
                    self.expected_completion_tokens, self.client.settings.max_tokens
                )
        est.cost_usd = self.client.cost(est.prompt_tokens, est.completion_tokens)
        return est
