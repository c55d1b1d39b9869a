"""What a question asks, read by the LLM when one is configured, merged over the
rule reader's reading (:mod:`kgbuild.question.intent`).

The rules read cue words: "Which chemicals are bad for hepatitis?" has none, so nothing is
asked and every relation counts alike. An LLM reads the sentence ("bad for" asks what causes
it). Its reading is trusted only as far as the tables go: the relation must be an asked
relation of ``data/question_relations.tsv`` and the answer kind one of ``question_cues.tsv``'s
(both are put into the prompt and its JSON schema from those tables, so they never drift), and
``yes_no`` a boolean. Anything else — an unknown name, prose, a wrong type, an LLM error — drops
that field (or the whole reading) and the rule reader's value stands; nothing here raises.

The question is untrusted text: the prompt delimits it and says instructions inside it are
ignored, and the delimiters are neutralised in it so it cannot close them. A model that obeys
an injection anyway can at most pick another allowed relation or kind: a reweighting of the
ranking, never new text in the answer.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

from kgbuild.llm.client import LLMClient, LLMError, LLMRequest
from kgbuild.query.llm import Usage, choices_block, json_value, one_line
from kgbuild.query.prompts import load
from kgbuild.question.intent import Intent, tables, weights_for

PROMPT = "question_intent"
#: What the LLM writes for "asks no relation" / "asks for no entity".
NONE = "none"


@dataclass(frozen=True, slots=True)
class LLMReading:
    """The LLM's valid answers; a field it left out or got wrong is None (the rules' stands).
    ``relation`` / ``answer_type`` may be :data:`NONE`: the LLM read that nothing is asked."""

    relation: str | None = None
    answer_type: str | None = None
    yes_no: bool | None = None
    #: Fields the LLM answered with a value outside the tables or of the wrong type.
    dropped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "relation": self.relation,
            "answer_type": self.answer_type,
            "yes_no": self.yes_no,
            "dropped": list(self.dropped),
        }


def allowed() -> tuple[list[str], list[str]]:
    """(asked relations, answer kinds) of the tables, in table order / sorted."""
    t = tables()
    kinds = {v for _, v in t.answer} | set(t.infer.values())
    return list(t.weights), sorted(kinds)


def _data(text: str) -> str:
    """Untrusted text on one line, unable to open or close the prompt's delimiters."""
    return one_line(text).replace("<", "‹").replace(">", "›")


def request(question: str, choices: list[str]) -> LLMRequest:
    """The prompt with the tables' values in its text and its schema's enums."""
    prompt = load(PROMPT)
    relations, kinds = allowed()
    messages = prompt.messages(
        question=_data(question),
        choices=choices_block([_data(c) for c in choices]),
        relations=", ".join(f'"{r}"' for r in [*relations, NONE]),
        kinds=", ".join(f'"{k}"' for k in [*kinds, NONE]),
    )
    fmt = copy.deepcopy(prompt.response_format())
    props = fmt["json_schema"]["schema"]["properties"]
    props["relation"]["enum"] = [*relations, NONE]
    props["answer_type"]["enum"] = [*kinds, NONE]
    return LLMRequest(messages, prompt.ref, fmt, "intent")


def _pick(value: Any, names: list[str]) -> str | None:
    """``value`` as one of ``names`` or :data:`NONE` (case and spacing forgiven), else None."""
    if not isinstance(value, str):
        return None
    v = value.strip().lower()
    by_key = {n.lower(): n for n in [*names, NONE]}
    return by_key.get(v)


def parse_reading(text: str) -> LLMReading | None:
    """The valid fields of a JSON answer; None when it is no JSON object or nothing is valid."""
    value = json_value(text or "")
    if not isinstance(value, dict):
        return None
    relations, kinds = allowed()
    got: dict[str, Any] = {}
    dropped: list[str] = []
    for name, check in (
        ("relation", lambda v: _pick(v, relations)),
        ("answer_type", lambda v: _pick(v, kinds)),
        ("yes_no", lambda v: v if isinstance(v, bool) else None),
    ):
        if name not in value:
            continue
        ok = check(value[name])
        if ok is None:
            dropped.append(name)
        else:
            got[name] = ok
    if not got:
        return None
    return LLMReading(**got, dropped=tuple(dropped))


def read_intent_llm(
    client: LLMClient, question: str, choices: list[str], usage: Usage
) -> LLMReading | None:
    """One cached call (the client keys it by endpoint, model, prompt ref and the full
    request); None on an LLM error or an unreadable answer."""
    req = request(question, choices)
    (res,) = client.complete_many([req])
    usage.add(req.prompt_version, res)
    if isinstance(res, LLMError):
        return None
    return parse_reading(usage.bounded(res.content))


def merge_intent(rules: Intent, reading: LLMReading | None) -> Intent:
    """The rule reader's intent with the LLM's valid fields in place of its own: the asked
    relation (weights from ``question_relations.tsv``), the answer kind, yes/no. The cues stay
    the rules' (they decide which words are not linked)."""
    if reading is None:
        return rules
    source = dict(rules.source)
    it = dataclasses.replace(rules, source=source)
    if reading.relation is not None:
        it.asked = [] if reading.relation == NONE else [reading.relation]
        it.weights = weights_for(it.asked)
        source["asked"] = "llm"
    if reading.answer_type is not None:
        it.answer_type = None if reading.answer_type == NONE else reading.answer_type
        source["answer_type"] = "llm"
    if reading.yes_no is not None:
        it.yes_no = reading.yes_no
        source["yes_no"] = "llm"
        # a yes/no question lists no answers; one the rules took for yes/no ("Can you name
        # drugs that …?") lists them when the LLM names the kind asked for
        it.wh = not it.yes_no and (rules.wh or it.answer_type is not None)
    return it
