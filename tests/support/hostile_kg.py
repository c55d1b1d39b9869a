"""The query tests' toy KG (tests/support/query_kg.py) with a hostile abstract in it: an entity
whose name, alias and evidence sentence carry markup that would run if a page ever rendered
them as HTML — ``<script>`` and an ``<img onerror>`` both setting ``window.__pwned`` — and one
APOE fact first seen in 2020, so an as-of-2019 view shows fewer facts than the latest one. The
hostile fact's abstract (PMID 3001) is in it too, markup in its title and text, with PubTator-style
mentions of three kinds: a gene, a disease and a species that is no node of the KG."""

from __future__ import annotations

from pathlib import Path

from kgbuild.records import Document, Entity, Mention
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.support.query_kg import EDGES_2019, EDGES_2020, MENTIONS, NODES, publish_year

SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1;alert(1)">'
HOSTILE_ID = "MESH:D999999"
HOSTILE_NAME = f"amyloidosis factor {SCRIPT}{IMG}"
HOSTILE_SENTENCE = f"APOE binds amyloidosis factor {SCRIPT} and {IMG} in mouse brain."
HOSTILE_EDGES = [
    ("NCBIGene:348", "binds", HOSTILE_ID, [("3001", 2019, HOSTILE_SENTENCE, 0.9)]),
]
HOSTILE_PMID = "3001"
HOSTILE_TITLE = f"Amyloidosis factor {SCRIPT} in APOE mice"
HOSTILE_ABSTRACT = f"Background {IMG} was unclear. {HOSTILE_SENTENCE} Mice were studied."
#: (text, kind, concept) of the abstract's mentions; the offsets are found in the text.
HOSTILE_MENTIONS = [
    ("APOE", "Gene", "NCBIGene:348"),
    ("amyloidosis factor", "Disease", HOSTILE_ID),
    ("mouse", None, "NCBITaxon:10090"),
    ("Mice", None, "NCBITaxon:10090"),
]
#: APOE's only fact first seen in 2020.
LATE_EDGES = [
    ("NCBIGene:348", "interacts", "NCBIGene:4137",
     [("3002", 2020, "APOE interacts with tau (MAPT) in neurons.", 0.8)]),
]  # fmt: skip


def build_hostile_kg(root: Path, kg: str = "toy") -> list[SnapshotInfo]:
    """Publish the 2019 and 2020 snapshots into ``root``; returns their infos."""
    w = Warehouse(root).writer(kg)
    nodes = [*NODES, (HOSTILE_ID, HOSTILE_NAME, "Disease")]
    ents = [Entity(i, n, t, [n], 2019) for i, n, t in nodes]
    mentions = [
        Mention(f"9{j:03d}", j * 10, j * 10 + len(text), text, "Gene", "Gene", cid, [cid])
        # "amyloidosis factor" twice: a form is a trusted key from its second mention on
        # (kgbuild.search.alias_trust), and the fact's sentence is marked by trusted keys
        for cid, text, n in [
            *MENTIONS,
            (HOSTILE_ID, f"amyloidosis {IMG}", 2),
            (HOSTILE_ID, "amyloidosis factor", 2),
        ]
        for j in range(n)
    ]
    text = f"{HOSTILE_TITLE} {HOSTILE_ABSTRACT}"
    at = text.index(HOSTILE_SENTENCE)  # each mention's occurrence in the fact's sentence
    for surface, kind, cid in HOSTILE_MENTIONS:
        start = text.find(surface, at) if surface in HOSTILE_SENTENCE else text.find(surface)
        source = kind or "Species"
        mentions.append(Mention(HOSTILE_PMID, start, start + len(surface), surface, source,
                                kind, cid, [cid]))  # fmt: skip
    w.add("mentions", mentions)
    w.add("documents", [Document(HOSTILE_PMID, 2019, HOSTILE_TITLE, HOSTILE_ABSTRACT, "J")])
    first = publish_year(w, 2019, EDGES_2019 + HOSTILE_EDGES, ents)
    second = publish_year(w, 2020, EDGES_2020 + LATE_EDGES)
    return [first, second]
