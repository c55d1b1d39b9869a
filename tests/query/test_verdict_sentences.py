"""Yes/no verdicts read from the corpus's sentences when no served fact decides
(kgbuild/query/verdict_sentences.py), on a real KG (tests/support/sentences_kg.py)."""

import re

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.query.verdict_sentences import Side, fetch, phrase_side
from tests.support.sentences_kg import AD, T2D, build_sentences_kg


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("sentences") / "wh"
    build_sentences_kg(root)
    return QueryEngine(root, embeddings=False)


def _verdict(engine, q: str) -> dict:
    v = engine.retrieve(q, embed="off").verdict
    assert v is not None
    return v


def test_sentences_answer_yes_where_no_fact_joins_the_pair(engine):
    v = _verdict(engine, "Is type 2 diabetes a risk factor for Alzheimer's disease?")
    assert v["answer"] == "yes" and v["basis"] == "sentences"
    assert "not extracted as facts" in v["line"]
    assert v["pmids"] == ["501", "502", "506", "510"]
    assert any("«Type 2 diabetes»" in x["sentence"] for x in v["sentences"])
    # sentences naming the subject first are shown first, though 510's names sit closer
    assert [x["pmid"] for x in v["sentences"]][-1] == "510"


def test_a_negated_cue_in_the_sentence_answers_no(engine):
    v = _verdict(engine, "Is hypertension a risk factor for Alzheimer's disease?")
    assert v["answer"] == "no" and v["basis"] == "sentences"
    assert v["sentences"][0]["reading"] == "no"


def test_an_abstracts_negated_finding_outweighs_its_title_and_aim(engine):
    v = _verdict(engine, "Does Ginkgo biloba reduce the risk of Alzheimer's disease?")
    assert v["answer"] == "no" and v["basis"] == "sentences", v["line"]
    assert v["sentence_counts"]["yes"] == 0 and v["sentence_counts"]["no"] == 1
    assert "1 PMIDs whose other sentences (a title, an aim) say so negate it" in v["line"]
    # the finding is shown first, before the title and the aim it outweighs
    shown = v["sentences"]
    assert "did not reduce" in shown[0]["sentence"] and shown[0]["reading"] == "no"
    assert {x["reading"] for x in shown[1:]} == {"yes"}


def test_one_abstract_stating_the_opposite_is_too_few_to_answer_no(engine):
    # an opposite cue ("reduced") in two abstracts answers no; in one, without a negation,
    # it is as often about another role of the pair, so the verdict does not say no
    v = _verdict(engine, "Does lithium increase APP?")
    assert v["answer"] == "no" and v["basis"] == "sentences", v["line"]
    v = _verdict(engine, "Does hypertension increase APP?")
    assert v["basis"] == "sentences" and v["answer"] == "no stated evidence", v["line"]
    assert "1 state the opposite (too few, none negated, to answer no)" in v["line"]


def test_a_three_entity_question_is_read_on_sentences_naming_all_three(engine):
    v = _verdict(engine, "Does lithium reduce tau phosphorylation by inhibiting GSK3B?")
    assert v["answer"] == "yes" and v["pmids"] == ["504"]
    assert "via GSK3B" in v["line"]
    # "tau" has no concept ID there: found as one of the node's names
    assert "«tau»" in v["sentences"][0]["sentence"]


def test_an_unlinked_phrase_is_read_by_its_words_misspelt_or_not(engine):
    for q in ("Does regular excercise lower the risk of Alzheimer's disease?",
              "Does exercise lower the risk of Alzheimer's disease?"):  # fmt: skip
        v = _verdict(engine, q)
        assert v["answer"] == "yes" and v["pmids"] == ["505"], (q, v["line"])
        assert "not extracted as facts" in v["line"]
        # the phrase is the subject, as the question has it, and the line says how it was read
        assert re.search(r"exc?ercise reduces the risk of Alzheimer disease", v["line"])
        assert "phrase read as: " in v["line"] and "exercis*" in v["line"]


def test_a_phrase_no_sentence_names_stays_not_found(engine):
    v = _verdict(engine, "Does yoghurt lower the risk of Alzheimer's disease?")
    assert v["answer"] == "not found"
    assert "yoghurt" in v["line"]


def test_a_hostile_abstract_does_not_break_the_reading(engine):
    v = _verdict(engine, "Is type 2 diabetes a risk factor for Alzheimer's disease?")
    marked = [x["sentence"] for x in v["sentences"] if x["pmid"] == "506"]
    assert marked == ["<i>«type 2 diabetes»</i> raises the risk of <b>«Alzheimer's disease»</b>."]
    assert v["sentence_counts"]["sentences"] == 4  # the 6,000-character run-on is not read


def test_a_misspelt_stem_is_corrected_against_the_vocabulary():
    side = phrase_side("regular excercise", {"regular": 0, "exercis": 1})
    assert side is not None and side.stems == ("regular", "exercis")
    assert phrase_side("of the", {}) is None


def test_only_the_snapshot_documents_up_to_the_asked_year_are_read(engine):
    sides = [Side("t2d", ids=(T2D,)), Side("ad", ids=(AD,))]
    sid = engine.snapshot_id
    got = sorted(r[0] for r in fetch(engine.wh, sid, sides, [], 2019))
    assert got == ["501", "502", "506", "510"]
    assert fetch(engine.wh, sid, sides, [], 2018) == []


def test_the_asked_predicate_is_no_part_of_an_unlinked_phrase(engine):
    # "exercise effective": "effective" is what is asked (a cue of "treats or prevents"), so
    # the phrase is "exercise", which abstract 505 names
    v = _verdict(engine, "Is exercise effective at preventing Alzheimer's disease?")
    assert v["answer"] == "yes" and v["pmids"] == ["505"], v["line"]
    assert "phrase read as: exercis*" in v["line"]


def test_a_verdict_says_when_its_statements_come_from_animal_studies_only(engine):
    # a disease prevented in mice only is not shown in people: no "yes"
    v = _verdict(engine, "Does simvastatin prevent Alzheimer's disease?")
    assert v["answer"] == "in animal studies only" and v["pmids"] == ["512"], v["line"]
    assert "all 1 in animal studies only" in v["line"] and "not shown in people" in v["line"]
    assert v["sentence_counts"]["yes_animal_only"] == 1
    # a molecular effect read in mice is stated there: "yes", said to be from animals
    v = _verdict(engine, "Does simvastatin decrease APP?")
    assert v["answer"] == "yes" and v["pmids"] == ["513"], v["line"]
    assert "all 1 in animal studies only" in v["line"] and "people" not in v["line"]
    # a cohort of people is a human study
    v = _verdict(engine, "Is type 2 diabetes a risk factor for Alzheimer's disease?")
    assert "animal" not in v["line"] and v["sentence_counts"]["yes_animal_only"] == 0


def test_an_unreadable_catalog_leaves_the_facts_verdict_and_answers(engine, monkeypatch, caplog):
    import duckdb

    def unreadable(*_a, **_k):
        raise duckdb.IOException("IO Error: No files found that match the pattern")

    monkeypatch.setattr("kgbuild.query.verdict_sentences.fetch", unreadable)
    monkeypatch.setattr("kgbuild.query.phrase_answer.fetch", unreadable)
    monkeypatch.setattr("kgbuild.query.engine.passages", unreadable)  # the abstracts too
    v = _verdict(engine, "Is type 2 diabetes a risk factor for Alzheimer's disease?")
    assert v["answer"] == "no evidence" and "basis" not in v
    r = engine.retrieve(
        "What role does the Notch pathway play in Alzheimer's disease?", embed="off"
    )
    assert r.found
    assert "sentences unreadable" in caplog.text


def test_a_short_word_is_never_spelling_corrected():
    # "let" of "let-7" is a microRNA's name, not a slip of "left"
    assert phrase_side("let-7", {"left": 0}).stems == ("let",)
    assert phrase_side("excercise", {"exercis": 0}).stems == ("exercis",)


def test_a_phrase_not_named_whole_is_read_by_its_first_and_head_words():
    from kgbuild.query.verdict_sentences import _phrase_spans

    side = Side("estrogen hormone replacement", stems=("estrogen", "hormon", "replac"))
    assert _phrase_spans("Estrogen replacement therapy lowers AD risk.", side, False)
    # the head alone names another thing ("cell replacement")
    assert _phrase_spans("Cell replacement therapy for AD.", side, False) is None
    assert _phrase_spans("Estrogen replacement therapy lowers AD risk.", side, True) is None
