"""A small hand-written Alzheimer's KG published through the real snapshot writer (two yearly
snapshots, 2019 and 2020), shaped to exercise the query module: a hub (Alzheimer disease with
~20 filler neighbours), a 2-hop and a 3-hop path, conflicting relations between one pair
(APOE upregulates / downregulates APP), a triple first seen in 2020, abbreviations, aliases and
a free-text node."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import (
    Abbreviation,
    Entity,
    Evidence,
    Mention,
    Resolution,
    SnapshotCounts,
    Triple,
)
from kgbuild.store.snapshots import SnapshotInfo, Warehouse

NODES = [
    ("MESH:D000544", "Alzheimer disease", "Disease"),
    ("NCBIGene:348", "APOE", "Gene"),
    ("NCBIGene:351", "APP", "Gene"),
    ("NCBIGene:43", "ACHE", "Gene"),
    ("NCBIGene:4137", "MAPT", "Gene"),
    ("MESH:D000109", "acetylcholine", "Compound"),
    ("MESH:D000077265", "donepezil", "Compound"),
    ("MESH:D003704", "dementia", "Disease"),
    ("MESH:D060825", "mild cognitive impairment", "Disease"),
    ("MESH:D008569", "memory disorders", "Disease"),
    ("free:cholinergic neurons", "cholinergic neurons", ""),
    ("NCBIGene:999", "ALL1", "Gene"),
] + [(f"MESH:C{i:06d}", f"filler compound {i}", "Compound") for i in range(1, 21)]

# (head, relation, tail, [(pmid, year, sentence, confidence)...])
EDGES_2019 = [
    ("NCBIGene:348", "associates", "MESH:D000544",
     [("1001", 2019, "APOE is the main genetic risk factor of Alzheimer disease.", 0.7),
      ("1002", 2019, "The APOE e4 allele raises the risk of Alzheimer disease.", 0.7),
      ("1003", 2019, "APOE genotype associates with Alzheimer disease onset.", 0.7)]),
    ("NCBIGene:351", "associates", "MESH:D000544",
     [("1004", 2019, "APP mutations cause familial Alzheimer disease.", 0.7)]),
    ("NCBIGene:348", "upregulates", "NCBIGene:351",
     [("1005", 2019, "APOE upregulates APP transcription in neurons.", 0.7)]),
    ("NCBIGene:348", "downregulates", "NCBIGene:351",
     [("1006", 2019, "APOE downregulates APP processing in astrocytes.", 0.7)]),
    ("NCBIGene:4137", "associates", "MESH:D000544",
     [("1007", 2019, "Tau (MAPT) tangles are a hallmark of Alzheimer disease.", 0.7)]),
    ("NCBIGene:43", "regulates", "MESH:D000109",
     [("1008", 2019, "ACHE hydrolyses acetylcholine at the synapse.", 0.7)]),
    ("MESH:D000109", "associates", "free:cholinergic neurons",
     [("1009", 2019, "Cholinergic neurons release acetylcholine.", 0.7)]),
    ("free:cholinergic neurons", "associates", "MESH:D003704",
     [("1010", 2019, "Loss of cholinergic neurons accompanies dementia.", 0.3)]),
    ("MESH:D060825", "associates", "MESH:D000544",
     [("1011", 2019, "Mild cognitive impairment (MCI) often precedes Alzheimer disease.", 0.7)]),
    ("MESH:D008569", "associates", "MESH:D003704",
     [("1012", 2019, "Memory disorders are the first sign of dementia.", 0.3)]),
] + [
    (f"MESH:C{i:06d}", "associates", "MESH:D000544",
     [(str(2000 + i), 2019, f"Filler compound {i} was studied in Alzheimer disease.", 0.3)])
    for i in range(1, 21)
]  # fmt: skip
EDGES_2020 = [
    ("MESH:D000077265", "treats", "MESH:D000544",
     [("2101", 2020, "Donepezil treats Alzheimer disease symptoms.", 0.7),
      ("2102", 2020, "Donepezil is approved to treat Alzheimer disease.", 0.7)]),
    ("MESH:D000077265", "downregulates", "NCBIGene:43",
     [("2103", 2020, "Donepezil inhibits ACHE.", 0.7)]),
]  # fmt: skip

MENTIONS = [
    ("MESH:D000544", "Alzheimer's disease", 5),
    ("MESH:D000544", "AD", 9),
    ("NCBIGene:348", "ApoE", 3),
    ("NCBIGene:348", "apolipoprotein E", 2),
    ("NCBIGene:351", "amyloid precursor protein", 2),
    ("NCBIGene:4137", "tau", 4),
    ("MESH:D000109", "ACh", 2),
    ("MESH:D003704", "dementias", 1),
    ("NCBIGene:999", "ALL", 2),  # twice: a key needs two trusted mentions (alias_trust)
]


def _triple_id(h: str, r: str, t: str) -> str:
    return f"t:{h}|{r}|{t}"


def _records(edges: list, year: int) -> tuple[list[Triple], list[Evidence]]:
    triples, evidence = [], []
    for h, r, t, evs in edges:
        tid = _triple_id(h, r, t)
        triples.append(Triple(tid, h, r, t, r, "generative"))
        for pmid, y, sent, conf in evs:
            evidence.append(Evidence(f"e:{tid}:{pmid}", tid, pmid, y, sent, 0, len(sent), 0, 1, 2,
                                     3, "generative", "generative", "test-model", None, r, "", "",
                                     conf))  # fmt: skip
    return triples, evidence


def _counts(n_triples: int, n_evidence: int) -> dict[str, int]:
    return {"records": 10, "documents": 10, "duplicates": 0, "rejected": 0, "mentions": 10,
            "entities": len(NODES), "nodes": len(NODES), "relations": 6, "triples": n_triples,
            "evidence": n_evidence, "problems": 0}  # fmt: skip


def publish_year(w, year: int, edges: list, nodes: list | None = None) -> SnapshotInfo:
    triples, evidence = _records(edges, year)
    if nodes:
        w.add("entities", nodes)
    w.add("triples", triples)
    w.add("evidence", evidence)
    return w.commit(year, f"build-{year}", {"extractor": "generative"}, f"inputs-{year}", "test",
                    SnapshotCounts.from_dict(_counts(len(triples), len(evidence))))  # fmt: skip


def build_query_kg(root: Path, kg: str = "toy") -> list[SnapshotInfo]:
    """Publish the 2019 and 2020 snapshots into ``root``; returns their infos."""
    wh = Warehouse(root)
    w = wh.writer(kg)
    ents = [Entity(i, n, t, [n], 2019) for i, n, t in NODES]
    mentions = []
    for cid, text, n in MENTIONS:
        for j in range(n):
            mentions.append(Mention(f"9{j:03d}", j * 10, j * 10 + len(text), text, "Gene",
                                    "Gene", cid, [cid]))  # fmt: skip
    w.add("mentions", mentions)
    w.add("abbreviations", [Abbreviation("1011", "mci", "mild cognitive impairment")])
    w.add("resolutions", [Resolution("free:ad dementia", "AD dementia", "MESH:D000544",
                                     "alias", 1.0, 2019)])  # fmt: skip
    first = publish_year(w, 2019, EDGES_2019, ents)
    second = publish_year(w, 2020, EDGES_2020)
    return [first, second]
