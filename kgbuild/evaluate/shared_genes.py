"""Diseases sharing genes (:mod:`kgbuild.query.shared_genes`) measured against a gold file.

For each disease D the file relates to a gene, the gold answer to "Which diseases share genes
with D?" is every other disease the file relates to one of D's genes (any relation type: BioRED
annotates a risk gene as Association or Positive_Correlation; Luo et al. 2022). The KG is the
file's abstracts built with the relation lines hidden (:func:`kgbuild.evaluate.facts.build_hidden`),
so no gold line reaches it. Reported beside the answers a question asking for diseases "associated
with D" gets (one hop, then diseases named in the same abstracts: what such a question got before
two-hop answers existed). Figures: questions, answered, hit@5, P@5 (gold among the top five over
the answers there), recall@10, micro counts; and both forms again on the questions the KG's
facts reach two hops for (a hidden build of 100 abstracts has few gene–disease facts).

    python -m kgbuild.evaluate.shared_genes GOLD_FILE WAREHOUSE
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from kgbuild.evaluate.facts import _read, node_map
from kgbuild.evaluate.facts_questions import mention_names
from kgbuild.evaluate.gold import GoldCorpus

SHARED = "Which diseases share genes with {}?"
BASELINE = "Which diseases are associated with {}?"
TOP, DEEP = 5, 10


def gold_shared(gold: GoldCorpus) -> dict[str, set[str]]:
    """Disease → the other diseases the file relates to one of its genes."""
    genes: dict[str, set[str]] = defaultdict(set)
    for r in gold.relations:
        for a, ka, b, kb in ((r.a, r.kind_a, r.b, r.kind_b), (r.b, r.kind_b, r.a, r.kind_a)):
            if ka == "Disease" and kb == "Gene":
                genes[a].add(b)
    by_gene: dict[str, set[str]] = defaultdict(set)
    for d, gs in genes.items():
        for g in gs:
            by_gene[g].add(d)
    out = {}
    for d, gs in genes.items():
        others = set().union(*(by_gene[g] for g in gs)) - {d}
        if others:
            out[d] = others
    return out


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Macro figures over the questions, and the micro counts behind P@5."""
    ps = [r["p5"] for r in rows if r["p5"] is not None]
    return {
        "questions": len(rows),
        "answered": sum(bool(r["answers"]) for r in rows),
        "hit_at_5": round(sum(r["hit5"] for r in rows) / max(len(rows), 1), 3),
        "p_at_5": round(statistics.mean(ps), 3) if ps else None,
        "recall_at_10": round(statistics.mean(r["r10"] for r in rows), 3) if rows else None,
        "top5_gold": sum(r["top5_gold"] for r in rows),
        "top5_shown": sum(min(len(r["answers"]), TOP) for r in rows),
    }


def measure(gold_path: Path, warehouse: Path) -> dict[str, Any]:
    """Both question forms asked of ``warehouse`` for every disease with a gold answer."""
    from kgbuild.query.engine import QueryEngine
    from kgbuild.store.snapshots import Warehouse

    gold = _read(gold_path)
    names = mention_names(gold)
    engine = QueryEngine(warehouse, embeddings=False)
    mapping = node_map(Warehouse(warehouse), engine.state().index.snapshot_id)
    out: dict[str, Any] = {}
    every: dict[str, list[dict[str, Any]]] = {}
    for form, template in (("shared_genes", SHARED), ("baseline", BASELINE)):
        rows = []
        for d, others in sorted(gold_shared(gold).items()):
            want = {mapping.get(x, x) for x in others}
            r = engine.retrieve(template.format(names.get(d, d)))
            ids = [a["id"] for a in r.answers if a["type"] == "Disease"]
            top = ids[:TOP]
            hits = [i for i in top if i in want]
            rows.append({
                "disease": d, "answers": ids[:DEEP], "hit5": bool(hits),
                "p5": len(hits) / len(top) if top else None, "top5_gold": len(hits),
                "r10": len(want & set(ids[:DEEP])) / len(want),
                "two_hop": any(a.get("shared") for a in r.answers),
            })  # fmt: skip
        out[form], every[form] = score(rows), rows
    # the questions the KG's facts reach two hops for, both forms scored on them alone
    both = [i for i, r in enumerate(every["shared_genes"]) if r["two_hop"]]
    for form, rows in every.items():
        out[f"{form}_where_two_hop_answers"] = score([rows[i] for i in both])
    return out


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]), Path(sys.argv[2]))))
