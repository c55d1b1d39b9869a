"""An open question about something the KG has no entity for, answered from the sentences
naming it.

"How is the MAPK pathway involved in Abeta-induced neuronal death?" names a pathway, and a KG
built on PubTator's entity kinds has no pathway nodes: the facts answer about Abeta alone. Yet
the snapshot's abstracts write "MAPK pathway" in sentences that also name Abeta and the kinases
involved. So when the question's subject is an unlinked phrase
(:func:`kgbuild.question.question_phrase.question_phrase`), its answer is read from the sentences
of the snapshot's documents writing the phrase (one catalog query, documents naming the
question's other entities and newest first, at most :data:`MAX_DOCS`), cut with the extractor's
splitter (:func:`kgbuild.extract.sentences.sentence_spans`) as
:mod:`kgbuild.query.verdict_sentences` reads a yes/no question:

- **evidence**: the best :data:`MAX_SHOWN` sentences, one per abstract — naming more of the
  question's entities first, then carrying the asked relation's cue
  (:mod:`kgbuild.question.predicates`), then closest to the question in meaning (the linker's
  encoder, :func:`kgbuild.corpus.answer_sentences.closest_first`; without it newest, then
  shortest, the plainest statement);
- **answers of a kind**, when one is asked: the snapshot's nodes of that kind mentioned in those
  sentences, ranked by distinct PMIDs, then by how close they sit to the phrase; never the
  question's own entities nor, for drugs, a generic chemical
  (:mod:`kgbuild.query.generic_chemicals`). A kind the KG has no nodes for ("cell types",
  "PET tracers": PubTator annotates neither) is said so plainly, with the sentences.

Everything is labelled as read from sentences, not extracted facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgbuild.corpus.answer_sentences import Encode, closest_first
from kgbuild.corpus.documents import WRITES, doc_sentences, ranked_documents, row_mentions
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.corpus.unwritten import name_like
from kgbuild.query.answer_entities import node_kinds, topic_nodes
from kgbuild.query.generic_chemicals import generic_nodes
from kgbuild.query.verdict_sentences import MAX_SHOWN
from kgbuild.question.intent import Intent
from kgbuild.question.kinds import kind_nodes
from kgbuild.question.predicates import predicate_for
from kgbuild.question.question_phrase import Phrase, question_phrase, shorter
from kgbuild.search.index import SnapshotIndex

#: Documents read at most: the question's other entities first, then newest.
MAX_DOCS = 300
#: Answers listed.
MAX_ANSWERS = 10
#: Words between a wh-word and a phrase that still let the phrase name the kind asked
#: ("what PET tracers", "which of the cell types").
_KIND_GAP = re.compile(r"^\s*(?:(?:the|of|kinds?|types?|sorts?)\s+)*$", re.IGNORECASE)
_WH_END = re.compile(r"\b(?:which|what|list|name|identify)\s*$", re.IGNORECASE)


@dataclass(slots=True)
class PhraseAnswer:
    """The sentences' answer: a verdict-like dict to show, answers, and the note."""

    verdict: dict[str, Any]
    answers: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None
    #: A kind the KG has, none found in the sentences: the facts' answers may stand.
    keep_facts: bool = False


def fetch(wh: Any, snapshot_id: str, phrase: Phrase, ids: list[str],
          as_of: int | None) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of the documents writing ``phrase``: those
    naming more of ``ids`` first, then newest (one read-only catalog query)."""
    return ranked_documents(wh, snapshot_id, WRITES, {"p": phrase.pattern(sql=True)}, ids,
                            as_of, MAX_DOCS)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Hit:
    """One sentence writing the phrase: the phrase's span and the mentions in it (offsets in
    the sentence)."""

    pmid: str
    year: int
    sentence: str
    at: tuple[int, int]
    mentions: tuple[tuple[str, int, int], ...]
    #: Which form of the phrase it writes: 0 the whole phrase, 1 without its generic head …
    form: int = 0


def sentences(rows: list[tuple[Any, ...]], forms: list[Phrase]) -> list[Hit]:
    """Every sentence of ``rows`` writing one of the phrase's ``forms`` (the longest found)."""
    pats = [re.compile(f.pattern(), re.IGNORECASE) for f in forms]
    out = []
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            sent = ds.text
            low = sent.lower()
            form, m = next(((i, got) for i, p in enumerate(pats) if (got := p.search(low))),
                           (0, None))  # fmt: skip
            if m is None:
                continue
            at = (m.start() + (1 if m.group(0)[:1] and not m.group(0)[0].isalnum() else 0),
                  m.end())  # fmt: skip
            out.append(Hit(ds.pmid, ds.year, sent, at, ds.mentions, form))
    return out


def abstracts(rows: list[tuple[Any, ...]]) -> list[Hit]:
    """Each document as one "hit" without a sentence: every mention of it, at no distance."""
    return [Hit(str(r[0]), int(r[1]), "", (-1, -1), tuple((str(x["c"]), 0, 0) for x in r[4] or []))
            for r in rows]  # fmt: skip


def _shown(h: Hit, want: set[str]) -> str:
    """The sentence with the phrase and the nearest mention of each asked entity marked; when
    a long sentence's cut would hide the phrase, with the nearest one only."""
    near: dict[str, tuple[int, int]] = {}
    for c, a, b in sorted(h.mentions, key=lambda m: _gap((m[1], m[2]), h.at)):
        if c in want:
            near.setdefault(c, (a, b))
    marks = [h.at, *near.values()]
    text = excerpt(h.sentence, disjoint_spans(marks))
    if len(marks) > 2 and h.sentence[h.at[0] : h.at[1]] not in text:
        text = excerpt(h.sentence, disjoint_spans(marks[:2]))
    return text


def shown_sentences(hits: list[Hit], want: set[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """(the first :data:`MAX_SHOWN` of ``hits``, one per abstract, marked; every PMID in the
    hits' order)."""
    shown: list[dict[str, Any]] = []
    pmids: list[str] = []
    for h in hits:
        if h.pmid in pmids:
            continue
        pmids.append(h.pmid)
        if len(shown) < MAX_SHOWN:
            shown.append({"pmid": h.pmid, "year": h.year, "reading": "",
                          "sentence": _shown(h, want)})  # fmt: skip
    return shown, pmids


def _gap(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(0, max(a[0], b[0]) - min(a[1], b[1]))


def tally(hits: list[Hit], accept: Callable[[str], bool]) -> list[tuple[str, dict[str, Any]]]:
    """The concepts ``accept`` allows named in ``hits`` (never the phrase's own words: "MAPK"
    in "MAPK pathway" is its name), best first: by distinct PMIDs, then nearest the phrase;
    each with its PMIDs and its best (nearest, newest) sentence and span."""
    seen: dict[str, dict[str, Any]] = {}
    for h in hits:
        for c, a, b in h.mentions:
            if (a < h.at[1] and h.at[0] < b) or not accept(c):
                continue
            gap = _gap((a, b), h.at)
            got = seen.setdefault(c, {"pmids": set(), "gap": gap, "hit": h, "span": (a, b)})
            got["pmids"].add(h.pmid)
            if (gap, -h.year) < (got["gap"], -got["hit"].year):
                got.update(gap=gap, hit=h, span=(a, b))
    order = sorted(seen, key=lambda c: (-len(seen[c]["pmids"]), seen[c]["gap"], c))
    return [(c, seen[c]) for c in order]


def rank_answers(index: SnapshotIndex, hits: list[Hit], allowed: np.ndarray, barred: set[int],
                 limit: int = MAX_ANSWERS,
                 about: str = "writing the phrase") -> list[dict[str, Any]]:  # fmt: skip
    """The nodes of ``allowed`` named in ``hits`` (:func:`tally`), as answers; never a
    ``barred`` node. ``about``: what the sentences are, in each answer's "why"."""

    def accept(c: str) -> bool:
        n = index.node_of.get(c)
        return n is not None and n not in barred and bool(allowed[n])

    ids, names, types = index.nodes["id"], index.nodes["display"], index.nodes["type"]
    out = []
    for c, g in tally(hits, accept)[:limit]:
        n = index.node_of[c]
        h = g["hit"]
        pms = sorted(g["pmids"])
        if not h.sentence:  # an abstract's mention, not a sentence writing the phrase
            out.append({"id": ids[n], "name": names[n], "type": types[n] or "Other",
                        "score": 0.0, "basis": "same_abstract", "relation": [],
                        "support": len(pms), "facts": [], "edges": [], "pmid": pms[0],
                        "sentence": "", "why": "named in abstracts writing the phrase, not in "
                        f"its sentences ({', '.join(pms[:5])})"})  # fmt: skip
            continue
        out.append({
            "id": ids[n], "name": names[n], "type": types[n] or "Other",
            "score": float(len(pms)), "basis": "sentence", "relation": [], "support": len(pms),
            "facts": [], "edges": [], "pmid": h.pmid,
            "sentence": excerpt(h.sentence, disjoint_spans([h.at, g["span"]])),
            "why": f"named in sentences {about} (PMIDs {', '.join(pms[:5])}); "
                   "not an extracted fact",
        })  # fmt: skip
    return out


def asked_kind(index: SnapshotIndex, question: str, intent: Intent, answer_type: str | None,
               phrase: Phrase) -> tuple[np.ndarray | None, str | None]:  # fmt: skip
    """(per node: may it answer?, a plain note when the KG has no entities of the kind asked);
    (None, None) when no kind is asked ("What role does …": the sentences are the answer)."""
    kind = intent.kind
    if kind is not None and any(c.kind == "kind" and phrase.start <= c.start < phrase.end
                                for c in intent.cues):  # fmt: skip
        kind = None  # "the PI3K/Akt pathway": the kind's noun is the phrase's, not the answer's
    if kind is not None:
        ok = kind_nodes(index, kind)
        if ok.any():
            return ok, None
        return None, f"this KG has no {kind.label} entities; the sentences naming the phrase follow"
    if answer_type:
        return node_kinds(index) == answer_type, None
    if _WH_END.search(question[: phrase.start]) or (
        (m := re.search(r"\b(?:which|what)\b", question[: phrase.start], re.IGNORECASE))
        and _KIND_GAP.match(question[m.end() : phrase.start])
    ):
        return None, (f"this KG has no entities of the kind '{phrase.text}' (its annotator "
                      "tags genes, chemicals, diseases, variants, species and cell lines); "
                      "the sentences naming it follow")  # fmt: skip
    return None, None


def _names_unwritten(question: str, subject: Phrase, links: list[Any]) -> bool:
    """Does the unwritten ``subject`` hold a name of its own (:func:`name_like`: "miR-342-5p"),
    not only plain words around a linked one ("APP damage")?"""
    linked = [(x.start, x.end) for x in links if x.node is not None]
    for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9-]*", question[subject.start : subject.end]):
        a, b = subject.start + m.start(), subject.start + m.end()
        if name_like(m.group(0)) and not any(x <= a and b <= y for x, y in linked):
            return True
    return False


def phrase_answer(wh: Any, index: SnapshotIndex, question: str, links: list[Any],
                  intent: Intent, answer_type: str | None,
                  as_of: int | None = None,
                  encode: Encode | None = None) -> PhraseAnswer | None:  # fmt: skip
    """The answer of an open question whose subject is an unlinked phrase (module docstring),
    or None when its subject is a linked entity or it names no unlinked phrase. ``encode``:
    the question encoder, to show the sentences closest to it first."""
    q = [x for x in links if x.where == "question" and x.start >= 0]
    phrase, unwritten = question_phrase(wh, index.snapshot_id, question,
                                      [(x.start, x.end) for x in q if x.node is not None],
                                      intent, as_of)  # fmt: skip
    subject = phrase or unwritten
    if subject is None:
        return None
    outside = [x for x in q if x.node is not None
               and not (subject.start <= x.start and x.end <= subject.end)]  # fmt: skip
    if any(x.start < subject.start for x in outside):
        return None  # a linked entity comes first: it is the subject, the facts answer
    ids = list(dict.fromkeys(index.nodes["id"][x.node] for x in outside))
    inside = {x.node for x in q if x.node is not None} - {x.node for x in outside}
    names = list(dict.fromkeys(str(index.nodes["display"][x.node]) for x in outside))
    base = {"pair": None, "basis": "sentences", "phrase": subject.text, "names": names,
            "facts": [], "edges": [], "statuses": None}  # fmt: skip
    forms = [phrase, *shorter(phrase)] if phrase else []
    rows = fetch(wh, index.snapshot_id, forms[-1], ids, as_of) if forms else []
    hits = sentences(rows, forms)
    if not hits:
        line = f"no sentence of the corpus names '{subject.text}'"
        # written nowhere, the phrase cannot answer: the facts' answers (if any) stand —
        # unless it is a name and the question names nothing else but the corpus's topic,
        # whose hubs (AD associates APP, MAPT, …) say nothing of "miR-342-5p in AD models"
        own = np.array([x.node for x in q if x.node is not None], np.int64)
        keep = not _names_unwritten(question, subject, q) or (
            bool(len(own)) and not topic_nodes(index, index.node_docs, index.n_docs, own).all()
        )
        if not keep:
            line += (
                ", and the question names only the corpus's topic beside it: no answer "
                "from the topic's facts"
            )
        return PhraseAnswer({**base, "answer": "not found", "line": line, "sentences": [],
                             "pmids": []}, keep_facts=keep)  # fmt: skip
    pred = predicate_for(intent.asked)
    want = set(ids)

    def key(h: Hit) -> tuple[Any, ...]:
        named = len({c for c, _, _ in h.mentions} & want)
        cue = pred.cues.search(h.sentence) is not None
        return (-named, h.form, not cue, -h.year, len(h.sentence), h.pmid)

    hits.sort(key=key)
    hits = closest_first(hits, lambda h: h.sentence, question, encode, lambda h: key(h)[:3])
    shown, pmids = shown_sentences(hits, want)
    allowed, note = asked_kind(index, question, intent, answer_type, subject)
    answers: list[dict[str, Any]] = []
    if allowed is not None:
        barred = inside | {x.node for x in outside}
        if answer_type == "Compound" or (intent.kind and "Compound" in intent.kind.types):
            allowed = allowed & ~generic_nodes(index)
        # the corpus's topic (AD in an AD corpus) is named beside everything: no answer
        cand = np.flatnonzero(allowed)
        allowed = allowed.copy()
        allowed[cand[topic_nodes(index, index.node_docs, index.n_docs, cand)]] = False
        answers = rank_answers(index, hits, allowed, barred)
        # then the kind's nodes named elsewhere in those abstracts (BioRED Dev, gold partners
        # of a pretended-unlinked concept: hits@5 1,083 → 1,187, recall@10 .772 → .871;
        # kgbuild/evaluate/phrase_partners.py)
        barred |= {index.node_of[a["id"]] for a in answers}
        more = rank_answers(index, abstracts(rows), allowed, barred, MAX_ANSWERS - len(answers))
        answers += more
    docs = len({h.pmid for h in hits})
    named_all = sum(1 for h in hits if want <= {c for c, _, _ in h.mentions}) if want else 0
    line = (f"from sentences, not extracted facts: {len(hits)} sentences in {docs} abstracts "
            f"name '{subject.text}'")  # fmt: skip
    if len(forms) > 1:
        line += f" or {' or '.join(repr(f.text) for f in forms[1:])}"
    if want:
        line += f" ({named_all} of them also naming {' and '.join(names)})"
    said = [a for a in answers if a["basis"] == "sentence"]
    if said:
        line += (
            f"; the answers below are the entities those sentences name (top: {said[0]['name']})"
        )
    elif answers:
        line += "; none of the kind asked is named in them, the answers below in their abstracts"
    elif note:
        line += "; no entities of the kind asked in this KG"
    elif allowed is not None:
        line += "; none of the kind asked is named in them or their abstracts"
    out = {**base, "answer": "from sentences", "line": line, "sentences": shown,
           "pmids": pmids[:10], "sentence_counts": {"sentences": len(hits), "abstracts": docs,
                                                    "naming_all": named_all}}  # fmt: skip
    return PhraseAnswer(out, answers, note, keep_facts=allowed is not None and not answers)
