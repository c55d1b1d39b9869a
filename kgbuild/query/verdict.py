"""A yes/no question about a pair, answered from that pair's facts.

"Does APOE interact with APP?" is answered by what the snapshot holds between APOE and APP:
the served (asserted, not refuted) evidence of every relation joining them, the relations that
state what was asked (weight ≥ 0.8 for the question, :mod:`kgbuild.query.intent`) counted
apart, and — when the caller asks for it (:func:`pair_statuses`, one catalog query) — how many
PMIDs negate it or only hedge it (hypothesis), so a reader sees "yes: 141 PMIDs … ; 2 negated".

The verdict is a reading of the evidence, not a judgement: "yes" when a stated relation has
asserted evidence, "related" when only other relations (a co-mention, an association) join
the pair, "no evidence" when nothing does; negated PMIDs outnumbering asserted ones turn a
"yes" into "disputed".
"""

from __future__ import annotations

from typing import Any

from kgbuild.query.context import evidence_for, make_triple
from kgbuild.query.graph import Graph
from kgbuild.query.index import SnapshotIndex
from kgbuild.query.intent import Intent
from kgbuild.store.snapshots import Warehouse

#: A relation weighing at least this much for the question states what was asked.
STATED = 0.8
#: Facts kept in a verdict (strongest first) and PMIDs listed.
MAX_FACTS = 5
MAX_PMIDS = 10
#: Statuses that only hedge a claim (data/epistemic_cues.tsv's hypothesis cues: "may", "might").
HEDGED = ("hypothesis",)


def pair_verdict(index: SnapshotIndex, graph: Graph, mask: Any, a: int, b: int, intent: Intent,
                 as_of: int | None = None) -> dict[str, Any]:  # fmt: skip
    """What the snapshot's served evidence says about the pair (a, b)."""
    e, ev, names = index.edges, index.evidence, index.nodes["display"]
    edges = [x for x in graph.pair_edges.get((min(a, b), max(a, b)), [])
             if mask is None or mask[x]]  # fmt: skip
    by_rel: dict[str, set[str]] = {}
    for x in edges:
        rows = range(int(index.ev_ptr[x]), int(index.ev_ptr[x + 1]))
        pm = {ev["pmid"][r] for r in rows if as_of is None or int(ev["year"][r]) <= as_of}
        if pm:
            by_rel.setdefault(e["relation"][x], set()).update(pm)
    every = set().union(*by_rel.values()) if by_rel else set()
    stated = set().union(*(p for r, p in by_rel.items() if intent.weight(r) >= STATED)) \
        if by_rel else set()  # fmt: skip
    order = sorted(edges, key=lambda x: (-intent.weight(e["relation"][x]), -int(e["support"][x]),
                                         e["triple_id"][x]))  # fmt: skip
    facts = [make_triple(index, i, x, round(intent.weight(e["relation"][x]), 4), ("pair",),
                         evidence_for(index, x, as_of)).to_dict()
             for i, x in enumerate(order[:MAX_FACTS], 1)]  # fmt: skip
    answer = "yes" if stated else "related" if every else "no evidence"
    out = {
        "pair": [index.nodes["id"][a], index.nodes["id"][b]],
        "names": [names[a], names[b]],
        "answer": answer,
        "asserted": len(every),
        "stated": len(stated),
        "by_relation": {r: len(p) for r, p in sorted(by_rel.items(), key=lambda x: -len(x[1]))},
        "pmids": sorted(stated or every)[:MAX_PMIDS],
        "statuses": None,
        "facts": facts,
        "edges": order[:MAX_FACTS],
    }
    out["line"] = verdict_line(out)
    return out


def pair_statuses(wh: Warehouse, snapshot_id: str, a: str, b: str) -> dict[str, int]:
    """Distinct PMIDs per epistemic status of every evidence row between CURIEs a and b, in
    either direction (one read-only catalog query; ~1 s on the DALK warehouse, so only ``ask``
    runs it, for a yes/no question). Refuted rows (verified = 'no') count as ``refuted``."""
    rows = wh.query(
        "SELECT CASE WHEN e.verified = 'no' THEN 'refuted' ELSE e.epistemic END, "
        "count(DISTINCT e.pmid) FROM evidence_status_at(?) e JOIN triples_at(?) t "
        "USING (triple_id) WHERE (t.head_id = ? AND t.tail_id = ?) "
        "OR (t.head_id = ? AND t.tail_id = ?) GROUP BY ALL ORDER BY ALL",
        [snapshot_id, snapshot_id, a, b, b, a],
    )
    return {str(s): int(n) for s, n in rows}


def add_statuses(verdict: dict[str, Any], statuses: dict[str, int]) -> None:
    """Put a pair's status counts on its verdict (and redo the line)."""
    verdict["statuses"] = statuses
    asserted = statuses.get("asserted", 0) + statuses.get("unclassified", 0)
    if verdict["answer"] == "yes" and statuses.get("negated", 0) > asserted:
        verdict["answer"] = "disputed"
    verdict["line"] = verdict_line(verdict)


def verdict_line(v: dict[str, Any]) -> str:
    """One line: "yes: 141 PMIDs assert APOE–APP (associates 78, co_mentioned 60, interacts 2);
    1 negated"."""
    pair = "–".join(v["names"])
    if not v["asserted"]:
        line = f"{v['answer']}: no served evidence joins {pair}"
    else:
        rels = ", ".join(f"{r} {n}" for r, n in v["by_relation"].items())
        line = f"{v['answer']}: {v['asserted']} PMIDs assert {pair} ({rels})"
        if v["answer"] != "yes" and v["asserted"]:
            line += "; none states the relation asked"
    st = v.get("statuses")
    if st:
        extra = [f"{st[s]} {s}" for s in ("negated", *HEDGED, "refuted") if st.get(s)]
        if extra:
            line += "; " + ", ".join(extra).replace("hypothesis", "hedged")
    return line
