"""Open questions about one entity ("What does X do?") against gold
(:mod:`kgbuild.query.entity_sentences`).

Such a question asks no kind and no relation; its answers are the entities the sentences
naming X name, and its ranked triples X's own facts. For every gold concept with at least
:data:`MIN_RELATIONS` relation lines that the gold file's hidden build (``kgbuild eval
facts``'s: relation lines hidden) links by its most written mention, "What does <mention>
do?" is asked. Scored against the concept's gold relation partners: the answers' precision
in the first five over those given and recall in the first ten; the share of the first ten
triples that are about X, and their partners' recall of the gold partners.

    python -m kgbuild.evaluate.open_questions --gold ../shared/data/biored/Dev.PubTator \
        --warehouse WH   # a hidden build, e.g. bench/answer_kinds.py's --work/biored_dev
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.evaluate.facts import on_hidden_build, open_hidden

#: Fewest gold relation lines of a concept for it to be asked about.
MIN_RELATIONS = 2


def measure(gold_path: Path, warehouse: Path) -> dict[str, Any]:
    gold, eng, idx, mapping, names = open_hidden(gold_path, warehouse)
    partners: dict[str, set[str]] = defaultdict(set)
    raw: dict[str, str] = {}
    for r in gold.relations:
        a, b = mapping.get(r.a, r.a), mapping.get(r.b, r.b)
        partners[a].add(b)
        partners[b].add(a)
        raw.setdefault(a, r.a)
        raw.setdefault(b, r.b)
    t: Counter[str] = Counter()
    for c, truth in sorted(partners.items()):
        if len(truth) < MIN_RELATIONS or c not in idx.node_of:
            continue
        r = eng.retrieve(f"What does {names.get(raw[c], c)} do?", embed="off")
        if not any(x.node == idx.node_of[c] for x in r.links if x.where == "question"):
            t["not_linked"] += 1
            continue
        t["questions"] += 1
        ans = [a["id"] for a in r.answers]
        t["answered"] += bool(ans)
        t["hits5"] += len(set(ans[:5]) & truth)
        t["given5"] += len(ans[:5])
        t["r10"] += len(set(ans[:10]) & truth) / len(truth)
        tops = r.to_dict()["triples"][:10]
        others = [x["tail_id"] if x["head_id"] == c else x["head_id"] if x["tail_id"] == c
                  else None for x in tops]  # fmt: skip
        t["triples"] += len(others)
        t["about"] += sum(o is not None for o in others)
        t["tr10"] += len({o for o in others if o} & truth) / len(truth)
    n = max(t["questions"], 1)
    return {"gold": gold_path.name, "questions": t["questions"], "not_linked": t["not_linked"],
            "answered": t["answered"],
            "answers_p5_given": round(t["hits5"] / max(t["given5"], 1), 3),
            "answers_recall10": round(t["r10"] / n, 3),
            "triples_about_subject": round(t["about"] / max(t["triples"], 1), 3),
            "triples_recall10": round(t["tr10"] / n, 3)}  # fmt: skip


def main() -> None:
    on_hidden_build(__doc__, measure)


if __name__ == "__main__":
    main()
