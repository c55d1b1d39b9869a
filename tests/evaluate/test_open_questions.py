"""Open "What does X do?" questions measured against gold (kgbuild/evaluate/open_questions.py),
on the tiny BioRED file built with its relations hidden, as `kgbuild eval facts` does."""

from kgbuild.evaluate.facts import _read, build_hidden, hide_relations
from kgbuild.evaluate.open_questions import measure
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "fixtures" / "eval" / "biored_small.PubTator"


def test_open_questions_are_answered_and_scored_against_gold_partners(tmp_path):
    wh = tmp_path / "warehouse"
    build_hidden(hide_relations(SMALL, _read(SMALL).fmt, tmp_path / "input"), wh)
    got = measure(SMALL, wh)
    # in a six-abstract file most concepts are its topic (named in a quarter of it): asked of
    # those, the facts answer; the others are answered from their sentences
    assert got["questions"] == 6 and got["answered"] >= 1
    assert got["answers_p5_given"] >= 0.5 and 0 < got["answers_recall10"] <= 1
    # the triples shown are the asked entity's own facts
    assert got["triples_about_subject"] == 1.0
