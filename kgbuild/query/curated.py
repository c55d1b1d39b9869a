"""Curations on the facts ``kgbuild ask`` shows: each ranked fact carries the latest curation of
each of its curated sentences (:mod:`kgbuild.store.curations`), so a reader of the answer sees
that a curator confirmed a sentence, or took one out (that sentence no longer counts: the
fact's support and the verdict are computed without it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgbuild.store.curations import DEMOTING, latest, read_all

SAY = {
    "states": "states it",
    "does_not_state": "does not state it",
    "wrong_concept": "wrong concept",
}


def add_curations(root: Path, rdict: dict[str, Any]) -> None:
    """Add ``curations`` (a list, empty when none) to every triple of retrieval ``rdict``."""
    triples = rdict.get("triples") or []
    if not triples:
        return
    by_triple: dict[str, list[dict[str, Any]]] = {}
    for c in latest(read_all(root)).values():
        by_triple.setdefault(c.triple_id, []).append(
            {
                "pmid": c.pmid,
                "label": c.label,
                "curator": c.curator,
                "note": c.note,
                "created_at": c.created_at,
                "demoted": c.label in DEMOTING,
            }
        )
    for t in triples:
        t["curations"] = by_triple.get(t.get("triple_id", ""), [])


def curation_lines(t: dict[str, Any]) -> list[str]:
    """One line per curation of fact ``t``, for a person."""
    return [
        f"curated: PMID {c['pmid']} {SAY.get(c['label'], c['label'])} ({c['curator']}"
        f"{', ' + c['note'] if c['note'] else ''})" + (": not counted" if c["demoted"] else "")
        for c in t.get("curations") or []
    ]
