"""What changed between two snapshots of one KG, fact by fact (``kgbuild diff``).

A fact is a triple (head, relation, tail); its support is the number of distinct PMIDs of its
served evidence (what ``kg_edges`` counts). Between snapshot A and snapshot B a fact is
*added* (a triple of B only), *removed* (of A only) or *changed* (in both, with another
support). Each category is listed by how much it changed — the largest support delta first —
because the fact that gained 40 PMIDs says more about a year than the thousand that gained one.

One DuckDB statement over the two snapshots' Parquet parts: the full outer join, the deltas,
the per-category counts and the top rows per category are computed in SQL, and only the rows
shown are named (display name from the snapshot's entities, the older snapshot's for a fact
whose nodes are gone). Python loops over triples would take minutes on a real KG.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from kgbuild.errors import InputError, StoreError
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

#: The categories, in the order they are shown.
CHANGES = ("added", "removed", "changed")

#: The node name shown: ``entities.display_name`` (issue 41) where the snapshot has that
#: column, else ``name`` (older snapshots). ``UNION ALL BY NAME`` with an empty row set gives
#: an older snapshot the column, NULL.
_NAMES = """
    SELECT id, coalesce(nullif(display_name, ''), name) AS name FROM (
        SELECT * FROM entities_at({sid}) UNION ALL BY NAME
        SELECT NULL::VARCHAR AS display_name WHERE false)
"""

_DIFF_SQL = f"""
WITH ta AS (SELECT triple_id, head_id, relation, tail_id FROM triples_at($a)),
tb AS (SELECT triple_id, head_id, relation, tail_id FROM triples_at($b)),
sa AS (SELECT triple_id, count(DISTINCT pmid) AS support FROM served_evidence_at($a)
       GROUP BY triple_id),
sb AS (SELECT triple_id, count(DISTINCT pmid) AS support FROM served_evidence_at($b)
       GROUP BY triple_id),
facts AS (
    SELECT CASE WHEN ta.triple_id IS NULL THEN 'added'
                WHEN tb.triple_id IS NULL THEN 'removed' ELSE 'changed' END AS change,
           coalesce(tb.head_id, ta.head_id) AS head_id,
           coalesce(tb.relation, ta.relation) AS relation,
           coalesce(tb.tail_id, ta.tail_id) AS tail_id,
           CASE WHEN ta.triple_id IS NOT NULL THEN coalesce(sa.support, 0) END AS support_before,
           CASE WHEN tb.triple_id IS NOT NULL THEN coalesce(sb.support, 0) END AS support_after
    FROM ta FULL OUTER JOIN tb ON tb.triple_id = ta.triple_id
    LEFT JOIN sa ON sa.triple_id = ta.triple_id
    LEFT JOIN sb ON sb.triple_id = tb.triple_id),
moved AS (
    SELECT *, coalesce(support_after, 0) - coalesce(support_before, 0) AS delta FROM facts
    WHERE change <> 'changed' OR support_before <> support_after),
top AS (
    SELECT *, count(*) OVER (PARTITION BY change) AS n FROM moved
    QUALIFY row_number() OVER (
        PARTITION BY change
        ORDER BY abs(delta) DESC, support_after DESC NULLS LAST, head_id, relation, tail_id
    ) <= greatest($limit, 1)),
na AS ({_NAMES.format(sid="$a")}),
nb AS ({_NAMES.format(sid="$b")})
SELECT t.change, t.n, t.head_id, coalesce(hb.name, ha.name) AS head, t.relation, t.tail_id,
       coalesce(xb.name, xa.name) AS tail, t.support_before, t.support_after, t.delta
FROM top t
LEFT JOIN nb hb ON hb.id = t.head_id LEFT JOIN na ha ON ha.id = t.head_id
LEFT JOIN nb xb ON xb.id = t.tail_id LEFT JOIN na xa ON xa.id = t.tail_id
ORDER BY t.change, abs(t.delta) DESC, t.support_after DESC NULLS LAST, t.head_id, t.relation,
         t.tail_id
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


@dataclass(slots=True)
class SnapshotDiff:
    """Counts per category and, per category, the ``limit`` facts that changed the most."""

    kg: str
    before: str
    after: str
    before_year: int
    after_year: int
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHANGES, 0))
    facts: dict[str, list[FactChange]] = field(default_factory=lambda: {c: [] for c in CHANGES})

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: ``added``/``removed``/``changed`` are counts (as before issue
        41), ``facts`` the listed rows per category."""
        return {
            "kg": self.kg,
            "from": self.before,
            "to": self.after,
            "from_year": self.before_year,
            "to_year": self.after_year,
            **self.counts,
            "facts": {c: [asdict(f) for f in rows] for c, rows in self.facts.items()},
        }


def diff_snapshots(wh: Warehouse, before: str, after: str, limit: int = 10) -> SnapshotDiff:
    """The facts added, removed and with changed support from snapshot id ``before`` to
    ``after`` (both of one KG: comparing two KGs' snapshots would list every fact of both as
    new and gone, which says nothing), at most ``limit`` per category, largest change first."""
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
    result = SnapshotDiff(kg_a, before, after, year_a, year_b)
    for change, n, *fact in rows:
        result.counts[change] = n
        if len(result.facts[change]) < limit:
            result.facts[change].append(FactChange(*fact))
    return result
