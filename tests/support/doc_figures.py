"""The figures the docs give about the DALK build: each one written once, beside the SQL that
produces it, and regenerated from a build rather than typed.

A count about the built KG typed into a page goes stale the next time extraction or resolution
changes (two pages once gave Alzheimer's disease two different neighbour counts, both from
older builds). So the figures live in one generated block of ``docs/getting-started.md``,
between :data:`MARKERS`; other pages link to it instead of repeating a number.
``tests/pipeline/test_integration_dalk.py`` checks the block against its fresh DALK build.

``python -m tests.support.doc_figures --warehouse W [--write]`` prints the block computed from
the warehouse ``W`` (a DALK build: ``kgbuild build --domain alzheimers --source
../shared/data/dalk/by_year``), or writes it into the page.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from kgbuild.store.snapshots import Warehouse

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
MARKERS = ("<!-- dalk-figures:start -->", "<!-- dalk-figures:end -->")

_HEAD = "SELECT {col} FROM snapshots WHERE snapshot_id = head_snapshot()"
AD, APOE, HOMOCYSTEINE, APP = "MESH:D000544", "NCBIGene:348", "MESH:D006710", "NCBIGene:351"

#: (figure, SQL returning one value), in the order the page lists them.
FIGURES: list[tuple[str, str]] = [
    ("input records read (`records`)", _HEAD.format(col="n_records")),
    ("abstracts built (`#corpus`)", _HEAD.format(col="n_documents")),
    (
        "records already seen in an earlier year file (`duplicate`)",
        _HEAD.format(col="n_duplicates"),
    ),
    ("records rejected (`rejected`)", _HEAD.format(col="n_rejected")),
    ("nodes in at least one triple (`#nodes`)", _HEAD.format(col="n_nodes")),
    ("triples (`#triples`)", _HEAD.format(col="n_triples")),
    ("evidence rows (`#evidence`)", _HEAD.format(col="n_evidence")),
    ("facts served (rows of `kg_edges`)", "SELECT count(*) FROM kg_edges"),
    ("problem rows (`problems`)", _HEAD.format(col="n_problems")),
    *[
        (f"problem rows of kind `{kind}`", f"SELECT count(*) FROM problems WHERE kind = '{kind}'")
        for kind in ("ortholog_id", "suspect_id", "mislinked_id", "vocabulary_mismatch")
    ],
    (
        "neighbours of Alzheimer Disease (in any triple)",
        f"SELECT degree FROM kg_nodes WHERE id = '{AD}'",
    ),
    ("neighbours of APOE (in any triple)", f"SELECT degree FROM kg_nodes WHERE id = '{APOE}'"),
    *[
        (
            f"facts {status} as of 2015",
            f"SELECT count(*) FROM belief_at(2015) WHERE status = '{status}'",
        )
        for status in ("asserted", "hedged", "negated")
    ],
    (
        "facts added from 2019 to 2020",
        "SELECT count(*) FROM triples_diff(snapshot_asof(2019), snapshot_asof(2020)) "
        "WHERE change = 'added'",
    ),
    ("pairs the `conflicts` view lists", "SELECT count(*) FROM conflicts"),
    (
        "year Homocysteine – APP became contested",
        f"SELECT year_appeared FROM conflicts WHERE head_id = '{HOMOCYSTEINE}' "
        f"AND tail_id = '{APP}'",
    ),
]


def figures(root: Path) -> list[tuple[str, str, str]]:
    """(figure, value as printed, SQL) for the warehouse at ``root``; "–" where a query finds
    nothing (a node or conflict a small KG lacks)."""
    wh = Warehouse(root)
    out = []
    for name, sql in FIGURES:
        rows = wh.query(sql)
        value = rows[0][0] if rows else None
        shown = "–" if value is None else str(value) if name.startswith("year") else f"{value:,}"
        out.append((name, shown, sql))
    return out


def render(rows: list[tuple[str, str, str]]) -> str:
    """The block between the markers: a table of figure, value and the SQL to see it."""
    lines = ['| figure | DALK build, 2020 | the SQL (`kgbuild sql "…"`) |', "|---|--:|---|"]
    lines += [f"| {name} | {value} | `{sql}` |" for name, value, sql in rows]
    return "\n".join(lines)


def page_block(page: Path = PAGE) -> str:
    """The block the page holds now (without the markers)."""
    m = re.search(
        re.escape(MARKERS[0]) + r"\n(.*?)\n" + re.escape(MARKERS[1]), page.read_text(), re.S
    )
    if not m:
        raise ValueError(f"{page} has no {MARKERS[0]} … {MARKERS[1]} block")
    return m.group(1)


def write_block(block: str, page: Path = PAGE) -> None:
    text = page.read_text()
    start, end = text.index(MARKERS[0]) + len(MARKERS[0]), text.index(MARKERS[1])
    page.write_text(text[:start] + "\n" + block + "\n" + text[end:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", type=Path, required=True, help="a DALK build's warehouse")
    ap.add_argument("--write", action="store_true", help=f"write the block into {PAGE.name}")
    args = ap.parse_args(argv)
    block = render(figures(args.warehouse))
    if args.write:
        write_block(block)
    print(block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
