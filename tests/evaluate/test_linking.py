"""Question linking measured against gold (kgbuild.evaluate.linking) on a small real KG
(tests/support/link_kg.py) and a tiny BioRED-format gold file."""

from __future__ import annotations

import pytest

from kgbuild.evaluate.linking import evaluate, judge, misspell
from kgbuild.link.linker import Linker
from kgbuild.search.index import open_index
from kgbuild.store.snapshots import Warehouse
from tests.support.link_kg import AD, DONEPEZIL, build_link_kg

TITLE = "Donepezil in Alzheimer's disease: which diseases share risk genes?"
GOLD = f"""1|t|{TITLE}
1|a|Donepezil was given.
1\t0\t9\tDonepezil\tChemicalEntity\tD000077265
1\t13\t32\tAlzheimer's disease\tDiseaseOrPhenotypicFeature\tD000544
1\t67\t76\tDonepezil\tChemicalEntity\tD000077265

"""


@pytest.fixture(scope="module")
def linker(tmp_path_factory):
    root = tmp_path_factory.mktemp("link-eval-wh")
    info = build_link_kg(root)
    return Linker(open_index(Warehouse(root), info.snapshot_id))


def test_misspelling_swaps_two_letters_of_the_longest_word():
    assert misspell("donepezil") == "doenpezil"
    assert misspell("Alzheimer's disease") == "Alzheimer's diesase"  # the longest word
    assert misspell("tau") is None


def test_judge_names_right_wrong_missed_and_unlinked(linker):
    assert judge(linker, "donepezil", frozenset({DONEPEZIL}), True) == ("right", DONEPEZIL)
    assert judge(linker, "donepazil", frozenset({DONEPEZIL}), True) == ("right", DONEPEZIL)
    assert judge(linker, "donepezil", frozenset({AD}), True) == ("wrong", DONEPEZIL)
    assert judge(linker, "pentobarbital", frozenset({"MESH:D010424"}), False) == ("unlinked", "")


def test_evaluate_counts_each_measure(linker, tmp_path):
    (tmp_path / "biored").mkdir()
    (tmp_path / "biored" / "Dev.PubTator").write_text(GOLD, encoding="utf-8")
    ids = set(linker.index.nodes["id"])
    cases: list[tuple[str, ...]] = []
    got = evaluate(linker, ids, tmp_path, ["biored_dev"], cases)
    assert got["biored_dev/surface"]["right"] == 2  # "Donepezil", "Alzheimer's disease"
    assert got["biored_dev/misspelt"]["right"] == 2  # "Doenpezil", "Alzheimer's diesase"
    title = got["biored_dev/title"]
    assert (title["right"], title["wrong"], title["spurious"]) == (2, 0, 0)  # no Rare Diseases
    assert ("biored_dev/misspelt", "Doenpezil", "right", DONEPEZIL) in cases
