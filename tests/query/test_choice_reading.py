"""Multiple-choice options read from the corpus's sentences (kgbuild/corpus/choice_reading.py)
when no fact separates them: the option whose distinctive words stand in a sentence naming
the question's subject and what it asks wins, a negated sentence counts for a negative option
and against a positive one, and the reading abstains when sentences do not separate the
options (tests/support/choice_reading_kg.py)."""

import pytest

from kgbuild.corpus.choice_reading import distinctive, facts_decide, judge
from kgbuild.query.cli import _print_retrieval, answer_line
from kgbuild.query.engine import QueryEngine
from kgbuild.search.sentences import SentenceIndex
from tests.support.choice_reading_kg import APP, ZELUMAB, build_choice_reading_kg

FORMS = ["Abeta monomers", "soluble Abeta protofibrils", "tau tangles"]
OUTCOMES = [
    "significant cognitive improvement",
    "no significant benefit vs placebo",
    "stopped early for liver toxicity",
]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("choicereading") / "wh"
    build_choice_reading_kg(root)
    return QueryEngine(root, embeddings=False)


@pytest.fixture(scope="module")
def binds(engine):
    return engine.retrieve("Zelumab mainly binds which form of amyloid beta?", FORMS, embed="off")


def test_the_option_a_subject_sentence_says_is_the_answer(binds):
    assert binds.kg_answer == 1
    read = binds.choice_reading
    assert read["basis"] == "sentences" and read["choice"] == 1
    assert [x["pmid"] for x in read["sentences"][1]] == ["701"]
    assert "«protofibrils»" in read["sentences"][1][0]["sentence"]


def test_sentences_without_the_subject_or_the_asked_words_do_not_count(binds):
    # "Abeta monomers were measured" names no zelumab; "tau tangles are hallmarks" says
    # nothing of binding
    assert binds.choice_reading["sentences"][0] == []
    assert binds.choice_reading["sentences"][2] == []


def test_a_negated_sentence_counts_for_the_negative_outcome(engine):
    r = engine.retrieve(
        "What was the outcome of the phase 3 trials of dimetrine in Alzheimer's disease?",
        OUTCOMES,
        embed="off",
    )
    assert r.kg_answer == 1
    scores = r.choice_reading["scores"]
    assert scores[0] < 0 < scores[1]  # "did not produce significant cognitive improvement"
    assert scores[2] == 0  # liver toxicity: a sentence without dimetrine


def test_the_answer_says_it_was_read_from_sentences_and_shows_them(binds, capsys):
    line = answer_line(binds.to_dict(), FORMS, None, False)
    assert line.startswith("KG-only answer B. soluble Abeta protofibrils — read from sentences")
    assert "PMIDs 701" in line
    _print_retrieval(binds)
    shown = capsys.readouterr().out
    assert "sentence reading per choice" in shown and "PMID 701" in shown


def test_options_named_in_the_same_sentences_are_not_separated():
    lexical = SentenceIndex.build(["zelumab binds protofibrils and monomers"])
    rows = [("1", 2019, "T.", "Zelumab binds protofibrils and monomers alike.",
             [{"c": ZELUMAB, "a": 3, "b": 10}])]  # fmt: skip
    opts = distinctive(["monomers", "protofibrils"], "Zelumab binds which form?")
    read = judge(rows, ZELUMAB, {ZELUMAB: 1.0}, None, opts, ["bind"], ["monomers", "protofibrils"],
                 lexical)  # fmt: skip
    assert read.choice is None and read.scores[0] == read.scores[1] > 0


def test_only_what_an_option_has_that_the_others_and_the_question_lack_is_read():
    assert distinctive(FORMS, "which form of amyloid beta") == [
        ["monom"],
        ["protofibril", "solubl"],
        ["tangl", "tau"],
    ]


def test_facts_that_single_out_an_option_keep_it():
    assert facts_decide([0.4, 0.1, 0.0])
    assert not facts_decide([0.1, 0.1, 0.0])
    assert not facts_decide([None, 0.0])
    assert APP  # the fixture's Abeta node every form links to


def test_a_question_asking_for_the_exception_is_not_read(engine):
    # the sentences say which form zelumab binds; the option asked for is one it does not
    r = engine.retrieve("Zelumab binds all of the following forms EXCEPT:", FORMS, embed="off")
    assert r.choice_reading is None and r.to_dict()["choice_reading"] is None
