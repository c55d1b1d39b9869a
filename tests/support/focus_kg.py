"""A small real KG for whom a list question is about, published through the real snapshot
writer: a microRNA with one fact beside a disease hub with many; APOE with genes of its own
(FILLER*) that an excluded APOE must not bring in; Parkinson disease sharing two of Alzheimer
disease's genes, diabetes one, and migraine none."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year

AD = "MESH:D000544"
PD = "MESH:D010300"
T2D = "MESH:D003924"
MIGRAINE = "MESH:D008881"
#: No answer to "which diseases share genes with AD": AD's MeSH ancestor and a C23 process.
DEMENTIA, INFLAMMATION = "MESH:D003704", "MESH:D007249"
#: A drug the corpus names with its indication (the corpus's topic, AD) and one side effect.
RIVASTIGMINE, NAUSEA = "MESH:D000068836", "MESH:D009325"
APP, MAPT, APOE, SNCA, LRRK2, PPARG = (
    "NCBIGene:351", "NCBIGene:4137", "NCBIGene:348", "NCBIGene:6622", "NCBIGene:120892",
    "NCBIGene:5468",
)  # fmt: skip
MIR107 = "NCBIGene:406901"
FILLERS = [f"NCBIGene:9{i:04d}" for i in range(1, 5)]
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]),
    (PD, "Parkinson disease", "Disease", ["Parkinson's disease"]),
    (T2D, "Diabetes Mellitus, Type 2", "Disease", ["type 2 diabetes"]),
    (MIGRAINE, "Migraine Disorders", "Disease", ["migraine"]),
    (DEMENTIA, "Dementia", "Disease", []),
    (INFLAMMATION, "Inflammation", "Disease", []),
    (RIVASTIGMINE, "rivastigmine", "Compound", []),
    (NAUSEA, "Nausea", "Disease", ["nausea"]),
    (APP, "APP", "Gene", ["amyloid precursor protein"]),
    (MAPT, "MAPT", "Gene", ["tau"]),
    (APOE, "APOE", "Gene", ["apolipoprotein E"]),
    (SNCA, "SNCA", "Gene", ["alpha-synuclein"]),
    (LRRK2, "LRRK2", "Gene", []),
    (PPARG, "PPARG", "Gene", []),
    (MIR107, "MIR107", "Gene", ["miR-107"]),
    ("NCBIGene:43", "ACHE", "Gene", []),
] + [(f, f"FILLER{i}", "Gene", []) for i, f in enumerate(FILLERS, 1)]


def _ev(pmid: int, sentence: str) -> tuple[str, int, str, float]:
    return (str(pmid), 2019, sentence, 0.8)


def _many(head: str, rel: str, tail: str, start: int, n: int, text: str) -> tuple:
    return (head, rel, tail, [_ev(start + i, f"{text} ({i}).") for i in range(n)])


def _edges() -> list:
    return [
        # the hub: Alzheimer disease and its well-supported genes
        _many(APP, "associates", AD, 100, 12, "APP processing drives Alzheimer disease"),
        _many(MAPT, "associates", AD, 120, 8, "Tau tangles mark Alzheimer disease"),
        _many(APOE, "associates", AD, 140, 10, "APOE genotype sets Alzheimer disease risk"),
        _many(PPARG, "associates", AD, 160, 2, "PPARG variants associate with Alzheimer disease"),
        # the subject: miR-107 has one fact
        (MIR107, "regulates", APP, [_ev(200, "miR-107 regulates APP expression.")]),
        # APOE's own genes (joined to nothing else)
        *[_many(APOE, "associates", f, 300 + 10 * i, 3, f"APOE and FILLER{i} were measured")
          for i, f in enumerate(FILLERS, 1)],
        # shared genes: Parkinson disease two (APP, MAPT), diabetes one (PPARG), migraine none
        _many(MAPT, "associates", PD, 400, 4, "MAPT haplotypes associate with Parkinson disease"),
        _many(APP, "associates", PD, 410, 2, "APP levels change in Parkinson disease"),
        _many(SNCA, "associates", PD, 420, 6, "SNCA mutations cause Parkinson disease"),
        _many(LRRK2, "associates", PD, 430, 5, "LRRK2 variants cause Parkinson disease"),
        _many(PPARG, "associates", T2D, 440, 3, "PPARG variants associate with type 2 diabetes"),
        _many("NCBIGene:43", "associates", MIGRAINE, 450, 2, "ACHE is altered in migraine"),
        _many(RIVASTIGMINE, "associates", AD, 600, 3, "Rivastigmine in Alzheimer disease"),
        _many(RIVASTIGMINE, "causes", NAUSEA, 610, 1, "Rivastigmine caused nausea"),
        # they share more genes, more strongly, than any disease above
        *[_many(g, "associates", d, 500 + 20 * i + 10 * j, 9, f"{g} in {d}")
          for i, d in enumerate((DEMENTIA, INFLAMMATION)) for j, g in enumerate((APP, MAPT))],
    ]  # fmt: skip


def build_focus_kg(root: Path, kg: str = "focus") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    return publish_year(w, 2019, _edges(), ents)
