"""What changed between two snapshots of one KG, fact by fact (``kgbuild diff``): the story.

A fact is a triple (head, relation, tail). Its support is the number of distinct PMIDs of its
served evidence (what ``kg_edges`` counts); its belief and status are those of
:mod:`kgbuild.belief.history` (asserted / hedged / negated …), ``contested`` when the
``conflicts`` view lists it (:mod:`kgbuild.belief.conflicts`). Between snapshot A and
snapshot B a fact is

- *added* (a triple of B only) or *removed* (of A only),
- *changed*: in both, with another support,
- *belief moved*: in both, with another belief (new papers, a negating paper, a retraction),
- *status changed*: in both, with another status — "asserted → contested" is the line a
  reader of a yearly refresh most needs to see;

and the papers retracted since A (PubMed's "Retracted Publication", recorded by a PubMed
build: :mod:`kgbuild.store.retractions`), with the facts no other paper now asserts.

A fact may be in several categories; each category is listed by how much it changed — the
largest support delta, the largest belief move, a flip into ``contested`` first — because the
fact that gained 40 PMIDs says more about a year than the thousand that gained one.

One DuckDB statement over the two snapshots' beliefs (``belief_of``): the full outer join, the
deltas, the per-category counts and the top rows per category are computed in SQL. Python
loops over triples would take minutes on a real KG.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgbuild.errors import InputError, StoreError
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: The categories, in the order they are shown.
CHANGES = ("added", "removed", "changed", "belief_moved", "status_changed")

#: Order of a status change: into contested first, then out of it, then the rest.
_FLIP_RANK = """CASE WHEN status_after = 'contested' THEN 0 WHEN status_before = 'contested'
                     THEN 1 ELSE 2 END"""

_DIFF_SQL = f"""
WITH ca AS (SELECT DISTINCT unnest(triples_a || triples_b) AS triple_id FROM conflicts_at($a)),
cb AS (SELECT DISTINCT unnest(triples_a || triples_b) AS triple_id FROM conflicts_at($b)),
-- a fact the conflicts view lists is 'contested' whatever its own evidence
ba AS (SELECT b.* REPLACE (CASE WHEN c.triple_id IS NOT NULL THEN 'contested'
                                ELSE b.status END AS status)
       FROM belief_of($a) b LEFT JOIN ca c USING (triple_id)),
bb AS (SELECT b.* REPLACE (CASE WHEN c.triple_id IS NOT NULL THEN 'contested'
                                ELSE b.status END AS status)
       FROM belief_of($b) b LEFT JOIN cb c USING (triple_id)),
facts AS (
    SELECT CASE WHEN ba.triple_id IS NULL THEN 'added'
                WHEN bb.triple_id IS NULL THEN 'removed' ELSE 'both' END AS side,
           coalesce(bb.head_id, ba.head_id) AS head_id,
           coalesce(bb.head_name, ba.head_name) AS head,
           coalesce(bb.relation, ba.relation) AS relation,
           coalesce(bb.tail_id, ba.tail_id) AS tail_id,
           coalesce(bb.tail_name, ba.tail_name) AS tail,
           ba.pmids_asserted AS support_before, bb.pmids_asserted AS support_after,
           ba.belief AS belief_before, bb.belief AS belief_after,
           ba.status AS status_before, bb.status AS status_after
    FROM ba FULL OUTER JOIN bb ON bb.triple_id = ba.triple_id),
moved AS (
    SELECT *, coalesce(support_after, 0) - coalesce(support_before, 0) AS delta,
           round(coalesce(belief_after, 0) - coalesce(belief_before, 0), 4) AS belief_delta
    FROM facts),
cats AS (
    SELECT side AS change, *, abs(delta)::DOUBLE AS size, 2 AS rank FROM moved
    WHERE side <> 'both'
    UNION ALL SELECT 'changed', *, abs(delta), 2 FROM moved
    WHERE side = 'both' AND support_before <> support_after
    UNION ALL SELECT 'belief_moved', *, abs(belief_delta), 2 FROM moved
    WHERE side = 'both' AND belief_delta <> 0
    UNION ALL SELECT 'status_changed', *, abs(delta), {_FLIP_RANK} FROM moved
    WHERE side = 'both' AND status_before <> status_after),
top AS (
    SELECT *, count(*) OVER (PARTITION BY change) AS n FROM cats
    QUALIFY row_number() OVER (
        PARTITION BY change
        ORDER BY rank, size DESC, support_after DESC NULLS LAST, head_id, relation, tail_id
    ) <= greatest($limit, 1))
SELECT change, n, head_id, head, relation, tail_id, tail, support_before, support_after, delta,
       belief_before, belief_after, belief_delta, status_before, status_after
FROM top
ORDER BY change, rank, size DESC, support_after DESC NULLS LAST, head_id, relation, tail_id
"""


#: Papers the newer snapshot records as retracted and the older does not: title, how the
#: retraction was found, and the triples no other paper now asserts (``retracted_at``).
_RETRACTED_SQL = """
SELECT r.pmid, r.publication_year, r.title, r.checked_year, r.source,
       r.n_triples_asserted, r.n_triples_unserved
FROM retracted_at($b) r SEMI JOIN retractions_diff($a, $b) d
  ON d.pmid = r.pmid AND d.change = 'added'
ORDER BY r.n_triples_unserved DESC, length(r.pmid), r.pmid
"""


@dataclass(slots=True)
class FactChange:
    """One fact that is new, gone, or whose support moved (``None``: absent on that side)."""

    head_id: str
    head: str | None
    relation: str
    tail_id: str
    tail: str | None
    support_before: int | None
    support_after: int | None
    delta: int
    belief_before: float | None = None
    belief_after: float | None = None
    belief_delta: float = 0.0
    status_before: str | None = None
    status_after: str | None = None


@dataclass(slots=True)
class SnapshotDiff:
    """Counts per category and, per category, the ``limit`` facts that changed the most;
    ``retracted``: papers newly marked retracted in the newer snapshot."""

    kg: str
    before: str
    after: str
    before_year: int
    after_year: int
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHANGES, 0))
    facts: dict[str, list[FactChange]] = field(default_factory=lambda: {c: [] for c in CHANGES})
    retracted: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: ``added``/``removed``/``changed``/``belief_moved``/
        ``status_changed`` are counts, ``facts`` the listed rows per category."""
        return {
            "kg": self.kg,
            "from": self.before,
            "to": self.after,
            "from_year": self.before_year,
            "to_year": self.after_year,
            **self.counts,
            "facts": {c: [asdict(f) for f in rows] for c, rows in self.facts.items()},
            "retracted": self.retracted,
        }


def diff_snapshots(wh: Warehouse, before: str, after: str, limit: int = 10) -> SnapshotDiff:
    """The facts added, removed, with changed support, belief or status from snapshot id
    ``before`` to ``after`` (both of one KG: comparing two KGs' snapshots would list every
    fact of both as new and gone, which says nothing), at most ``limit`` per category,
    largest change first."""
    if limit < 0:
        raise InputError("--limit must be 0 or more", limit=limit)
    with catalog.connect(wh.catalog_path, read_only=True) as con:  # one connection: each costs
        info = {
            sid: (kg, year)
            for sid, kg, year in con.execute(
                "SELECT snapshot_id, kg, as_of_year FROM snapshots WHERE snapshot_id IN (?, ?)",
                [before, after],
            ).fetchall()
        }
        (kg_a, year_a), (kg_b, year_b) = info[before], info[after]
        if kg_a != kg_b:
            raise StoreError(
                f"diff compares two snapshots of one KG; {before[:10]} is of {kg_a} and "
                f"{after[:10]} of {kg_b}"
            )
        rows = con.execute(_DIFF_SQL, {"a": before, "b": after, "limit": limit}).fetchall()
        # papers retracted since ``before``, with what they had supported
        cur = con.execute(_RETRACTED_SQL, {"a": before, "b": after})
        cols = [c[0] for c in cur.description]
        retracted = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    result = SnapshotDiff(kg_a, before, after, year_a, year_b, retracted=retracted)
    for change, n, *fact in rows:
        result.counts[change] = n
        if len(result.facts[change]) < limit:
            result.facts[change].append(FactChange(*fact))
    return result
