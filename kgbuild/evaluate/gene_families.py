"""Gene families as kinds of answer ("Which kinases …", "Which cytokines …") against gold.

For every disease of a gold file related to a gene of the family (a node the family's kind
counts in the snapshot, by its HGNC name: "… kinase …", "interleukin …", "caspase …"), two
questions are asked of the gold file's hidden build (``kgbuild eval facts``'s, relation lines
hidden): "Which genes are associated with D?" and "Which kinases are associated with D?".
Scored against the family's gold partners: P@5 (gold family members among the top five) and
hit@5. The families are the rows of ``data/answer_kinds.toml`` that pick genes by name alone.

    python -m kgbuild.evaluate.gene_families --gold ../shared/data/biored/Dev.PubTator \
        --warehouse WH   # a hidden build, e.g. bench/answer_kinds.py's --work/biored_dev
"""

from __future__ import annotations

from pathlib import Path

from kgbuild.evaluate.facts import on_hidden_build, open_hidden
from kgbuild.question.kinds import AnswerKind, answer_kinds, kind_nodes

TOP = 5


def families() -> list[AnswerKind]:
    """The kinds that are gene families: genes picked by their name, no node kind of their own
    (microRNAs are measured as a kind of their own by ``bench/answer_kinds.py``)."""
    return [k for k in answer_kinds()
            if k.name is not None and k.name_types == {"Gene"} and not k.types
            and k.key != "microrna"]  # fmt: skip


def evaluate(gold_path: Path, warehouse: Path) -> dict[str, dict]:
    gold, eng, index, mapping, names = open_hidden(gold_path, warehouse)
    ids = index.nodes["id"]
    partners: dict[str, set[str]] = {}
    for r in gold.relations:
        for a, ka, b, kb in ((r.a, r.kind_a, r.b, r.kind_b), (r.b, r.kind_b, r.a, r.kind_a)):
            if ka == "Disease" and kb == "Gene":
                partners.setdefault(a, set()).add(mapping.get(b, b))
    out: dict[str, dict] = {}
    for kind in families():
        family = kind.key
        of_kind = {ids[i] for i in kind_nodes(index, kind).nonzero()[0]}
        got = {"genes": [0, 0, 0], family: [0, 0, 0]}
        n = 0
        for d, genes in sorted(partners.items()):
            members = genes & of_kind
            if not members:
                continue
            n += 1
            for label, noun in (("genes", "genes"), (family, f"{kind.label}s")):
                q = f"Which {noun} are associated with {names.get(d, d)}?"
                top = [a["id"] for a in eng.retrieve(q, embed="off").answers][:TOP]
                got[label][0] += sum(x in members for x in top)
                got[label][1] += len(top)
                got[label][2] += any(x in members for x in top)
        out[family] = {"questions": n, **{
            label: {"p_at_5": round(v[0] / max(v[1], 1), 3), "hit_at_5": round(v[2] / max(n, 1), 3)}
            for label, v in got.items()
        }}  # fmt: skip
    return out


def main() -> None:
    on_hidden_build(__doc__, evaluate)


if __name__ == "__main__":
    main()
