"""The conflicts of a snapshot as records: cited rows, conflicts, the report, and their fetch.

:func:`fetch_conflicts` runs :func:`~kgbuild.belief.conflicts.conflicts_sql` on an open
catalog connection and turns its rows into :class:`Conflict` records (each side's cited
sentences as :class:`CitedRow`), in :data:`~kgbuild.belief.conflicts.ORDER_BY`;
:class:`ConflictReport` is what ``kgbuild conflicts`` prints (its ``--json`` object).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb

from kgbuild.belief.conflicts import KINDS, ORDER_BY, conflicts_sql
from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS, ConflictFilters
from kgbuild.errors import InputError


@dataclass(slots=True)
class CitedRow:
    """One cited sentence of a side: the paper (``pmid``, ``year``), the ``sentence`` as the
    abstract has it, the two mentions it was read on (``subject_text``, ``object_text``) and
    what the claim reader read (``template``, ``polarity``)."""

    pmid: str
    year: int | None
    sentence: str
    subject_text: str
    object_text: str
    template: str
    polarity: str


@dataclass(slots=True)
class Conflict:
    """An oriented pair the literature disagrees on: ``head`` is the claims' subject, ``tail``
    their object (``*_variant``: a variant marker of the mention, "4" of APOE4; '' none). Side
    A: the claims of an effect or association (``negated``) or the "raises" side
    (``opposite_direction``); side B: the denials, or the "lowers" side. ``polarities_*`` and
    ``templates_*``: what the claim reader read on each side. ``n_a``/``n_b``: distinct PMIDs
    per side; ``rows_a``/``rows_b``: sentences read; ``year_appeared``: the first year both
    sides had a paper (the later of the two first years); ``triples_a``/``triples_b``: the KG
    triples joining the pair (either orientation) cited by a paper of that side — what
    retrieval and the belief mark contested (may be empty: the sentences are read whatever
    the extractor made of them)."""

    kind: str
    head_id: str
    head_name: str | None
    head_variant: str
    head_measure: str
    tail_id: str
    tail_name: str | None
    tail_variant: str
    tail_measure: str
    polarities_a: list[str]
    polarities_b: list[str]
    templates_a: list[str]
    templates_b: list[str]
    n_a: int
    n_b: int
    rows_a: int
    rows_b: int
    first_year_a: int
    first_year_b: int
    year_appeared: int
    triples_a: list[str]
    triples_b: list[str]
    evidence_a: list[CitedRow]
    evidence_b: list[CitedRow]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Conflict:
        row = dict(row)
        for side in ("evidence_a", "evidence_b"):
            row[side] = [CitedRow(**e) for e in row[side] or []]
        return cls(**row)


@dataclass(slots=True)
class ConflictReport:
    """Counts per kind and the listed conflicts (at most ``limit``, :data:`ORDER_BY`)."""

    kg: str
    snapshot_id: str
    as_of_year: int
    kind: str | None
    limit: int
    filters: ConflictFilters
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    conflicts: list[Conflict] = field(default_factory=list)
    #: Another reader's name and what its reading cost (the LLM reader's
    #: :class:`~kgbuild.belief.claims_llm.ReadStats`); None: the template reader.
    reading: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object: every listed conflict with both sides' cited rows."""
        extra = {} if self.reading is None else {"reading": dict(self.reading)}
        return {
            **extra,
            "kg": self.kg,
            "snapshot": self.snapshot_id,
            "as_of_year": self.as_of_year,
            "kind": self.kind,
            "limit": self.limit,
            "filters": self.filters.to_dict(),
            "counts": dict(self.counts),
            "conflicts": [asdict(c) for c in self.conflicts],
        }


def fetch_conflicts(
    con: duckdb.DuckDBPyConnection,
    snapshot_id: str,
    kind: str | None = None,
    limit: int | None = None,
    filters: ConflictFilters = DEFAULT_FILTERS,
    claims: str | None = None,
) -> tuple[dict[str, int], list[Conflict]]:
    """(count per kind, the conflicts of ``kind`` — every kind when None — in
    :data:`ORDER_BY`, at most ``limit``) of a snapshot, on an open catalog connection.
    ``claims``: another reader's claims (:func:`conflicts_sql`)."""
    if kind is not None and kind not in KINDS:
        raise InputError(f"--kind must be one of {', '.join(KINDS)}", kind=kind)
    sql = conflicts_sql("$sid", filters, claims)
    con.execute(f"CREATE OR REPLACE TEMP TABLE _conflicts AS {sql}", {"sid": snapshot_id})
    try:
        counts = dict.fromkeys(KINDS, 0)
        for k, n in con.execute("SELECT kind, count(*) FROM _conflicts GROUP BY 1").fetchall():
            counts[k] = n
        cur = con.execute(
            f"SELECT * EXCLUDE (rank) FROM (SELECT *, row_number() OVER (ORDER BY {ORDER_BY}) "
            "AS rank FROM _conflicts WHERE $kind IS NULL OR kind = $kind) "
            "WHERE $limit IS NULL OR rank <= $limit ORDER BY rank",
            {"kind": kind, "limit": limit},
        )
        cols = [d[0] for d in cur.description]
        rows = [Conflict.from_row(dict(zip(cols, r, strict=True))) for r in cur.fetchall()]
    finally:
        con.execute("DROP TABLE IF EXISTS _conflicts")
    return counts, rows


__all__ = ["CitedRow", "Conflict", "ConflictReport", "fetch_conflicts"]
