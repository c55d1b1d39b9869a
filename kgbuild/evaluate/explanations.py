"""Questions that ask for a claim, against gold documents (:mod:`kgbuild.query.explanation`).

A proxy with known answers: each gold document's title is a claim ("Novel mutations in the
SCN5A gene cause Brugada syndrome"), so "Why <title>?" asked of the gold file's hidden build
(``kgbuild eval facts``'s: relation lines hidden) has one abstract that states it. Scored:
the share of questions whose reading shows sentences at all, whose first shown sentence is
from that abstract (hit@1) and whose shown sentences include it (hit@5). It measures whether
the question's words and entities find the abstract stating the claim, not whether a
paraphrased question would: the title's own words are asked.

    python -m kgbuild.evaluate.explanations --gold ../shared/data/biored/Dev.PubTator \
        --warehouse WH   # a hidden build, e.g. bench/answer_kinds.py's --work/biored_dev
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.evaluate.facts import on_hidden_build, open_hidden


def measure(gold_path: Path, warehouse: Path) -> dict[str, Any]:
    gold, eng, *_ = open_hidden(gold_path, warehouse)
    t: Counter[str] = Counter()
    for doc in gold.documents:
        title = (doc.title or "").strip().rstrip(".")
        if len(title.split()) < 3:
            continue
        try:
            r = eng.retrieve(f"Why {title}?", embed="off")
        except InputError:  # a title the question checks refuse: no question to ask
            t["not_linked"] += 1
            continue
        t["questions"] += 1
        shown = [x["pmid"] for x in (r.verdict or {}).get("sentences") or []]
        t["read"] += bool(shown)
        t["hit1"] += shown[:1] == [doc.pmid]
        t["hit5"] += doc.pmid in shown[:5]
    n = max(t["questions"], 1)
    return {"gold": gold_path.name, "questions": t["questions"], "not_linked": t["not_linked"],
            "read": t["read"], "hit1": round(t["hit1"] / n, 3),
            "hit5": round(t["hit5"] / n, 3)}  # fmt: skip


def main() -> None:
    on_hidden_build(__doc__, measure)


if __name__ == "__main__":
    main()
