"""The answer entities of a "which X …" question, ranked as a researcher would expect.

"Which drugs treat Alzheimer's disease?" is answered by compounds joined to Alzheimer's
disease, best first. In a co-occurrence KG the compounds most joined to it are metal, lipid,
copper, cholesterol and water (on the DALK KG); the drugs are further down. So a candidate is scored
per question entity (its *anchor*) by:

- **the asked relation first**: the best of the pair's facts, each worth its relation's weight
  for the question (:mod:`kgbuild.question.intent`: ``treats`` 1, ``co_mentioned`` 0.12) × log(1 +
  its distinct PMIDs) × (:data:`CONF_BASE` + the rest × its calibrated confidence) — support
  counts, with diminishing returns, and a bare co-mention needs e^8 times the PMIDs of a stated
  relation to match it;
- **focus**: × (:data:`FOCUS_BASE` + the rest × the share of the pair's PMIDs that state the
  asked relation): metal "treats" Alzheimer's disease in 17 PMIDs but is named with it in 88,
  memantine treats it in 12 of 19 — a researcher expects the drug first;
- **specificity**: × (:data:`BASE` + normalized PMI of the pair's documents, Bouma 2009, as
  :func:`kgbuild.query.choices.npmi`) — a hub that co-occurs with everything (water) has NPMI ≈
  0 with anything and keeps only the base share, however many PMIDs it has;

summed over the anchors (an answer joined to two named entities beats one joined to one), then
× what the answers' sentences say (:mod:`kgbuild.question.cues`: a direct molecular relation for
a drug's targets, the question's qualifiers), × ``generic_chemicals.GENERIC_BASE``
for a generic chemical when drugs are asked for, and for a mechanism asked with two entities only
the subject's effects count (:func:`_legs`). Only
nodes of the asked kind are candidates; the question's own entities never are. Everything is
array arithmetic over the in-memory graph's incidence rows: a hub anchor with 2,000 neighbours
costs a few hundred microseconds.

Each answer says what it rests on (``basis``): a fact with a served (asserted) row
(``fact``), or facts whose evidence is not served only (``weaker_fact``: the sentence reports
the fact as prior work, hedges it, or the fact is read across sentences — BC5CDR's
chemical-induced diseases often are), each with its sentence and that sentence's status;
negated and refuted rows never make an answer. The two rank together
(:func:`_with_weaker`): an answer scores the better of its served facts' score and
:data:`WEAKER_SHARE` × its score over every row. Established knowledge is what an abstract
states as background ("donepezil, approved for AD, …"), and an extractor reading one
sentence at a time serves few of those rows: on DALK, donepezil treats AD in 13 PMIDs of which
1 is served, so served-first ranking put valproic acid and honokiol (2 and 1 served PMIDs) above
it. ``bench/answer_kinds.py``, served tier first → ranked together at 0.5 (P@5 / MRR): BioRED
Dev drugs .463 / .786 → .475 / .830, side effects .468 / .884 → .468 / .892, targets
.510 / .847 → .510 / .844; BC5CDR Dev side effects .488 / .797 → .490 / .800; DALK drugs
.40 / .50 → .70 / 1.0, targets .27 / .70 → .33 / .88, mechanism .18 / .27 → .14 / .26; no
question lost its gold answer from the top five. 0.5 was the value set beforehand; 1.0, tried
after on the same sets, lost two DALK questions' gold targets (galantamine's). With fewer than
:data:`FALLBACK_BELOW` such answers, entities named in a *sentence* naming an anchor follow
(``same_sentence``, :mod:`kgbuild.corpus.same_sentence`), then those merely *named in the same
abstracts* (``same_abstract``, no sentence), in that order.
On the dev splits, a row of each status joins a pair the gold file relates this often
(``bench/status_vs_gold.py``, rows of the kind pairs the file relates): see
docs/querying.md — hedged, background and cross-sentence rows are pair evidence close to
asserted ones (0.21–0.88 of them on a gold pair, asserted 0.32–0.34), and they come with a
sentence a reader can check, which a bare co-mention lacks. Measured
with ``kgbuild eval facts`` on the dev splits (recall@10 / MRR): BioRED 0.61 / 0.52 from the
ranked triples' other endpoints (before answers existed) → 0.72 / 0.69 joined answers only →
0.82 / 0.76 with the same-abstract fallback → 0.824 / 0.773 with the weaker-fact tier before
it; BC5CDR 0.57 / 0.66 → 0.66 / 0.74 → 0.795 / 0.839 → 0.816 / 0.848. The weights
(:data:`BASE`, :data:`FOCUS_BASE`, :data:`CONF_BASE`) moved those figures by ≤ 0.01 over a
grid; ranking the fallback in with the joined answers instead of after them was worse.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from kgbuild.corpus.same_sentence import same_sentence
from kgbuild.query.context import evidence_for, make_triple
from kgbuild.query.generic_chemicals import GENERIC_BASE, asks_for_drugs, generic_nodes
from kgbuild.query.shared_genes import shared_answers
from kgbuild.question.cues import SATURATE, cue_factor
from kgbuild.question.intent import Intent
from kgbuild.question.kinds import AnswerKind, kind_edges, kind_nodes
from kgbuild.resolve.vocabularies import mesh_trees, tree_related
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.store.snapshots import Warehouse

log = logging.getLogger("kgbuild.query")

#: Share of a candidate's relation score kept when its NPMI with the anchor is ≤ 0.
BASE = 0.25
#: Share of a candidate's score kept when none of the pair's evidence states the asked
#: relation (its *focus*: the asked relation's weighted support over the pair's largest).
FOCUS_BASE = 0.4
#: Share of a fact's value kept at confidence 0 (the calibrated P(supported) of its best
#: evidence row): among facts of equal support, the surer first.
CONF_BASE = 0.5
#: Share of a candidate's score kept when none of its sentences states a direct molecular
#: relation (a target asked of a drug) / names the question's qualifier ("late-onset", "CSF").
DIRECT_BASE = 0.3
QUALIFIER_BASE = 0.3
#: Weight of a shared abstract for an answer no fact joins (ranked after every joined one).
SAME_ABSTRACT = 0.05
#: Share of the snapshot's abstracts naming a node that makes it the corpus's topic: no
#: same-abstract answer (see :func:`topic_nodes`). DALK's Alzheimer Disease is named in 81% of
#: its abstracts, the next disease in 20%; no BC5CDR or BioRED Dev node reaches 12%.
TOPIC_SHARE = 0.25
#: Share of its score an answer keeps when ranked over every row its facts have (hedged,
#: background, unstated; never a denied one) rather than over the served ones only.
WEAKER_SHARE = 0.5
#: With fewer joined answers than this, answers named in the same abstracts follow them.
FALLBACK_BELOW = 10
#: Statuses whose rows never make an answer: the sentence denies the fact, or the verifier
#: refuted the reading (:mod:`kgbuild.extract.epistemics`, :mod:`kgbuild.extract.supported`).
DENIED = frozenset({"negated", "refuted"})
#: Answers returned, and facts (triples) shown per answer.
MAX_ANSWERS = 20
FACTS_PER_ANSWER = 3

#: PMID × node incidence, the same transposed (node → PMIDs), and the PMIDs.
Docs = tuple[sp.csr_matrix, sp.csr_matrix, np.ndarray]
_KINDS: dict[int, tuple[SnapshotIndex, np.ndarray]] = {}


def node_kinds(index: SnapshotIndex) -> np.ndarray:
    """The node kinds as an array (built once per opened index)."""
    got = _KINDS.get(id(index))
    if got is None or got[0] is not index:
        if len(_KINDS) >= 8:
            _KINDS.clear()
        got = _KINDS[id(index)] = (index, np.array(index.nodes["type"], dtype=object))
    return got[1]


def relation_weights(index: SnapshotIndex, intent: Intent) -> np.ndarray:
    """Per relation code of ``index``: its weight for the question (for the answer kind asked,
    when there is one: :meth:`kgbuild.question.kinds.AnswerKind.weight`, 0 = no evidence of it)."""
    k = intent.kind
    return np.array([k.weight(r, intent.weight(r)) if k else intent.weight(r)
                     for r in index.relations], np.float64)  # fmt: skip


def _candidates(index: SnapshotIndex, kind: AnswerKind | None,
                answer_type: str | None) -> np.ndarray | None:  # fmt: skip
    """Per node: may it be an answer? (of the answer kind asked, else of the node kind; never
    a heading that names an attribute of diseases, :func:`disease_attributes`)."""
    if kind is not None:
        allowed = kind_nodes(index, kind)
    elif answer_type:
        allowed = node_kinds(index) == answer_type
    else:
        return None
    return allowed & ~disease_attributes(index)


#: MeSH's "Disease Attributes" (C23.550.291): chronic, acute, rare, late-onset… name how a
#: disease runs, not a disease; PubTator tags "late-onset" of "late-onset AD" as Late Onset
#: Disorders, which then stood first among donepezil's "side effects".
ATTRIBUTE_TREE = "C23.550.291"
_ATTRIBUTES: dict[int, tuple[SnapshotIndex, np.ndarray]] = {}


def disease_attributes(index: SnapshotIndex) -> np.ndarray:
    """Per node: is it a MeSH heading filed only under Disease Attributes?"""
    got = _ATTRIBUTES.get(id(index))
    if got is None or got[0] is not index:
        out = np.zeros(len(index.nodes["id"]), bool)
        for n, cid in enumerate(index.nodes["id"]):
            trees = mesh_trees(cid) if str(cid).startswith("MESH:") else ()
            out[n] = bool(trees) and all(t.startswith(ATTRIBUTE_TREE) for t in trees)
        if len(_ATTRIBUTES) >= 8:
            _ATTRIBUTES.clear()
        got = _ATTRIBUTES[id(index)] = (index, out)
    return got[1]


def rank_answers(
    index: SnapshotIndex,
    graph: Graph,
    mask: np.ndarray | None,
    anchors: list[int],
    intent: Intent,
    answer_type: str | None,
    as_of: int | None = None,
    limit: int = MAX_ANSWERS,
    warehouse: Warehouse | None = None,
    weaker: Callable[[], SnapshotIndex | None] | None = None,
    exclude: list[int] | None = None,
) -> list[dict[str, Any]]:
    """The ranked answer entities (see module docstring), each a dict: id, name, type, score,
    basis, relation (the KG relations joining it to the anchors, best first), support (distinct
    PMIDs), facts (triple dicts with evidence), and its best sentence and PMID. Fewer than
    :data:`FALLBACK_BELOW` answers of served facts are followed by those of facts whose
    evidence is not served (``weaker``: the snapshot indexed over every evidence row, opened
    only when needed), then by ones named in the same abstracts (from ``warehouse``'s
    mentions when given). ``exclude``: nodes the question sets aside ("besides APOE"), never
    an answer."""
    if not anchors:
        return []
    if intent.kind is not None and intent.kind.via:  # "Which diseases share genes with AD?"
        out = shared_answers(index, graph, mask, anchors, intent, set(exclude or ()), limit,
                             as_of)  # fmt: skip
        if len(out) >= FALLBACK_BELOW or mask is not None or not intent.kind.fallback:
            return out
        docs = mention_docs(index, warehouse) if warehouse is not None else None
        shown = {index.node_of[a["id"]] for a in out} | set(exclude or ())
        return out + _same_abstract(index, anchors, kind_nodes(index, intent.kind), shown,
                                    limit - len(out), docs)  # fmt: skip
    barred = set(anchors) | set(exclude or ())
    out = _ranked(index, graph, mask, anchors, intent, answer_type, barred, limit, as_of,
                  index.edges["support"].astype(np.float64), "fact")  # fmt: skip
    joined = _joined_nodes(index, graph, anchors)
    if mask is not None:  # filters would not hold below
        return out
    kind = intent.kind
    every = weaker() if weaker is not None else None
    if every is not None and every is not index:
        out = _with_weaker(index, every, out, anchors, barred, intent, answer_type, limit, as_of)
        joined |= {index.node_of[a["id"]] for a in out if a["id"] in index.node_of}
    if len(out) >= FALLBACK_BELOW:
        return out
    if kind is not None and not kind.fallback:  # a shared abstract is no evidence of the kind
        return out
    docs = mention_docs(index, warehouse) if warehouse is not None else None
    allowed = _candidates(index, kind, answer_type)
    if warehouse is not None:  # named in one sentence with an anchor (query/same_sentence.py)
        m, by_node, _ = docs if docs is not None else _doc_matrix(index)
        node_docs, n_docs = np.diff(by_node.indptr), m.shape[0]
        near = same_sentence(warehouse, index, anchors, allowed, joined | barred,
                             limit - len(out), kind and (kind.said or kind.evidence),
                             lambda c: topic_nodes(index, node_docs, n_docs, c), as_of)  # fmt: skip
        out += near
        joined |= {index.node_of[a["id"]] for a in near}
    out += _same_abstract(index, anchors, allowed, joined | barred, limit - len(out), docs)
    return out


def _with_weaker(index: SnapshotIndex, every: SnapshotIndex, served: list[dict[str, Any]],
                 anchors: list[int], barred: set[int], intent: Intent, answer_type: str | None,
                 limit: int, as_of: int | None) -> list[dict[str, Any]]:  # fmt: skip
    """The served answers ranked in with every fact's (each scored over all its rows that no
    sentence denies, × :data:`WEAKER_SHARE`): a candidate keeps the better of its two scores."""
    ids = index.nodes["id"]
    mapped = [every.node_of[ids[q]] for q in anchors if ids[q] in every.node_of]
    shut = {every.node_of[ids[c]] for c in barred if ids[c] in every.node_of}
    allr = _ranked(every, every.graph, None, mapped, intent, answer_type, shut, limit, as_of,
                   usable_support(every), "weaker_fact", DENIED)  # fmt: skip
    got = {a["id"]: a for a in served}
    for a in allr:
        score = WEAKER_SHARE * a["score"]
        mine = got.get(a["id"])
        if mine is None:
            got[a["id"]] = {**a, "score": score}
        elif score > mine["score"]:  # ranked by all its rows, still a served fact's answer
            more = {k: v for k, v in a.items() if k != "why"}
            got[a["id"]] = {**more, "score": score, "basis": "fact", "edges": mine["edges"]}
    return sorted(got.values(), key=lambda a: -a["score"])[:limit]


def _joined_nodes(index: SnapshotIndex, graph: Graph, anchors: list[int]) -> set[int]:
    """Every node a served fact joins to an anchor (never a same-abstract answer)."""
    out: set[int] = set()
    for q in dict.fromkeys(anchors):
        out.update(graph.incident(q)[1].tolist())
    return out


_USABLE: dict[int, tuple[SnapshotIndex, np.ndarray]] = {}


def usable_support(index: SnapshotIndex) -> np.ndarray:
    """Per edge: its distinct PMIDs whose (best) row is neither negated nor refuted."""
    got = _USABLE.get(id(index))
    if got is None or got[0] is not index:
        ev = index.evidence
        status = np.asarray(ev.get("status") or [""] * len(ev["edge"]), dtype=object)
        ok = ~np.isin(status, sorted(DENIED))
        counts = np.bincount(ev["edge"][ok], minlength=index.n_edges).astype(np.float64)
        if len(_USABLE) >= 8:
            _USABLE.clear()
        got = _USABLE[id(index)] = (index, counts)
    return got[1]


def _ranked(index: SnapshotIndex, graph: Graph, mask: np.ndarray | None, anchors: list[int],
            intent: Intent, answer_type: str | None, barred: set[int], limit: int,
            as_of: int | None, support: np.ndarray, basis: str,
            skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:  # fmt: skip
    """The answers ``graph``'s facts join to ``anchors`` (never a ``barred`` node), scored as
    the module docstring says with ``support`` as each edge's PMIDs (an edge with none is not
    counted), best first; evidence rows of a status in ``skip`` are not shown."""
    if limit <= 0:
        return []
    e = index.edges
    allowed = _candidates(index, intent.kind, answer_type)
    rel_w = relation_weights(index, intent)
    kind_rows = kind_edges(index, intent.kind) if intent.kind is not None else None
    if kind_rows is not None:  # only the PMIDs that are evidence of the kind count
        support = np.minimum(support, kind_rows)
    contra = [i for i, r in enumerate(index.relations)
              if intent.kind is not None and r in intent.kind.contra]  # fmt: skip
    # an Alzheimer's corpus's drug "associates" with AD because it treats it: the corpus topic
    # is a side effect only by a fact that says the drug causes it
    causes = [i for i, r in enumerate(index.relations) if r == "causes"]
    n_docs = max(int(index.n_docs), 1)
    excluded = np.array(sorted(barred), np.int64)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    legs = _legs(index, intent, anchors)
    subject = np.zeros(0, np.int64)  # the answers the first anchor's facts reach
    for j, q in enumerate(dict.fromkeys(anchors)):
        es, others = graph.incident(q)
        keep = support[es] > 0
        if legs is not None:  # the subject acts on the answer; the answer on the second entity
            keep &= ~legs[e["rel"][es]] | ((e["head"] if j == 0 else e["tail"])[es] == q)
        if mask is not None:
            keep &= mask[es]
        ruled_out = others[keep & np.isin(e["rel"][es], contra)] if contra else excluded[:0]
        if intent.kind is not None:  # only facts that are evidence of the kind asked
            keep &= rel_w[e["rel"][es]] > 0
        es, others = es[keep], others[keep]
        ok = ~np.isin(others, excluded) & ~np.isin(others, ruled_out)
        if allowed is not None:
            ok &= allowed[others]
        indication = intent.kind is not None and intent.kind.contra
        if indication and len(others):  # a kind with an indication: the topic is what is treated
            ok &= ~(topic_nodes(index, index.node_docs, index.n_docs, others)
                    & ~np.isin(e["rel"][es], causes))  # fmt: skip
        es, others = es[ok], others[ok]
        if not len(es):
            continue
        sup = support[es]
        conf = e["confidence"][es].astype(np.float64)
        val = rel_w[e["rel"][es]] * np.log1p(sup) * (CONF_BASE + (1 - CONF_BASE) * conf)
        cand, inv = np.unique(others, return_inverse=True)
        best = np.zeros(len(cand))
        np.maximum.at(best, inv, val)
        pair_sup = np.zeros(len(cand))
        np.maximum.at(pair_sup, inv, sup)
        asked_sup = np.zeros(len(cand))
        np.maximum.at(asked_sup, inv, rel_w[e["rel"][es]] * sup)
        focus = asked_sup / np.maximum(pair_sup, 1.0)
        da = max(int(index.node_docs[q]), 1)
        db = np.maximum(index.node_docs[cand].astype(np.float64), 1.0)
        s = np.clip(np.minimum(pair_sup, np.minimum(da, db)), 1.0, n_docs - 1e-9)
        npmi = np.log(s * n_docs / (da * db)) / -np.log(s / n_docs)
        score = best * (BASE + np.clip(npmi, 0.0, 1.0)) * (FOCUS_BASE + (1 - FOCUS_BASE) * focus)
        # a drug's relation: the anchor is the drug (its targets) or the answers are
        drug = node_kinds(index)[q] == "Compound" or (
            intent.kind is not None and "Compound" in intent.kind.types
        )
        score = _sentence_cues(index, intent, cand, inv, es, score, drug)
        parts.append((cand, score, es, others, val))
        if j == 0:
            subject = cand
    if not parts:
        return []
    cands = np.concatenate([p[0] for p in parts])
    nodes, inv = np.unique(cands, return_inverse=True)
    total = np.zeros(len(nodes))
    np.add.at(total, inv, np.concatenate([p[1] for p in parts]))
    if asks_for_drugs(intent):  # a metal or a class heading is no drug (query/generic_chemicals.py)
        total = total * np.where(generic_nodes(index)[nodes], GENERIC_BASE, 1.0)
    if legs is not None:  # a mechanism step is one of the subject's effects, whatever else
        total = np.where(np.isin(nodes, subject), total, 0.0)
    # best first; ties by node index, which is CURIE order (nodes are loaded sorted by id)
    top = np.lexsort((nodes, -total))
    top = top[total[top] > 0][:limit]
    es = np.concatenate([p[2] for p in parts])
    others = np.concatenate([p[3] for p in parts])
    val = np.concatenate([p[4] for p in parts])
    out = []
    for i in top.tolist():
        c = int(nodes[i])
        mine = others == c
        edges = list(zip(val[mine].tolist(), es[mine].tolist(), strict=True))
        out.append(_answer(index, c, float(total[i]), edges, as_of, basis, skip))
    return out


def _legs(index: SnapshotIndex, intent: Intent, anchors: list[int]) -> np.ndarray | None:
    """Per relation code: must its facts run from the subject to the answer (first anchor) and
    from the answer to the second entity (the rest)? For a kind whose ``directed`` relations
    name a mechanism's steps, asked with two or more entities ("By what mechanism does
    metformin affect tau phosphorylation?": metformin → AMPK → tau), else None — a regulator
    *of* the subject (MYLIP lowers APOE) says nothing of what the subject does."""
    kind = intent.kind
    if kind is None or not kind.directed or len(dict.fromkeys(anchors)) < 2:
        return None
    return np.array([r in kind.directed for r in index.relations], bool)


def _sentence_cues(index: SnapshotIndex, intent: Intent, cand: np.ndarray, inv: np.ndarray,
                   es: np.ndarray, score: np.ndarray, drug: bool = True) -> np.ndarray:  # fmt: skip
    """``score`` × what the candidates' evidence sentences say (:mod:`kgbuild.question.cues`): for
    a kind with a ``direct`` pattern asked of a ``drug`` (its targets, its mechanism), the
    share of rows stating a direct molecular relation (:data:`DIRECT_BASE` kept without one);
    per question qualifier ("late-onset", "CSF"), the share of rows naming it
    (:data:`QUALIFIER_BASE` kept). A gene's mechanism runs through what it activates as much as
    what it binds: "how does amyloid beta lead to tau pathology" wants GSK3B and CDK5, which
    the binding cue put below transthyretin."""
    kind = intent.kind
    if kind is not None and kind.direct is not None and drug:
        score = score * cue_factor(
            index, cand, inv, es, score, kind.direct, DIRECT_BASE, near=True, saturate=SATURATE
        )
    for q in intent.qualifiers:
        score = score * cue_factor(index, cand, inv, es, score, q.evidence, QUALIFIER_BASE)
    return score


_MENTION_DOCS: dict[int, tuple[SnapshotIndex, Docs | None]] = {}
_MENTION_LOCK = threading.Lock()


def mention_docs(index: SnapshotIndex, wh: Warehouse) -> Docs | None:
    """PMID × node incidence from the snapshot's *mentions* (every abstract naming a node,
    whether or not an edge was read there): one catalog query the first time a question needs
    it (0.5 s on BC5CDR's 500 abstracts, 1.8 s on DALK's 9,764), then kept in memory with the
    index. None when the catalog cannot be read (the evidence-based incidence is used)."""
    with _MENTION_LOCK:
        got = _MENTION_DOCS.get(id(index))
        if got is not None and got[0] is index:
            return got[1]
        try:
            rows = wh.query("SELECT concept_id, pmid FROM mentions_at(?) "
                            "WHERE concept_id IS NOT NULL GROUP BY ALL ORDER BY ALL",
                            [index.snapshot_id])  # fmt: skip
        except Exception as exc:  # a busy or moved catalog: answer without it
            log.warning("same-abstract answers from evidence only: %s", exc)
            rows = None
        value = None
        if rows:
            pairs = [(index.node_of[c], p) for c, p in rows if c in index.node_of]
            if pairs:
                pmids, code = np.unique(np.array([p for _, p in pairs], dtype=object),
                                        return_inverse=True)  # fmt: skip
                cols = np.array([n for n, _ in pairs], np.int64)
                m = sp.csr_matrix((np.ones(len(cols), np.int8), (code, cols)),
                                  shape=(len(pmids), index.n_nodes))  # fmt: skip
                m.sum_duplicates()
                m.data[:] = 1
                value = (m, m.T.tocsr(), pmids)
        if len(_MENTION_DOCS) >= 4:
            _MENTION_DOCS.clear()
        _MENTION_DOCS[id(index)] = (index, value)
        return value


_DOCS: dict[int, tuple[SnapshotIndex, Docs]] = {}


def _doc_matrix(index: SnapshotIndex) -> Docs:
    """PMID × node incidence (a node is in a PMID when an evidence row of one of its edges
    is), and the PMIDs; built once per opened index."""
    got = _DOCS.get(id(index))
    if got is None or got[0] is not index:
        ev, e = index.evidence, index.edges
        pmids, code = np.unique(np.asarray(ev["pmid"], dtype=object), return_inverse=True)
        rows = np.concatenate([code, code])
        cols = np.concatenate([e["head"][ev["edge"]], e["tail"][ev["edge"]]]).astype(np.int64)
        m = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)),
                          shape=(len(pmids), index.n_nodes))  # fmt: skip
        m.sum_duplicates()
        m.data[:] = 1
        if len(_DOCS) >= 8:
            _DOCS.clear()
        got = _DOCS[id(index)] = (index, (m, m.T.tocsr(), pmids))
    return got[1]


def topic_nodes(index: SnapshotIndex, node_docs: np.ndarray, n_docs: int,
                cand: np.ndarray) -> np.ndarray:  # fmt: skip
    """Which of ``cand`` stand for the corpus's topic: a node named in :data:`TOPIC_SHARE` or
    more of the abstracts, or a MeSH ancestor or descendant of one ("Dementia" and
    "Neurodegenerative Diseases" of an Alzheimer's corpus). Every abstract of a corpus built
    around a disease names it, so sharing an abstract with it says nothing: aducanumab's
    abstracts made "Alzheimer Disease" its most frequent co-mentioned "side effect"."""
    topics = np.flatnonzero(node_docs >= TOPIC_SHARE * max(n_docs, 1))
    out = np.isin(cand, topics)
    ids = index.nodes["id"]
    mesh = [str(ids[t]) for t in topics.tolist() if str(ids[t]).startswith("MESH:")]
    if mesh:
        for i, c in enumerate(cand.tolist()):
            cid = str(ids[c])
            if not out[i] and cid.startswith("MESH:"):
                out[i] = any(tree_related(cid, t) for t in mesh)
    return out


def _same_abstract(index: SnapshotIndex, anchors: list[int], allowed: np.ndarray | None,
                   joined: set[int], limit: int,
                   docs: Docs | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Answers no fact joins to the question's entities but that are named in the same
    abstracts (an extractor reads relations within a sentence; BC5CDR's chemical-induced
    diseases are stated across sentences): ranked after every joined answer, by shared PMIDs
    × (:data:`BASE` + their NPMI). ``docs``: the mentions' incidence (else the evidence
    rows')."""
    m, by_node, pmids = docs if docs is not None else _doc_matrix(index)
    if not m.shape[0]:
        return []
    n_docs = m.shape[0]
    node_docs = np.diff(by_node.indptr)
    barred = np.array(sorted({*anchors, *joined}), np.int64)
    total: dict[int, float] = {}
    for q in dict.fromkeys(anchors):
        pm = by_node.indices[by_node.indptr[q] : by_node.indptr[q + 1]]
        if not len(pm):
            continue
        counts = np.bincount(m[pm].indices, minlength=index.n_nodes)
        cand = np.flatnonzero(counts)
        ok = ~np.isin(cand, barred)
        if allowed is not None:
            ok &= allowed[cand]
        cand = cand[ok]
        cand = cand[~topic_nodes(index, node_docs, n_docs, cand)]
        if not len(cand):
            continue
        s = counts[cand].astype(np.float64)
        da, db = float(len(pm)), np.maximum(node_docs[cand].astype(np.float64), 1.0)
        sc = np.clip(s, 1.0, n_docs - 1e-9)
        npmi = np.log(sc * n_docs / (da * db)) / -np.log(sc / n_docs) if n_docs > 1 else 0 * s
        score = SAME_ABSTRACT * np.log1p(s) * (BASE + np.clip(npmi, 0.0, 1.0))
        for c, v in zip(cand.tolist(), score.tolist(), strict=True):
            total[c] = total.get(c, 0.0) + v
    ids, n = index.nodes["id"], index.nodes
    mine = np.unique(np.concatenate([by_node.indices[by_node.indptr[q] : by_node.indptr[q + 1]]
                                     for q in dict.fromkeys(anchors)]))  # fmt: skip
    out = []
    for c in sorted(total, key=lambda c: (-total[c], ids[c]))[:limit]:
        theirs = by_node.indices[by_node.indptr[c] : by_node.indptr[c + 1]]
        pms = sorted(str(pmids[i]) for i in np.intersect1d(mine, theirs))
        out.append({
            "id": ids[c], "name": n["display"][c], "type": n["type"][c] or "Other",
            "score": round(total[c], 6), "basis": "same_abstract", "relation": [],
            "support": len(pms), "facts": [],
            "sentence": "", "pmid": pms[0] if pms else "",
            "why": f"no fact joins it; named in the same abstract ({', '.join(pms[:5])})",
            "edges": [],
        })  # fmt: skip
    return out


def _answer(index: SnapshotIndex, node: int, score: float, edges: list[tuple[float, int]],
            as_of: int | None, basis: str = "fact",
            skip: frozenset[str] = frozenset()) -> dict[str, Any]:  # fmt: skip
    e, n = index.edges, index.nodes
    tids = e["triple_id"]
    edges = sorted(edges, key=lambda x: (-x[0], tids[x[1]]))
    pmids: set[str] = set()
    status = index.evidence.get("status")
    for _, x in edges:
        rows = range(int(index.ev_ptr[x]), int(index.ev_ptr[x + 1]))
        pmids.update(index.evidence["pmid"][r] for r in rows
                     if not skip or status is None or status[r] not in skip)  # fmt: skip
    facts = []
    for rank, (v, x) in enumerate(edges[:FACTS_PER_ANSWER], 1):
        ev = evidence_for(index, x, as_of, skip)
        facts.append(make_triple(index, rank, x, round(v, 6), ("answer",), ev).to_dict())
    first = next((f["evidence"][0] for f in facts if f["evidence"]), None)
    out = {
        "id": n["id"][node],
        "name": n["display"][node],
        "type": n["type"][node] or "Other",
        "score": round(score, 6) if math.isfinite(score) else 0.0,
        "basis": basis,
        "relation": list(dict.fromkeys(e["relation"][x] for _, x in edges)),
        "support": len(pmids),
        "facts": facts,
        "sentence": first["sentence"] if first else "",
        "pmid": first["pmid"] if first else "",
        "edges": [x for _, x in edges[:FACTS_PER_ANSWER]],
    }
    if basis == "weaker_fact":
        said = sorted({ev["status"] for f in facts for ev in f["evidence"] if ev.get("status")})
        out["why"] = (f"no asserted fact joins it; its evidence is {', '.join(said) or 'unserved'}"
                      f" (PMID {out['pmid']})")  # fmt: skip
        out["edges"] = []  # an index of every evidence row: not this engine's edge ids
    return out
