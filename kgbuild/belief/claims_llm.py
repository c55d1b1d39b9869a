"""An LLM claim reader: what a sentence, as written, states between two mentions.

The template reader (:mod:`kgbuild.belief.claims_read`) is precise but narrow: it reads 3–4%
of the sentences holding a signed pair, so a corpus lists too few conflicts to judge. This
reader asks an LLM the same question of the same candidates
(:func:`~kgbuild.belief.snapshot_claims.candidates_sql`: the pairs of mentions of two KG nodes in
one sentence, past the cheap cue cut, so the calls stay bounded) and answers in the template
reader's vocabulary (:data:`OPTIONS`: a :data:`~kgbuild.belief.claims_templates.Polarity` or
``none``) plus which mention is the subject. Over a stored snapshot
(:func:`kgbuild.reader.claims_snapshot.read_snapshot`) the candidates are fetched and the catalog
closed before the first call (a first reading takes tens of thousands of calls, and a catalog held
open that long would keep a build from publishing); the readings then join the candidates on a new
connection (:func:`claims_of`), and the same assembly
(:func:`~kgbuild.belief.conflicts.conflicts_sql`) lists the conflicts.

The sentence is untrusted text (anyone can publish an abstract): it is sent between fixed
delimiters with look-alike markers and delimiters taken out, and the answer is parsed
strictly (:func:`parse_answer`): one JSON object of exactly the two keys, each one of a fixed
option list. Anything else is unread and counted, never a claim. Every call goes through
:class:`~kgbuild.llm.client.LLMClient` (its cache key holds the endpoint, model, prompt
version with its digest and the messages, which hold the sentence and mentions): a rerun
with the warehouse's response cache costs nothing.

Measured like the templates: ``bench/claim_reader_gold.py --reader llm`` (sign precision and
coverage on BioRED Train and Dev).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any

import duckdb
import pyarrow as pa

from kgbuild.belief.claims_read import Claim
from kgbuild.belief.claims_templates import AFFIRM, DENY, Polarity, Span
from kgbuild.belief.snapshot_claims import ConflictFilters, claims_from_sql
from kgbuild.extract import prompts
from kgbuild.llm.client import LLMClient, LLMError, LLMRequest, LLMResult

PROMPT = "claim_reading"
#: What the model may answer: the template reader's polarities, or no claim.
OPTIONS = (*AFFIRM, *DENY, "none")
#: Readings that hold in both orientations (an association, its denial).
SYMMETRIC = frozenset({"assoc", "deny_assoc"})
#: The ``template`` of an LLM reading, and how strong it is among a side's rows.
TEMPLATE = "llm"
STRENGTH = {TEMPLATE: 2}
#: Text in a sentence that could pass for the prompt's own markers or delimiters.
_SPOOF = re.compile(r"</?\s*[xy]\s*>|(?:begin|end)\s+sentence", re.IGNORECASE)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Question:
    """One sentence and the spans (offsets into it) of mention X (``a``) and mention Y."""

    sentence: str
    a: Span
    b: Span


@dataclass(slots=True)
class ReadStats:
    """What a reading cost and gave: questions ``asked`` (distinct sentence and mention
    pair), answers ``read`` as a claim or ``none``, ``unparseable`` answers (not one of the
    options: unread), ``failed`` calls and ``skipped`` questions (spans that cannot be
    marked); ``calls`` sent and ``cache_hits``; ``cost_usd`` (None: the model has no
    price)."""

    asked: int = 0
    read: int = 0
    none: int = 0
    unparseable: int = 0
    failed: int = 0
    skipped: int = 0
    calls: int = 0
    cache_hits: int = 0
    cost_usd: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _clean(text: str) -> str:
    """``text`` with anything that looks like a marker or delimiter taken out."""
    return _SPOOF.sub(" ", text)


def marked(q: Question) -> str | None:
    """The sentence on one line, with ``<X>…</X>`` around mention X and ``<Y>…</Y>`` around
    Y (either order in the text); None when the spans are outside it, empty or overlap."""
    (f0, f1, ft), (s0, s1, st) = sorted([(*q.a, "X"), (*q.b, "Y")])
    if not (0 <= f0 < f1 <= s0 < s1 <= len(q.sentence)):
        return None
    t = q.sentence
    text = (f"{_clean(t[:f0])}<{ft}>{_clean(t[f0:f1])}</{ft}>{_clean(t[f1:s0])}"
            f"<{st}>{_clean(t[s0:s1])}</{st}>{_clean(t[s1:])}")  # fmt: skip
    return " ".join(text.split())


def request(q: Question) -> LLMRequest | None:
    """The request asking what ``q``'s sentence states between its two mentions (None: the
    spans cannot be marked)."""
    text = marked(q)
    if text is None:
        return None
    prompt = prompts.load(PROMPT)
    x = json.dumps(" ".join(_clean(q.sentence[q.a[0] : q.a[1]]).split()), ensure_ascii=False)
    y = json.dumps(" ".join(_clean(q.sentence[q.b[0] : q.b[1]]).split()), ensure_ascii=False)
    return LLMRequest(
        prompt.messages(sentence=text, x=x, y=y), prompt.ref, prompt.response_format()
    )


def parse_answer(content: str) -> tuple[str, str] | None:
    """(relation, subject "X"|"Y") of an answer, or None unless it is exactly one JSON object
    ``{"relation": <one of OPTIONS>, "subject": "X"|"Y"}`` (in a code fence at most): a
    model talked into anything else by the sentence reads nothing."""
    text = content.strip()
    fenced = _FENCE.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except (json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(value, dict) or set(value) != {"relation", "subject"}:
        return None
    relation, subject = value["relation"], value["subject"]
    if relation not in OPTIONS or subject not in ("X", "Y"):
        return None
    return relation, subject


def read_claims(
    client: LLMClient, questions: list[Question]
) -> tuple[list[Claim | None], ReadStats]:
    """The claim each question's sentence states between mention ``a`` (X) and ``b`` (Y),
    None where it states none or the answer is unread, and what the reading cost. A claim's
    ``subject`` is "a" or "b" as :func:`~kgbuild.belief.claims_read.read_claim` gives it."""
    stats = ReadStats(asked=len(questions))
    before = (client.usage["calls"], client.usage["cache_hits"], client.cost_usd)
    asks = [request(q) for q in questions]
    stats.skipped = sum(r is None for r in asks)
    answers = iter(client.complete_many([r for r in asks if r is not None]))
    out = [None if r is None else _claim(next(answers), stats) for r in asks]
    stats.calls = client.usage["calls"] - before[0]
    stats.cache_hits = client.usage["cache_hits"] - before[1]
    priced = client.settings.price() != (0.0, 0.0)
    stats.cost_usd = round(client.cost_usd - before[2], 6) if priced else None
    return out, stats


def _claim(answer: LLMResult | LLMError, stats: ReadStats) -> Claim | None:
    """The claim of one answer (None: none stated, failed or unparseable — counted)."""
    if isinstance(answer, LLMError):
        stats.failed += 1
        return None
    parsed = parse_answer(answer.content)
    if parsed is None:
        stats.unparseable += 1
        return None
    relation, subject = parsed
    if relation == "none":
        stats.none += 1
        return None
    stats.read += 1
    polarity: Polarity = relation  # type: ignore[assignment]  # one of OPTIONS, not none
    return Claim(TEMPLATE, polarity, "a" if subject == "X" else "b", relation in SYMMETRIC)


@dataclass(slots=True)
class SnapshotReading:
    """An LLM's reading of a snapshot's candidates: ``candidates`` (the rows of
    :func:`~kgbuild.belief.snapshot_claims.candidates_sql`), ``readings`` (one row per question read
    as a claim: the question's ``sentence``, ``a0``…``b1``, and ``polarity``, ``subject_pos``,
    ``is_symmetric``) and what it cost (``stats``)."""

    candidates: pa.Table
    readings: pa.Table
    stats: ReadStats


#: Completion tokens assumed per answer for an estimate: ``{"relation": "deny_assoc",
#: "subject": "X"}`` is about 16 tokens.
ANSWER_TOKENS = 16


@dataclass(slots=True)
class ReadEstimate:
    """What reading a snapshot would send, before spending (``kgbuild conflicts --reader llm
    --estimate``): the questions, how many the response cache answers already, and for the
    rest the calls, tokens (≈ characters/4 for the prompt, :data:`ANSWER_TOKENS` per answer)
    and their cost at the model's list price (None: no price for the model). A first reading
    of the DALK build is ~25k calls, so a user sees the bill before paying it."""

    model: str
    questions: int = 0
    skipped: int = 0
    cached: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def claims_of(
    con: duckdb.DuckDBPyConnection, reading: SnapshotReading, filters: ConflictFilters
) -> str:
    """Register ``reading`` on ``con`` (views ``_llm_candidates`` and ``_llm_readings``) and
    return the SELECT of its claims (:func:`claims_from_sql`, the columns of
    :func:`~kgbuild.belief.snapshot_claims.claims_sql`) for
    :func:`~kgbuild.belief.conflict_report.fetch_conflicts`."""
    con.register("_llm_candidates", reading.candidates)
    con.register("_llm_readings", reading.readings)
    rows = (
        f"(SELECT c.*, r.polarity, r.subject_pos, r.is_symmetric, '{TEMPLATE}' AS template "
        "FROM _llm_candidates c JOIN _llm_readings r USING (sentence, a0, a1, b0, b1))"
    )
    return claims_from_sql(rows, STRENGTH, filters)


__all__ = [
    "ANSWER_TOKENS", "OPTIONS", "PROMPT", "Question", "ReadEstimate", "ReadStats",
    "SnapshotReading", "claims_of", "marked", "parse_answer", "read_claims", "request",
]  # fmt: skip
