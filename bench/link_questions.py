"""Question linking accuracy: does each mention of a question link where it should?

    python bench/link_questions.py [--warehouse ./warehouse] [--snapshot latest]
        [--cases bench/link_questions.tsv] [--misses]

Reads an existing warehouse and never writes to it (the query index goes to a temporary
folder). For each case (question, mention, expected IDs or ``unlinked``, kind) the question is
linked by the dictionary linker ``kgbuild ask`` uses (:meth:`kgbuild.link.linker.Linker.dictionary`,
no embedding) and the link covering the mention's first occurrence is compared with the
expectation: an expected ID, or no node at all for ``unlinked``. ``top1`` is the share right,
overall and per kind; ``p50_ms`` the median time to link one question. The last line is one
JSON object of the figures.
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import timed
from bench.search_names import case_fields, run_cases
from kgbuild.link.linker import Linker

CASES = Path(__file__).with_name("link_questions.tsv")


def read_cases(path: Path) -> list[tuple[str, str, frozenset[str], str]]:
    """(question, mention, expected, kind) rows of a cases file."""
    return [
        (q, m, frozenset(e.split("|")), kind) for q, m, e, kind in case_fields(path, "question\t")
    ]


def linked_at(linker: Linker, question: str, mention: str) -> str | None:
    """The ID linked over the mention's first occurrence (None: nothing linked there)."""
    a = question.index(mention)
    b = a + len(mention)
    links, _ = linker.dictionary(question, "question")
    for x in links:
        if x.curie and x.start < b and a < x.end:
            return x.curie
    return None


def score(idx, cases, show_misses: bool = False) -> dict:
    """The figures of the module docstring."""
    linker = Linker(idx)
    per_kind: dict[str, list[bool]] = defaultdict(list)
    times = []
    for q, mention, expected, kind in cases:
        s, got = timed(linked_at, linker, q, mention)
        times.append(s * 1000)
        ok = (got or "unlinked") in expected
        per_kind[kind].append(ok)
        if show_misses and not ok:
            print(f"miss {q!r} [{mention}]: got {got}; want {sorted(expected)}")
    rows = [g for gs in per_kind.values() for g in gs]
    out: dict = {"cases": len(rows), "top1": round(sum(rows) / len(rows), 3)}
    for kind, gs in sorted(per_kind.items()):
        out[f"{kind}_n"] = len(gs)
        out[f"{kind}_top1"] = round(sum(gs) / len(gs), 3)
    out["p50_ms"] = round(statistics.median(times), 3)
    return out


def main() -> None:
    run_cases(__doc__.splitlines()[0], CASES, read_cases, score, "link-questions-")


if __name__ == "__main__":
    main()
