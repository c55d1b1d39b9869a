"""An open question about one entity, answered first by the sentences naming it.

"What does miR-26b do in Alzheimer's neurons?", "VILIP-1 in CSF — what does it tell you?": the
question links its entity and the corpus's topic (Alzheimer's disease) and asks no kind of
answer, so the facts alone answer with the topic's hubs (Alzheimer's disease associates APP,
SORL1, …) and say nothing about miR-26b. What a curator reads first is the sentences naming the
entity (PubTator3's page of a concept lists them; Wei et al. 2024): here, the sentences of the
snapshot's abstracts naming the question's least-written entity that is not the topic — naming
the question's other entities and writing its other words ("CSF") first, then closest to the
question in meaning (:func:`kgbuild.corpus.answer_sentences.closest_first`; without the encoder
newest, then shortest) — cut as :mod:`kgbuild.query.phrase_answer` cuts an unlinked phrase's.
The entities those sentences name are the answers (their co-mention reading,
``linked_sentences`` of :mod:`kgbuild.evaluate.phrase_partners`), and the entity's own facts are
featured among the ranked triples. Everything read here is labelled as read from sentences, not
extracted facts.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from kgbuild.corpus.answer_sentences import Encode, closest_first
from kgbuild.corpus.documents import NAMES, doc_sentences, ranked_documents, row_mentions
from kgbuild.corpus.stems import stem_regex, word_stems
from kgbuild.link.generic import GENERIC_WORDS
from kgbuild.query.answer_entities import topic_nodes
from kgbuild.query.generic_chemicals import generic_nodes
from kgbuild.query.phrase_answer import Hit, PhraseAnswer, rank_answers, shown_sentences
from kgbuild.question.intent import QUESTION_WORDS
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import STOPWORDS

#: Documents read at most: those naming more of the question's other entities first, then newest.
MAX_DOCS = 300
#: The entity's own facts featured among the ranked triples at most.
MAX_FEATURED = 10
#: Shortest question word read as a respect ("CSF", "blood").
MIN_WORD = 3


def subject_node(index: SnapshotIndex, nodes: list[int]) -> int | None:
    """The question's entity it is about: the first named (``nodes`` in question order) that
    is not the corpus's topic (an Alzheimer's corpus names Alzheimer's disease in every
    abstract); None when all are. Not the least-written: in "SV2A PET ([11C]UCB-J)" that is
    the tracer's isotope."""
    if not nodes:
        return None
    topic = topic_nodes(index, index.node_docs, index.n_docs, np.array(nodes, np.int64))
    return next((n for n, t in zip(nodes, topic.tolist(), strict=True) if not t), None)


def fetch(wh: Any, snapshot_id: str, concept: str, others: list[str],
          as_of: int | None) -> list[tuple[Any, ...]]:  # fmt: skip
    """(pmid, year, title, abstract, [{c, a, b}]) of the documents naming ``concept``: those
    naming more of ``others`` first, then newest (one read-only catalog query)."""
    return ranked_documents(wh, snapshot_id, NAMES, {"c": concept}, others, as_of, MAX_DOCS)


def respect_words(question: str, links: list[Any]) -> list[re.Pattern[str]]:
    """The question's unlinked content words ("CSF", "neurons"), as stem patterns."""
    out: dict[str, re.Pattern[str]] = {}
    for x in links:
        if x.where != "question" or x.node is not None:
            continue
        for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9-]*", question[x.start : x.end]):
            low = w.lower()
            if (len(low) < MIN_WORD or low in STOPWORDS or low in QUESTION_WORDS
                    or low in GENERIC_WORDS):  # fmt: skip
                continue
            for stem in word_stems(w):
                if len(stem) >= MIN_WORD:
                    out.setdefault(stem, re.compile(rf"(?<![a-z0-9]){stem_regex(stem)}", re.I))
    return list(out.values())


def hits_naming(rows: list[tuple[Any, ...]], concept: str) -> list[Hit]:
    """Every sentence of ``rows`` naming ``concept`` (its first mention there as the span)."""
    out = []
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            at = next(((a, b) for c, a, b in ds.mentions if c == concept), None)
            if at is not None:
                out.append(Hit(ds.pmid, ds.year, ds.text, at, ds.mentions))
    return out


def entity_sentences(wh: Any, index: SnapshotIndex, graph: Graph, mask: np.ndarray | None,
                     question: str, links: list[Any], nodes: list[int],
                     as_of: int | None = None,
                     encode: Encode | None = None) -> PhraseAnswer | None:  # fmt: skip
    """The sentences naming the question's subject (module docstring) and the entities they
    name as answers; None when the question names only the topic or no sentence names it.
    ``encode``: the question encoder, to show the sentences closest to it first
    (:func:`kgbuild.corpus.answer_sentences.closest_first`)."""
    s = subject_node(index, nodes)
    if s is None:
        return None
    ids, shown_names = index.nodes["id"], index.nodes["display"]
    concept = str(ids[s])
    others = [str(ids[n]) for n in nodes if n != s]
    hits = hits_naming(fetch(wh, index.snapshot_id, concept, others, as_of), concept)
    if not hits:
        return None
    words = respect_words(question, links)
    want = set(others)

    def key(h: Hit) -> tuple[Any, ...]:
        named = len({c for c, _, _ in h.mentions} & want)
        said = sum(1 for p in words if p.search(h.sentence))
        return (-named, -said, -h.year, len(h.sentence), h.pmid)

    hits.sort(key=key)
    hits = closest_first(hits, lambda h: h.sentence, question, encode, lambda h: key(h)[:2])
    shown, pmids = shown_sentences(hits, want)
    allowed = ~generic_nodes(index)
    cand = np.flatnonzero(allowed)
    allowed[cand[topic_nodes(index, index.node_docs, index.n_docs, cand)]] = False
    name = str(shown_names[s])
    answers = rank_answers(index, hits, allowed, set(nodes), about=f"naming {name}")
    inc, _ = graph.incident(s)
    own = [int(e) for e in inc.tolist() if mask is None or mask[e]]  # strongest first
    named_any = sum(1 for h in hits if want & {c for c, _, _ in h.mentions})
    line = (f"from sentences, not extracted facts: {len(hits)} sentences in {len(pmids)} "
            f"abstracts name {name}")  # fmt: skip
    if want:
        line += f" ({named_any} of them also naming another of the question's entities)"
    line += f"; it has {len(own)} served facts"
    if answers:
        line += f"; the answers below are the entities those sentences name (top: " \
                f"{answers[0]['name']})"  # fmt: skip
    out = {"pair": None, "basis": "sentences", "phrase": name, "names": [name],
           "facts": [], "edges": own[:MAX_FEATURED], "statuses": None,
           "answer": "from sentences", "line": line, "sentences": shown, "pmids": pmids[:10],
           "sentence_counts": {"sentences": len(hits), "abstracts": len(pmids),
                               "naming_any": named_any}}  # fmt: skip
    return PhraseAnswer(out, answers)
