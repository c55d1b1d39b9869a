"""A small real KG for question linking, published through the real snapshot writer: a microRNA
gene (MIR132) beside the generic "miR" gene record the tagger links a bare "miR" to, a MeSH
concept the tagger names "toxicity", amyloid beta (APP) and Alzheimer disease; and abstracts
that write "CSF" (cerebrospinal fluid) in :data:`CSF_DOCS` abstracts, tagged as the gene CSF2 in
two, beside "PS1" tagged as PSEN1 in most of the abstracts that write it; two members of the
miR-34 family (MIR34B, MIR34C; MIR34A is absent), a drug class the tagger names "NSAIDs", and
concepts a generic word or a near-spelling could reach by mistake: Rare Diseases ("rare
diseases"), spinosad (its trade name "tracer"), Donepezil and Phenobarbital."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity, Mention
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year

AD = "MESH:D000544"
MIR132 = "NCBIGene:406921"
GENERIC_MIR = "NCBIGene:751557"
ADVERSE = "MESH:D064420"
APP = "NCBIGene:351"
CSF2 = "NCBIGene:1437"
PSEN1 = "NCBIGene:5663"
MIR34B = "NCBIGene:407041"
MIR34C = "NCBIGene:407042"
NSAIDS = "MESH:D000894"
RARE = "MESH:D035583"
SPINOSAD = "MESH:C415329"
DONEPEZIL = "MESH:D000077265"
PHENOBARBITAL = "MESH:D010634"
CSF_DOCS = 60
PS1_DOCS = 22
NODES = [
    (AD, "Alzheimer Disease", "Disease"),
    (MIR132, "MIR132", "Gene"),
    (GENERIC_MIR, "miR", "Gene"),
    (ADVERSE, "Drug-Related Side Effects and Adverse Reactions", "Disease"),
    (APP, "APP", "Gene"),
    (CSF2, "CSF2", "Gene"),
    (PSEN1, "PSEN1", "Gene"),
    (MIR34B, "MIR34B", "Gene"),
    (MIR34C, "MIR34C", "Gene"),
    (NSAIDS, "Anti-Inflammatory Agents, Non-Steroidal", "Compound"),
    (RARE, "Rare Diseases", "Disease"),
    (SPINOSAD, "spinosad", "Compound"),
    (DONEPEZIL, "Donepezil", "Compound"),
    (PHENOBARBITAL, "Phenobarbital", "Compound"),
]
#: (concept, surface, abstracts) the tagger linked
MENTIONS = [
    (AD, "Alzheimer's disease", 6),
    (MIR132, "miR-132", 3),
    (GENERIC_MIR, "miR", 4),
    (ADVERSE, "toxicity", 4),
    (APP, "amyloid beta", 5),
    (MIR34C, "miR-34c", 3),
    (NSAIDS, "NSAIDs", 4),
    (NSAIDS, "non-steroidal anti-inflammatory drugs", 3),
    (RARE, "rare diseases", 3),
    (SPINOSAD, "tracer", 4),
    (DONEPEZIL, "donepezil", 4),
    (PHENOBARBITAL, "phenobarbital", 3),
]
EDGES = [
    (
        MIR132,
        "associated_with",
        AD,
        [("7001", 2019, "miR-132 is lost in Alzheimer's disease.", 0.9)],
    ),
    (GENERIC_MIR, "associated_with", AD, [("7002", 2019, "miR levels change in AD.", 0.8)]),
    (APP, "causes", ADVERSE, [("7003", 2019, "Amyloid beta toxicity kills neurons.", 0.8)]),
    (APP, "associated_with", AD, [("7004", 2019, "Amyloid beta builds up in AD.", 0.9)]),
    *[
        (x, "associated_with", AD, [(f"71{i:02d}", 2019, f"{name} is studied in AD.", 0.8)])
        for i, (x, name, _) in enumerate(NODES[7:])
    ],
]


def build_link_kg(root: Path, kg: str = "link") -> SnapshotInfo:
    """Publish one 2019 snapshot into ``root``; returns its info."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n], 2019) for i, n, t in NODES]
    mentions = [
        Mention(f"8{j:03d}", 0, len(text), text, "Gene", "Gene", cid, [cid])
        for cid, text, n in MENTIONS
        for j in range(n)
    ]
    docs = []
    for j in range(CSF_DOCS):  # "CSF" written everywhere, tagged as the gene in two
        docs.append(Document(f"6{j:03d}", 2019, "CSF biomarkers", "CSF tau was measured.", "J"))
        if j < 2:
            mentions.append(Mention(f"6{j:03d}", 0, 3, "CSF", "Gene", "Gene", CSF2, [CSF2]))
    for j in range(PS1_DOCS):  # "PS1" tagged as PSEN1 in all but two
        docs.append(Document(f"5{j:03d}", 2019, "PS1 mutations", "PS1 cuts APP.", "J"))
        if j >= 2:
            mentions.append(Mention(f"5{j:03d}", 0, 3, "PS1", "Gene", "Gene", PSEN1, [PSEN1]))
    w.add("mentions", mentions)
    w.add("documents", docs)
    return publish_year(w, 2019, EDGES, ents)
