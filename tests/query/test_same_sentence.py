"""The same-sentence tier (kgbuild/corpus/same_sentence.py): with no fact joining the drug to a
side effect, a disease named in one sentence with it and a cue word ("caused") ranks above
diseases named only elsewhere in its abstracts, however many; the corpus's topic is left out
even when the sentence names it (tests/support/same_sentence_kg.py)."""

import pytest

from kgbuild.corpus.same_sentence import tally
from kgbuild.query.cli import _print_retrieval
from kgbuild.query.engine import QueryEngine
from kgbuild.question.kinds import answer_kinds
from tests.support.same_sentence_kg import (
    AD,
    HEADACHE,
    RIVASTIGMINE,
    TREMOR,
    VOMITING,
    build_same_sentence_kg,
)


@pytest.fixture(scope="module")
def retrieval(tmp_path_factory):
    root = tmp_path_factory.mktemp("samesentence") / "wh"
    build_same_sentence_kg(root)
    return QueryEngine(root, embeddings=False).retrieve(
        "What are the side effects of rivastigmine?", embed="off"
    )


@pytest.fixture(scope="module")
def answers(retrieval):
    return retrieval.answers


def test_a_cue_sentence_answer_ranks_first_with_its_sentence(answers):
    top = answers[0]
    assert top["id"] == VOMITING and top["basis"] == "same_sentence"
    assert top["pmid"] == "601"
    assert "«Rivastigmine» caused «vomiting»" in top["sentence"]


def test_same_sentence_answers_rank_above_same_abstract_ones(answers):
    ids = [a["id"] for a in answers]
    # headache shares three abstracts with rivastigmine, vomiting one sentence
    assert ids.index(VOMITING) < ids.index(HEADACHE)
    assert {a["basis"] for a in answers if a["id"] == HEADACHE} == {"same_abstract"}


def test_the_corpus_topic_is_no_same_sentence_answer(answers):
    # "Rivastigmine caused vomiting in Alzheimer's disease patients" names AD (5 of 16
    # abstracts) next to the cue: read for vomiting, never an answer itself
    assert "Alzheimer's disease" in answers[0]["sentence"]
    assert AD not in [a["id"] for a in answers]


def test_without_a_cue_word_a_side_effect_stays_in_the_same_abstract_tier(answers):
    # tremor is named with rivastigmine in two sentences, neither saying it is an effect
    assert [a["basis"] for a in answers if a["id"] == TREMOR] == ["same_abstract"]


def test_a_kind_without_a_cue_counts_every_sentence_and_ranks_by_pmids():
    rows = [
        ("1", 2019, "T.", "Rivastigmine and tremor. Headache.",
         [{"c": RIVASTIGMINE, "a": 3, "b": 15}, {"c": TREMOR, "a": 20, "b": 26},
          {"c": HEADACHE, "a": 28, "b": 36}]),
    ]  # fmt: skip
    seen = tally(rows, {RIVASTIGMINE}, lambda c: True, None)
    assert set(seen) == {TREMOR} and seen[TREMOR].pmids == {"1"}
    cue = next(k for k in answer_kinds() if k.key == "side_effect").said
    assert tally(rows, {RIVASTIGMINE}, lambda c: True, cue) == {}


def test_ask_prints_the_basis_and_the_sentence(retrieval, capsys):
    _print_retrieval(retrieval)
    shown = capsys.readouterr().out
    assert "same sentence only" in shown
    assert "«Rivastigmine» caused «vomiting»" in shown and "PMID 601" in shown
