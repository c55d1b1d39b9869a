"""A kind asked of an unlinked subject ("the most frequent side effects of tideglusib in
Alzheimer's disease"): the kind is read of the phrase, not dropped because the linked entity
(the disease) is no drug, and the linked entity's own facts are not shown as its answers;
"most frequent" is never the phrase (kgbuild/query/phrase_answer.py, kgbuild/link/generic.py)
— on a small real KG with abstracts and mentions."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, DIARRHEA, COPPER = "MESH:D000544", "MESH:D003967", "MESH:D003300"
NODES = [(AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]),
         (DIARRHEA, "Diarrhea", "Disease", ["diarrhea"]),
         (COPPER, "Copper", "Compound", ["copper"])]  # fmt: skip
DOCS = [
    (str(800 + i), 2019, "A trial.",
     f"Tideglusib caused diarrhea in patients with Alzheimer's disease ({i}). The most "
     "frequent finding was mild.",
     {"diarrhea": DIARRHEA, "Alzheimer's disease": AD})
    for i in range(3)
]  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("phrase-kind") / "wh"
    w = Warehouse(root).writer("pk")
    w.add("documents", [Document(p, y, t, a) for p, y, t, a, _ in DOCS])
    w.add("mentions", mentions_of([(p, t, a, n) for p, _, t, a, n in DOCS]))
    edges = [(COPPER, "causes", AD, [(str(900 + i), 2019, "copper causes Alzheimer's disease.",
                                      0.8) for i in range(3)])]  # fmt: skip
    publish_year(w, 2019, edges, [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES])
    return QueryEngine(root, embeddings=False)


def test_the_side_effects_of_an_unlinked_drug_are_read_from_its_sentences(engine):
    r = engine.retrieve("What were the most frequent side effects of tideglusib in "
                        "Alzheimer's disease?", embed="off")  # fmt: skip
    assert r.verdict is not None and "name 'tideglusib'" in r.verdict["line"]
    ids = [a["id"] for a in r.answers]
    # the drug's side effect, never what causes the linked disease (copper)
    assert ids == [DIARRHEA]


def test_a_phrase_whose_sentences_name_nothing_of_the_kind_says_so(engine):
    r = engine.retrieve("Which drugs interact with tideglusib in Alzheimer's disease?",
                        embed="off")  # fmt: skip
    assert r.verdict is not None and "name 'tideglusib'" in r.verdict["line"]
    assert r.verdict["line"].endswith("none of the kind asked is named in them or their abstracts")
    assert COPPER not in [a["id"] for a in r.answers]
