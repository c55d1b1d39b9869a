"""Open "What does X do?" questions measured against gold (kgbuild/evaluate/open_questions.py),
on the tiny BioRED file built with its relations hidden, as `kgbuild eval facts` does."""

from kgbuild.evaluate.open_questions import measure
from tests.evaluate.conftest import SMALL


def test_open_questions_are_answered_and_scored_against_gold_partners(small_hidden):
    got = measure(SMALL, small_hidden)
    # in a six-abstract file most concepts are its topic (named in a quarter of it): asked of
    # those, the facts answer; the others are answered from their sentences
    assert got["questions"] == 6 and got["answered"] >= 1
    assert got["answers_p5_given"] >= 0.5 and 0 < got["answers_recall10"] <= 1
    # the triples shown are the asked entity's own facts
    assert got["triples_about_subject"] == 1.0
