"""A small real KG for what answers' sentences say, published through the real snapshot writer:
a drug joined to its target by two sentences stating inhibition and to a cytokine by six
sentences of a downstream effect (which also call the drug an inhibitor, far from the
cytokine's name); a kinase inhibited by a named inhibitor in two sentences and lowered by a
metal in five; Alzheimer's disease joined to APP in ten sentences and to APOE in four that say
"late-onset"; a metal and a class of compounds said to treat it more often than a
drug; and metformin acting on mTOR, which acts on tau, beside a better-supported effect
off that path and a regulator of metformin itself."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Entity
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import publish_year

AD = "MESH:D000544"
DONEPEZIL = "MESH:D000077265"
ACHE, IL1B, GSK3B = "NCBIGene:43", "NCBIGene:3553", "NCBIGene:2932"
APP, APOE = "NCBIGene:351", "NCBIGene:348"
LICL, ZINC = "MESH:D018021", "MESH:D015032"
FLAVONOIDS = "MESH:D005419"
METFORMIN, MTOR, RELA, OCT1, MAPT = (
    "MESH:D008687",
    "NCBIGene:2475",
    "NCBIGene:5970",
    "NCBIGene:6580",
    "NCBIGene:4137",
)
NODES = [
    (AD, "Alzheimer disease", "Disease", ["Alzheimer's disease", "AD"]),
    (DONEPEZIL, "donepezil", "Compound", []),
    (ACHE, "acetylcholinesterase", "Gene", ["ACHE"]),
    (IL1B, "IL-1beta", "Gene", ["IL1B"]),
    (GSK3B, "GSK3B", "Gene", ["GSK3beta"]),
    (LICL, "lithium chloride", "Compound", []),
    (ZINC, "zinc", "Compound", []),
    (APP, "APP", "Gene", ["amyloid precursor protein"]),
    (APOE, "APOE", "Gene", ["apolipoprotein E", "APOE4"]),
    (FLAVONOIDS, "Flavonoids", "Compound", []),
    (METFORMIN, "metformin", "Compound", []),
    (MTOR, "mTOR", "Gene", []),
    (RELA, "RELA", "Gene", []),
    (OCT1, "OCT1", "Gene", []),
    (MAPT, "tau", "Gene", ["MAPT"]),
]


def _ev(pmid: int, sentence: str) -> tuple[str, int, str, float]:
    return (str(pmid), 2019, sentence, 0.8)


def _edges() -> list:
    return [
        (DONEPEZIL, "downregulates", ACHE,
         [_ev(100, "Donepezil is a reversible acetylcholinesterase inhibitor."),
          _ev(101, "Donepezil binds acetylcholinesterase at its peripheral site.")]),
        (DONEPEZIL, "downregulates", IL1B,
         [_ev(110 + i, "Donepezil, an inhibitor used for dementia, reduced the release of "
                       f"microglial IL-1beta in culture ({i}).") for i in range(6)]),
        (LICL, "downregulates", GSK3B,
         [_ev(200 + i, f"The GSK3B inhibitor lithium chloride reduced tau phosphorylation ({i}).")
          for i in range(2)]),
        (ZINC, "downregulates", GSK3B,
         [_ev(210 + i, f"Zinc exposure lowered GSK3B activity in cultured neurons ({i}).")
          for i in range(5)]),
        (APP, "associates", AD,
         [_ev(300 + i, f"APP processing drives Alzheimer disease pathology ({i}).")
          for i in range(10)]),
        (APOE, "associates", AD,
         [_ev(320 + i, f"APOE4 is the main risk gene of late-onset Alzheimer disease ({i}).")
          for i in range(4)]),
        # a metal and a MeSH class heading "treat" Alzheimer's disease in more abstracts than
        # the drug does
        (ZINC, "treats", AD,
         [_ev(340 + i, f"Zinc supplementation improved Alzheimer disease outcomes ({i}).")
          for i in range(6)]),
        (FLAVONOIDS, "treats", AD,
         [_ev(350 + i, f"Flavonoids slowed Alzheimer disease progression ({i}).")
          for i in range(4)]),
        (DONEPEZIL, "treats", AD,
         [_ev(360 + i, f"Donepezil treats Alzheimer disease ({i}).") for i in range(2)]),
        # metformin acts on mTOR, which acts on tau; RELA is an effect off the path, and OCT1
        # a regulator *of* metformin (its uptake), better supported than either
        (METFORMIN, "downregulates", MTOR,
         [_ev(400 + i, f"Metformin suppressed mTOR activation in neurons ({i}).")
          for i in range(2)]),
        (MTOR, "upregulates", MAPT,
         [_ev(410 + i, f"mTOR increased tau phosphorylation ({i}).") for i in range(2)]),
        (METFORMIN, "downregulates", RELA,
         [_ev(420 + i, f"Metformin suppressed RELA in macrophages ({i}).") for i in range(4)]),
        (OCT1, "regulates", METFORMIN,
         [_ev(430 + i, f"OCT1 controls metformin uptake in liver ({i}).") for i in range(6)]),
    ]  # fmt: skip


def build_cues_kg(root: Path, kg: str = "cues") -> SnapshotInfo:
    """Publish the KG's one snapshot (2019) into ``root``."""
    w = Warehouse(root).writer(kg)
    ents = [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES]
    return publish_year(w, 2019, _edges(), ents)
