"""Which of a list question's entities the answers are *about*: its subject, its context, and
the entities it sets aside.

"What genes does miR-107 regulate in Alzheimer's disease?" names two entities, but the answers
are miR-107's genes; Alzheimer's disease narrows them (a researcher wants the targets studied
in AD first) and never supplies them. Summing both entities' facts, as a question naming two
equal entities wants ("Which genes link diabetes and AD?"), lets the context's hub list
(APP, MAPT, BACE1: Alzheimer Disease joins 2,000 genes, MIR107 one) stand in for the answer.
So an entity after "in"/"within"/"during" (optionally "patients with", "models of", "the") is
the question's *context* when another entity is left as its subject; the context re-ranks the
subject's answers by :data:`CONTEXT_GAIN`, adds none of its own and is no answer itself.

"Which genes are associated with late-onset AD besides APOE?": an entity after "besides",
"other than", "apart from", "aside from", "except (for)", "excluding" is no anchor and no answer
(the question says so; the usual reading of exclusion phrases, e.g. Quirk et al. 1985 §8.123 on
"except"/"besides"). An entity after "e.g.", "such as", "including" is an example of the
answer asked ("adverse effects of aducanumab, e.g. ARIA"): no anchor, so its own neighbours
never pad the list, but it may be an answer.

A kind asked *of* entities of some kinds (a drug's targets or side effects: ``anchors`` in
``data/answer_kinds.toml``) is asked of those: "nilvadipine was tested in the NILVAD trial for
alzheimer's - what does it act on?" names Alzheimer's disease as the drug's setting, however it
is worded ("for", "in people with"), so a subject of another kind beside one of the anchor's
is context (:func:`anchored`); else APP, MAPT and BACE1 — the disease's own genes — stood as
the drug's targets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgbuild.query.answer_entities import MAX_ANSWERS, rank_answers
from kgbuild.question.intent import Intent
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.store.snapshots import Warehouse

#: Words right before an entity that set it aside ("besides APOE", "other than APP", "vs AD").
EXCLUDE = re.compile(
    r"\b(?:besides|other than|apart from|aside from|except(?: for)?|excluding|not including|"
    # a comparison sets the other entity aside too ("differential diagnosis vs AD")
    r"vs\.?|versus|compared (?:to|with)|as opposed to|rather than|unlike)"
    r"(?:\s+(?:the|a|an))?\s*$",
    re.IGNORECASE,
)
#: Words right before an entity that make it the question's setting ("in AD", "in patients
#: with AD", "in mouse models of AD", "during ageing").
CONTEXT = re.compile(
    r"\b(?:in|within|during)(?:\s+(?:the|a|an|human|humans|patients?|people|subjects|"
    r"individuals|cases?|mouse|mice|rat|rats|animal|cellular|transgenic|with|of|models?))*\s*$",
    re.IGNORECASE,
)
#: Words right before an entity that offer it as an example of the answer ("adverse effects of
#: aducanumab, e.g. ARIA"): no anchor (its own neighbours are no answers), still an answer.
EXAMPLE = re.compile(
    r"(?:\be\.g\.,?|\bsuch as|\bfor example,?|\bfor instance,?|\bincluding|\blike)\s*$",
    re.IGNORECASE,
)
#: Words joining an entity to the one before it ("in AD and PD"): it takes that one's role.
AND = re.compile(r"\s*(?:,|,?\s*(?:and|or)\b)\s*", re.IGNORECASE)
#: A subject's answer also joined to the context scores this much more (1 + gain): enough to
#: order the subject's facts by the setting asked, never to outrank one by support alone.
CONTEXT_GAIN = 0.5
#: With fewer served answers than this from the subject, the answer says the subject has few.
FEW = 5


@dataclass(slots=True)
class Focus:
    """The question's entities (node indices) by role; ``context`` empty when no split."""

    subject: list[int] = field(default_factory=list)
    context: list[int] = field(default_factory=list)
    excluded: list[int] = field(default_factory=list)
    examples: list[int] = field(default_factory=list)


def read_focus(question: str, mentions: list[tuple[int, int, int]]) -> Focus:
    """The roles of the question's linked entities; ``mentions``: (start, end, node) in text
    order. An entity both set aside and named elsewhere as a subject stays a subject."""
    roles: dict[str, list[int]] = {"subject": [], "context": [], "excluded": [], "example": []}
    role, prev_end = "", 0
    for start, end, node in mentions:
        before = question[:start]
        if role and role != "subject" and AND.fullmatch(question[prev_end:start]):
            pass  # "in AD and PD", "besides APOE or APP": the role of the entity before
        elif EXCLUDE.search(before):
            role = "excluded"
        elif EXAMPLE.search(before):
            role = "example"
        elif CONTEXT.search(before):
            role = "context"
        else:
            role = "subject"
        roles[role].append(node)
        prev_end = end
    subject, context, excluded, examples = roles.values()
    subject = list(dict.fromkeys(subject))
    excluded = [n for n in dict.fromkeys(excluded) if n not in subject]
    context = [n for n in dict.fromkeys(context) if n not in subject and n not in excluded]
    examples = [n for n in dict.fromkeys(examples) if n not in subject and n not in excluded]
    if not subject:  # "Which genes are involved in AD?": the setting is the subject
        subject, context = context, []
    if not subject:  # nothing but examples: they are what the question is about
        subject, examples = examples, []
    return Focus(subject, context, excluded, examples)


def anchored(focus: Focus, anchor_kinds: frozenset[str], kinds: list[str]) -> Focus:
    """``focus`` with the subjects not of ``anchor_kinds`` made context, when a subject of
    those kinds remains (module docstring); ``kinds``: the node kind of each node, by node
    index position in ``focus.subject``. Unchanged without anchors or without such a subject."""
    if not anchor_kinds:
        return focus
    keep = [n for n, k in zip(focus.subject, kinds, strict=True) if k in anchor_kinds]
    if not keep or len(keep) == len(focus.subject):
        return focus
    moved = [n for n in focus.subject if n not in keep]
    return Focus(keep, list(dict.fromkeys(focus.context + moved)), focus.excluded,
                 focus.examples)  # fmt: skip


def focused_answers(
    index: SnapshotIndex,
    graph: Graph,
    mask: np.ndarray | None,
    focus: Focus,
    intent: Intent,
    answer_type: str | None,
    as_of: int | None = None,
    warehouse: Warehouse | None = None,
    weaker: Callable[[], SnapshotIndex | None] | None = None,
    limit: int = MAX_ANSWERS,
) -> list[dict[str, Any]]:
    """The subject's answers (:func:`kgbuild.query.answer_entities.rank_answers`), never an
    excluded entity, re-ranked by the context (see the module docstring)."""
    # the setting the question names is never its answer ("side effects of X for people
    # with AD": not AD)
    out = rank_answers(index, graph, mask, focus.subject, intent, answer_type, as_of, limit,
                       warehouse, weaker, exclude=focus.excluded + focus.context)  # fmt: skip
    if not focus.context or not out:
        return out
    near: set[int] = set()
    for c in focus.context:
        near.update(graph.incident(c)[1].tolist())
    ids = index.nodes["id"]
    near_ids = {ids[n] for n in near}
    for a in out:
        if a["id"] in near_ids:
            a["score"] = round(a["score"] * (1 + CONTEXT_GAIN), 6)
            a["context"] = True
    # the tiers stay in order (served facts, weaker facts, shared sentences, shared abstracts)
    tier = {"fact": 0, "weaker_fact": 1, "same_sentence": 2, "same_abstract": 3}
    return sorted(out, key=lambda a: (tier.get(a["basis"], 3), -a["score"], a["id"]))


def focus_note(index: SnapshotIndex, focus: Focus, answers: list[dict[str, Any]]) -> str | None:
    """Plain words when a subject was split from its context and has few served answers:
    the few are shown, not padded with the context's neighbours."""
    if not focus.context:
        return None
    served = sum(a.get("basis") == "fact" for a in answers)
    if served >= FEW:
        return None
    names = index.nodes["display"]
    subj = ", ".join(names[n] for n in focus.subject)
    ctx = ", ".join(names[n] for n in focus.context)
    facts = "no asserted fact" if not served else f"only {served} asserted answer" + (
        "s" if served > 1 else "")  # fmt: skip
    return (f"{subj} has {facts} of the kind asked in this snapshot; answers come from "
            f"{subj}'s facts only ({ctx} re-ranks them, it does not add its own)")  # fmt: skip
