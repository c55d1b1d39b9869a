"""A small real KG for answer kinds, published through the real snapshot writer: microRNA genes
beside better-supported ordinary genes, a drug that causes one disease, treats another and
"upregulates" a disease it also treats, a marker named as such in one sentence, and the README's
pair: APOE and APP, each named in many abstracts of their own, joined in five, while TREM2 sits
in the sentences the question retrieves."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year

AD = "MESH:D000544"
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    ("NCBIGene:348", "APOE", "Gene", ["apolipoprotein E"]),
    ("NCBIGene:351", "APP", "Gene", ["amyloid precursor protein"]),
    ("NCBIGene:54209", "TREM2", "Gene", []),
    ("NCBIGene:4137", "MAPT", "Gene", ["tau"]),
    ("NCBIGene:4747", "NEFL", "Gene", ["neurofilament light"]),
    ("NCBIGene:43", "ACHE", "Gene", ["acetylcholinesterase"]),
    ("NCBIGene:406938", "MIR146A", "Gene", ["miR-146a"]),
    ("NCBIGene:406921", "MIR132", "Gene", ["miR-132"]),
    ("MESH:D000077265", "donepezil", "Compound", []),
    ("MESH:D000077264", "memantine", "Compound", []),
    ("MESH:D001919", "Bradycardia", "Disease", []),
    ("MESH:D008569", "memory disorders", "Disease", []),
    ("MESH:D000014", "Abnormalities, Drug-Induced", "Disease", []),
    ("MESH:D004244", "Dizziness", "Disease", []),
    ("MESH:D000077190", "rivastigmine", "Compound", []),
] + [(f"NCBIGene:9{i:04d}", f"FILLER{i}", "Gene", []) for i in range(1, 13)]


def _ev(pmid: int, sentence: str) -> tuple[str, int, str, float]:
    return (str(pmid), 2019, sentence, 0.8)


def _edges() -> list:
    e = [
        ("NCBIGene:351", "associates", AD,
         [_ev(100 + i, f"APP processing drives Alzheimer disease ({i}).") for i in range(12)]),
        ("NCBIGene:4137", "associates", AD,
         [_ev(200 + i, f"Tau tangles mark Alzheimer disease stage {i}.") for i in range(8)]),
        ("NCBIGene:406938", "associates", AD,
         [_ev(300, "miR-146a is altered in Alzheimer disease brains.")]),
        ("NCBIGene:406921", "associates", AD,
         [_ev(301, "miR-132 is lost early in Alzheimer disease.")]),
        ("NCBIGene:4747", "associates", AD,
         [_ev(302, "Neurofilament light is a blood biomarker of Alzheimer disease.")]),
        ("MESH:D000077265", "treats", AD,
         [_ev(400, "Donepezil treats Alzheimer disease."),
          _ev(401, "Donepezil is approved for Alzheimer disease.")]),
        ("MESH:D000077265", "causes", "MESH:D001919",
         [_ev(402, "Donepezil induced bradycardia in two patients.")]),
        ("MESH:D000077265", "upregulates", "MESH:D008569",
         [_ev(403, "Donepezil increased memory disorders scores.")]),
        ("MESH:D000077265", "treats", "MESH:D008569",
         [_ev(404, "Donepezil treats memory disorders.")]),
        ("MESH:D000077265", "upregulates", "MESH:D000014",
         [_ev(405, "Donepezil abnormalities, drug-induced, were rare.")]),
        ("MESH:D000077265", "downregulates", "NCBIGene:43",
         [_ev(406, "Donepezil inhibits acetylcholinesterase.")]),
        ("MESH:D000077264", "treats", AD, [_ev(407, "Memantine treats Alzheimer disease.")]),
        # named in the same abstract as rivastigmine, which no fact joins to it
        ("MESH:D000077190", "treats", AD, [_ev(408, "Rivastigmine treats Alzheimer disease.")]),
        ("MESH:D004244", "associates", "NCBIGene:43",
         [_ev(408, "Dizziness was more common with low acetylcholinesterase activity.")]),
        # the README's pair: joined in five abstracts, each named in many more of its own
        ("NCBIGene:348", "associates", "NCBIGene:351",
         [_ev(500 + i, f"APOE binds APP fragments in cohort {i}.") for i in range(5)]),
        ("NCBIGene:348", "associates", AD,
         [_ev(600 + i, f"APOE genotype sets Alzheimer disease risk ({i}).") for i in range(12)]),
        ("NCBIGene:54209", "associates", "NCBIGene:348",
         [_ev(700, "TREM2 and APOE are both expressed by microglia in Alzheimer disease."),
          _ev(701, "TREM2 variants and APOE genotype raise Alzheimer disease risk.")]),
    ]  # fmt: skip
    # APOE and APP each named with fillers in abstracts of their own (hubs of this corpus)
    for i in range(1, 13):
        gene = "NCBIGene:348" if i <= 6 else "NCBIGene:351"
        e.append((gene, "associates", f"NCBIGene:9{i:04d}",
                  [_ev(800 + 10 * i + j, f"{gene} and FILLER{i} were measured ({j}).")
                   for j in range(3)]))  # fmt: skip
    return e


def build_kinds_kg(root: Path, kg: str = "kinds") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    return publish_year(w, 2019, _edges(), ents)
