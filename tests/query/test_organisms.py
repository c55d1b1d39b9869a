"""Organism answers (kgbuild/corpus/organisms.py, organism_answer.py, organism_kinds.py): the
KG has no organism node, so "which infectious agents / viruses / non-mammalian models" is read
from the PubTator Species mentions of the sentences naming the question's entity, each answer
with its PMIDs and best sentence, ranked by specificity rather than raw counts
(tests/support/organisms_kg.py)."""

import pytest

from kgbuild.corpus.organism_kinds import read_ask
from kgbuild.corpus.organisms import npmi
from kgbuild.query.cli import _print_retrieval
from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent
from kgbuild.taxa import PATHOGENS, taxon
from tests.support.organisms_kg import (
    AAV,
    ECOLI,
    FISH,
    FLY,
    HSV1,
    HUMAN,
    MOUSE,
    PGING,
    RHESUS,
    TREPONEMA,
    build_organisms_kg,
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("organisms") / "wh"
    build_organisms_kg(root)
    return QueryEngine(root, embeddings=False)


def ask(engine, question):
    return engine.retrieve(question, embed="off")


def ids(r):
    return [a["id"] for a in r.answers]


def test_infectious_agents_are_the_organisms_said_to_infect(engine):
    r = ask(engine, "Which infectious agents have been linked to Alzheimer's disease?")
    got = ids(r)
    assert got[0] == HSV1  # two abstracts say HSV-1 infection
    assert {PGING, TREPONEMA} <= set(got)  # Treponema is unlisted: its genus's row
    # never the host, the models, a vector or an expression host
    assert not {HUMAN, MOUSE, AAV, ECOLI, FLY} & set(got)
    top = r.answers[0]
    assert top["type"] == "Organism" and top["basis"] == "same_sentence"
    assert top["pmids"] == ["701", "702"] and "«" in top["sentence"]
    assert top["name"].startswith("herpes simplex virus 1")
    assert "not KG facts" in r.intent["answer_note"]


def test_viruses_leave_out_a_vector(engine):
    assert ids(ask(engine, "Which viruses are associated with Alzheimer's disease?")) == [HSV1]


def test_non_mammalian_models_leave_out_mammals(engine):
    got = ids(ask(engine, "Which non-mammalian organisms are used as models of Alzheimer's "
                          "disease?"))  # fmt: skip
    assert set(got) == {FLY, FISH}
    assert (
        "data/organisms.tsv"
        in ask(engine, "which non-mammalian organisms model AD?").intent["answer_note"]
    )


def test_model_organisms_of_a_gene_include_the_mouse(engine):
    got = ids(ask(engine, "What model organisms are used to study tau?"))
    assert {MOUSE, FLY, FISH} <= set(got) and HUMAN not in got


def test_specificity_not_raw_counts_ranks_the_organisms(engine):
    # mice share five sentences with AD, Drosophila two; but mice are in half the abstracts
    got = ids(ask(engine, "Which organisms are linked to Alzheimer's disease?"))
    assert got.index(FLY) < got.index(MOUSE) and HUMAN not in got
    assert RHESUS in got


def test_ask_prints_the_organisms_and_their_sentences(engine, capsys):
    _print_retrieval(ask(engine, "Which viruses are associated with Alzheimer's disease?"))
    shown = capsys.readouterr().out
    assert "herpes simplex virus 1" in shown and "NCBITaxon:10298" in shown
    assert "same sentence only" in shown and "PMID 70" in shown


def test_the_question_reads_the_organism_kind_and_its_slice():
    assert read_intent("Which bacteria are linked to AD?", []).kind.key == "organism"
    assert read_intent("Which infectious agents cause AD?", []).kind.key == "organism"
    assert read_intent("which animals besides mice model AD?", []).kind.key == "organism"
    # an amyloid "species" and a therapeutic "agent" are no organisms
    assert read_intent("Which Abeta species are toxic?", [(6, 11)]).kind is None
    assert read_intent("Which agents treat AD?", []).kind is None
    assert read_ask("Which infectious agents cause AD?").groups == PATHOGENS
    assert read_ask("what viruses are linked to AD").groups == {"virus"}
    m = read_ask("which non-mammalian organisms are used as models of AD")
    assert m.model and m.non_mammal and not m.groups


def test_a_taxon_is_read_from_the_table_its_genus_or_its_forms():
    assert taxon(MOUSE, []).cls == "mammal"
    assert taxon("NCBITaxon:1", ["Candida albicans"]).group == "fungus"
    assert taxon("NCBITaxon:2", ["Borna disease virus"]).group == "virus"
    assert taxon("NCBITaxon:3", ["Ginkgo biloba"]).group == ""


def test_npmi_is_high_for_a_rare_taxon_named_with_the_entity():
    assert npmi(2, 2, 10, 100) > npmi(10, 50, 10, 100)
    assert npmi(0, 2, 10, 100) == 0.0


def test_infection_words_narrow_a_group_and_invertebrates_leave_out_vertebrates():
    bact = read_ask("Which bacterial pathogens are linked to AD?")
    assert bact.groups == {"bacterium"} and bact.infection
    assert not read_ask("Which bacteria are linked to AD?").infection
    inv = read_ask("Which invertebrate model organisms are used to study tau?")
    assert inv.takes(taxon(FLY, [])) and not inv.takes(taxon(FISH, []))
    assert read_ask("which non-mammalian organisms model AD?").takes(taxon(FISH, []))


def test_invertebrate_models_of_a_gene(engine):
    got = ids(ask(engine, "Which invertebrate model organisms are used to study tau?"))
    assert got == [FLY]


def test_an_organism_question_naming_no_entity_reads_the_whole_corpus(engine):
    r = ask(engine, "Which viruses infect the brain?")
    assert ids(r) == [HSV1] and r.found
    assert "in the corpus's sentences" in r.intent["answer_note"]


def test_an_organism_after_the_noun_asked_for_is_no_organism_question(engine):
    # "genes" heads the wh-phrase: the answers are genes, never organisms
    r = ask(engine, "Which genes do viruses regulate in Alzheimer's disease?")
    assert r.intent["answer_kind"] is None
    assert all(a.get("type") != "Organism" for a in r.answers)


def test_organism_ranking_uses_the_fact_answers_constants():
    from kgbuild.corpus import organisms
    from kgbuild.query import answer_entities

    assert (organisms.BASE, organisms.TOPIC_SHARE) == (
        answer_entities.BASE,
        answer_entities.TOPIC_SHARE,
    )
