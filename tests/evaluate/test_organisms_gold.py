"""The organism measurement (kgbuild/evaluate/organisms.py) on a tiny BioRED-style file
(tests/fixtures/eval/organisms_small.PubTator): curators' OrganismTaxon mentions as gold."""

from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.organisms import gold_figures
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "fixtures" / "eval" / "organisms_small.PubTator"


def test_the_organisms_of_each_abstract_are_found_and_human_never_counts():
    got = gold_figures([read_gold_corpus(SMALL)])
    # three abstracts naming AD and a non-human organism: one question each
    assert got["abstracts"] == 3 and got["questions"] == 3
    whole = got["in_corpus/specificity"]
    assert whole["gold"] == 5 and whole["recall_at_10"] == 1.0  # HSV-1, mouse, zebrafish, rat
    # the mouse of 801 is named in another sentence than AD: the sentence tier misses it
    assert got["in_corpus/sentence_only"]["found_at_10"] == 4
    # held out, 803's rat is named in no other abstract
    assert got["held_out/specificity"]["found_at_10"] < whole["found_at_10"]
