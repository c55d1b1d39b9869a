"""Gene families asked by name ("Which cytokines …", "Which proteases …"): the answers are the
genes whose HGNC approved name says so, never their receptors, inhibitors or regulators
(data/answer_kinds.toml; kgbuild/question/kinds.py) — on a small real KG published through the
snapshot writer."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent
from kgbuild.records import Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

AD = "MESH:D000544"
#: (id, HGNC-style display name): members of each family and look-alikes that are not
GENES = [
    ("NCBIGene:3553", "IL1B (interleukin 1 beta)"),
    ("NCBIGene:7124", "TNF (tumor necrosis factor)"),
    ("NCBIGene:6347", "CCL2 (C-C motif chemokine ligand 2)"),
    ("NCBIGene:3554", "IL1R1 (interleukin 1 receptor type 1)"),
    ("NCBIGene:1795", "DOCK3 (dedicator of cytokinesis 3)"),
    ("NCBIGene:3659", "IRF1 (interferon regulatory factor 1)"),
    ("NCBIGene:839", "CASP6 (caspase 6)"),
    ("NCBIGene:5641", "LGMN (legumain)"),
    ("NCBIGene:823", "CAPN1 (calpain 1)"),
    ("NCBIGene:7076", "TIMP1 (TIMP metallopeptidase inhibitor 1)"),
    ("NCBIGene:5329", "PLAUR (plasminogen activator, urokinase receptor)"),
    ("NCBIGene:5515", "PPP2CA (protein phosphatase 2 catalytic subunit alpha)"),
    ("NCBIGene:10254", "PTPA (protein phosphatase 2 phosphatase activator)"),
    ("NCBIGene:1131", "CHRM3 (cholinergic receptor muscarinic 3)"),
    ("NCBIGene:1139", "CHRNA7 (cholinergic receptor nicotinic alpha 7 subunit)"),
    ("NCBIGene:20", "ABCA2 (ATP binding cassette subfamily A member 2)"),
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("families") / "wh"
    ents = [Entity(AD, "Alzheimer disease", "Disease", ["Alzheimer disease", "AD"], 2019)]
    ents += [Entity(i, n, "Gene", [n.split(" ")[0]], 2019) for i, n in GENES]
    edges = [(i, "associates", AD,
              [(str(100 + k * 10 + j), 2019, f"{n.split(' ')[0]} rises in Alzheimer disease ({j}).",
                0.8) for j in range(1 + k % 3)])
             for k, (i, n) in enumerate(GENES)]  # fmt: skip
    publish_year(Warehouse(root).writer("families"), 2019, edges, ents)
    return QueryEngine(root, embeddings=False)


def _answers(engine: QueryEngine, q: str) -> set[str]:
    return {a["name"].split(" ")[0] for a in engine.retrieve(q, embed="off").answers}


def test_each_family_answers_its_members_only(engine):
    assert _answers(engine, "Which cytokines are raised in Alzheimer disease?") == {
        "IL1B", "TNF", "CCL2"}  # fmt: skip
    assert _answers(engine, "Which proteases are linked to Alzheimer disease?") == {
        "CASP6", "LGMN", "CAPN1"}  # fmt: skip
    assert _answers(engine, "which phosphatases are linked to Alzheimer disease") == {"PPP2CA"}
    assert _answers(engine, "Which ion channels are linked to Alzheimer disease?") == {"CHRNA7"}
    assert _answers(engine, "Which transporters are linked to Alzheimer disease?") == {"ABCA2"}
    # enzymes: every "-ase" and named enzyme, never an inhibitor, activator or receptor of one
    assert _answers(engine, "Which enzymes are linked to Alzheimer disease?") == {
        "CASP6", "LGMN", "CAPN1", "PPP2CA"}  # fmt: skip


def test_family_words_that_do_not_ask_for_the_family():
    def kind(q: str) -> str | None:
        k = read_intent(q).kind
        return k.key if k else None

    assert kind("Which cytokines are raised in the blood of AD patients?") == "cytokine"
    assert kind("which proteases cleave tau") == "protease"
    assert kind("Which peptidases degrade amyloid beta?") == "protease"
    # a receptor of the family, an inhibitor class, a drug class or two kinds coordinated
    assert kind("Which cytokine receptors are expressed on microglia?") != "cytokine"
    assert kind("Which protease inhibitors were tested in AD?") != "protease"
    assert kind("Which calcium channel blockers lower dementia risk?") != "ion_channel"
    assert kind("Which kinases and phosphatases act on tau?") is None
    assert kind("Which enzymes degrade amyloid beta?") == "enzyme"
    assert kind("which proteolytic enzymes cleave APP?") == "protease"
    assert kind("Which enzyme inhibitors are used in AD?") != "enzyme"
