"""The shipped verifier on the development splits, scored directly on the gold mentions (no
pipeline): the issue's targets, and the figures its metadata records (so the card cannot
drift from the model). Skipped when ../shared is absent."""

from __future__ import annotations

import json

import pytest

from kgbuild.schema import data_dir
from kgbuild.verifier.corpus import read_gold
from kgbuild.verifier.measure import biored_figures, cid_figures
from kgbuild.verifier.model import load_verifier
from kgbuild.verifier.train import CHEM_DIS, score_docs
from tests.conftest import shared


@pytest.fixture(scope="module")
def card():
    return json.loads((data_dir() / "relation_verifier.json").read_text())


def test_biored_dev_pair_and_type_targets(card):
    docs = read_gold(shared("biored", "Dev.PubTator"))
    verifier = load_verifier()
    figures = biored_figures(score_docs(verifier, docs), docs, verifier.pair_threshold)
    assert figures["all"]["pair"]["f1"] >= 0.72
    assert figures["all"]["pair+type"]["f1"] >= 0.52
    assert figures["nodes"]["pair"]["f1"] >= 0.72 and figures["nodes"]["pair+type"]["f1"] >= 0.52
    assert figures == card["dev"]["biored"]


def test_cdr_dev_cid_target(card):
    docs = read_gold(shared("bc5cdr", "CDR_DevelopmentSet.PubTator.txt"))
    verifier = load_verifier()
    figures = cid_figures(score_docs(verifier, docs, CHEM_DIS), docs, verifier.cid_threshold)
    assert figures["CID"]["f1"] >= 0.60
    assert figures == card["dev"]["cdr"]
