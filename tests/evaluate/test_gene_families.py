"""Gene families as kinds of answer measured against gold (kgbuild/evaluate/gene_families.py),
on the tiny BioRED file built with its relation lines hidden, as `kgbuild eval facts` does."""

from kgbuild.evaluate.gene_families import evaluate
from tests.evaluate.conftest import SMALL


def test_a_disease_related_to_a_kinase_is_asked_for_its_kinases(small_hidden):
    got = evaluate(SMALL, small_hidden)
    # one disease of the file is related to a kinase: its kinase question finds it
    assert got["kinase"]["questions"] == 1
    assert got["kinase"]["kinase"] == {"p_at_5": 1.0, "hit_at_5": 1.0}
    assert got["receptor"]["questions"] == 0
