"""``list_conflicts``: a snapshot's conflicts as a report (``kgbuild conflicts``).

Apart from :mod:`kgbuild.belief.conflicts` because it opens the catalog, and the catalog
imports that module for its views (one import direction only)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgbuild.belief.conflict_report import ConflictReport, fetch_conflicts
from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS, ConflictFilters
from kgbuild.errors import InputError, StoreError
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

if TYPE_CHECKING:
    from kgbuild.llm.client import LLMClient


def list_conflicts(
    wh: Warehouse,
    snapshot_id: str,
    kind: str | None = None,
    limit: int = 20,
    filters: ConflictFilters = DEFAULT_FILTERS,
    client: LLMClient | None = None,
) -> ConflictReport:
    """The conflicts of snapshot id ``snapshot_id`` (``kind``: one kind only), the ``limit``
    most cited, with the count of each kind (``kgbuild conflicts``). ``client``: read the
    sentences with that LLM (:mod:`kgbuild.belief.claims_llm`), not the templates; the
    report's ``reading`` says what it cost."""
    if limit < 0:
        raise InputError("--limit must be 0 or more", limit=limit)
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        info = con.execute(
            "SELECT kg, as_of_year FROM snapshots WHERE snapshot_id = ?", [snapshot_id]
        ).fetchone()
    if info is None:
        raise StoreError("unknown snapshot", snapshot=snapshot_id)
    llm, reading = None, None
    if client is not None:  # before the catalog is opened again: no connection held meanwhile
        from kgbuild.reader.claims_snapshot import read_snapshot

        llm = read_snapshot(wh.catalog_path, snapshot_id, filters, client)
        reading = {"reader": "llm", "model": client.settings.model, **llm.stats.to_dict()}
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        claims = None
        if llm is not None:
            from kgbuild.belief.claims_llm import claims_of

            claims = claims_of(con, llm, filters)
        counts, rows = fetch_conflicts(con, snapshot_id, kind, limit, filters, claims)
    return ConflictReport(
        info[0], snapshot_id, info[1], kind, limit, filters, counts, rows, reading
    )
