"""The query stage's LLM steps, all through the project's one client (cached, retrying, costed).

- **Question entities** (DALK §3.2, WTS): ≤ 5 entities of the question, plus the entities of
  each choice, named by the LLM and linked like any mention.
- **Self-aware rerank** (DALK §3.2, MindMap's ``self_knowledge_retrieval_reranking``): the LLM
  keeps ≤ k of the retrieved triples, most useful first.
- **Answer**: one choice letter and the PMIDs it relied on, only PMIDs of the context counting.

Every answer is cut to :data:`MAX_ANSWER_CHARS` before anything parses, embeds or prints it
(counted in :class:`Usage` as ``cut``): each step's whole answer is a few hundred tokens, and
an endpoint that sends megabytes is not answering — an 8 MB answer once cost ``ask`` minutes of
entity embedding and printing. A name longer than :data:`MAX_NAME_CHARS` is not an entity
name and is dropped, and at most :data:`MAX_NAMES` names are read per answer.

Parsers never raise: JSON first (structured output), then DALK's plain-text styles (a numbered
entity list; "So the answer is: B."). An answer with no readable choice is ``None`` — the
evaluation counts it wrong (DALK's code left such answers out of its denominator).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from kgbuild.llm.client import LLMClient, LLMError, LLMRequest, LLMResult
from kgbuild.query.entity_lists import LETTERS, clean_name, parse_entity_list
from kgbuild.query.prompts import load
from kgbuild.search.text import key

MAX_QUESTION_ENTITIES = 5
#: Characters of one step's answer read (about 2,000 tokens: 2–8 times what each step's
#: prompt asks for; the client's own cap, for extraction, is 64 KiB).
MAX_ANSWER_CHARS = 8_000
#: Longest entity name read from an answer (MeSH's longest preferred names are ~110 characters).
MAX_NAME_CHARS = 120
#: Most entity names read from one answer (question and choices together).
MAX_NAMES = 40
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_ANSWER_IS = re.compile(r"(?:answer|option|choice)\s*(?:is|:)?\s*[:：]?\s*\(?\**\s*([A-J])\b", re.I)
_LEADING = re.compile(r"^\s*\(?\**([A-J])\b\s*[).:]?(?:\s|$)")
_PMID = re.compile(r"\b(\d{5,9})\b")
_PMIDS_LINE = re.compile(r"PMIDs?\s*[:：]\s*(.*)", re.I)


def choices_block(choices: list[str]) -> str:
    """``A. first\\nB. second`` (DALK's option layout), or an empty string."""
    return "".join(f"{LETTERS[i]}. {one_line(c)}\n" for i, c in enumerate(choices))


def one_line(text: str) -> str:
    """Whitespace collapsed: a question or option with line breaks cannot break the layout."""
    return " ".join(str(text).split())


def json_value(text: str) -> Any:
    """The first JSON value in ``text`` (bare, fenced, or embedded in prose), else None."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    start = text.find("{")
    if start >= 0:
        candidates.append(text[start:])
    decoder = json.JSONDecoder()
    for c in candidates:
        try:
            return decoder.raw_decode(c)[0]
        except (json.JSONDecodeError, ValueError):
            continue
    return None


@dataclass(slots=True)
class Usage:
    """What the LLM steps of one question cost (cache hits cost nothing)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    prompts: list[str] = field(default_factory=list)
    #: Answers cut to :data:`MAX_ANSWER_CHARS`.
    cut: int = 0

    def bounded(self, text: str) -> str:
        """``text`` cut to the answer budget (counted when cut)."""
        if len(text) <= MAX_ANSWER_CHARS:
            return text
        self.cut += 1
        return text[:MAX_ANSWER_CHARS]

    def add(self, prompt_ref: str, res: LLMResult | LLMError) -> None:
        self.prompts.append(prompt_ref)
        if isinstance(res, LLMError):
            self.failed += 1
            return
        self.calls += 1
        self.cached += res.cached
        if not res.cached:
            self.prompt_tokens += res.prompt_tokens
            self.completion_tokens += res.completion_tokens
            self.cost_usd = round(self.cost_usd + res.cost_usd, 9)


def _call(client: LLMClient, name: str, usage: Usage, tag: str, **fields: str) -> str | None:
    prompt = load(name)
    req = LLMRequest(prompt.messages(**fields), prompt.ref, prompt.response_format(), tag)
    (res,) = client.complete_many([req])
    usage.add(prompt.ref, res)
    return None if isinstance(res, LLMError) else usage.bounded(res.content)


# ---- question entities --------------------------------------------------------------------------


@dataclass(slots=True)
class NamedEntities:
    question: list[str]
    choices: dict[int, list[str]]
    raw: str


def parse_entities(text: str, question: str, choices: list[str]) -> NamedEntities:
    """JSON ``{question_entities, choice_entities}`` or a numbered list; each name is put
    where it occurs (a name found only in choice i is that choice's), question names capped
    at :data:`MAX_QUESTION_ENTITIES`."""
    value = json_value(text or "")
    names: list[str] = []
    if isinstance(value, dict):
        for field_name in ("question_entities", "choice_entities", "entities"):
            items = value.get(field_name)
            if isinstance(items, list):
                names += [clean_name(x) for x in items if isinstance(x, str | int)]
    elif isinstance(value, list):
        names = [clean_name(x) for x in value if isinstance(x, str)]
    else:
        names = parse_entity_list(text or "")
    names = [n for n in names if len(n) <= MAX_NAME_CHARS][:MAX_NAMES]
    q_key = f" {key(question)} "
    c_keys = [f" {key(c)} " for c in choices]
    out = NamedEntities([], {}, text or "")
    for name in dict.fromkeys(n for n in names if n):
        k = f" {key(name)} "
        if not k.strip():
            continue
        where = next((i for i, ck in enumerate(c_keys) if k in ck), None)
        if where is not None and k not in q_key:
            out.choices.setdefault(where, []).append(name)
        elif len(out.question) < MAX_QUESTION_ENTITIES:
            out.question.append(name)
    return out


def extract_entities(
    client: LLMClient, question: str, choices: list[str], usage: Usage
) -> NamedEntities:
    text = _call(
        client,
        "question_entities",
        usage,
        "entities",
        question=one_line(question),
        choices=choices_block(choices),
    )
    return parse_entities(text or "", question, choices)


# ---- rerank --------------------------------------------------------------------------------------


def parse_keep(text: str, n: int, k: int) -> list[int] | None:
    """1-based fact numbers → 0-based indices (valid, distinct, ≤ k); None if unreadable."""
    value = json_value(text or "")
    raw: list[Any]
    if isinstance(value, dict) and isinstance(value.get("keep"), list):
        raw = value["keep"]
    elif isinstance(value, list):
        raw = value
    else:
        raw = re.findall(r"\d+", text or "")
        if not raw:
            return None
    out: list[int] = []
    for x in raw:
        try:
            i = int(x) - 1
        except (TypeError, ValueError):
            continue
        if 0 <= i < n and i not in out:
            out.append(i)
    return out[:k]


def rerank(
    client: LLMClient, question: str, choices: list[str], facts: list[str], k: int, usage: Usage
) -> list[int] | None:
    """Indices of the facts the LLM kept (None: no readable answer → keep the retrieval's)."""
    if not facts:
        return []
    listing = "\n".join(f"{i + 1}. {f}" for i, f in enumerate(facts))
    text = _call(
        client,
        "rerank",
        usage,
        "rerank",
        question=one_line(question),
        choices=choices_block(choices),
        facts=listing,
        k=str(k),
    )
    return parse_keep(text or "", len(facts), k) if text is not None else None


# ---- answer --------------------------------------------------------------------------------------


@dataclass(slots=True)
class ParsedAnswer:
    choice: int | None  # 0-based; None = no readable choice (counted wrong)
    text: str
    cited: list[str]
    raw: str


def parse_choice(value: str, choices: list[str]) -> int | None:
    """A choice from an answer string: a letter ("B", "(B)", "B. Haloperidol", "answer is B")
    or the exact text of one choice."""
    s = (value or "").strip()
    if not s:
        return None
    n = len(choices)
    m = _LEADING.match(s) or _ANSWER_IS.search(s)
    if m and LETTERS.index(m.group(1).upper()) < n:
        return LETTERS.index(m.group(1).upper())
    k = key(s)
    hits = [i for i, c in enumerate(choices) if key(c) == k]
    return hits[0] if len(hits) == 1 else None


def parse_answer(text: str, choices: list[str]) -> ParsedAnswer:
    value = json_value(text or "")
    if isinstance(value, dict):
        ans = str(value.get("answer", "") or "")
        pmids = value.get("pmids") or []
        cited = [str(p).strip() for p in pmids if str(p).strip()] if isinstance(pmids, list) else []
        explanation = str(value.get("reasoning", "") or "")
        choice = parse_choice(ans, choices) if choices else None
        body = ans if not choices else (explanation or ans)
        return ParsedAnswer(choice, body, cited, text)
    raw = text or ""
    cited = []
    m = _PMIDS_LINE.search(raw)
    if m:
        cited = _PMID.findall(m.group(1))
    choice = None
    if choices:
        hits = list(_ANSWER_IS.finditer(raw))
        for h in reversed(hits):  # the conclusion comes last
            if LETTERS.index(h.group(1).upper()) < len(choices):
                choice = LETTERS.index(h.group(1).upper())
                break
        if choice is None:
            choice = parse_choice(raw.splitlines()[0] if raw.strip() else "", choices)
    return ParsedAnswer(choice, raw.strip(), cited, raw)


def answer(
    client: LLMClient, question: str, choices: list[str], context: str, usage: Usage
) -> ParsedAnswer:
    name = "answer" if choices else "answer_open"
    fields = {
        "question": one_line(question),
        "context": context or "(no knowledge graph facts found)",
    }
    if choices:
        fields["choices"] = choices_block(choices)
    text = _call(client, name, usage, "answer", **fields)
    if text is None:
        return ParsedAnswer(None, "", [], "")
    return parse_answer(text, choices)


def answer_alone(
    client: LLMClient, question: str, choices: list[str], usage: Usage
) -> ParsedAnswer:
    """The same multiple-choice question with no context: the LLM-alone baseline."""
    fields = {"question": one_line(question), "choices": choices_block(choices)}
    text = _call(client, "answer_alone", usage, "answer_alone", **fields)
    if text is None:
        return ParsedAnswer(None, "", [], "")
    return parse_answer(text, choices)
