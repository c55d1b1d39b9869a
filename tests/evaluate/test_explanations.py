"""Questions asking for a claim measured against gold documents
(kgbuild/evaluate/explanations.py): "Why <title>?" on the tiny BioRED file built with its
relations hidden, as `kgbuild eval facts` does."""

from kgbuild.evaluate.explanations import measure
from tests.evaluate.conftest import SMALL


def test_each_title_asked_why_is_scored_against_its_own_abstract(small_hidden):
    got = measure(SMALL, small_hidden)
    assert got["questions"] == 3 and got["not_linked"] == 0
    # "Why Tamoxifen binds ESR1?" reads the sentences writing its words, "Why Aspirin and
    # clopidogrel after stroke?" aspirin's; the lithium title leaves no word unread (its
    # verb is the relation asked), so nothing is read from sentences for it
    assert got["read"] == 2
    assert got["hit1"] == got["hit5"] == round(2 / 3, 3)
