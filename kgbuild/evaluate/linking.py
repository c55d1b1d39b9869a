"""Question linking against curated gold: does a term a researcher types link to the concept the
curators gave it, and does text that names nothing stay unlinked?

Why: a linking rule tuned on a handful of questions is a hypothesis; BioRED (Luo et al. 2022,
*Brief. Bioinform.* 23:bbac282) and BioCreative V CDR (Li et al. 2016, *Database*
baw068) give every entity mention of their abstracts a curated ID. Three measures, each over
the dictionary linker ``kgbuild ask`` uses (:meth:`kgbuild.link.linker.Linker.dictionary`, no
embedding), on one snapshot's index:

- ``surface``: each distinct gold surface (gene, disease, chemical) asked as "what is known
  about SURFACE?"; the link over the surface is **right** (a gold ID), **wrong** (another node)
  or absent: a **miss** when a gold ID is a node of the snapshot, else correctly unlinked;
- ``misspelt``: the same for surfaces whose gold ID is a node, with two letters of their longest
  word (≥ :data:`MISSPELL_MIN_CHARS`) swapped — the typing slip a spelling link should repair;
- ``title``: each gold title linked as a question; a link over no gold mention of the types the
  corpus annotates is **spurious** (generic words: "diseases share", "tracers"), one over a gold
  mention with another ID **wrong**.

Precision = right / (right + wrong [+ spurious]); recall = right / gold IDs that are nodes.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgbuild.evaluate.gold import read_gold_corpus

if TYPE_CHECKING:
    from kgbuild.link.linker import Link, Linker

#: Gold dev splits read by default (train/dev only: test splits stay unseen), and the kinds of
#: mention each annotates (BC5CDR: chemicals and diseases only).
GOLD = {
    "biored_dev": ("biored/Dev.PubTator", ("Gene", "Disease", "Compound")),
    "bc5cdr_dev": ("bc5cdr/CDR_DevelopmentSet.PubTator.txt", ("Disease", "Compound")),
}
#: Shortest word (letters) given a swapped-letter misspelling.
MISSPELL_MIN_CHARS = 7
_FRAME = "what is known about {}?"


def misspell(surface: str) -> str | None:
    """The surface with the 3rd and 4th letters of its longest alphabetic word swapped
    ("donepezil" → "donpeezil"), or None (no word long enough, or the swap changes nothing)."""
    words = [w for w in surface.split() if w.isalpha()]
    if not words:
        return None
    w = max(words, key=len)
    if len(w) < MISSPELL_MIN_CHARS or w[2] == w[3]:
        return None
    return surface.replace(w, w[:2] + w[3] + w[2] + w[4:], 1)


def _over(links: Iterable[Link], a: int, b: int) -> list[Link]:
    return [x for x in links if x.curie and x.start < b and a < x.end]


def judge(linker: Linker, surface: str, gold: frozenset[str], in_kg: bool) -> tuple[str, str]:
    """``right``, ``wrong``, ``miss`` or ``unlinked`` (correctly: no gold ID is a node), and
    the CURIEs linked over the surface."""
    q = _FRAME.format(surface)
    a = q.index(surface)
    links, _ = linker.dictionary(q, "question")
    got = _over(links, a, a + len(surface))
    shown = "|".join(str(x.curie) for x in got)
    if any(x.curie in gold for x in got):
        return "right", shown
    if got:
        return "wrong", shown
    return ("miss" if in_kg else "unlinked"), shown


def _figures(c: Counter, spurious: bool = False) -> dict[str, Any]:
    bad = c["wrong"] + (c["spurious"] if spurious else 0)
    p = c["right"] / (c["right"] + bad) if c["right"] + bad else 0.0
    gold_in_kg = c["right"] + c["miss"] + (c["wrong_in_kg"] if not spurious else 0)
    r = c["right"] / gold_in_kg if gold_in_kg else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    kinds = ("right", "wrong", "miss") + (
        ("spurious",) if spurious else ("unlinked", "wrong_in_kg")
    )
    counts = {k: c[k] for k in kinds} | dict(c)
    return counts | {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def evaluate(linker: Linker, node_ids: set[str], data: Path, corpora: Iterable[str] = tuple(GOLD),
             cases: list[tuple[str, ...]] | None = None) -> dict[str, Any]:  # fmt: skip
    """The figures of the module docstring per corpus (``<corpus>/<measure>``), with the cases
    each counts; ``wrong_in_kg`` counts the wrong links whose gold ID is a node (a lost link).
    ``cases`` (when given) receives one (measure, text, verdict, linked IDs) row per case, to
    compare two runs case by case."""
    out: dict[str, Any] = {}
    rows = cases if cases is not None else []
    for name in corpora:
        rel, kinds = GOLD[name]
        g = read_gold_corpus(data / rel)
        surfaces: dict[str, set[str]] = {}
        for ms in g.mentions.values():
            for m in ms:
                if m.hetionet_type in kinds and m.concept_id:
                    surfaces.setdefault(m.text, set()).update(m.concept_ids or [m.concept_id])
        for measure in ("surface", "misspelt"):
            c: Counter = Counter()
            for s, ids in sorted(surfaces.items()):
                gold = frozenset(ids)
                in_kg = bool(gold & node_ids)
                q = s if measure == "surface" else misspell(s)
                if q is None or (measure == "misspelt" and not in_kg):
                    continue
                verdict, shown = judge(linker, q, gold, in_kg)
                rows.append((f"{name}/{measure}", q, verdict, shown))
                c[verdict] += 1
                c["wrong_in_kg"] += verdict == "wrong" and in_kg
            out[f"{name}/{measure}"] = _figures(c)
        c = Counter()
        for d in g.documents:
            links, _ = linker.dictionary(d.title, "question")
            gold_ms = [m for m in g.mentions.get(d.pmid, []) if m.end <= len(d.title)]
            for m in gold_ms:
                if m.hetionet_type in kinds and set(m.concept_ids or [m.concept_id]) & node_ids:
                    c["gold_in_kg"] += 1
            for x in links:
                if x.curie is None:
                    continue
                over = [m for m in gold_ms if m.start < x.end and x.start < m.end]
                if any(x.curie in (m.concept_ids or [m.concept_id]) for m in over):
                    verdict = "right"
                elif over:
                    verdict = "wrong"
                elif linker.index.nodes["type"][x.node] in kinds:
                    verdict = "spurious"
                else:
                    continue
                c[verdict] += 1
                rows.append((f"{name}/title", f"{d.pmid}:{x.surface}", verdict, str(x.curie)))
        c["miss"] = max(c.pop("gold_in_kg", 0) - c["right"], 0)
        out[f"{name}/title"] = _figures(c, spurious=True)
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m kgbuild.evaluate.linking --warehouse WH`` prints one JSON object."""
    from kgbuild.link.linker import Linker
    from kgbuild.search.index import open_index
    from kgbuild.store.snapshots import Warehouse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", type=Path, default=Path("warehouse"))
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--cases", type=Path, help="write each case's verdict here (TSV)")
    a = ap.parse_args(argv)
    wh = Warehouse(a.warehouse)
    idx = open_index(wh, wh.resolve(a.snapshot))
    rows: list[tuple[str, ...]] = []
    figures = evaluate(Linker(idx), set(idx.nodes["id"]), a.data, cases=rows)
    if a.cases:
        a.cases.write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    print(json.dumps(figures | {"snapshot": idx.snapshot_id}, sort_keys=True))


if __name__ == "__main__":
    main()
