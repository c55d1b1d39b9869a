"""The phrase-partner measurement (kgbuild/evaluate/phrase_partners.py) on a tiny BioRED file
(tests/fixtures/eval/biored_small.PubTator)."""

from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.phrase_partners import _rows, answers, measure, questions
from tests.conftest import ROOT

BIORED = ROOT / "tests" / "fixtures" / "eval" / "biored_small.PubTator"
LITHIUM, GSK3B, AQP2 = "MESH:D008094", "NCBIGene:2932", "NCBIGene:359"


def test_concepts_with_two_relations_are_asked_for_each_partner_kind():
    qs = questions(read_gold_corpus(BIORED))
    assert len(qs) == 10
    assert (LITHIUM, "Lithium", "Gene", {GSK3B, AQP2}) in qs


def test_sentences_writing_the_phrase_name_fewer_but_surer_partners():
    gold = read_gold_corpus(BIORED)
    kinds = {m.concept_id: m.hetionet_type for ms in gold.mentions.values() for m in ms}
    got = answers(gold, _rows(gold), LITHIUM, "Lithium", "Gene", kinds)
    # "Lithium inhibits GSK3B": a sentence; AQP2 only in another sentence of the abstract
    assert got["phrase_sentences"] == [GSK3B]
    assert got["then_abstracts"] == [GSK3B, AQP2]
    assert set(got["phrase_abstracts"]) == {GSK3B, AQP2}
    figures = measure(gold)
    assert figures["questions"] == 10 and figures["gold_partners"] == 11
    assert figures["phrase_sentences"]["hits@10"] == 10
    assert figures["then_abstracts"]["recall@10"] == 1.0
    assert figures["phrase_sentences"]["precision@5_given"] == 0.9
    assert figures["phrase_abstracts"]["precision@5_given"] == 0.65
