"""A yes/no question that does not name a pair of the KG: one entity is missing, or the
question names one entity and asks a predicate of it ("Does memantine cause any adverse
effects?").

A verdict that says nothing when "statins" is not in the KG leaves the reader guessing whether
the answer is "no"; it says which words were not found instead. With one entity and an asked
predicate, the entity's own served rows are read against the predicate
(:mod:`kgbuild.question.predicates`), so "does memantine cause any adverse effects" is answered by
the PMIDs that state memantine causes something, naming what.
"""

from __future__ import annotations

import re
from typing import Any

from kgbuild.query.context import evidence_for, make_triple
from kgbuild.query.verdict import MAX_FACTS, MAX_PMIDS, decide, read_rows
from kgbuild.question.intent import QUESTION_WORDS, Intent, tables
from kgbuild.question.predicates import predicate_for
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import STOPWORDS

#: Partners named in a one-entity verdict's line.
MAX_PARTNERS = 5
#: Longest phrase quoted as not found (characters).
MAX_QUOTED = 60


def missing_phrase(question: str, start: int, end: int, it: Intent) -> str | None:
    """The part of an unlinked span the question's reading did not understand: from its first
    to its last word that is neither a question word, a stopword nor inside a relation cue
    ("statins reduce the risk" → "statins"); None when every word was understood."""
    spans = it.spans()
    words = []
    for m in re.finditer(r"[\w'’-]+", question[start:end]):
        a, b, w = start + m.start(), start + m.end(), m.group(0).lower()
        if w in QUESTION_WORDS or w in STOPWORDS or any(x <= a and b <= y for x, y in spans):
            continue
        words.append((a, b))
    if not words:
        return None
    return question[words[0][0] : words[-1][1]][:MAX_QUOTED]


def not_found_verdict(missing: list[str], found: list[str]) -> dict[str, Any]:
    """ "not found: could not find 'statins' in this KG" — the answer is unknown, not "no"."""
    quoted = ", ".join(f"'{m}'" for m in missing)
    line = f"not found: could not find {quoted} in this KG"
    if found:
        line += f" (found: {', '.join(found)})"
    return {"pair": None, "names": found, "answer": "not found", "missing": missing,
            "stated": 0, "opposite": 0, "mentioned": 0, "pmids": [], "statuses": None,
            "facts": [], "edges": [], "line": line}  # fmt: skip


def entity_verdict(index: SnapshotIndex, graph: Graph, mask: Any, node: int, intent: Intent,
                   as_of: int | None = None) -> dict[str, Any]:  # fmt: skip
    """The asked predicate read over every served row of ``node``'s facts: "yes: 4 PMIDs state
    memantine causes something (Dizziness 2, …)"."""
    e, names = index.edges, index.nodes["display"]
    pred = predicate_for(intent.asked)
    lo, hi = int(graph.inc_ptr[node]), int(graph.inc_ptr[node + 1])
    edges = sorted({int(x) for x in graph.inc_edge[lo:hi] if mask is None or mask[int(x)]})
    types = index.nodes["type"]
    # the partner's kind the predicate implies ("memantine causes" → a Disease, not a gene)
    infer = tables().infer
    kinds = {infer.get(f"{a}:{types[node]}") for a in intent.asked} - {None}
    yes: dict[int, set[str]] = {}
    no: set[str] = set()
    for x in edges:
        other = int(e["tail"][x]) if int(e["head"][x]) == node else int(e["head"][x])
        if kinds and types[other] not in kinds:
            continue
        got = read_rows(index, [x], pred, as_of)
        pm = set().union(*got["yes"].values()) if got["yes"] else set()
        if pm:
            yes.setdefault(other, set()).update(pm)
        no |= set().union(*got["no"].values()) if got["no"] else set()
    stated = set().union(*yes.values()) if yes else set()
    partners = sorted(yes, key=lambda o: (-len(yes[o]), names[o]))
    order = [x for x in edges if any(int(e["head"][x]) == o or int(e["tail"][x]) == o
                                     for o in partners[:MAX_FACTS])]  # fmt: skip
    order.sort(key=lambda x: -int(e["support"][x]))
    facts = [make_triple(index, i, x, 1.0, ("entity",), evidence_for(index, x, as_of)).to_dict()
             for i, x in enumerate(order[:MAX_FACTS], 1)]  # fmt: skip
    answer = "yes" if stated else decide(0, 0, len(edges))
    who = ", ".join(f"{names[o]} {len(yes[o])}" for o in partners[:MAX_PARTNERS])
    claim = f"{names[node]} {pred.says} something"
    if stated:
        line = f"yes: {len(stated)} PMIDs state {claim} ({who}"
        line += f", +{len(partners) - MAX_PARTNERS} more)" if len(partners) > MAX_PARTNERS \
            else ")"  # fmt: skip
    else:
        line = f"{answer}: no PMID states {claim}"
    return {"pair": [index.nodes["id"][node]], "names": [names[node]], "asked": intent.asked,
            "predicate": pred.says, "answer": answer, "stated": len(stated),
            "opposite": len(no - stated), "mentioned": len(edges),
            "partners": [{"id": index.nodes["id"][o], "name": names[o], "pmids": len(yes[o])}
                         for o in partners[:MAX_PARTNERS]],
            "pmids": sorted(stated)[:MAX_PMIDS], "statuses": None, "facts": facts,
            "edges": order[:MAX_FACTS], "line": line}  # fmt: skip


def open_verdict(index: SnapshotIndex, graph: Graph, mask: Any, question: str, links: list[Any],
                 nodes: list[int], intent: Intent,
                 as_of: int | None = None) -> dict[str, Any] | None:  # fmt: skip
    """The verdict of a yes/no question without a linked pair: "not found" naming the words
    missing from the KG, else the one entity's (:func:`entity_verdict`) when a relation other
    than a bare association is asked, else None."""
    missing = [m for x in links if x.where == "question" and x.node is None
               for m in [missing_phrase(question, x.start, x.end, intent)] if m]  # fmt: skip
    if missing:
        return not_found_verdict(missing, [index.nodes["display"][n] for n in nodes])
    # "Is ATP associated with (3)H?" names a second entity the linker skipped: a one-entity
    # reading ("ATP is associated with something") would answer another question
    if len(nodes) == 1 and set(intent.asked) - {"associates"}:
        return entity_verdict(index, graph, mask, nodes[0], intent, as_of)
    return None
