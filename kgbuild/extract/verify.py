"""The optional LLM verification pass: does the sentence state the stored triple?

Extraction keeps a claim when its two endpoints ground and one sentence names both; whether the
sentence *states* the relationship, in that direction, between the concepts the triple's IDs
denote, it cannot tell (the developers' audit of DALK found about one stored triple in four not
supported by its sentence). A second reading by the model — the self-verification step of
chain-of-verification (Dhuliawala et al. 2023, "Chain-of-Verification Reduces Hallucination in
Large Language Models") — asks exactly that, per evidence row.

One call per abstract with at least one kept claim (none for a document without): the
document's evidence sentences, quoted, and its claims as numbered stored triples (the node's
name as this abstract writes it most often, its kind, the stored relation; symmetric relations
marked "either order"). The answer sets :attr:`~kgbuild.records.Evidence.verified` to ``yes`` or
``no``; a row the answer does not decide (no verdict, an unreadable one, conflicting ones, a
failed call) stays ``""`` and its reason is counted. The call goes through the extractor's own
client: cached (the prompt's ref, hence its version and digest, is part of the key), retried,
costed, and recorded as an :class:`~kgbuild.records.LLMCall` of method ``verify``.

A failed verification call makes the document's extraction status ``failed``, so the year is
rebuilt by the next build (extraction answers then come from the cache), as for a failed
extraction call. The pass verifies the triple as extraction stores it; resolution may later
rename a free node or canonicalize the relation ("increases" → upregulates), never its meaning.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from typing import Any

from kgbuild.extract import prompts
from kgbuild.extract.base import Estimate, ExtractionResult
from kgbuild.extract.parse import json_value
from kgbuild.llm.client import LLMError, LLMRequest, LLMResult
from kgbuild.llm.tokens import estimate_tokens
from kgbuild.names import by_frequency
from kgbuild.records import Document, Evidence, ExtractionStatus, LLMCall, Mention, Triple
from kgbuild.schema import type_pair_relations

#: The method of a verification call's :class:`~kgbuild.records.LLMCall` row.
METHOD = "verify"
#: Completion tokens per fact: ``{"fact": 12, "verdict": "yes"},`` is about 12.
TOKENS_PER_FACT = 16
_LINE = re.compile(r"^\s*(?:fact\s*)?(\d+)\s*[:.)\-]\s*\W*(yes|no)\b", re.I | re.M)
_MARKERS = re.compile(r"<<<|>>>")
_YES = frozenset({"yes", "y", "true", "supported", "states"})
_NO = frozenset({"no", "n", "false", "unsupported"})


@dataclass(frozen=True, slots=True)
class Fact:
    """One evidence row as the model sees it: its number, sentence number and stored triple."""

    evidence_id: str
    sentence: int
    head: str
    relation: str
    tail: str
    either_order: bool


@cache
def _symmetric_metaedges() -> frozenset[str]:
    """Metaedges whose relation has no direction (DALK Table 11: ``symmetric``)."""
    return frozenset(
        o.metaedge for o in type_pair_relations() if o.metaedge and o.direction == "symmetric"
    )


def _one_line(text: str) -> str:
    """Text as one line without the quote markers: a sentence cannot fake a fact or a marker."""
    return " ".join(_MARKERS.sub(" ", text).split())


def node_names(mentions: list[Mention]) -> dict[str, str]:
    """Concept ID → "name [Kind]": the form this abstract uses most for it (what the model can
    find in the sentence) and its kind (a wrong kind is a wrong node)."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, str] = {}
    for m in mentions:
        if m.concept_id:
            forms[m.concept_id][m.text] += 1
            kinds.setdefault(m.concept_id, m.hetionet_type or "")
    out = {}
    for cid, counts in forms.items():
        kind = f" [{kinds[cid]}]" if kinds[cid] else ""
        out[cid] = f"{by_frequency(counts)[0]}{kind}"
    return out


def facts(
    evidence: list[Evidence], triples: dict[str, Triple], names: dict[str, str]
) -> list[Fact]:
    """The facts of one document's evidence rows, in row order; sentences numbered from 1 in
    order of first use. A free node (``free:…``) is named by the claim's own words."""
    sentences: dict[tuple[int, int], int] = {}
    out = []
    for e in evidence:
        t = triples[e.triple_id]
        n = sentences.setdefault((e.sent_start, e.sent_end), len(sentences) + 1)
        head = names.get(t.head_id) or e.head_text
        tail = names.get(t.tail_id) or e.tail_text
        either = bool(t.metaedge) and t.metaedge in _symmetric_metaedges()
        out.append(Fact(e.evidence_id, n, _one_line(head), _one_line(t.relation),
                        _one_line(tail), either))  # fmt: skip
    return out


def render(evidence: list[Evidence], items: list[Fact]) -> dict[str, str]:
    """The prompt's fields: the quoted sentences and the numbered facts."""
    text: dict[int, str] = {}
    for e, f in zip(evidence, items, strict=True):
        text.setdefault(f.sentence, _one_line(e.sentence))
    sentences = "\n".join(f"[{n}] {s}" for n, s in sorted(text.items()))
    lines = [
        f"{i}. [{f.sentence}] {f.head} | {f.relation} | {f.tail}"
        + (" (either order)" if f.either_order else "")
        for i, f in enumerate(items, 1)
    ]
    return {"sentences": sentences, "facts": "\n".join(lines)}


def _verdict(value: Any) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, str):
        return None
    word = value.strip().strip(".!\"' ").lower()
    return "yes" if word in _YES else "no" if word in _NO else None


def _number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= 9:  # not "²", not 5,000 digits
        return int(text)
    return None


def _pairs(value: Any) -> list[tuple[Any, Any]]:
    """(number, verdict) pairs of a JSON answer: ``{"verdicts": [{"fact", "verdict"}]}``, a bare
    list of such objects, or ``{"1": "yes", …}``."""
    items = value.get("verdicts", value.get("answers")) if isinstance(value, dict) else value
    if isinstance(items, list):
        out = []
        for it in items:
            if isinstance(it, dict):
                n = next((it[k] for k in ("fact", "number", "n", "id") if k in it), None)
                v = next((it[k] for k in ("verdict", "answer", "states") if k in it), None)
                out.append((n, v))
        return out
    if isinstance(value, dict):
        return [(k, v) for k, v in value.items() if _number(k) is not None]
    return []


def parse_verdicts(text: str, n: int) -> tuple[dict[int, str], Counter[str]]:
    """Fact number (1..n) → "yes"/"no", and the reasons the other facts stay undecided.

    Never raises: missing numbers, numbers out of range, verdicts of the wrong type, prose
    around the JSON, or a plain-text answer (``3: yes`` lines) are each read or counted."""
    reasons: Counter[str] = Counter()
    said: dict[int, set[str]] = defaultdict(set)
    unreadable: set[int] = set()
    pairs = _pairs(json_value(text))
    if not pairs:
        pairs = [(int(m.group(1)), m.group(2)) for m in _LINE.finditer(text)]
    for raw_n, raw_v in pairs:
        number, verdict = _number(raw_n), _verdict(raw_v)
        if number is None or not 1 <= number <= n:
            continue  # a verdict for no fact of ours decides nothing
        if verdict is None:
            unreadable.add(number)
        else:
            said[number].add(verdict)
    out: dict[int, str] = {}
    for i in range(1, n + 1):
        if len(said[i]) == 1:
            out[i] = next(iter(said[i]))
        elif len(said[i]) > 1:
            reasons["conflicting verdicts"] += 1
        elif i in unreadable:
            reasons["unreadable verdict"] += 1
        elif pairs:
            reasons["no verdict for the fact"] += 1
        else:
            reasons["answer not readable"] += 1
    return out, reasons


class VerifyingExtractor:
    """An LLM extractor whose per-slice result passes through :func:`verify_result` (the seam:
    a wrapper, so neither extractor changes, and the Dask workers build it from the same
    options). Its config adds the verify prompt's ref, so a build with the pass has other
    fingerprints than one without."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.client = inner.client
        self.method = inner.method
        self.prompt = prompts.load("verify")
        #: Facts left undecided, by reason, over every slice this extractor verified.
        self.unverified: Counter[str] = Counter()

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), "verify": self.prompt.ref}

    def close(self) -> None:
        self.inner.close()

    def extract(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> ExtractionResult:
        result = self.inner.extract(docs, mentions)
        self.unverified.update(verify_result(self, result, mentions))
        return result

    def estimate(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> Estimate:
        """The extractor's estimate plus an upper bound for the pass: one call per document
        (which documents keep a claim is known only after extracting), with its abstract."""
        est = self.inner.estimate(docs, mentions)
        template = sum(estimate_tokens(m["content"]) for m in self.prompt.messages(
            sentences="", facts=""))  # fmt: skip
        est.calls += len(docs)
        est.prompt_tokens += sum(template + estimate_tokens(d.text) for d in docs)
        est.completion_tokens += len(docs) * 8 * TOKENS_PER_FACT
        est.cost_usd = self.client.cost(est.prompt_tokens, est.completion_tokens)
        return est


def verify_result(
    ex: VerifyingExtractor, result: ExtractionResult, mentions: dict[str, list[Mention]]
) -> Counter[str]:
    """Ask one verification call per document of ``result`` that kept evidence; set each
    row's ``verified``; add the calls' rows and tokens; return the undecided facts by reason."""
    triples = {t.triple_id: t for t in result.triples}
    by_doc: dict[str, list[Evidence]] = defaultdict(list)
    for e in result.evidence:
        by_doc[e.pmid].append(e)
    todo = [(s, by_doc[s.pmid]) for s in result.statuses if by_doc.get(s.pmid)]
    asked = []
    for status, evidence in todo:
        items = facts(evidence, triples, node_names(mentions.get(status.pmid, [])))
        messages = ex.prompt.messages(**render(evidence, items))
        budget = 32 + TOKENS_PER_FACT * len(items)
        asked.append(LLMRequest(messages, ex.prompt.ref, ex.prompt.response_format(),
                                status.pmid, budget))  # fmt: skip
    answers = ex.client.complete_many(asked) if asked else []
    reasons: Counter[str] = Counter()
    for (status, evidence), answer in zip(todo, answers, strict=True):
        reasons.update(_apply(ex, status, evidence, answer, result.calls))
    return reasons


def _apply(
    ex: VerifyingExtractor,
    status: ExtractionStatus,
    evidence: list[Evidence],
    answer: LLMResult | LLMError,
    calls: list[LLMCall],
) -> Counter[str]:
    """Set one document's verdicts from its answer; account the call on the document."""
    model, ref = ex.client.settings.model, ex.prompt.ref
    if isinstance(answer, LLMError):
        calls.append(LLMCall(status.pmid, status.year, METHOD, 0, model, ref, "failed",
                             error=str(answer)))  # fmt: skip
        status.status = "failed"
        status.reason = _note(status.reason, f"verification call failed: {answer}")
        status.n_calls += 1
        return Counter({"call failed": len(evidence)})
    outcome = "truncated" if answer.truncated else "ok"
    calls.append(
        LLMCall(status.pmid, status.year, METHOD, 0, model, ref, outcome,
                answer.prompt_tokens, answer.completion_tokens, answer.cost_usd)
    )  # fmt: skip
    status.n_calls += 1
    status.prompt_tokens += answer.prompt_tokens
    status.completion_tokens += answer.completion_tokens
    status.cost_usd = round(status.cost_usd + answer.cost_usd, 9)
    verdicts, reasons = parse_verdicts(answer.content, len(evidence))
    if answer.truncated and reasons:
        reasons = Counter({"answer cut off at max_tokens": sum(reasons.values())})
    for i, e in enumerate(evidence, 1):
        e.verified = verdicts.get(i, "")
    said = Counter(verdicts.values())
    summary = f"verified: {said['yes']} yes, {said['no']} no"
    if reasons:
        summary += ", " + ", ".join(f"{n} undecided ({why})" for why, n in sorted(reasons.items()))
    status.reason = _note(status.reason, summary)
    return reasons


def _note(reason: str, more: str) -> str:
    return f"{reason}; {more}"[:500] if reason else more[:500]
