"""Answers two hops away: "Which diseases share risk genes with Alzheimer's disease?".

A KG read from abstracts by DALK's extractors (DALK Table 10: Gene, Compound, Disease) has no
Disease–Disease facts, so a disease related to AD through its genes is reached the way
Hetionet's metapath DaGaD reaches one (Himmelstein et al. 2017: Disease–associates–Gene–
associates–Disease, the "shared genes" feature of its disease similarity): over each gene
joined to the question's disease, to the other diseases that gene is joined to.

A candidate's score sums, over its shared genes, the weaker of the two legs (each leg as
:mod:`kgbuild.query.answer_entities` scores a fact: relation weight × log(1 + PMIDs) × (base +
confidence)) × the gene's specificity, 1 / log2(1 + the diseases it joins): APP joins hundreds
of diseases in an AD corpus and says little about which of them resemble AD; a gene joined to
two says more (the inverse-frequency weighting of Salton & Buckley 1988). So more shared genes
and stronger ones rank first; each answer names the genes it shares.

Two kinds of Disease node are no answer (:func:`unlike`): the question disease's own MeSH
ancestors and descendants ("Dementia", "Neurodegenerative Diseases" share AD's genes because
they contain AD), and headings MeSH files only under signs, symptoms and processes — C23
(Pathological Conditions, Signs and Symptoms: "Inflammation", "Nerve Degeneration"), C10.597
(Neurologic Manifestations: "Memory Disorders") and F01 (Behavior) — which an AD corpus joins
to every gene it studies and which are not disorders one compares AD with.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import numpy as np

from kgbuild.query.context import evidence_for, make_triple
from kgbuild.question.intent import Intent
from kgbuild.question.kinds import kind_nodes
from kgbuild.resolve.vocabularies import mesh_trees, tree_related
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex

#: Share of a fact's value kept at confidence 0 (as in answer_entities.CONF_BASE).
CONF_BASE = 0.5
#: Shared genes named per answer, and facts (legs) shown.
GENES_NAMED = 5
FACTS_PER_ANSWER = 4

#: MeSH branches of signs, symptoms and processes (see the module docstring).
SYMPTOM_TREES = ("C23", "C10.597", "F01")

_VIA: dict[tuple[int, str], tuple[SnapshotIndex, np.ndarray]] = {}
_LOCK = threading.Lock()


def via_nodes(index: SnapshotIndex, kind: str) -> np.ndarray:
    """Per node: is it of the node kind the answers are reached through? (once per index)"""
    key = (id(index), kind)
    with _LOCK:
        got = _VIA.get(key)
        if got is None or got[0] is not index:
            if len(_VIA) >= 8:
                _VIA.clear()
            got = _VIA[key] = (index, np.asarray(index.nodes["type"], dtype=object) == kind)
        return got[1]


def unlike(cid: str, asked: list[str]) -> bool:
    """Whether a MeSH Disease node is no answer to "which diseases share genes with
    ``asked``": an ancestor or descendant of an asked disease, or a heading MeSH files only
    under :data:`SYMPTOM_TREES`. IDs without MeSH trees are kept."""
    trees = mesh_trees(cid) if cid.startswith("MESH:") else ()
    if trees and all(any(t == b or t.startswith(b + ".") for b in SYMPTOM_TREES) for t in trees):
        return True
    return any(tree_related(cid, a) for a in asked if a.startswith("MESH:"))


def _slices(graph: Graph, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source node, edge, other endpoint) of every edge incident to ``nodes``, vectorized."""
    a, b = graph.inc_ptr[nodes], graph.inc_ptr[nodes + 1]
    n = (b - a).astype(np.int64)
    if not n.sum():
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    src = np.repeat(nodes, n)
    pos = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n) + np.repeat(a, n)
    return src, graph.inc_edge[pos].astype(np.int64), graph.inc_other[pos].astype(np.int64)


def shared_answers(index: SnapshotIndex, graph: Graph, mask: np.ndarray | None,
                   anchors: list[int], intent: Intent, barred: set[int], limit: int,
                   as_of: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Answers of ``intent.kind`` reached from ``anchors`` through nodes of ``kind.via``,
    best first (see the module docstring); never an anchor or a ``barred`` node."""
    kind = intent.kind
    assert kind is not None and kind.via
    e = index.edges
    rel_w = np.array([kind.weight(r, intent.weight(r)) for r in index.relations], np.float64)
    value = (rel_w[e["rel"]] * np.log1p(e["support"].astype(np.float64))
             * (CONF_BASE + (1 - CONF_BASE) * e["confidence"].astype(np.float64)))  # fmt: skip
    if mask is not None:
        value = np.where(mask, value, 0.0)
    via = via_nodes(index, kind.via)
    allowed = kind_nodes(index, kind).copy()
    shut = np.array(sorted({*anchors, *barred}), np.int64)
    allowed[shut] = False
    ids = index.nodes["id"]
    asked = [str(ids[a]) for a in anchors]
    for c in np.flatnonzero(allowed).tolist():
        if unlike(str(ids[c]), asked):
            allowed[c] = False
    via_ok = via.copy()
    via_ok[shut] = False
    # leg 1: anchor → gene (the best fact per gene)
    _, es, genes = _slices(graph, np.array(sorted(set(anchors)), np.int64))
    ok = (value[es] > 0) & via_ok[genes]
    es, genes = es[ok], genes[ok]
    if not len(genes):
        return []
    g_nodes, g_inv = np.unique(genes, return_inverse=True)
    leg1 = np.zeros(len(g_nodes))
    np.maximum.at(leg1, g_inv, value[es])
    best1 = np.full(len(g_nodes), -1, np.int64)
    order = np.argsort(-value[es], kind="stable")
    best1[g_inv[order[::-1]]] = es[order[::-1]]  # the last write is the strongest edge
    # leg 2: gene → candidate
    g_src, es2, cands = _slices(graph, g_nodes)
    ok = (value[es2] > 0) & allowed[cands]
    g_src, es2, cands = g_src[ok], es2[ok], cands[ok]
    if not len(cands):
        return []
    gi = np.searchsorted(g_nodes, g_src)
    # one value per (gene, candidate): its strongest edge
    pair = gi.astype(np.int64) * index.n_nodes + cands
    order = np.lexsort((-value[es2], pair))
    first = np.ones(len(pair), bool)
    first[1:] = pair[order][1:] != pair[order][:-1]
    keep = order[first]
    gi, cands, es2 = gi[keep], cands[keep], es2[keep]
    n_dis = np.bincount(gi, minlength=len(g_nodes)).astype(np.float64)
    spec = 1.0 / np.log2(1.0 + np.maximum(n_dis, 1.0))
    part = np.minimum(leg1[gi], value[es2]) * spec[gi]
    c_nodes, c_inv = np.unique(cands, return_inverse=True)
    total = np.zeros(len(c_nodes))
    np.add.at(total, c_inv, part)
    top = np.lexsort((c_nodes, -total))[:limit]
    out = []
    for i in top.tolist():
        mine = np.flatnonzero(c_inv == i)
        mine = mine[np.argsort(-part[mine], kind="stable")]
        out.append(_answer(index, int(c_nodes[i]), float(total[i]), g_nodes[gi[mine]],
                           best1[gi[mine]], es2[mine], as_of))  # fmt: skip
    return out


def _answer(index: SnapshotIndex, node: int, score: float, genes: np.ndarray,
            legs1: np.ndarray, legs2: np.ndarray, as_of: int | None) -> dict[str, Any]:  # fmt: skip
    """One answer: the candidate, the genes it shares (strongest first) and both legs' facts."""
    n, e = index.nodes, index.edges
    names = [n["display"][g] for g in genes[:GENES_NAMED].tolist()]
    more = f" and {len(genes) - GENES_NAMED} more" if len(genes) > GENES_NAMED else ""
    facts, edges = [], []
    half = FACTS_PER_ANSWER // 2
    for a, b in zip(legs1[:half].tolist(), legs2[:half].tolist(), strict=True):
        for x in (a, b):
            edges.append(x)
            facts.append(make_triple(index, len(facts) + 1, x, 0.0, ("answer",),
                                     evidence_for(index, x, as_of)).to_dict())  # fmt: skip
    first = next((f["evidence"][0] for f in facts[1::2] if f["evidence"]), None)
    return {
        "id": n["id"][node],
        "name": n["display"][node],
        "type": n["type"][node] or "Other",
        "score": round(score, 6) if math.isfinite(score) else 0.0,
        "basis": "fact",
        "relation": list(dict.fromkeys(e["relation"][x] for x in legs2.tolist())),
        "support": len(
            {
                index.evidence["pmid"][r]
                for x in legs2.tolist()
                for r in range(int(index.ev_ptr[x]), int(index.ev_ptr[x + 1]))
            }
        ),
        "shared": [n["id"][g] for g in genes.tolist()],
        "facts": facts,
        "sentence": first["sentence"] if first else "",
        "pmid": first["pmid"] if first else "",
        "why": f"shares {len(genes)} gene{'s' if len(genes) > 1 else ''}: {', '.join(names)}{more}",
        "edges": edges,
    }
