"""A microRNA's partners are never the microRNAs listed beside it, unless microRNAs are asked
for (kgbuild/query/microrna_partners.py) — on a small real KG published through the snapshot
writer."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.records import Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

MIR132, MIR134, SIRT1, FOXO3 = (
    "NCBIGene:406921",
    "NCBIGene:406924",
    "NCBIGene:23411",
    "NCBIGene:2309",
)
NODES = [
    (MIR132, "MIR132 (microRNA 132)", ["miR-132"]),
    (MIR134, "MIR134 (microRNA 134)", ["miR-134"]),
    (SIRT1, "SIRT1 (sirtuin 1)", ["SIRT1"]),
    (FOXO3, "FOXO3 (forkhead box O3)", ["FOXO3"]),
]


def _ev(pmid: int, text: str) -> tuple[str, int, str, float]:
    return (str(pmid), 2019, text, 0.8)


EDGES = [
    # profiled together in three abstracts: the strongest co-mention
    (MIR132, "associates", MIR134,
     [_ev(100 + i, f"miR-132 and miR-134 were both decreased ({i}).") for i in range(3)]),
    (MIR132, "downregulates", SIRT1, [_ev(200, "miR-132 represses SIRT1 in neurons.")]),
    (MIR132, "downregulates", FOXO3, [_ev(201, "miR-132 targets FOXO3.")]),
]  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("mirna") / "wh"
    ents = [Entity(i, n, "Gene", a, 2019) for i, n, a in NODES]
    publish_year(Warehouse(root).writer("mirna"), 2019, EDGES, ents)
    return QueryEngine(root, embeddings=False)


def _ids(engine: QueryEngine, q: str) -> list[str]:
    return [a["id"] for a in engine.retrieve(q, embed="off").answers]


def test_a_micrornas_targets_are_not_the_micrornas_listed_with_it(engine):
    got = _ids(engine, "What are the targets of miR-132?")
    assert MIR134 not in got and {SIRT1, FOXO3} <= set(got)
    assert MIR134 not in _ids(engine, "Which genes does miR-132 regulate?")


def test_micrornas_asked_for_stay(engine):
    assert MIR134 in _ids(engine, "Which microRNAs are associated with miR-132?")
