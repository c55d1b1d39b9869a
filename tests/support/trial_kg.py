"""A small real KG of trial reports: one compound (solanezumab) that two abstracts report failing
in people and one reports helping mice. Mentions carry real offsets into title + " " +
abstract."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, DRUG, GENE = "MESH:D000544", "MESH:C550616", "NCBIGene:351"
DOCS = [
    ("701", 2016, "EXPEDITION3.",
     "Solanezumab failed to slow cognitive decline in a phase 3 trial in mild Alzheimer's "
     "disease.", {"Solanezumab": DRUG, "Alzheimer's disease": AD}),
    ("702", 2014, "Two trials.",
     "In patients with mild to moderate AD, solanezumab did not improve cognition compared "
     "with placebo.", {"solanezumab": DRUG, "AD": AD}),
    ("703", 2013, "Mice.", "Solanezumab improved memory in APP transgenic mice.",
     {"Solanezumab": DRUG, "APP": GENE}),
]  # fmt: skip


def build_trial_kg(root: Path) -> None:
    """Publish the KG's one snapshot (2016) into ``root``."""
    w = Warehouse(root).writer("trials")
    nodes = [(AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
             (DRUG, "solanezumab", "Compound", []), (GENE, "APP", "Gene", [])]  # fmt: skip
    ents = [Entity(i, n, t, [n, *a], 2016) for i, n, t, a in nodes]
    w.add("documents", [Document(p, y, t, a) for p, y, t, a, _ in DOCS])
    w.add("mentions", mentions_of([(p, t, a, n) for p, _, t, a, n in DOCS]))
    edges = [(DRUG, "associates", GENE, [("703", 2013, "Solanezumab binds APP's Abeta.", 0.8)])]
    publish_year(w, 2016, edges, ents)
