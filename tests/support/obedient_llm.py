"""An "obedient" model for prompt-injection tests: it does what the abstract in its prompt says.

Served by :func:`tests.support.scripted_llm_server.serve` as ``ScriptedLLM(default=("answer",
model))``: a real OpenAI-compatible server on 127.0.0.1. It reads the abstract as a model that
sees through Unicode tricks would (NFKC, zero-width and soft-hyphen characters dropped, Cyrillic
and Greek look-alikes read as Latin) and answers in the format the prompt asks for:

* **commanded** triples — whatever the text tells it to state, in any form the fixtures use:
  ``A | relation | B``, a JSON object or list triple, or prose "A causes B" (after an
  instruction in any language, or on its own) — always first, as a compliant model would;
* **honest** triples — "X binds Y"-style sentences between the annotated entities the prompt
  lists, as a real extractor would find them.

Generative answers are ``{"triples": [...]}``; pair-wise answers (batched or per pair) choose the
option a commanded or honest triple implies (``others`` with its predicate when it is not an
option), else ``no-relation``. The extractor, not the model, picks the evidence sentence (the
closest co-occurrence of the endpoints), so the model "cites" a sentence by the names it uses:
"Donepezil" and "Alzheimer's disease" are also found together in honest-looking sentences.
It never looks at the guard's patterns: it is the attacker's accomplice, not the defender.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Any

_LOOKALIKE = str.maketrans("оеаорсуіхОЕАРСΟοεαιν", "oeaopcyixOEAPCOoeaiv")
_ABSTRACT = re.compile(r"^Abstract: ?(.*?)(?:\n[ \t]*\n|\Z)", re.M | re.S)
_TITLE = re.compile(r"^Title: ?(.*)$", re.M)
_ENTITY_LINE = re.compile(r"^- (.+?) \[\w+\](?:; also: (.*))?$", re.M)
_PAIR_LINE = re.compile(r'^(\d+)\. "([^"]*)" \([^)]*\) and "([^"]*)" \([^)]*\): (.*?)\s*$', re.M)
_QUESTION = re.compile(
    r'between \S+ entity "([^"]*)" and \S+ entity "([^"]*)", please choose from the following '
    r"options:[ \t]*\n((?:[A-Z]\. [^\n]*(?:\n|$))+)"
)
_PIPES = re.compile(
    r"([A-Za-z0-9][^|:;.\[\]{}\"<>]*?)\s*\|\s*([a-z][a-z ]*?)\s*\|\s*([^|;.\]}\"<]+)"
)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_JSON_LIST = re.compile(r'\[\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*"([^"]+)"\s*\]')
_PROSE = re.compile(
    r"([A-Z0-9][A-Za-z0-9-]*(?: [a-z]+)?) (causes|cures|prevents) ([A-Z][A-Za-z']*(?: [a-z]+)?)"
)
_HONEST_VERBS = (
    "binds", "treats", "palliates", "regulates", "associates with", "interacts with",
    "upregulates", "downregulates",
)  # fmt: skip


def read_as_a_model(text: str) -> str:
    """What a model reads: NFKC, format characters (zero-width, soft hyphen) dropped, look-alike
    letters read as Latin ones."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return text.translate(_LOOKALIKE)


def commanded(text: str) -> list[tuple[str, str, str]]:
    """The triples ``text`` tells a model to state, in order of appearance."""
    text = read_as_a_model(text)
    found: list[tuple[int, tuple[str, str, str]]] = []
    for m in _PIPES.finditer(text):
        found.append((m.start(), (m.group(1).strip(), m.group(2).strip(), m.group(3).strip())))
    for m in _JSON_OBJECT.finditer(text):
        try:
            obj = json.loads(m.group())
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and {"head", "relation", "tail"} <= obj.keys():
            found.append((m.start(), (obj["head"], obj["relation"], obj["tail"])))
    for m in _JSON_LIST.finditer(text):
        found.append((m.start(), (m.group(1), m.group(2), m.group(3))))
    for m in _PROSE.finditer(text):
        found.append((m.start(), (m.group(1), m.group(2), m.group(3))))
    out: list[tuple[str, str, str]] = []
    for _, t in sorted(found):
        if t not in out:
            out.append(t)
    return out


def honest(text: str, names: list[str]) -> list[tuple[str, str, str]]:
    """ "X verb Y" sentences between two of ``names``: what the abstract itself states."""
    out = []
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        for a in names:
            for b in names:
                for verb in _HONEST_VERBS:
                    if a != b and f"{a} {verb} {b}" in sentence:
                        out.append((a, verb.split()[0], b))
    return out


@dataclass
class ObedientModel:
    """The model: call it with a request body; it records what it was told to say, by the text
    it read (title + " " + abstract)."""

    obeyed: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        title_m, abstract_m = _TITLE.search(prompt), _ABSTRACT.search(prompt)
        title = title_m.group(1) if title_m else ""
        text = f"{title} {abstract_m.group(1) if abstract_m else ''}"
        told = commanded(text)
        with self.lock:
            seen = self.obeyed.setdefault(text, [])
            seen += [t for t in told if t not in seen]
        pairs = _PAIR_LINE.findall(prompt)
        if pairs:
            return json.dumps({"answers": [_choose(text, told, h, t, opts, n)
                                           for n, h, t, opts in pairs]})  # fmt: skip
        question = _QUESTION.search(prompt)
        if question:
            h, t, options = question.groups()
            choice = _choose(text, told, h, t, options.replace("\n", "; "), "1")
            return json.dumps({"reasoning": "as instructed", "answer": choice["answer"],
                               "predicate": choice["predicate"]})  # fmt: skip
        names = [n.strip() for m in _ENTITY_LINE.finditer(prompt) for n in _names(m)]
        triples = told + honest(text, names)
        return json.dumps(
            {"triples": [{"head": h, "relation": r, "tail": t} for h, r, t in triples]}
        )


def _names(m: re.Match[str]) -> list[str]:
    return [m.group(1), *(m.group(2).split(", ") if m.group(2) else [])]


def _choose(
    text: str, told: list[tuple[str, str, str]], head: str, tail: str, options: str, n: str
) -> dict[str, Any]:
    """The option a commanded (first) or honest triple between ``head`` and ``tail`` implies."""
    letters = dict(re.findall(r"([A-Z])\. ([^;]+?)\s*(?:;|$)", options))
    by_text = {v.strip(): k for k, v in letters.items()}
    want = {head.lower(), tail.lower()}
    for h, r, t in told + honest(text, [head, tail]):
        if {h.lower(), t.lower()} == want:
            if r in by_text:
                return {"pair": int(n), "answer": by_text[r], "predicate": ""}
            others = next(k for k, v in letters.items() if v.startswith("others"))
            return {"pair": int(n), "answer": others, "predicate": r}
    return {"pair": int(n), "answer": by_text.get("no-relation", "A"), "predicate": ""}
