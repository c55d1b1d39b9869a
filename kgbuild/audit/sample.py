"""Draw a blind audit sample: evidence rows of one snapshot, uniformly at random, seeded.

The sampling unit is an evidence row (one sentence supporting one stored triple), because that
is what a user of the KG sees when they follow a triple to its source. Evidence IDs are sorted
and ``random.Random(seed).sample`` picks ``n`` of them, so the same snapshot and seed give the
same sheet on any machine; the rows keep the sample's random order, so neighbouring rows do not
come from one document.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.audit.sheet import write_sheet
from kgbuild.errors import InputError
from kgbuild.store.snapshots import Warehouse

#: Most frequent annotated surface forms of an ID shown to the judge.
FORMS_SHOWN = 4
MAX_N = 10_000


def draw(
    wh: Warehouse, snapshot_id: str, n: int, seed: int, method: str | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(metadata, rows) of a sample of ``n`` evidence rows of ``snapshot_id``."""
    if not 1 <= n <= MAX_N:
        raise InputError(f"--n must be between 1 and {MAX_N}", n=n)
    ids = [
        r[0]
        for r in wh.query(
            "SELECT evidence_id FROM evidence_at(?) WHERE ? IS NULL OR method = ? "
            "ORDER BY evidence_id",
            [snapshot_id, method, method],
        )
    ]
    if not ids:
        raise InputError("the snapshot has no evidence rows to sample", snapshot=snapshot_id,
                         method=method or "any")  # fmt: skip
    picked = random.Random(seed).sample(ids, min(n, len(ids)))
    oriented = _records_orientation(wh, snapshot_id)
    found = {
        r[0]: r
        for r in wh.query(
            "SELECT e.evidence_id, e.pmid, e.sentence, e.head_text, e.relation_raw, e.tail_text, "
            "t.head_id, t.relation, t.tail_id, "
            + ("coalesce(e.claim_reversed, false)" if oriented else "false")
            + " FROM evidence_at(?) e JOIN triples_at(?) t "
            "USING (triple_id) WHERE list_contains(?, e.evidence_id)",
            [snapshot_id, snapshot_id, picked],
        )
    }
    nodes = sorted({x for r in found.values() for x in (r[6], r[8])})
    names, forms = _names(wh, snapshot_id, nodes), _forms(wh, snapshot_id, nodes)
    rows = []
    for item, eid in enumerate(picked, start=1):
        _, pmid, sentence, head, rel_raw, tail, hid, rel, tid, backwards = found[eid]
        if backwards:  # the claim as the extractor wrote it, not as the triple reads
            head, tail = tail, head
        rows.append({
            "item": item, "evidence_id": eid, "pmid": pmid, "sentence": sentence,
            "claim_head": head, "claim_relation": rel_raw, "claim_tail": tail,
            "head_id": hid, "head_name": names.get(hid, ""), "head_forms": forms.get(hid, ""),
            "relation": rel,
            "tail_id": tid, "tail_name": names.get(tid, ""), "tail_forms": forms.get(tid, ""),
        })  # fmt: skip
    manifest = wh.manifest(snapshot_id)
    meta = {
        "snapshot": snapshot_id,
        "kg": manifest.get("kg", ""),
        "as_of_year": manifest.get("as_of_year", ""),
        "seed": seed,
        "n": len(rows),
        "population": f"{len(ids)} evidence rows" + (f" (method {method})" if method else ""),
        "sampling": "uniform without replacement: random.Random(seed).sample(sorted evidence ids)",
        "raw_claims": "as the extractor wrote them"
        if oriented
        else "in the stored triple's orientation (this snapshot predates claim_reversed)",
    }
    return meta, rows


def _records_orientation(wh: Warehouse, sid: str) -> bool:
    """Whether the snapshot's evidence records ``claim_reversed`` (older snapshots do not)."""
    cols = [r[0] for r in wh.query("DESCRIBE SELECT * FROM evidence_at(?)", [sid])]
    return "claim_reversed" in cols


def write_sample(
    wh: Warehouse, snapshot_id: str, n: int, seed: int, out: Path, *,
    method: str | None = None, force: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Write a blind sheet to ``out`` (never over a file, which may hold judgments, unless
    ``force``); return its metadata."""
    if out.exists() and not force:
        raise InputError("the sheet file exists (it may hold judgments); use --force", path=out)
    if out.parent and not out.parent.is_dir():
        raise InputError("no such folder for the sheet", path=out.parent)
    meta, rows = draw(wh, snapshot_id, n, seed, method)
    write_sheet(out, meta, rows)
    return meta


def _names(wh: Warehouse, sid: str, nodes: list[str]) -> dict[str, str]:
    return dict(
        wh.query("SELECT id, name FROM entities_at(?) WHERE list_contains(?, id)", [sid, nodes])
    )


def _forms(wh: Warehouse, sid: str, nodes: list[str]) -> dict[str, str]:
    """ID → "form (count); …": its most frequent annotated surface forms in the corpus (free
    nodes: the names merged into them)."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for cid, text, k in wh.query(
        "SELECT concept_id, text, count(*) FROM mentions_at(?) "
        "WHERE list_contains(?, concept_id) GROUP BY ALL",
        [sid, nodes],
    ):
        counts[cid][text] += k
    for nid, aliases in wh.query(
        "SELECT id, aliases FROM entities_at(?) WHERE id LIKE 'free:%' AND list_contains(?, id)",
        [sid, nodes],
    ):
        for a in aliases or []:
            counts[nid][a] += 1
    return {
        cid: "; ".join(f"{f} ({k})" for f, k in sorted(c.items(), key=lambda x: (-x[1], x[0]))
                       [:FORMS_SHOWN])
        for cid, c in counts.items()
    }  # fmt: skip
