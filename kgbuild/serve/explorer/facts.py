"""An entity's facts, filtered and paged on the server: every fact reachable, a page at a time.

A hub such as Alzheimer's disease has thousands of facts; a page of the strongest few with
"N more, weaker facts" left a curator no way to read the rest. Here the filters a curator asks
for — relation, evidence status, a year range and a minimum belief — run over the node's whole
row of the in-memory index (array work, no DuckDB), and the result is cut into pages of at most
:data:`MAX_PAGE` facts. The facets (facts per relation and per status, the years seen) are
counted before the filters, as the as-of year shows the node, so the form always offers every
choice that would find something.

Each listed fact's evidence sentence carries both endpoints' spans (``head_span``,
``tail_span``), found the way ``kgbuild ask`` marks them (:mod:`kgbuild.corpus.marks`: the
snapshot's alias dictionary against the sentence's normalized tokens), so the page marks the
subject and the object alike, not only the entity whose page it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from kgbuild.corpus.marks import Forms, find_span, node_forms
from kgbuild.errors import InputError
from kgbuild.extract.epistemics import STATUSES as EPISTEMIC
from kgbuild.search.index import SnapshotIndex
from kgbuild.serve.explorer.pages import (
    ExplorerData,
    _edges_of,
    _evidence_window,
    _fact,
    _node,
    node_of,
)

#: Facts per page by default, and at most.
PAGE = 25
MAX_PAGE = 100
#: The statuses an evidence row can have: the epistemic classes, ``refuted`` (the verifier
#: said no, as ``evidence_status_at`` reads it) and ``unclassified`` (rows older than them).
STATUSES = (*EPISTEMIC, "refuted", "unclassified")
#: Longest numeric parameter accepted as text (years, offsets, beliefs).
MAX_PARAM_CHARS = 12
#: A relation's name as the schema spells them ("associates", "binds", "up_regulates").
RELATION = re.compile(r"[A-Za-z0-9_\- ]{1,100}")
#: A belief as a curator types it: 0, 1, 0.7, .35 (at most six decimals; no "NaN", "1e-3").
BELIEF = re.compile(r"[01]?(\.[0-9]{1,6})?")


@dataclass(frozen=True, slots=True)
class FactQuery:
    """The filters and the page asked for (already validated: :func:`parse_query`)."""

    relation: str | None = None
    status: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    min_belief: float = 0.0
    offset: int = 0
    limit: int = PAGE


def _int(name: str, raw: str | None, lo: int, hi: int) -> int | None:
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if not (text.isascii() and text.isdigit() and len(text) <= MAX_PARAM_CHARS):
        raise InputError(f"{name} must be a whole number from {lo} to {hi}", value=raw[:20])
    value = int(text)
    if not lo <= value <= hi:
        raise InputError(f"{name} must be a whole number from {lo} to {hi}", value=raw[:20])
    return value


def parse_query(idx: SnapshotIndex, params: dict[str, str | None]) -> FactQuery:
    """Validate the raw query parameters: a relation of the snapshot, a known status, years
    of four digits in order, a belief in [0, 1] and a bounded page (an :class:`InputError`
    naming the parameter otherwise — "²⁰¹⁵", "NaN", "1e3" and negative offsets alike)."""
    relation = (params.get("relation") or "").strip() or None
    if relation is not None and not RELATION.fullmatch(relation):
        # a well-formed relation this year's snapshot lacks finds nothing: not an error
        raise InputError("relation must be a relation name (letters, digits, _ -)",
                         value=relation[:60])  # fmt: skip
    status = (params.get("status") or "").strip() or None
    if status is not None and status not in STATUSES:
        raise InputError(f"status must be one of {', '.join(STATUSES)}", value=status[:60])
    year_from = _int("year_from", params.get("year_from"), 1000, 9999)
    year_to = _int("year_to", params.get("year_to"), 1000, 9999)
    if year_from is not None and year_to is not None and year_from > year_to:
        raise InputError("year_from is after year_to", year_from=year_from, year_to=year_to)
    raw_belief = (params.get("min_belief") or "").strip()
    if raw_belief and not BELIEF.fullmatch(raw_belief):
        raise InputError("min_belief must be a number from 0 to 1", value=raw_belief[:20])
    min_belief = float(raw_belief) if raw_belief.strip(".") else 0.0
    if not 0.0 <= min_belief <= 1.0:
        raise InputError("min_belief must be a number from 0 to 1", value=raw_belief[:20])
    offset = _int("offset", params.get("offset"), 0, 10_000_000) or 0
    limit = _int("limit", params.get("limit"), 1, MAX_PAGE) or PAGE
    return FactQuery(relation, status, year_from, year_to, min_belief, offset, limit)


def _status_ok(idx: SnapshotIndex, data: ExplorerData, es: np.ndarray, status: str,
               year: int | None) -> np.ndarray:  # fmt: skip
    """Which of ``es`` have at least one PMID of ``status`` as of ``year``."""
    table = data.statuses(idx)
    tids = idx.edges["triple_id"]
    return np.array([
        any(s == status and (year is None or 0 < y <= year) and k > 0
            for s, y, k in table.get(tids[e], ()))
        for e in es.tolist()
    ], bool)  # fmt: skip


def _in_years(idx: SnapshotIndex, ev_ok: np.ndarray, es: np.ndarray, lo: int | None,
              hi: int | None) -> np.ndarray:  # fmt: skip
    """Which of ``es`` have evidence (counted as of the view) published within [lo, hi]."""
    y = idx.evidence["year"].astype(np.int32)
    inside = ev_ok & (y >= (lo or 0)) & (y <= (hi or 9999))
    cs = np.concatenate([[0], np.cumsum(inside, dtype=np.int64)])
    return (cs[idx.ev_ptr[es + 1]] - cs[idx.ev_ptr[es]]) > 0


def facets(idx: SnapshotIndex, data: ExplorerData, es: np.ndarray,
           year: int | None) -> dict[str, Any]:  # fmt: skip
    """The choices the filter form offers: facts per relation and per status, and the years
    the node's facts span (before the filters)."""
    rel = idx.edges["relation"]
    relations: dict[str, int] = {}
    for e in es.tolist():
        relations[rel[e]] = relations.get(rel[e], 0) + 1
    statuses: dict[str, int] = {}
    table = data.statuses(idx)
    tids = idx.edges["triple_id"]
    for e in es.tolist():
        seen = {s for s, y, k in table.get(tids[e], ()) if k and (year is None or 0 < y <= year)}
        for s in seen:
            statuses[s] = statuses.get(s, 0) + 1
    first = idx.edges["first_year"][es]
    first = first[first > 0]
    return {
        "relations": dict(sorted(relations.items(), key=lambda kv: (-kv[1], kv[0]))),
        "statuses": dict(sorted(statuses.items(), key=lambda kv: (-kv[1], kv[0]))),
        "years": [int(first.min()), int(year or idx.as_of_year)] if len(first) else [],
    }


def mark_fact(idx: SnapshotIndex, fact: dict[str, Any], n: int, forms: dict[int, Forms]) -> None:
    """Add ``head_span`` / ``tail_span`` (character offsets into the evidence sentence, or
    ``None`` where the name is not found) to a listed fact, in place."""
    ev = fact.get("evidence")
    if not ev:
        return
    other = idx.node_of[fact["other"]["id"]]
    head, tail = (other, n) if fact["direction"] == "in" else (n, other)
    for node in (head, tail):
        if node not in forms:
            forms[node] = node_forms(idx, node)
    s = ev["sentence"]
    hs = find_span(s, forms[head])
    ts = find_span(s, forms[tail], hs) if tail != head else None
    ev["head_span"] = list(hs) if hs else None
    ev["tail_span"] = list(ts) if ts else None


def fact_page(idx: SnapshotIndex, data: ExplorerData, curie: str, year: int | None,
              q: FactQuery) -> dict[str, Any]:  # fmt: skip
    """One page of node ``curie``'s facts as of ``year`` that pass ``q``, strongest first
    (as-of support, then confidence), with the facets and the total passing."""
    n = node_of(idx, curie)
    es, sup = _edges_of(idx, n, year)
    ev_ok, _ = _evidence_window(idx, year)
    keep = np.ones(len(es), bool)
    if q.relation is not None:
        keep &= np.array([idx.edges["relation"][e] == q.relation for e in es.tolist()], bool)
    if q.min_belief > 0 and "belief" in idx.edges:
        keep &= idx.edges["belief"][es] >= np.float32(q.min_belief) - 1e-6
    if q.year_from is not None or q.year_to is not None:
        keep &= _in_years(idx, ev_ok, es, q.year_from, q.year_to)
    if q.status is not None and keep.any():
        sel = np.flatnonzero(keep)
        keep[sel] = _status_ok(idx, data, es[sel], q.status, year)
    passing, psup = es[keep], sup[keep]
    page = slice(q.offset, q.offset + q.limit)
    statuses = data.statuses(idx)
    forms: dict[int, Forms] = {}
    facts = []
    for e, s in zip(passing[page].tolist(), psup[page].tolist(), strict=True):
        f = _fact(idx, n, e, s, ev_ok, statuses, year)
        mark_fact(idx, f, n, forms)
        facts.append(f)
    return {
        "snapshot": idx.snapshot_id,
        "kg": idx.kg,
        "as_of": year,
        "snapshot_year": idx.as_of_year,
        "entity": {**_node(idx, n), "symbol": idx.nodes["name"][n], "facts": len(es)},
        "filters": {
            "relation": q.relation, "status": q.status, "year_from": q.year_from,
            "year_to": q.year_to, "min_belief": q.min_belief,
        },
        "facets": facets(idx, data, es, year),
        "total": len(passing),
        "offset": q.offset,
        "limit": q.limit,
        "facts": facts,
    }  # fmt: skip
