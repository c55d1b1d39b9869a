"""A small real KG whose abstracts name things no entity stands for: the Notch signaling
pathway (with the genes of it named beside it, and APP — the KG's one fact — named only in
another sentence), cell types expressing TREM2, and one hostile abstract (markup, a huge
run-on sentence naming the pathway and a gene). Mentions carry real offsets into
title + " " + abstract, as the annotators write them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, APP, PSEN1 = "MESH:D000544", "NCBIGene:351", "NCBIGene:5663"
JAG1, HES1, TREM2, EVIL = "NCBIGene:182", "NCBIGene:3280", "NCBIGene:54209", "NCBIGene:666"
ZINC = "MESH:D015032"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    (APP, "APP", "Gene", []),
    (PSEN1, "PSEN1", "Gene", []),
    (JAG1, "JAG1", "Gene", []),
    (HES1, "HES1", "Gene", []),
    (TREM2, "TREM2", "Gene", []),
    (EVIL, "EVILGENE", "Gene", []),
    (ZINC, "zinc", "Compound", []),
]
#: (pmid, year, title, abstract, {surface: CURIE}) — every surface found is a mention.
DOCS = [
    (
        "601",
        2019,
        "Notch in dementia.",
        "PSEN1 cleaves receptors of the Notch signaling pathway in Alzheimer's disease. "
        "APP was also measured.",
        {"PSEN1": PSEN1, "Alzheimer's disease": AD, "APP": APP},
    ),
    (
        "602",
        2018,
        "Notch targets.",
        "The Notch signaling pathway induces HES1 after PSEN1 cleavage.",
        {"HES1": HES1, "PSEN1": PSEN1},
    ),
    (
        "603",
        2017,
        "A ligand.",
        "JAG1 activates Notch signaling in neurons; zinc was added.",
        {"JAG1": JAG1, "zinc": ZINC},
    ),
    (
        "604",
        2019,
        "Microglia.",
        "TREM2 is expressed by several cell types in the brain, microglia above all.",
        {"TREM2": TREM2},
    ),
    (
        "606",
        2016,
        "Risk.",
        "TREM2 variants raise the risk of Alzheimer's disease.",
        {"TREM2": TREM2, "Alzheimer's disease": AD},
    ),
    (
        "605",
        2019,
        "<b>Markup</b> & noise.",
        "<i>The Notch signaling pathway</i> needs <b>PSEN1</b>. In the Notch signaling "
        "pathway EVILGENE " + "x " * 3000 + "end.",
        {"PSEN1": PSEN1, "EVILGENE": EVIL},
    ),
]


def build_phrase_kg(root: Path, kg: str = "phrase") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``: facts joining APP and TREM2 to
    Alzheimer's disease, the abstracts and their mentions."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    w.add("documents", [Document(p, y, t, a) for p, y, t, a, _ in DOCS])
    w.add("mentions", mentions_of([(p, t, a, n) for p, _, t, a, n in DOCS]))
    edges = [
        (APP, "associates", AD, [("900", 2019, "The protein is tied to the disease.", 0.8)]),
        (TREM2, "associates", AD, [("901", 2019, "The receptor is tied to the disease.", 0.8)]),
    ]
    return publish_year(w, 2019, edges, ents)


def phrase_engine(tmp_path_factory: Any, name: str) -> Any:
    """A query engine over a fresh build of this KG (a module fixture's body)."""
    from kgbuild.query.engine import QueryEngine

    root = tmp_path_factory.mktemp(name) / "wh"
    build_phrase_kg(root)
    return QueryEngine(root, embeddings=False)
