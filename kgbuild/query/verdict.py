"""A yes/no question answered from the evidence that states what it asks.

"Is neurofilament light a biomarker of AD?" asks one predicate; :mod:`kgbuild.question.predicates`
says which KG relations and which sentence cues state it (or its opposite). Every served row
between the pair is read against it: rows that state it say "yes", rows that state the
opposite (and, from the catalog, negated rows of a stating relation) say "no", and the rest —
co-mentions above all — state nothing, so they are only counted as "mentioned together". A
co-mention is never an answer: BioRED pairs named in one abstract without a relation are most
of its co-mentioned pairs (Luo et al. 2022).

The verdict is "yes"/"no" when one side has at least :data:`DECISIVE` times the other's PMIDs,
"mixed" otherwise, "no stated evidence" when only co-mentions or other relations join the pair,
"no evidence" when nothing does, and "not found" when a question entity is not in the KG
(:mod:`kgbuild.query.verdict_open`).
"""

from __future__ import annotations

from typing import Any

from kgbuild.query.context import evidence_for, make_triple
from kgbuild.question.intent import Intent
from kgbuild.question.predicates import Predicate, predicate_for
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex
from kgbuild.store.snapshots import Warehouse

#: A relation weighing at least this much for the question states what was asked (ranking).
STATED = 0.8
#: Facts kept in a verdict (strongest first) and PMIDs listed.
MAX_FACTS = 5
MAX_PMIDS = 10
#: One side's PMIDs must be this many times the other's for a "yes"/"no" over both.
DECISIVE = 3
#: Statuses that only hedge a claim (data/epistemic_cues.tsv's hypothesis cues: "may", "might").
HEDGED = ("hypothesis",)


def decide(yes: int, no: int, mentioned: int) -> str:
    """The answer from the PMIDs stating it (``yes``), the opposite (``no``) and naming both."""
    if yes and no:
        return "yes" if yes >= DECISIVE * no else "no" if no >= DECISIVE * yes else "mixed"
    if yes or no:
        return "yes" if yes else "no"
    return "no stated evidence" if mentioned else "no evidence"


def read_rows(index: SnapshotIndex, edges: list[int], pred: Predicate,
              as_of: int | None) -> dict[str, dict[str, set[str]]]:  # fmt: skip
    """Reading ("yes", "no", "" for neither) → relation → PMIDs, over the served rows of
    ``edges`` from years ≤ ``as_of``."""
    e, ev = index.edges, index.evidence
    out: dict[str, dict[str, set[str]]] = {"yes": {}, "no": {}, "": {}}
    for x in edges:
        rel = e["relation"][x]
        for r in range(int(index.ev_ptr[x]), int(index.ev_ptr[x + 1])):
            if as_of is not None and int(ev["year"][r]) > as_of:
                continue
            said = pred.reading(rel, ev["sentence"][r]) or ""
            out[said].setdefault(rel, set()).add(ev["pmid"][r])
    return out


def _union(by_rel: dict[str, set[str]]) -> set[str]:
    return set().union(*by_rel.values()) if by_rel else set()


def _counts(by_rel: dict[str, set[str]]) -> dict[str, int]:
    return {r: len(p) for r, p in sorted(by_rel.items(), key=lambda x: (-len(x[1]), x[0]))}


def pair_verdict(index: SnapshotIndex, graph: Graph, mask: Any, a: int, b: int, intent: Intent,
                 as_of: int | None = None) -> dict[str, Any]:  # fmt: skip
    """What the snapshot's served evidence says about the pair (a, b) and the asked predicate."""
    e, names = index.edges, index.nodes["display"]
    pred = predicate_for(intent.asked)
    edges = [x for x in graph.pair_edges.get((min(a, b), max(a, b)), [])
             if mask is None or mask[x]]  # fmt: skip
    rows = read_rows(index, edges, pred, as_of)
    yes, no = _union(rows["yes"]), _union(rows["no"]) - _union(rows["yes"])
    by_rel: dict[str, set[str]] = {}
    for part in rows.values():
        for rel, pm in part.items():
            by_rel.setdefault(rel, set()).update(pm)
    every = _union(by_rel)
    stating = set(rows["yes"]) | set(rows["no"])
    order = sorted(edges, key=lambda x: (e["relation"][x] not in stating,
                                         -intent.weight(e["relation"][x]), -int(e["support"][x]),
                                         e["triple_id"][x]))  # fmt: skip
    facts = [make_triple(index, i, x, round(intent.weight(e["relation"][x]), 4), ("pair",),
                         evidence_for(index, x, as_of)).to_dict()
             for i, x in enumerate(order[:MAX_FACTS], 1)]  # fmt: skip
    out = {
        "pair": [index.nodes["id"][a], index.nodes["id"][b]],
        "names": [names[a], names[b]],
        "asked": list(intent.asked),
        "predicate": pred.says,
        "answer": decide(len(yes), len(no), len(every)),
        "stated": len(yes),
        "opposite": len(no),
        "negated": 0,
        "mentioned": len(every),
        "asserted": len(every),
        "stated_by_relation": _counts(rows["yes"]),
        "opposite_by_relation": _counts(rows["no"]),
        "by_relation": _counts(by_rel),
        "pmids": (sorted(yes) + sorted(no))[:MAX_PMIDS] if yes or no else sorted(every)[:MAX_PMIDS],
        "statuses": None,
        "facts": facts,
        "edges": order[:MAX_FACTS],
    }
    out["line"] = verdict_line(out)
    return out


def status_rows(wh: Warehouse, snapshot_id: str, a: str, b: str) -> list[tuple[str, str, str]]:
    """(relation, status, PMID), distinct, of every evidence row between CURIEs a and b in
    either direction (one read-only catalog query; ~1 s on the DALK warehouse, so only ``ask``
    runs it, for a yes/no question). Refuted rows (verified = 'no') have status ``refuted``."""
    rows = wh.query(
        "SELECT DISTINCT t.relation, CASE WHEN e.verified = 'no' THEN 'refuted' "
        "ELSE e.epistemic END, e.pmid FROM evidence_status_at(?) e JOIN triples_at(?) t "
        "USING (triple_id) WHERE (t.head_id = ? AND t.tail_id = ?) "
        "OR (t.head_id = ? AND t.tail_id = ?) ORDER BY ALL",
        [snapshot_id, snapshot_id, a, b, b, a],
    )
    return [(str(r), str(s), str(p)) for r, s, p in rows]


def pair_statuses(wh: Warehouse, snapshot_id: str, a: str, b: str) -> dict[str, int]:
    """Distinct PMIDs per epistemic status between CURIEs a and b (:func:`status_rows`)."""
    by: dict[str, set[str]] = {}
    for _, s, p in status_rows(wh, snapshot_id, a, b):
        by.setdefault(s, set()).add(p)
    return {s: len(p) for s, p in sorted(by.items())}


def add_statuses(verdict: dict[str, Any], rows: list[tuple[str, str, str]]) -> None:
    """Put a pair's status counts on its verdict: PMIDs that negate a relation stating the
    predicate ("X does not activate Y") count against it; then redo the answer and line."""
    if verdict.get("answer") == "not found" or verdict.get("basis") == "sentences":
        return  # a sentence reading already read each sentence's negation
    by: dict[str, set[str]] = {}
    for _, s, p in rows:
        by.setdefault(s, set()).add(p)
    verdict["statuses"] = {s: len(p) for s, p in sorted(by.items())}
    pred = predicate_for(verdict.get("asked") or [])
    negated = {p for r, s, p in rows if s == "negated" and r in pred.states}
    verdict["negated"] = len(negated)
    verdict["answer"] = decide(verdict["stated"], verdict["opposite"] + len(negated),
                               verdict["mentioned"] + len(negated))  # fmt: skip
    verdict["line"] = verdict_line(verdict)


def verdict_line(v: dict[str, Any]) -> str:
    """One line that answers the question asked: "yes: 3 PMIDs state NEFL is a biomarker of
    Alzheimer Disease (associates 3); mentioned together in 5 abstracts"."""
    a, b = v["names"]
    claim = f"{a} {v['predicate']} {b}"
    against = v["opposite"] + v.get("negated", 0)
    rels = ", ".join(f"{r} {n}" for r, n in v["stated_by_relation"].items())
    opp = ", ".join([f"{r} {n}" for r, n in v["opposite_by_relation"].items()]
                    + ([f"negated {v['negated']}"] if v.get("negated") else []))  # fmt: skip
    if v["answer"] == "no evidence":
        line = f"no evidence: no served fact joins {a} and {b}"
    elif v["answer"] == "no stated evidence":
        line = f"no stated evidence: no PMID states {claim}"
    elif v["answer"] == "no":
        line = f"no: {against} PMIDs state the opposite of {claim} ({opp})"
        if v["stated"]:
            line += f"; {v['stated']} state it ({rels})"
    else:
        line = f"{v['answer']}: {v['stated']} PMIDs state {claim} ({rels})"
        if against:
            line += f"; {against} state the opposite ({opp})"
    if v["mentioned"]:
        mentioned = ", ".join(f"{r} {n}" for r, n in v["by_relation"].items())
        line += f"; mentioned together in {v['mentioned']} abstracts ({mentioned})"
    st = v.get("statuses")
    if st:
        extra = [f"{st[s]} {s}" for s in (*HEDGED, "refuted") if st.get(s)]
        if extra:
            line += "; " + ", ".join(extra).replace("hypothesis", "hedged")
    return line
