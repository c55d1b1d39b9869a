"""The numbers behind the report of one snapshot, read from the warehouse (no drawing here).

Per year (the snapshot's lineage, one manifest per year, counts cumulative through the year):
DALK Table 1 (#corpus, #nodes, #relations, #triples, #evidence — the left axis of DALK
Figure 3), document statuses, extraction statuses and LLM calls/tokens/cost, each also as what
the year added. For the snapshot itself: the relation mix (Hetionet relations vs. open
predicates, by the year a triple was first seen), node kinds, problems, rejected claims,
failed extractions, support and confidence distributions, the best-connected nodes and the
quality figures of ``kgbuild quality`` (:mod:`kgbuild.report.quality`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kgbuild.report.growth import year_rows
from kgbuild.report.quality import snapshot_quality
from kgbuild.schema import hetionet_relation_names
from kgbuild.store.snapshots import Warehouse

#: Nodes listed as hubs (most triples).
TOP_HUBS = 15
#: Rows listed in the reason tables (problems, rejections, failures).
TOP_REASONS = 12
#: Cumulative manifest counts that are also shown as what each year added.
PER_YEAR = (
    "corpus", "duplicate", "rejected", "done", "partial", "failed", "rejected_claims",
    "llm_calls", "prompt_tokens", "completion_tokens", "cost_usd", "triples", "evidence",
)  # fmt: skip


@dataclass
class SnapshotFigures:
    """Everything the report shows about one snapshot."""

    snapshot_id: str
    kg: str
    year: int
    years: list[dict[str, Any]]
    added: list[dict[str, Any]]
    relations: list[tuple[str, bool, int]]
    relation_years: list[tuple[int, int, int]]
    kinds: list[tuple[str, int]]
    problems: list[tuple[str, int]]
    rejections: list[tuple[str, int]]
    failures: list[tuple[str, str, int]]
    support: list[tuple[str, int]]
    confidence: list[float]
    hubs: list[tuple[str, str, str, int, int]]
    quality: dict[str, Any]
    extractors: list[str] = field(default_factory=list)
    #: ``kgbuild diff`` from the previous yearly snapshot of the lineage to this one (issue
    #: 42: "what changed this year"), as its ``to_dict``; None for the first year.
    changes: dict[str, Any] | None = None
    #: Whether retractions were checked (PubMed) or cannot be (local files lack the field).
    retractions: str = ""

    @property
    def has_llm(self) -> bool:
        return any(r["llm_calls"] for r in self.years)


def _added(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, r in enumerate(rows):
        prev = rows[i - 1] if i else {}
        row = {"year": r["year"]}
        for c in PER_YEAR:
            delta = r[c] - prev.get(c, 0)
            row[c] = round(delta, 6) if isinstance(delta, float) else delta
        out.append(row)
    return out


def _support_buckets(wh: Warehouse, sid: str) -> list[tuple[str, int]]:
    rows = wh.query(
        "SELECT CASE WHEN support >= 10 THEN 10 ELSE support END AS s, count(*) "
        "FROM kg_edges_at(?) GROUP BY 1 ORDER BY 1",
        [sid],
    )
    return [("10+" if s == 10 else str(s), n) for s, n in rows]


def snapshot_figures(wh: Warehouse, sid: str) -> SnapshotFigures:
    """:func:`_snapshot_figures` on one catalog connection (its queries would otherwise open one
    each: :meth:`~kgbuild.store.snapshots.Warehouse.reader`)."""
    with wh.reader():
        return _snapshot_figures(wh, sid)


def _snapshot_figures(wh: Warehouse, sid: str) -> SnapshotFigures:
    """Gather the report's figures for snapshot ``sid`` (a handful of aggregate queries)."""
    manifest = wh.manifest(sid)
    years = year_rows(wh, sid)
    hetionet = hetionet_relation_names()
    relations = [
        (rel, rel.lower() in hetionet, n)
        for rel, n in wh.query(
            "SELECT relation, count(*) FROM triples_at(?) GROUP BY 1 ORDER BY 2 DESC, 1", [sid]
        )
    ]
    relation_years = [
        (y, int(h or 0), int(o or 0))
        for y, h, o in wh.query(
            "SELECT first_year, count(*) FILTER (WHERE list_contains(?, lower(relation))), "
            "count(*) FILTER (WHERE NOT list_contains(?, lower(relation))) "
            "FROM kg_edges_at(?) WHERE first_year IS NOT NULL GROUP BY 1 ORDER BY 1",
            [sorted(hetionet), sorted(hetionet), sid],
        )
    ]
    kinds = wh.query(
        "WITH ends AS (SELECT head_id AS id FROM triples_at(?) UNION SELECT tail_id "
        "FROM triples_at(?)) SELECT coalesce(nullif(e.type, ''), 'unlinked (free text)'), "
        "count(*) FROM ends LEFT JOIN entities_at(?) e USING (id) GROUP BY 1 ORDER BY 2 DESC, 1",
        [sid] * 3,
    )
    hubs = wh.query(
        "WITH ends AS (SELECT head_id AS id, tail_id AS other FROM triples_at(?) UNION ALL "
        "SELECT tail_id, head_id FROM triples_at(?)) SELECT id, coalesce(e.display_name, id), "
        "coalesce(nullif(e.type, ''), 'unlinked'), count(*) AS triples, count(DISTINCT other) "
        "FROM ends LEFT JOIN entity_names_at(?) e USING (id) GROUP BY ALL "
        "ORDER BY triples DESC, id LIMIT ?",
        [sid, sid, sid, TOP_HUBS],
    )
    return SnapshotFigures(
        snapshot_id=sid,
        kg=manifest["kg"],
        year=manifest["as_of_year"],
        years=years,
        added=_added(years),
        relations=relations,
        relation_years=relation_years,
        kinds=[(k, n) for k, n in kinds],
        problems=wh.query(
            "SELECT kind, count(*) FROM problems_at(?) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?",
            [sid, TOP_REASONS],
        ),
        rejections=wh.query(
            "SELECT reason, count(*) FROM rejections_at(?) GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ?",
            [sid, TOP_REASONS],
        ),
        failures=wh.query(
            "SELECT status, reason, count(*) FROM extraction_status_at(?) WHERE status <> 'done' "
            "GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT ?",
            [sid, TOP_REASONS],
        ),
        support=_support_buckets(wh, sid),
        confidence=[
            r[0]
            for r in wh.query(
                "SELECT confidence FROM kg_edges_at(?) WHERE confidence IS NOT NULL "
                "ORDER BY triple_id",
                [sid],
            )
        ],
        hubs=hubs,
        quality=snapshot_quality(wh, sid),
        extractors=sorted({str(manifest["config"].get("extractor") or "")} - {""}),
        changes=_changes(wh, sid, years),
        retractions=str(
            manifest["config"].get("retractions")
            or "not recorded (snapshot built before retractions were checked)"
        ),
    )


#: Facts listed per category in the report's "what changed this year".
CHANGES_SHOWN = 5


def _changes(wh: Warehouse, sid: str, years: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The diff from the snapshot of the previous year of the lineage (None: the first)."""
    from kgbuild.store.diff import diff_snapshots

    earlier = [r["snapshot"] for r in years if r["snapshot"] != sid]
    ours = [i for i, r in enumerate(years) if r["snapshot"] == sid]
    if not ours or not ours[0] or not earlier:
        return None
    return diff_snapshots(wh, years[ours[0] - 1]["snapshot"], sid, CHANGES_SHOWN).to_dict()
