"""BioRED Dev's relation genes in a build: found as a node, or through the build's ortholog map.

    python bench/biored_genes.py --warehouse WH [--gold ../shared/data/biored/Dev.PubTator]

BioRED's curators link each gene to the NCBI Gene ID of the species the abstract studies, so a
question about a mouse gene names a mouse ID. A KG about a human disease keeps one node per
gene (the human one, :mod:`kgbuild.resolve.orthologs`), and records the annotator's ID of every
relinked mention (``mentions.annotator_id``). For the distinct gene IDs in BioRED Dev's
relations this counts:

- ``human`` / ``non_human``: whether HGNC's complete set knows the ID (a human gene);
- ``in_kg``: the ID is a node of the snapshot;
- ``via_ortholog``: it is not, but the build relinked mentions of it to a node (its human
  ortholog): a question naming the mouse ID can be answered from the human node;
- ``found``: either, and ``non_human_found``: the share of the non-human IDs found.

Reads the warehouse only. The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.resolve.vocabularies import hgnc_names
from kgbuild.store.snapshots import Warehouse


def relation_genes(path: Path) -> set[str]:
    """``NCBIGene:<id>`` of every gene argument of a BioRED relation line."""
    genes: dict[str, set[str]] = {}  # pmid → IDs annotated as genes
    args: list[tuple[str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        cols = line.split("\t")
        if len(cols) == 6 and cols[4] == "GeneOrGeneProduct":
            for i in cols[5].split(","):
                genes.setdefault(cols[0], set()).add(i.strip())
        elif len(cols) >= 4 and not cols[1].isdigit():  # pmid, type, id1, id2[, novelty]
            args += [(cols[0], cols[2]), (cols[0], cols[3])]
    return {f"NCBIGene:{i}" for pmid, i in args if i in genes.get(pmid, ())}


def coverage(wh: Warehouse, snapshot: str, ids: set[str]) -> dict[str, float | int]:
    sid = wh.resolve(snapshot)
    nodes = {r[0] for r in wh.query("SELECT id FROM entities_at(?)", [sid])}
    relinked = {
        r[0]
        for r in wh.query(
            "SELECT DISTINCT annotator_id FROM mentions_at(?) WHERE annotator_id IS NOT NULL "
            "AND concept_id IS NOT NULL AND annotator_id <> concept_id",
            [sid],
        )
        if r[0] in ids
    }
    human = set(hgnc_names())
    in_kg = ids & nodes
    via = (ids - nodes) & relinked
    non_human = ids - human
    found = in_kg | via
    return {
        "snapshot": sid,
        "gene_ids": len(ids),
        "human": len(ids & human),
        "non_human": len(non_human),
        "in_kg": len(in_kg),
        "via_ortholog": len(via),
        "found": len(found),
        "found_share": round(len(found) / len(ids), 4) if ids else 0.0,
        "non_human_found": len(non_human & found),
        "non_human_found_share": round(len(non_human & found) / len(non_human), 4)
        if non_human
        else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", required=True)
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--gold", type=Path, default=common.BIORED_DEV)
    a = ap.parse_args()
    if not a.gold.exists():
        sys.exit(f"no BioRED Dev file at {a.gold}")
    print(json.dumps(coverage(Warehouse(Path(a.warehouse)), a.snapshot,
                              relation_genes(a.gold)), sort_keys=True))  # fmt: skip


if __name__ == "__main__":
    main()
