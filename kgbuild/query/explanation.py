"""A question that asks for an explanation, answered first by the sentences that write its words.

"Why use the CSF Abeta42/Abeta40 ratio rather than Abeta42 alone?", "What does SV2A PET
measure?", "How does C99 cause endosome enlargement?", "Is miR-132 up or down in AD brain?":
the answer a reader wants is a claim ("the ratio corrects for individual differences in total
Abeta production"), not a list of entities. The facts answer with the subject's hub partners
(APP associates caspase-3, TNF…) and a pair's reading joins the subject to the corpus's topic
("what joins APP and Alzheimer's disease: 1,233 PMIDs"), neither of which says it. The unit
that states a claim is a sentence: this is the snippet step of biomedical question answering
(BioASQ's phase A, Tsatsaronis et al. 2015; the retriever of DrQA, Chen et al. 2017).

- **Sentences**: those naming the question's subject (its first-named entity that is not the
  corpus's topic; any of its entities when all are the topic's, or then a name the linker
  missed, "miR-29", written), from one catalog query (documents writing more of the words
  first).
- **Words**: the question's content words outside its linked entities, the asked relation's
  own too ("bind"), not the explanatory form's ("show", "measure"); a name with digits or a
  hyphen is one word ("miR-455-3p", never "mir"), and a name-like one must be written; a
  direction asked ("up or down") is any of the ways abstracts write one ("reduced",
  "down-regulated", "elevated"), counted once.
- **Rank**: each word and entity written weighs its inverse document frequency (BM25's idf over
  the snapshot's sentences, or its abstracts for an entity: "blockade" says more than
  "memory", Alzheimer's disease nothing), then naming more of the question's entities,
  newest, shortest; one sentence per abstract, shown whole up to :data:`SHOWN_WIDTH`.

Everything read here is labelled as read from sentences, not extracted facts. Beside it the
engine lists only answers resting on asserted facts, unless the question asks for a list
(:func:`asks_list`).
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from kgbuild.corpus.documents import (
    WRITES,
    doc_sentences,
    ranked_documents,
    row_mentions,
    writing_most,
)
from kgbuild.corpus.marks import disjoint_spans, excerpt
from kgbuild.corpus.stems import stem_regex, word_stems
from kgbuild.query.answer_entities import topic_nodes
from kgbuild.query.entity_sentences import MIN_WORD
from kgbuild.query.phrase_answer import Hit
from kgbuild.question.intent import QUESTION_WORDS
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.sentences import SentenceIndex
from kgbuild.search.text import STOPWORDS

#: The forms of a question that asks for a claim: "why", "how does X …", "what does X show /
#: measure / reveal / mean", "what was found", "what happens to", "what is the role of".
EXPLAINS = re.compile(
    r"\bwhy\b"
    r"|\bhow\s+(?:does|do|did|is|are|was|were|can|could|might|may|would)\b"
    r"|\bwhat\s+(?:does|do|did|can|could)\b[^?]{0,80}?"
    r"\b(?:show|measure|reveal|indicate|tell|mean|reflect|detect|predict)s?\b"
    r"|\bwhat\s+(?:was|were|has\s+been|have\s+been|is|are)\s+(?:found|shown|known|learn[et]d?)\b"
    r"|\bwhat\s+happens\b"
    r"|\b(?:what|which)\s+(?:forms?|species|isoforms?|epitopes?)\s+of\b"
    r"|\bwhat\s+(?:is|are)\s+the\s+(?:role|function|effect|significance|mechanism)s?\s+of\b",
    re.IGNORECASE,
)
#: Words of the explanatory form itself: they say what is asked, not what it is about.
_ASKING = (
    "show shows shown measure measures measured reveal reveals indicate indicates tell tells "
    "mean means find found finding use used using happen happens role effect effects "
    "rather alone instead known cause causes caused explain explains significance mechanism "
    "mechanisms work works relevant relevance affect affects influence influences"
)
ASKING_WORDS = frozenset(_ASKING.split())
#: Documents read at most: those writing more of the question's words first, then newest.
MAX_DOCS = 200
#: Sentences shown, one per abstract.
MAX_SHOWN = 5
#: Characters of a sentence shown whole.
SHOWN_WIDTH = 400
#: Words read at most (the question's first unlinked content words).
MAX_WORDS = 8


#: A list asked by a wh-word and its noun ("which genes", "what two drugs"), whatever else.
#: Not after a verb ("What do PSEN1 mutations show": an explanation of the mutations).
_LIST_ASKED = re.compile(
    r"\b(?:which|what|list|name)\s+"
    r"(?:(?!(?:do|does|did|is|are|was|were|can|could)\b)[\w-]+\s+){0,2}$",
    re.IGNORECASE,
)


def asks_list(question: str, cues: list[Any]) -> bool:
    """Does the question ask for a list of entities ("Which genes does PSEN1 cleave, and
    why?"), its answers kept beside an explanation however weak their evidence?"""
    return any(c.kind in ("answer", "kind") and _LIST_ASKED.search(question[: c.start])
               for c in cues)  # fmt: skip


#: A question asking which way something changed ("is miR-132 up or down in AD brain?"):
#: shaped as yes/no, answered by a direction, which the sentences state.
_DIRECTION = re.compile(
    r"\b(?:up|increased|higher|raised|elevated|upregulated)\s+or\s+"
    r"(?:down|decreased|lower|reduced|lowered|downregulated)\b",
    re.IGNORECASE,
)


#: How abstracts write a change's direction ("reduced", "upregulated", "elevated", "lower").
DIRECTION_STEMS = ("increas", "decreas", "reduc", "elev", "lower", "higher", "upregul",
                   "downregul", "up-regul", "down-regul", "rais", "declin", "loss")  # fmt: skip


def asks_direction(question: str) -> bool:
    """Does the question ask which way something changed (not whether it did)?"""
    return _DIRECTION.search(question) is not None


def explains(question: str) -> bool:
    """Does the question ask for a claim (why / how / what does it show), not a list?"""
    return EXPLAINS.search(question) is not None or asks_direction(question)


def question_words(question: str, links: list[Any]) -> dict[str, tuple[str, re.Pattern[str]]]:
    """The question's content words outside its linked entities, as stems and the patterns
    that find them ("endosome enlargement" → endosom, enlarg; the asked relation's own word
    too: "bind" in "what form of Abeta does solanezumab bind"), with the word written, without
    the explanatory form's own words."""
    linked = [(x.start, x.end) for x in links if x.where == "question" and x.node is not None]
    out: dict[str, tuple[str, re.Pattern[str]]] = {}
    for m in re.finditer(r"[A-Za-z0-9][A-Za-z0-9-]*", question):
        if any(a < m.end() and m.start() < b for a, b in linked):
            continue
        w = m.group(0)
        low = w.lower()
        skip = low in STOPWORDS or low in QUESTION_WORDS or low in ASKING_WORDS
        if len(low) < MIN_WORD or skip:
            continue
        # a name with digits or a hyphen ("miR-455-3p") is one word, never its pieces ("mir")
        whole = bool(re.search(r"\d|-", w)) and len(w) > MIN_WORD
        for stem in [low] if whole else word_stems(w):
            if len(stem) >= MIN_WORD and len(out) < MAX_WORDS:
                out.setdefault(stem, (w, re.compile(_pattern(stem), re.I)))
    if asks_direction(question):  # the ways a sentence says which way it changed
        for stem in DIRECTION_STEMS:
            out.setdefault(stem, ("up or down", re.compile(_pattern(stem), re.I)))
    return out


def _pattern(stem: str, sql: bool = False) -> str:
    """A stem as a word start in lower-cased text ("miR-29" never "miR-299"); ``sql``: RE2
    syntax, without look-around, for DuckDB."""
    body = stem_regex(stem)
    if stem.endswith("i") and len(stem) > MIN_WORD:  # Snowball's "memori" is "memory"'s stem
        body = re.escape(stem[:-1]) + r"[iy]\w*"
    if stem[-1:].isdigit():
        body += r"(?:[^0-9]|$)" if sql else r"(?![0-9])"
    return rf"(?:^|[^a-z0-9]){body}" if sql else rf"(?<![a-z0-9]){body}"


def word_weights(lexical: SentenceIndex, stems: list[str]) -> dict[str, float]:
    """Each stem's inverse document frequency over the snapshot's sentences (BM25's idf, so a
    word no served sentence writes weighs most)."""
    n = max(lexical.n_docs, 1)
    out = {}
    for s in stems:
        col = lexical.vocab.get(s)
        df = lexical.df(col) if col is not None else 0
        out[s] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
    return out


def replaceable(
    index: SnapshotIndex, verdict: dict[str, Any] | None, pair: tuple[int, int] | None
) -> bool:
    """May an explanation's sentences stand in for this reading? Yes for none, for a reading
    of sentences by one phrase or word, and for what joins the subject to the corpus's topic
    (every abstract names Alzheimer's disease: that pair says nothing of the question)."""
    if verdict is None or verdict.get("basis") == "sentences":
        return True
    if pair is None:
        return False
    nodes = np.array(pair, np.int64)
    return bool(topic_nodes(index, index.node_docs, index.n_docs, nodes).any())


def _naming(rows: list[tuple[Any, ...]], concepts: list[str]) -> list[Hit]:
    """Every sentence of ``rows`` naming one of ``concepts`` (the first of them it names, at
    its first mention, as the span)."""
    rank = {c: i for i, c in enumerate(concepts)}
    out = []
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            named = [(rank[c], a, b) for c, a, b in ds.mentions if c in rank]
            if named:
                _, a, b = min(named)
                out.append(Hit(ds.pmid, ds.year, ds.text, (a, b), ds.mentions))
    return out


def _marked(h: Hit, want: set[str], found: list[re.Pattern[str]]) -> str:
    """The sentence with the question's entities and words marked, whole up to
    :data:`SHOWN_WIDTH` characters (the claim is the answer), else cut around the marks."""
    spans = [(a, b) for c, a, b in h.mentions if c in want]
    for p in found:
        spans += [(m.start(), m.end()) for m in p.finditer(h.sentence)]
    return excerpt(h.sentence, disjoint_spans(spans), width=SHOWN_WIDTH)


def _writing(rows: list[tuple[Any, ...]], patterns: list[re.Pattern[str]]) -> list[Hit]:
    """Every sentence of ``rows`` writing one of ``patterns`` (the first found as the span)."""
    out = []
    for pmid, year, title, abstract, spans in rows:
        for ds in doc_sentences(pmid, year, title, abstract, row_mentions(spans)):
            m = next((got for p in patterns if (got := p.search(ds.text))), None)
            if m is not None:
                out.append(Hit(ds.pmid, ds.year, ds.text, (m.start(), m.end()), ds.mentions))
    return out


def _name_like(word: str) -> bool:
    """Is a question word a name ("miR-29", "beta-CTF", "C99"), not a plain word ("long-term",
    "non-amnestic")? A digit or a capital after its first letter says so."""
    return bool(re.search(r"\d", word)) or any(c.isupper() for c in word[1:])


def explanation(wh: Any, index: SnapshotIndex, lexical: SentenceIndex, question: str,
                links: list[Any], nodes: list[int],
                as_of: int | None = None) -> dict[str, Any] | None:  # fmt: skip
    """A verdict-like dict with the sentences naming the question's entities that write most
    of its words (module docstring); None when the question is no explanation's, links no
    entity, has no unlinked content word, or no sentence writes one."""
    if not explains(question) or not nodes:
        return None
    words = question_words(question, links)
    if not words:
        return None
    ids, shown_names = index.nodes["id"], index.nodes["display"]
    # a name the linker missed ("miR-455-3p") must be written: without it a sentence is about
    # something else; when the question's entities are all the topic's, it is the subject
    names_written = [w for w, (said, _) in words.items() if _name_like(said)]
    # the question's entities, those not the corpus's topic first ("HDAC2" before "AD"); a
    # sentence must name the first of those (the subject), or, when every entity is the
    # topic's (APP in "how does C99 enlarge endosomes"), one of them
    topic = topic_nodes(index, index.node_docs, index.n_docs, np.array(nodes, np.int64))
    order = [n for n, t in zip(nodes, topic.tolist(), strict=True) if not t]
    named = [str(ids[order[0]])] if order else list(dict.fromkeys(str(ids[n]) for n in nodes))
    by_name = not order and bool(names_written)
    order += [n for n in nodes if n not in order]
    concepts = list(dict.fromkeys(str(ids[n]) for n in order))
    patterns = [_pattern(w, sql=True) for w in words]
    if by_name:  # "is the miR-29 family up or down in AD": the name missed is the subject
        keys = list(words)
        sql = {"p": "|".join(f"(?:{patterns[keys.index(w)]})" for w in names_written)}
        rows = ranked_documents(wh, index.snapshot_id, WRITES, sql, concepts, as_of, MAX_DOCS)
        hits = _writing(rows, [words[w][1] for w in names_written])
    else:
        rows = writing_most(wh, index.snapshot_id, named, patterns, as_of, MAX_DOCS)
        hits = _naming(rows, named)
    weight = word_weights(lexical, list(words))
    # an entity weighs as a word does: by the abstracts naming it (the topic's, nothing)
    n_docs = max(index.n_docs, 1)
    for n in order:
        df = float(index.node_docs[n])
        weight[str(ids[n])] = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    scored: list[tuple[float, Hit, list[str]]] = []
    for h in hits:
        said = [w for w, (_, p) in words.items() if p.search(h.sentence)]
        if not said or (names_written and not set(names_written) & set(said)):
            continue
        ways = [weight[w] for w in said if w in DIRECTION_STEMS]
        score = sum(weight[w] for w in said if w not in DIRECTION_STEMS) + max(ways, default=0.0)
        cs = {c for c, _, _ in h.mentions if c in weight}
        scored.append((score + sum(weight[c] for c in cs), h, said))
    if not scored:
        return None
    want = set(concepts)

    def key(item: tuple[float, Hit, list[str]]) -> tuple[Any, ...]:
        score, h, _ = item
        others = len({c for c, _, _ in h.mentions} & want)
        return (-round(score, 6), -others, -h.year, len(h.sentence), h.pmid)

    scored.sort(key=key)
    shown, pmids = [], []
    for _, h, said in scored:
        if h.pmid in pmids:
            continue
        pmids.append(h.pmid)
        if len(shown) < MAX_SHOWN:
            shown.append({"pmid": h.pmid, "year": h.year, "reading": "",
                          "sentence": _marked(h, want, [words[w][1] for w in said])})  # fmt: skip
    names = [str(shown_names[n]) for n in dict.fromkeys(order)]
    written = ", ".join(f"'{w}'" for w in dict.fromkeys(w for w, _ in words.values()))
    said_of = names[0] if len(named) == 1 else " or ".join(names[:3])
    if by_name:
        said_of = " or ".join(f"'{words[w][0]}'" for w in names_written)
    line = (f"from sentences, not extracted facts: the sentences naming {said_of} that write "
            f"most of the question's words ({written}), naming more of its entities first; "
            f"{len(scored)} sentences in {len(pmids)} abstracts write one")  # fmt: skip
    return {"pair": None, "basis": "sentences", "phrase": names[0], "names": names,
            "facts": [], "edges": [], "statuses": None, "answer": "from sentences",
            "line": line, "sentences": shown, "pmids": pmids[:10],
            "sentence_counts": {"sentences": len(scored), "abstracts": len(pmids)}}  # fmt: skip
