"""How well the corpus's acronym definitions name what the curators tagged the acronym as
(:mod:`kgbuild.corpus.acronyms`).

BioRED and BC5CDR tag an abbreviation with its long form's concept wherever it is written
("mild cognitive impairment (MCI)" … "MCI"). For every acronym the gold file tags (a gold
mention whose whole text is an acronym), the gold concept is the one most of its mentions
carry; the reading asks the gold file's hidden build (``kgbuild eval facts``'s: the same
documents and mentions, relation lines hidden) what the abstracts define it as. Figures: the
acronyms, those the reading defines (coverage), and those defined as the gold concept
(precision over the defined, recall over all), with the wrong ones listed.

    python -m kgbuild.evaluate.acronyms --gold ../shared/data/biored/Dev.PubTator \
        --warehouse WH   # a hidden build, e.g. bench/answer_kinds.py's --work/biored_dev
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.corpus.acronyms import ACRONYM, defined_as
from kgbuild.evaluate.facts import on_hidden_build
from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.store.snapshots import Warehouse


def gold_acronyms(path: Path) -> dict[str, str]:
    """Acronym → the concept most of its gold mentions carry."""
    seen: dict[str, Counter[str]] = defaultdict(Counter)
    for ms in read_gold_corpus(path).mentions.values():
        for m in ms:
            got = ACRONYM.fullmatch(m.text or "")
            if got and m.concept_id:
                seen[got.group(1)][m.concept_id] += 1
    return {a: c.most_common(1)[0][0] for a, c in sorted(seen.items())}


def measure(gold: Path, warehouse: Path) -> dict[str, Any]:
    wh = Warehouse(warehouse)
    sid = wh.pinned("latest")[1]
    truth = gold_acronyms(gold)
    defined, right, wrong = 0, 0, []
    for short, concept in truth.items():
        got = defined_as(wh, sid, short)
        if got is None:
            continue
        defined += 1
        if got == concept:
            right += 1
        else:
            wrong.append({"acronym": short, "gold": concept, "read": got})
    n = max(len(truth), 1)
    return {"gold": gold.name, "acronyms": len(truth), "defined": defined, "right": right,
            "precision": round(right / max(defined, 1), 3), "recall": round(right / n, 3),
            "wrong": wrong}  # fmt: skip


def main() -> None:
    on_hidden_build(__doc__, measure)


if __name__ == "__main__":
    main()
