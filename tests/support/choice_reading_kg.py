"""A small real KG where multiple-choice options are phrases no fact separates: every form of
amyloid beta links to APP, and a trial's outcomes link to nothing. Its abstracts say which
form the antibody zelumab binds ("selectively binds soluble Abeta protofibrils") and how
dimetrine's phase 3 trials ended ("failed to show benefit versus placebo"), beside sentences
naming an option without the subject or without what is asked. Mentions carry real offsets
into title + " " + abstract, as the annotators write them."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, APP, MAPT = "MESH:D000544", "NCBIGene:351", "NCBIGene:4137"
ZELUMAB, DIMETRINE = "MESH:C900001", "MESH:C900002"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]),
    (APP, "APP", "Gene", ["Abeta", "amyloid beta"]),
    (MAPT, "MAPT", "Gene", ["tau"]),
    (ZELUMAB, "zelumab", "Compound", []),
    (DIMETRINE, "dimetrine", "Compound", []),
]
#: (pmid, title, abstract, {surface: CURIE}) — every surface found is a mention.
DOCS = [
    (
        "701",
        "An antibody for early Alzheimer's disease.",
        "Zelumab is a monoclonal antibody that selectively binds soluble Abeta protofibrils. "
        "Zelumab was well tolerated.",
        {"Zelumab": ZELUMAB, "Abeta": APP, "Alzheimer's disease": AD},
    ),
    (
        "702",
        "Plasma markers.",
        "Zelumab was given for a year. Abeta monomers were measured in plasma.",
        {"Zelumab": ZELUMAB, "Abeta": APP},
    ),
    (
        "703",
        "Hallmarks.",
        "Abeta plaques and tau tangles are hallmarks of Alzheimer's disease.",
        {"Abeta": APP, "tau": MAPT, "Alzheimer's disease": AD},
    ),
    (
        "704",
        "Dimetrine in Alzheimer's disease.",
        "In the phase 3 trials, dimetrine did not produce significant cognitive improvement. "
        "Dimetrine failed to show benefit versus placebo in phase 3.",
        {"dimetrine": DIMETRINE, "Dimetrine": DIMETRINE, "Alzheimer's disease": AD},
    ),
    (
        "705",
        "Hepatotoxicity.",
        "Liver toxicity stopped early trials of tacrine in Alzheimer's disease.",
        {"Alzheimer's disease": AD},
    ),
]


def build_choice_reading_kg(root: Path, kg: str = "choicereading") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``: facts joining both drugs to
    Alzheimer's disease and zelumab to APP (so every Abeta option has the same fact), the
    abstracts and their mentions."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in DOCS])
    w.add("mentions", mentions_of(DOCS))
    edges = [
        (ZELUMAB, "associates", APP, [("701", 2019, DOCS[0][2].split(". ")[0] + ".", 0.8)]),
        (DIMETRINE, "treats", AD, [("704", 2019, DOCS[3][2].split(". ")[0] + ".", 0.8)]),
        (APP, "associates", AD, [("703", 2019, DOCS[2][2], 0.8)]),
    ]
    return publish_year(w, 2019, edges, ents)
