"""Turn LLM answers into raw claims: structured JSON first, then DALK's plain-text styles.

Endpoints without structured output (or small models that ignore it) answer in prose. The
fallbacks read what DALK's prompts asked for: ``head | relation | tail`` lines for generative
extraction (DALK Table 8) and "So the answer is: A." for pair-wise questions (DALK Table 9).
A parser never raises on garbage: it returns what it could read and says what it could not.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_TRIPLE_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(.+?)\s*$")
_ANSWER = re.compile(r"answer\s*(?:is)?\s*[:：]?\s*\(?([A-Z])\b[).:]?\s*(.*)", re.I)
_BATCH_LINE = re.compile(r"^\s*(?:pair\s*)?(\d+)\s*[:.)\-]\s*\(?([A-Z])\b[).]?\s*(.*)$", re.I)


@dataclass(slots=True)
class RawTriple:
    head: str
    relation: str
    tail: str


@dataclass(slots=True)
class Choice:
    """One pair-wise answer: an option letter, and the predicate when it is "others"."""

    letter: str
    predicate: str = ""


@dataclass(slots=True)
class Parsed:
    triples: list[RawTriple] = field(default_factory=list)
    choices: dict[int, Choice] = field(default_factory=dict)
    problem: str = ""  # why (part of) the answer could not be read


def json_value(text: str) -> Any:
    """The first JSON value in ``text`` (bare, fenced, or embedded in prose), else None."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start >= 0:
        candidates.append(text[start:])
    decoder = json.JSONDecoder()
    for c in candidates:
        try:
            return decoder.raw_decode(c)[0]
        except (json.JSONDecodeError, ValueError):
            continue
    return None


def _clean(value: Any) -> str:
    return " ".join(str(value).split()).strip(" \"'`.,;") if value is not None else ""


def _name(value: Any) -> Any:
    """An endpoint as a string (DALK's recordings nest it as ``{"entity_name": ...}``)."""
    return value.get("entity_name") if isinstance(value, dict) else value


def parse_triples(text: str) -> Parsed:
    """Generative answer → triples (``{"triples": [...]}`` or ``head | relation | tail`` lines)."""
    out = Parsed()
    value = json_value(text)
    items = value.get("triples") if isinstance(value, dict) else value
    if isinstance(items, list):
        for it in items:
            if isinstance(it, dict):
                h = _name(it.get("head", it.get("entity1", it.get("subject"))))
                t = _name(it.get("tail", it.get("entity2", it.get("object"))))
                r = it.get("relation", it.get("predicate"))
                out.triples.append(RawTriple(_clean(h), _clean(r), _clean(t)))
            elif isinstance(it, list | tuple) and len(it) == 3:
                out.triples.append(RawTriple(*(_clean(x) for x in it)))
        return out
    unread = 0
    for line in text.splitlines():
        m = _TRIPLE_LINE.match(line)
        if m:
            out.triples.append(RawTriple(*(_clean(g) for g in m.groups())))
        elif line.strip():
            unread += 1
    if not out.triples and text.strip():
        out.problem = "answer has no JSON triples and no 'head | relation | tail' lines"
    elif unread:
        out.problem = f"{unread} line(s) not in 'head | relation | tail' form"
    return out


def _choice(letter: Any, predicate: Any) -> Choice | None:
    letter = _clean(letter).upper()
    m = re.match(r"^\(?([A-Z])\b", letter)
    return Choice(m.group(1), _clean(predicate)) if m else None


def parse_choice(text: str) -> Parsed:
    """Per-pair answer → one choice (``{"answer": "B"}`` or "So the answer is: B.")."""
    out = Parsed()
    value = json_value(text)
    if isinstance(value, dict) and "answer" in value:
        c = _choice(value.get("answer"), value.get("predicate"))
        if c:
            out.choices[0] = c
            return out
    found = list(_ANSWER.finditer(text))
    if found:  # the last "answer is: X" wins (chains of thought may quote options earlier)
        m = found[-1]
        out.choices[0] = Choice(m.group(1).upper(), _clean(m.group(2)))
    else:
        out.problem = "answer names no option letter"
    return out


def parse_choices(text: str) -> Parsed:
    """Batched answer → choices by pair number (``{"answers": [...]}`` or ``N: X`` lines)."""
    out = Parsed()
    value = json_value(text)
    items = value.get("answers") if isinstance(value, dict) else value
    if isinstance(items, list):
        for it in items:
            if not isinstance(it, dict):
                continue
            try:
                n = int(it.get("pair"))
            except (TypeError, ValueError):
                continue
            c = _choice(it.get("answer"), it.get("predicate"))
            if c:
                out.choices.setdefault(n, c)
        if out.choices:
            return out
    for line in text.splitlines():
        m = _BATCH_LINE.match(line)
        if m:
            pred = _clean(m.group(3)).strip("()")
            out.choices.setdefault(int(m.group(1)), Choice(m.group(2).upper(), pred))
    if not out.choices and text.strip():
        out.problem = "answer has no JSON answers and no 'N: letter' lines"
    return out
