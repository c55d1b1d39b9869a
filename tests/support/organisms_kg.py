"""A small real KG about Alzheimer's disease whose abstracts name organisms (PubTator Species
mentions, NCBI Taxonomy ids) that the KG keeps no node of: HSV-1, Porphyromonas gingivalis and
an unlisted Treponema said to infect; adeno-associated virus as a vector and E. coli as an
expression host (no infection); Drosophila, zebrafish, rhesus monkeys and mice as models; and
"patients" (human) and "mice" in most abstracts, as in DALK."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, T2D, MAPT, APP = "MESH:D000544", "MESH:D003924", "NCBIGene:4137", "NCBIGene:351"
HSV1, PGING, TREPONEMA = "NCBITaxon:10298", "NCBITaxon:837", "NCBITaxon:158"
AAV, ECOLI, FLY, FISH = "NCBITaxon:272636", "NCBITaxon:562", "NCBITaxon:7227", "NCBITaxon:7955"
RHESUS, MOUSE, HUMAN = "NCBITaxon:9544", "NCBITaxon:10090", "NCBITaxon:9606"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    (T2D, "type 2 diabetes", "Disease", []),
    (MAPT, "tau", "Gene", ["MAPT"]),
    (APP, "APP", "Gene", []),
]
_AD = {"Alzheimer's disease": AD}
DOCS = [
    ("701", "HSV-1 and Alzheimer's disease.",
     "Herpes simplex virus type 1 infection raises the risk of Alzheimer's disease in patients.",
     {"HSV-1": HSV1, "Herpes simplex virus type 1": HSV1, "patients": HUMAN, **_AD}),
    ("702", "Viral infection.",
     "HSV-1 infection was found in the brains of Alzheimer's disease patients.",
     {"HSV-1": HSV1, "patients": HUMAN, **_AD}),
    ("703", "Periodontitis.",
     "Porphyromonas gingivalis infection of the gums was linked to Alzheimer's disease.",
     {"Porphyromonas gingivalis": PGING, **_AD}),
    ("704", "A gene therapy.",
     "An adeno-associated virus vector delivered an antibody in Alzheimer's disease mice.",
     {"adeno-associated virus": AAV, "mice": MOUSE, **_AD}),
    ("705", "Peptide production.",
     "Abeta peptides of Alzheimer's disease were expressed in Escherichia coli.",
     {"Escherichia coli": ECOLI, **_AD}),
    ("706", "Flies.", "A Drosophila model of Alzheimer's disease showed tau toxicity.",
     {"Drosophila": FLY, "tau": MAPT, **_AD}),
    ("707", "Fish.", "Zebrafish models of Alzheimer's disease express tau.",
     {"Zebrafish": FISH, "tau": MAPT, **_AD}),
    ("713", "Drosophila tau.", "Drosophila expressing tau model Alzheimer's disease.",
     {"Drosophila": FLY, "tau": MAPT, **_AD}),
    ("714", "Monkeys.", "Rhesus monkeys are a model of Alzheimer's disease in patients.",
     {"Rhesus monkeys": RHESUS, "patients": HUMAN, **_AD}),
    ("715", "Spirochetes.",
     "Treponema denticola infection was found in Alzheimer's disease brains.",
     {"Treponema denticola": TREPONEMA, **_AD}),
    *[(f"72{i}", "Transgenic mice.",
       f"Transgenic mice model Alzheimer's disease and tau pathology seen in patients ({i}).",
       {"mice": MOUSE, "tau": MAPT, "patients": HUMAN, **_AD}) for i in range(5)],
    *[(f"73{i}", "Diabetes.", f"Mice and patients with type 2 diabetes were studied ({i}).",
       {"Mice": MOUSE, "patients": HUMAN, "type 2 diabetes": T2D}) for i in range(5)],
]  # fmt: skip


def build_organisms_kg(root: Path, kg: str = "organisms") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``: one fact, the abstracts and their
    mentions."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in DOCS])
    w.add("mentions", mentions_of(DOCS))
    said = "APP is associated with Alzheimer's disease."
    edges = [(APP, "associates", AD, [("900", 2019, said, 0.8)])]
    return publish_year(w, 2019, edges, ents)
