"""A small real KG where no fact joins rivastigmine to anything and its abstracts name
diseases in three ways: vomiting in a sentence saying rivastigmine caused it (one abstract),
tremor in sentences naming rivastigmine without a cue word (two abstracts), headache only
elsewhere in its abstracts (three abstracts), and Alzheimer's disease — the corpus's topic,
named in 5 of 16 abstracts — in the same sentence as rivastigmine and "caused". Mentions carry
real offsets into title + " " + abstract, as the annotators write them."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, APP = "MESH:D000544", "NCBIGene:351"
RIVASTIGMINE, VOMITING = "MESH:D000068836", "MESH:D014839"
TREMOR, HEADACHE = "MESH:D014202", "MESH:D006261"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    (APP, "APP", "Gene", []),
    (RIVASTIGMINE, "rivastigmine", "Compound", []),
    (VOMITING, "vomiting", "Disease", []),
    (TREMOR, "tremor", "Disease", []),
    (HEADACHE, "headache", "Disease", []),
]
#: (pmid, title, abstract, {surface: CURIE}) — every surface found is a mention.
DOCS = [
    (
        "601",
        "A trial of a cholinesterase inhibitor.",
        "Rivastigmine caused vomiting in Alzheimer's disease patients. Many reported a "
        "headache at the start of the trial.",
        {
            "Rivastigmine": RIVASTIGMINE,
            "vomiting": VOMITING,
            "Alzheimer's disease": AD,
            "headache": HEADACHE,
        },
    ),
    (
        "602",
        "A case series.",
        "Tremor was seen with rivastigmine in two patients. A headache was noted in one.",
        {"Tremor": TREMOR, "rivastigmine": RIVASTIGMINE, "headache": HEADACHE},
    ),
    (
        "603",
        "An open study.",
        "Tremor and rivastigmine were recorded in a registry. Headache was frequent in "
        "Alzheimer's disease.",
        {
            "Tremor": TREMOR,
            "rivastigmine": RIVASTIGMINE,
            "Headache": HEADACHE,
            "Alzheimer's disease": AD,
        },
    ),
    (
        "604",
        "Amyloid.",
        "APP is processed in Alzheimer's disease.",
        {"APP": APP, "Alzheimer's disease": AD},
    ),
    ("605", "Cohorts.", "Alzheimer's disease is common in old age.", {"Alzheimer's disease": AD}),
    ("606", "Care.", "Alzheimer's disease care costs rise.", {"Alzheimer's disease": AD}),
    # abstracts about other things, so that only Alzheimer's disease is the corpus's topic
    *((f"6{k}", "Amyloid.", "APP levels were measured.", {"APP": APP}) for k in range(10, 20)),
]


def build_same_sentence_kg(root: Path, kg: str = "samesentence") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``: one unrelated fact, the abstracts
    and their mentions."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in DOCS])
    w.add("mentions", mentions_of(DOCS))
    edges = [(APP, "associates", AD, [("900", 2019, "APP is associated with AD.", 0.8)])]
    return publish_year(w, 2019, edges, ents)
