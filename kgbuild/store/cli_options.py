"""Options every command that reads a snapshot shares (``--kg``), and what they resolve to.

Beside the store (what a snapshot reference resolves in) rather than in ``kgbuild/cli/``
because the stages' own commands (``ask``, ``serve``, ``eval adqa``, ``entities``,
``conflicts``) take ``--kg`` too and sit below ``kgbuild/cli/``, which imports them: they all
import this module and it imports none of them (the spine may not import the store, so it cannot
be a spine module). The store is imported only when a reference is resolved, so ``kgbuild ask``'s
start-up does not pay for it twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kgbuild.config import check_kg_name

#: ``--kg NAME`` on a reader: that KG's latest snapshot, or the KG a ``--snapshot YEAR`` (or an
#: id) is read in. A warehouse holding one KG needs none; one holding several needs it (or a
#: ``KG@…`` reference), because ``latest`` there would name whichever KG was built last.
KgOpt = Annotated[
    str | None,
    typer.Option(
        "--kg",
        help="KG to read: its latest snapshot, or the KG a snapshot YEAR is of "
        "[default: the warehouse's only KG]",
    ),
]


def kg_name(name: str | None) -> str | None:
    """``name`` checked as a KG name (``--kg ""`` is an error, never "no KG given")."""
    return None if name is None else check_kg_name(name)


def snapshot_ref(warehouse: Path | None, snapshot: str | None, kg: str | None) -> str:
    """The snapshot reference a reader resolves for ``--snapshot``/its argument and ``--kg``:
    ``KG@latest`` for ``--kg`` alone, ``KG@YEAR`` for ``--kg`` with a bare year, the reference
    as given without ``--kg``; one line (exit 2) when the two name different KGs. ``latest``
    for neither. Reads the catalog only to check an id against ``--kg``."""
    from kgbuild.settings import warehouse_path
    from kgbuild.store.snapshots import Warehouse

    name = kg_name(kg)
    if name is None:
        return "latest" if snapshot is None else snapshot
    return Warehouse(warehouse_path(warehouse)).require().scope(snapshot, name)
