"""What the KG serves by default, audited: precision and recall of the asserted evidence.

``kg_edges`` and the query module serve evidence whose epistemic status is ``asserted`` (and that
an optional LLM verification pass did not refute). A judged sheet is drawn uniformly
from *all* evidence rows, so one sheet measures both sides of that filter, the way a curator
would ask it:

- **precision** of what is served: of the judged rows served by default, the share whose stored
  triple is supported end to end;
- **recall** of the true facts: of the rows supported end to end, the share still served — a
  filter that serves nothing is perfectly precise and useless;
- the rows and end-to-end share **per status**, so a status that hides many true facts
  (or lets false ones through) shows which rule to look at.

The statuses are looked up in the sheet's snapshot by evidence ID; the judge never saw them (the
sheet stays blind).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from kgbuild.audit.score import wilson
from kgbuild.audit.sheet import Judgment, Sheet
from kgbuild.store.snapshots import Warehouse

#: The status of rows served by default (the others stay in the KG, behind a flag).
SERVED = "asserted"


def row_statuses(wh: Warehouse, snapshot_id: str, evidence_ids: list[str]) -> dict[str, str]:
    """evidence_id → its status in ``snapshot_id`` (the catalog's ``evidence_status_at``): the
    epistemic status, ``refuted`` when the verification pass said no, and rows of parts written
    before statuses existed read as served, as ``kg_edges`` serves them. A snapshot none of whose
    rows was ever classified has no statuses (empty map)."""
    rows = wh.query(
        "SELECT evidence_id, epistemic, verified FROM evidence_status_at(?) "
        "WHERE list_contains(?, evidence_id)",
        [snapshot_id, evidence_ids],
    )
    if all(status == "unclassified" for _, status, _ in rows):
        return {}
    return {
        eid: "refuted" if v == "no" else (SERVED if status == "unclassified" else status)
        for eid, status, v in rows
    }


def served_figures(judged: list[Judgment], status_of_item: dict[int, str]) -> dict[str, Any]:
    """Precision and recall of the served rows among ``judged`` (see the module docstring); rows
    whose status is unknown (evidence no longer in the snapshot) are counted apart."""
    known = [j for j in judged if j.item in status_of_item]
    served = [j for j in known if status_of_item[j.item] == SERVED]
    supported = [j for j in known if j.triple_supported]
    k = sum(j.triple_supported for j in served)
    kept = sum(status_of_item[j.item] == SERVED for j in supported)
    per: dict[str, Counter[str]] = {}
    for j in known:
        c = per.setdefault(status_of_item[j.item], Counter())
        c["rows"] += 1
        c["supported"] += j.triple_supported
    return {
        "rows_with_status": len(known),
        "rows_without_status": len(judged) - len(known),
        "served": _share(k, len(served), "precision"),
        "recall": _share(kept, len(supported), "share"),
        "all_rows_end_to_end": round(len(supported) / len(known), 4) if known else None,
        "by_status": {s: dict(c) for s, c in sorted(per.items())},
    }


def _share(k: int, n: int, name: str) -> dict[str, Any]:
    return {"k": k, "n": n, name: round(k / n, 4) if n else None, "wilson_95": wilson(k, n)}


def served_of_sheet(wh: Warehouse, sheet: Sheet, judged: list[Judgment]) -> dict[str, Any] | None:
    """:func:`served_figures` of a judged sheet against its own snapshot in ``wh`` (None when the
    snapshot is not there or predates statuses)."""
    sid = sheet.meta.get("snapshot", "")
    if sid not in {s["snapshot_id"] for s in wh.snapshots()}:
        return None
    eid_of = {int(r["item"]): r.get("evidence_id", "") for r in sheet.rows if r.get("item")}
    statuses = row_statuses(wh, sid, sorted(set(eid_of.values())))
    if not statuses:
        return None
    return served_figures(judged, {i: statuses[e] for i, e in eid_of.items() if e in statuses})
