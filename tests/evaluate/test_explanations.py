"""Questions asking for a claim measured against gold documents
(kgbuild/evaluate/explanations.py): "Why <title>?" on the tiny BioRED file built with its
relations hidden, as `kgbuild eval facts` does."""

from kgbuild.evaluate.explanations import measure
from tests.evaluate.conftest import SMALL


def test_each_title_asked_why_is_scored_against_its_own_abstract(small_hidden):
    got = measure(SMALL, small_hidden)
    assert got["questions"] == 3 and got["not_linked"] == 0
    # every title is read from the sentences writing its words ("induces", the asked
    # relation's own word, counts too), its own abstract's first
    assert got["read"] == 3
    assert got["hit1"] == got["hit5"] == 1.0
