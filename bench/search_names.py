"""Search and linking accuracy on names a curator types: misspellings, synonyms, symbols.

    python bench/search_names.py [--warehouse ./warehouse] [--snapshot latest]
        [--cases bench/search_names.tsv] [--misses]

Reads an existing warehouse and never writes to it (the query index goes to a temporary
folder). For each case of ``--cases`` (query, expected IDs "|"-separated, kind):

- ``top1`` / ``top5``: ``kgbuild entities QUERY`` (:func:`kgbuild.search.entities.find_entities`)
  lists an expected ID first / among its first five;
- ``linker_top1``: the dictionary linker ``kgbuild ask`` uses for named entities
  (:meth:`kgbuild.link.linker.Linker.link_names`, embedding fallback off: the dictionary's own
  answer) links the query to an expected ID first;
- per kind (misspelt, synonym, symbol, name, abbreviation) the same three shares;
- ``p50_ms``: median time of one search (the searcher built before timing).

``--misses`` prints each case that is not top-1 with what came first. The last line is one
JSON object of the figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.link.linker import Linker
from kgbuild.search.entities import find_entities
from kgbuild.search.index import open_index
from kgbuild.store.snapshots import Warehouse

CASES = Path(__file__).with_name("search_names.tsv")


def case_fields(path: Path, header: str) -> list[list[str]]:
    """The tab-separated fields of each case of a cases file (blank lines, ``#`` lines and the
    header line, which starts with ``header``, skipped)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [x.split("\t") for x in lines if x.strip() and not x.startswith(("#", header))]


def read_cases(path: Path) -> list[tuple[str, frozenset[str], str]]:
    """(query, expected IDs, kind) rows of a cases file."""
    return [(q, frozenset(e.split("|")), kind) for q, e, kind in case_fields(path, "query\t")]


def score(idx, cases, show_misses: bool = False) -> dict:
    """The figures of the module docstring."""
    linker = Linker(idx)
    per_kind: dict[str, list[tuple[bool, bool, bool]]] = defaultdict(list)
    times = []
    find_entities(idx, "warm up", limit=5)  # builds the searcher once
    for q, expected, kind in cases:
        s, found = common.timed(find_entities, idx, q, limit=5)
        times.append(s * 1000)
        hits = [h["id"] for h in found["entities"]]
        links = [x for x in linker.link_names([q], "question", embed=False) if x.curie]
        got = (bool(hits) and hits[0] in expected, bool(expected & set(hits)),
               bool(links) and links[0].curie in expected)  # fmt: skip
        per_kind[kind].append(got)
        if show_misses and not (got[0] and got[2]):
            first = hits[0] if hits else None
            name = idx.nodes["display"][idx.node_of[first]] if first else None
            print(f"miss {q!r}: search {first} ({name}); linker "
                  f"{links[0].curie if links else None}; want {sorted(expected)}")  # fmt: skip
    rows = [g for gs in per_kind.values() for g in gs]

    def share(gs, i):
        return round(sum(g[i] for g in gs) / len(gs), 3) if gs else None

    out = {"cases": len(rows), "top1": share(rows, 0), "top5": share(rows, 1),
           "linker_top1": share(rows, 2)}  # fmt: skip
    for kind, gs in sorted(per_kind.items()):
        out[f"{kind}_n"] = len(gs)
        out[f"{kind}_top1"] = share(gs, 0)
        out[f"{kind}_top5"] = share(gs, 1)
        out[f"{kind}_linker_top1"] = share(gs, 2)
    out["p50_ms"] = round(statistics.median(times), 3)
    return out


def run_cases(description: str, cases: Path, read, score_fn, prefix: str) -> None:
    """The command line of a bench that scores a case file against one snapshot's query index
    (built into a temporary folder: the warehouse is only read) and prints ONE JSON line."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--warehouse", default="warehouse")
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--cases", type=Path, default=cases)
    ap.add_argument("--misses", action="store_true")
    a = ap.parse_args()
    wh = Warehouse(Path(a.warehouse))
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        idx = open_index(wh, wh.resolve(a.snapshot), Path(tmp))
        figures = score_fn(idx, read(a.cases), a.misses)
    common.emit(figures | {"snapshot": idx.snapshot_id}, sort_keys=True, python=False)


def main() -> None:
    run_cases(__doc__.splitlines()[0], CASES, read_cases, score, "search-names-")


if __name__ == "__main__":
    main()
