"""What a question asks, read from its words without an LLM: the relation, the answer's kind,
and whether it is a yes/no question about a pair.

A researcher asks "Which drugs treat Alzheimer's disease?", not "neighbours of MESH:D000544".
The verb ("treat") says which facts answer it, the noun after "which" ("drugs") says what kind
of entity the answer is. Both are read here from two small tables in ``data/`` — the wording
(``question_cues.tsv``: Hetionet metaedge verbs, BioRED relation types, BC5CDR's
chemical-induced disease) and what each asked relation means in the KG
(``question_relations.tsv``: a weight per KG relation, since "associated with" is answered by
``associates`` fully and by a bare ``co_mentioned`` only a little) — so the vocabulary grows by
adding rows, not code.

Words inside a linked entity's mention are not cues ("heart block" names a disease, it does not
ask what blocks), and cue words are no longer reported as unlinked: they were understood.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from kgbuild.question.cues import Qualifier, read_qualifiers
from kgbuild.question.kinds import AnswerKind, noun_phrase_kind, read_kind
from kgbuild.schema import data_dir
from kgbuild.search.text import STOPWORDS

CUES_TSV = "question_cues.tsv"
RELATIONS_TSV = "question_relations.tsv"
#: Weight of a KG relation an asked relation does not list: the pair is related, but not in
#: the way asked.
DEFAULT_WEIGHT = 0.1
#: The words that open a yes/no question (an auxiliary or modal verb first).
_YES_NO = re.compile(
    r"^\s*(?:does|do|did|is|are|was|were|can|could|may|might|will|would|has|have|had|should|"
    r"must)\b",
    re.IGNORECASE,
)
#: A request or existential wrapper around a list question: "Can you list …", "Could you
#: tell me which …", "Are there any microRNAs that …", "Is there a drug that …". What
#: follows is read as the question (a yes/no verb opening the wrapper does not make it one).
#: An existential one counts only when an answer noun or kind follows it: "Is there
#: evidence that …", "Is there an association between …" stay yes/no questions.
_REQUEST = re.compile(
    r"^\s*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|please\s+)"
    r"(?=(?:list|name|tell|give|show|find|identify|suggest)\b)",
    re.IGNORECASE,
)
_EXISTENTIAL = re.compile(
    r"^\s*(?:are|is)\s+there\s+(?:(?:any|some|a|an|other|known)\s+)*", re.IGNORECASE
)
#: Words that make a question ask for a list of entities.
_WH = re.compile(r"\b(?:which|what|list|name|identify|find|give|show)\b", re.IGNORECASE)
#: Words that make a sentence a question; understood, so never reported as unlinked.
QUESTION_WORDS = frozenset(
    [
        "does",
        "do",
        "did",
        "is",
        "are",
        "was",
        "were",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "has",
        "have",
        "had",
        "should",
        "must",
        "which",
        "what",
        "who",
        "whom",
        "whose",
        "how",
        "when",
        "where",
        "why",
        "list",
        "name",
        "identify",
        "find",
        "give",
        "show",
        "tell",
        "me",
        "please",
        "following",
        "there",
        "evidence",
        "known",
    ]
)
#: The fields of an :class:`Intent` another reader (an LLM, :mod:`kgbuild.query.llm_intent`) may
#: replace; ``Intent.source`` says which reader each came from.
READ_FIELDS = ("asked", "answer_type", "yes_no")
#: How far (in words) after a wh-word the answer noun may stand ("which FDA-approved drugs",
#: "which of the following compounds").
_NOUN_WINDOW = 5


@dataclass(frozen=True, slots=True)
class Cue:
    """One phrase of the question read as a relation or an answer kind."""

    kind: str  # relation | answer
    value: str
    start: int
    end: int
    text: str


@dataclass(slots=True)
class Intent:
    """What the question asks (empty when its words say nothing about a relation)."""

    #: Asked relations, in the order they appear (``data/question_relations.tsv``'s names).
    asked: list[str] = field(default_factory=list)
    #: KG relation → weight: the best weight any asked relation gives it.
    weights: dict[str, float] = field(default_factory=dict)
    answer_type: str | None = None
    yes_no: bool = False
    #: Asks for a list of entities ("which …", "what does X bind").
    wh: bool = False
    cues: list[Cue] = field(default_factory=list)
    #: The finer kind asked for ("which microRNAs", "the side effects of"), if any
    #: (:mod:`kgbuild.question.kinds`).
    kind: AnswerKind | None = None
    #: Words narrowing the answers to facts whose sentences share them ("late-onset", "CSF";
    #: :mod:`kgbuild.question.cues`).
    qualifiers: tuple[Qualifier, ...] = ()
    #: Which reader each of :data:`READ_FIELDS` came from: "rules" or "llm".
    source: dict[str, str] = field(default_factory=lambda: dict.fromkeys(READ_FIELDS, "rules"))

    @property
    def relations(self) -> list[str]:
        """KG relations that state what was asked (weight ≥ 0.8), best first."""
        return [r for r, w in sorted(self.weights.items(), key=lambda x: (-x[1], x[0]))
                if w >= 0.8]  # fmt: skip

    def weight(self, relation: str) -> float:
        """How well a fact of ``relation`` answers the question (1 when nothing is asked)."""
        if not self.asked:
            return 1.0
        return self.weights.get(relation, DEFAULT_WEIGHT)

    def spans(self) -> list[tuple[int, int]]:
        return [(c.start, c.end) for c in self.cues]

    def to_dict(self) -> dict[str, Any]:
        return {
            "asked": self.asked,
            "relations": self.relations,
            "answer_type": self.answer_type,
            "answer_kind": self.kind.key if self.kind else None,
            "yes_no": self.yes_no,
            "cues": [{"text": c.text, "kind": c.kind, "value": c.value} for c in self.cues],
            "source": self.source,
        }


@dataclass(frozen=True, slots=True)
class _Tables:
    relation: list[tuple[re.Pattern[str], str]]
    answer: list[tuple[re.Pattern[str], str]]
    infer: dict[str, str]
    weights: dict[str, dict[str, float]]


def _rows(name: str) -> list[dict[str, str]]:
    with open(data_dir() / name, encoding="utf-8", newline="") as fh:
        lines = [x for x in fh if x.strip() and not x.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


@cache
def tables() -> _Tables:
    """The two cue tables, compiled once per process."""
    rel: list[tuple[re.Pattern[str], str]] = []
    ans: list[tuple[re.Pattern[str], str]] = []
    infer: dict[str, str] = {}
    for r in _rows(CUES_TSV):
        if r["kind"] == "infer":
            infer[r["pattern"]] = r["value"]
            continue
        pat = re.compile(rf"(?<![\w-])(?:{r['pattern']})(?![\w-])", re.IGNORECASE)
        (rel if r["kind"] == "relation" else ans).append((pat, r["value"]))
    weights: dict[str, dict[str, float]] = {}
    for r in _rows(RELATIONS_TSV):
        weights.setdefault(r["asked"], {})[r["relation"]] = float(r["weight"])
    return _Tables(rel, ans, infer, weights)


def _free(start: int, end: int, taken: list[tuple[int, int]]) -> bool:
    return all(end <= a or start >= b for a, b in taken)


def read_intent(question: str, entity_spans: list[tuple[int, int]] | None = None) -> Intent:
    """The relation(s), answer kind and yes/no-ness of ``question``; ``entity_spans``: the
    (start, end) of linked mentions, whose words are never read as cues."""
    t = tables()
    taken = list(entity_spans or [])
    cues: list[Cue] = []
    # relations: longest match first, so "increase the risk of" wins over "increase"
    found = []
    for pat, value in t.relation:
        for m in pat.finditer(question):
            found.append((m.start(), m.end(), value, m.group(0)))
    found.sort(key=lambda x: (-(x[1] - x[0]), x[0]))
    rel_taken = list(taken)
    for a, b, value, text in found:
        if _free(a, b, rel_taken):
            rel_taken.append((a, b))
            cues.append(Cue("relation", value, a, b, text))
    wrapper = _REQUEST.match(question) or _EXISTENTIAL.match(question)
    if wrapper is not None:  # read what the wrapper asks, at the same offsets
        rest = " " * wrapper.end() + question[wrapper.end() :]
        if wrapper.re is _REQUEST or _opening_noun(rest, t) or noun_phrase_kind(rest, taken):
            question = rest
        else:
            wrapper = None
    it = Intent(yes_no=wrapper is None and bool(_YES_NO.match(question)))
    wh = None if it.yes_no else _WH.search(question)
    opening = None if it.yes_no or wh is not None else _opening_noun(question, t)
    kind = None if it.yes_no else read_kind(question, taken, opening)
    # "drugs that cross the BBB": a typed query naming its answer noun, no kind
    kind_less = wh is None and kind is None and not it.yes_no and opening is not None
    # a typed query without a wh-word ("side effects of memantine") names its answer noun from
    # its first word, where the wh-form ("What are the side effects of …") names it after "what"
    start = wh.end() if wh is not None else 0 if kind is not None or kind_less else None
    it.wh = start is not None
    if start is not None:
        # without a wh-word, the noun is the kind's own ("targets of curcumin"), never a later one
        limit = _window_end(question, start) if wh is not None or kind is None else kind[2]
        best = None
        for pat, value in t.answer:
            for m in pat.finditer(question, start, limit):
                # a link of just the noun ("drugs" → pharmaceutical preparations) yields to it:
                # after "which" the noun names the kind asked for, not an entity
                wider = [(a, b) for a, b in taken if not (m.start() <= a and b <= m.end())]
                if not _heads_wh_phrase(question[start : m.start()]):
                    continue
                if _free(m.start(), m.end(), wider) and (best is None or m.start() < best[0]):
                    best = (m.start(), m.end(), value, m.group(0))
        if best is not None:
            it.answer_type = best[2]
            # a noun may also be a relation cue ("inhibitors": Compound, downregulates)
            cues.append(Cue("answer", best[2], best[0], best[1], best[3]))
    noun = next(((c.start, c.end) for c in cues if c.kind == "answer"), None)
    if (kind is not None and noun is not None and not _fits(kind[0], it.answer_type or "")
            and not (kind[1] <= noun[0] and noun[1] <= kind[2])):  # fmt: skip
        # "Which drug is an NMDA receptor antagonist?": a drug, not a receptor ("infectious
        # agents" holds its noun: the kind is the narrower reading)
        kind = None
    if kind is not None:
        it.kind, it.wh = kind[0], True
        cues.append(Cue("kind", kind[0].key, kind[1], kind[2], question[kind[1] : kind[2]]))
    cues.sort(key=lambda c: (c.start, c.kind))
    it.cues = cues
    it.asked = list(dict.fromkeys(c.value for c in cues if c.kind == "relation"))
    it.weights = weights_for(it.asked)
    if it.wh and not it.yes_no:
        it.qualifiers = read_qualifiers(question)
    return it


def _fits(kind: AnswerKind, answer_type: str) -> bool:
    """May ``kind`` answer a question whose answer noun asks for ``answer_type``? A kind with an
    inverse row decides later, from the question's entities (:func:`kinds.for_anchors`)."""
    kinds = kind.types | kind.name_types
    return bool(kind.inverse) or not kinds or answer_type in kinds


def _opening_noun(question: str, t: _Tables) -> tuple[int, int] | None:
    """The answer noun a typed query opens with ("drugs that target GSK3B", "genes linked to
    tau", "all proteins in the gamma-secretase complex"), after request words only, and
    followed by a relative pronoun, participle or preposition (else it is a claim or a name:
    "drugs target GSK3B")."""
    m = _LEAD_RUN.match(question)
    at = m.end() if m else 0
    for pat, _ in t.answer:
        got = pat.match(question, at)
        if got is not None and _NOUN_NEXT.match(question, got.end()):
            return got.start(), got.end()
    return None


#: Words a typed query may open with before its answer noun.
_LEAD_WORDS = ("list", "name", "show", "find", "give", "tell", "me", "us", "please", "the",
               "all", "any", "some", "known", "main", "other", "possible", "potential")  # fmt: skip
_LEAD_RUN = re.compile(r"\s*(?:(?:" + "|".join(_LEAD_WORDS) + r")\s+)*", re.IGNORECASE)
#: What follows an opening answer noun in a typed query.
_NOUN_NEXT = re.compile(
    r"\s+(?:that|which|who|linked|associated|related|involved|implicated|used|reported|known|"
    r"approved|tested|studied|in|for|of|against|targeting|inhibiting|binding|causing|"
    r"treating|regulating|affecting|interacting|with)\b",
    re.IGNORECASE,
)


def weights_for(asked: list[str]) -> dict[str, float]:
    """KG relation → the best weight any of the ``asked`` relations gives it
    (``question_relations.tsv``)."""
    weights: dict[str, float] = {}
    for a in asked:
        for rel, w in tables().weights.get(a, {}).items():
            weights[rel] = max(weights.get(rel, 0.0), w)
    return weights


#: "which of the following drugs", "what kinds of genes": an "of" the answer noun may follow.
_OF_OK = frozenset(
    [
        "following",
        "kind",
        "kinds",
        "type",
        "types",
        "class",
        "classes",
        "sort",
        "sorts",
        "group",
        "groups",
    ]
)


def _heads_wh_phrase(between: str) -> bool:
    """Is a noun after these words still the head of the wh-phrase? Not after "X of" ("What
    is the prevalence of dementia": dementia is not the kind asked for), unless X is
    "following", "kind" or such."""
    words = re.findall(r"[\w'’-]+", between.lower())
    return all(w != "of" or (i and words[i - 1] in _OF_OK) for i, w in enumerate(words))


def infer_answer_type(it: Intent, entity_kinds: list[str]) -> str | None:
    """The answer kind of "What does donepezil treat?": from the asked relation and the kind of
    the entity the question names (``question_cues.tsv``'s ``infer`` rows)."""
    if it.answer_type or not it.wh:
        return it.answer_type
    infer = tables().infer
    for asked in it.asked:
        for kind in entity_kinds:
            got = infer.get(f"{asked}:{kind}")
            if got:
                return got
    return None


def _window_end(text: str, pos: int) -> int:
    """The end of the ``_NOUN_WINDOW`` words after ``pos`` (or of the clause)."""
    for n, m in enumerate(re.finditer(r"\S+", text[pos:]), 1):
        if n >= _NOUN_WINDOW or re.search(r"[?.;:,]", m.group(0)):
            return pos + m.end()
    return len(text)


def yes_no_pair(it: Intent, mentions: list[tuple[int, int, int]]) -> tuple[int, int] | None:
    """The two nodes a yes/no question asks about: the mention nearest before the relation cue
    and the one nearest after it ("Does APOE interact with APP in AD?" → APOE, APP), else the
    first two named. ``mentions``: (start, end, node) in text order."""
    if not it.yes_no:
        return None
    # one node per mention: a group name's members share its span ("the miR-34 family")
    first: dict[tuple[int, int], int] = {}
    for a, b, n in mentions:
        first.setdefault((a, b), n)
    nodes = list(dict.fromkeys(first.values()))
    if len(nodes) < 2:
        return None
    rel = next((c for c in it.cues if c.kind == "relation"), None)
    if rel is not None:
        before = [n for (a, b), n in first.items() if b <= rel.start]
        after = [n for (a, b), n in first.items() if a >= rel.end]
        if before and after and before[-1] != after[0]:
            return before[-1], after[0]
    return nodes[0], nodes[1]


def understood(text: str, start: int, end: int, it: Intent) -> bool:
    """Is every word of ``text[start:end]`` (a phrase the dictionary left unlinked) a question
    word or inside one of the intent's cues? Such a phrase was read, not missed."""
    spans = it.spans()
    for m in re.finditer(r"[\w'’-]+", text[start:end]):
        a, b = start + m.start(), start + m.end()
        if m.group(0).lower() in QUESTION_WORDS or m.group(0).lower() in STOPWORDS:
            continue
        if not any(x <= a and b <= y for x, y in spans):
            return False
    return True
