"""Answers of the kind asked (data/answer_kinds.toml, kgbuild/question/kinds.py), a choice named in
the question scored on the asked relation (kgbuild/query/asked_relation.py), and `ask`'s
labelled timing line — on a small real KG (tests/support/kinds_kg.py)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from kgbuild.cli import app
from kgbuild.query.cli import timing_line
from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent
from kgbuild.question.kinds import answer_kinds, for_anchors
from tests.support.kinds_kg import build_kinds_kg


@pytest.fixture(scope="module")
def kinds_wh(tmp_path_factory):
    root = tmp_path_factory.mktemp("kinds") / "wh"
    build_kinds_kg(root)
    return root


@pytest.fixture(scope="module")
def engine(kinds_wh):
    return QueryEngine(kinds_wh, embeddings=False)


def _kind(q: str) -> str | None:
    k = read_intent(q).kind
    return k.key if k else None


def test_the_kind_is_read_from_the_question_words():
    assert {k.key for k in answer_kinds()} >= {"microrna", "side_effect", "biomarker", "target",
                                               "pathway", "mechanism"}  # fmt: skip
    assert _kind("Which microRNAs are linked to Alzheimer's disease?") == "microrna"
    assert _kind("What are the side effects of donepezil?") == "side_effect"
    assert _kind("List the adverse drug reactions of haloperidol") == "side_effect"
    assert _kind("Which biomarkers are associated with AD?") == "biomarker"
    assert _kind("What are the targets of donepezil?") == "target"
    assert _kind("Which pathways are involved in AD?") == "pathway"
    assert _kind("How does memantine work?") == "mechanism"
    # the noun heads the wh-phrase, else it is not the kind asked for
    assert _kind("Which genes are involved in Wnt signaling?") is None
    assert _kind("What is the role of microRNAs in AD?") is None
    assert _kind("Does donepezil have side effects?") is None  # yes/no: a verdict, not a list
    assert _kind("Which drugs treat Alzheimer's disease?") is None


def test_microrna_questions_list_microRNAs_not_the_best_supported_genes(engine):
    r = engine.retrieve("Which microRNAs are linked to Alzheimer's disease?")
    ids = [a["id"] for a in r.answers]
    assert set(ids) == {"NCBIGene:406938", "NCBIGene:406921"}  # MIR146A, MIR132; not APP, MAPT
    assert r.intent["answer_kind"] == "microRNA"


def test_side_effects_are_diseases_the_drug_causes_not_ones_it_treats(engine):
    r = engine.retrieve("What are the side effects of donepezil?")
    # not Alzheimer disease or memory disorders (treated), not the generic MeSH term
    assert [a["name"] for a in r.answers] == ["Bradycardia"]
    none = engine.retrieve("What are the side effects of memantine?")
    assert none.answers == []
    note = none.intent["answer_note"]
    assert note == "no asserted fact in this snapshot states a side effect of memantine"


def test_answers_of_the_kind_without_a_fact_come_with_a_plain_note(engine):
    r = engine.retrieve("What are the side effects of rivastigmine?")
    assert [(a["name"], a["basis"]) for a in r.answers] == [("Dizziness", "same_abstract")]
    assert r.intent["answer_note"] == (
        "no asserted fact in this snapshot states a side effect of rivastigmine; the answers "
        "below rest only on weaker evidence or on being named in the same abstracts"
    )
    assert engine.retrieve("What are the side effects of donepezil?").intent["answer_note"] is None


def test_biomarkers_rest_on_marker_facts(engine):
    r = engine.retrieve("Which biomarkers are associated with Alzheimer's disease?")
    assert [a["name"] for a in r.answers] == ["NEFL"]  # not APP (12 PMIDs, none a marker)


def test_targets_of_a_drug_are_genes_it_acts_on(engine):
    r = engine.retrieve("What are the targets of donepezil?")
    assert [a["name"] for a in r.answers] == ["ACHE"]


def test_a_kind_the_snapshot_lacks_is_said_plainly(engine):
    r = engine.retrieve("Which pathways are involved in Alzheimer's disease?")
    assert r.answers == []
    assert r.intent["answer_note"] == (
        "this snapshot has no pathway entities, so it cannot list pathways"
    )


def test_the_readme_example_answers_the_choice_the_question_names(engine):
    r = engine.retrieve("Does APOE interact with APP in Alzheimer's disease?", ["APOE", "TREM2"])
    assert r.kg_answer == 0, r.choice_scores
    apoe = r.choice_scores[0]
    assert apoe["relation"] > 0 and apoe["reasons"][0].startswith("asked relation (interacts)")


def test_choices_not_named_in_the_question_keep_their_scores(engine):
    r = engine.retrieve("Which gene is a risk factor of Alzheimer's disease?", ["MAPT", "NEFL"])
    assert all(cs["relation"] == 0.0 for cs in r.choice_scores)


def test_ask_labels_its_timing_line(kinds_wh):
    q = "Which microRNAs are linked to Alzheimer's disease?"
    args = ["ask", q, "--warehouse", str(kinds_wh), "--no-llm", "--embed", "off"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("retrieval took ") and " ms" in last, last
    assert "answers that are microRNAs" in res.output
    assert timing_line({"link_ms": 1.0, "total_ms": 2.5}) == "retrieval took 2.5 ms (link 1.0 ms)"


def test_what_a_drug_acts_on_asks_for_its_targets():
    # the verb's stranded preposition has "what" as its object: the drug's targets are asked
    assert _kind("what does memantine act on?") == "target"
    assert _kind("What is curcumin (from turmeric) supposed to act on in Alzheimer's disease?") \
        == "target"  # fmt: skip
    assert _kind("nicotine patches were tried in MCI - what does nicotine act on?") == "target"
    # the verb with an object of its own asks for no target
    assert _kind("Which drugs act on NMDA receptors?") is None
    target = next(k for k in answer_kinds() if k.key == "target")
    # what a gene acts on is not the drugs acting on it (the noun/verb "target" is)
    assert for_anchors(target, ["Gene"], None, "act on") is None
    assert for_anchors(target, ["Gene"], None, "target").key == "targeting_drug"


def test_a_drugs_targets_come_from_the_drug_not_its_diseases_genes(engine):
    # "for Alzheimer's disease" is the drug's setting: APP, MAPT (the disease's genes) are
    # not donepezil's targets, whatever preposition names the setting
    r = engine.retrieve("donepezil was tried for Alzheimer's disease - what does it act on?")
    assert [a["name"] for a in r.answers] == ["ACHE"]
    assert r.intent["answer_kind"] == "target"
    # the setting the question names is never its answer, even when the drug causes it
    r = engine.retrieve("What side effects does donepezil have in people with bradycardia?")
    assert "Bradycardia" not in [a["name"] for a in r.answers]
    assert [a["name"] for a in engine.retrieve("What are the side effects of donepezil?").answers] \
        == ["Bradycardia"]  # fmt: skip
