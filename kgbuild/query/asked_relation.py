"""A choice scored on the relation the question asks, when a choice is named in the question.

"Does APOE interact with APP in Alzheimer's disease?", choices APOE and TREM2: the choice the
question itself names is the one asked about, and what bears on it is the asked relation
between it and the question's other entity (APOE–APP, 33 PMIDs). Normalized PMI
(:mod:`kgbuild.query.choices`) scores that pair ≈ 0 or below in an Alzheimer's corpus, where
both genes are named in hundreds of abstracts, so the named choice scored nothing and lost to
any lexical lift of the other. Here each choice gets a term for the facts of the asked relation
joining it to the entities the question asks about: each fact worth its relation's weight for
the question (:mod:`kgbuild.question.intent`, ``question_relations.tsv``) × its support on a
saturating log scale (log(1 + PMIDs) / log(1 + :data:`SATURATE`), at most 1) — the same
diminishing returns as :mod:`kgbuild.query.answer_entities`.

Which entities: a choice the question names marks the place the choices fill (the *slot*:
"Does APOE interact with APP?", choices APOE and TREM2, asks which of them interacts with
APP), so every choice is scored against the yes/no pair's other member
(:func:`kgbuild.question.intent.yes_no_pair`), or without a pair against the question's entities
outside the slot; when no choice is in the pair, against the better of its two members. The
term is added only when some choice is named in the question or the question is about a pair:
elsewhere the asked relation between a question entity and a choice would favour hubs the
specificity score was built to discount.
"""

from __future__ import annotations

import math

from kgbuild.question.intent import Intent
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex

#: PMIDs at which a fact's support counts in full.
SATURATE = 50
#: Weight of the asked-relation term beside the lexical lift and the graph NPMI.
W_RELATION = 1.0


def _pair_value(index: SnapshotIndex, graph: Graph, mask: object, intent: Intent, a: int,
                b: int) -> tuple[float, int | None]:  # fmt: skip
    """The best fact of the asked relation joining a and b: (value, edge)."""
    e = index.edges
    best: tuple[float, int | None] = (0.0, None)
    for x in graph.pair_edges.get((min(a, b), max(a, b)), []):
        if mask is not None and not mask[x]:  # type: ignore[index]
            continue
        sup = int(e["support"][x])
        v = intent.weight(e["relation"][x]) * min(1.0, math.log1p(sup) / math.log1p(SATURATE))
        if v > best[0]:
            best = (v, x)
    return best


#: Per choice: its asked-relation term, the reason in words, and the fact behind it.
Term = tuple[float, str, list[int]]


def relation_terms(index: SnapshotIndex, graph: Graph, mask: object, intent: Intent,
                   question_nodes: list[int], choice_nodes: list[list[int]],
                   pair: tuple[int, int] | None) -> list[Term] | None:  # fmt: skip
    """Per choice: (term, reason, edges) — see the module docstring; None when the term does
    not apply (no relation asked, or no choice named in the question and no pair)."""
    qset = set(question_nodes)
    named = any(set(c) & qset for c in choice_nodes)
    if not intent.asked or not choice_nodes or not (named or pair):
        return None
    names = index.nodes["display"]
    slot = qset & {n for c in choice_nodes for n in c}  # the question's place the choices fill
    out = []
    for nodes in choice_nodes:
        cset = set(nodes)
        if pair is not None:
            about = [p for p in pair if p not in slot] if slot & set(pair) else list(pair)
        else:
            about = sorted(qset - cset - slot)
        best: Term = (0.0, "", [])
        for q in about:
            for c in sorted(cset - {q}):
                v, x = _pair_value(index, graph, mask, intent, q, c)
                if x is not None and v > best[0]:
                    e = index.edges
                    why = (f"asked relation ({', '.join(intent.asked)}): "
                           f"{names[e['head'][x]]} {e['relation'][x]} {names[e['tail'][x]]}, "
                           f"{int(e['support'][x])} PMIDs → {v:+.2f}")  # fmt: skip
                    best = (round(W_RELATION * v, 6), why, [x])
        out.append(best)
    return out
