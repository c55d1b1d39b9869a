"""The question's unlinked words qualify its answers (kgbuild/query/context_words.py): "How does
APP damage mitochondria?" ranks first the partner whose sentences speak of mitochondria, on a
small real KG; a word no evidence writes changes nothing."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.records import Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

APP, CASP3, CYCS = "NCBIGene:351", "NCBIGene:836", "NCBIGene:54205"
NODES = [(APP, "APP", "Gene"), (CASP3, "CASP3", "Gene"), (CYCS, "CYCS", "Gene")]
EDGES = [
    (APP, "regulates", CASP3, [
        ("2001", 2019, "APP raised CASP3 activity in neurons.", 0.8),
        ("2002", 2019, "APP increased CASP3 cleavage.", 0.8),
        ("2003", 2019, "CASP3 was activated by APP in cortex.", 0.8),
    ]),
    (APP, "regulates", CYCS, [
        ("2004", 2019, "APP triggered the mitochondrial release of CYCS.", 0.8),
    ]),
]  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("context-words") / "wh"
    w = Warehouse(root).writer("ctx")
    publish_year(w, 2019, EDGES, [Entity(i, n, t, [n], 2019) for i, n, t in NODES])
    return QueryEngine(root, embeddings=False)


def _answers(engine, q: str) -> list[str]:
    return [a["id"] for a in engine.retrieve(q, embed="off").answers]


def test_a_context_word_ranks_the_answers_whose_sentences_write_it_first(engine):
    assert _answers(engine, "How does APP work?")[:2] == [CASP3, CYCS]
    assert _answers(engine, "How does APP damage mitochondria?")[:2] == [CYCS, CASP3]


def test_a_word_no_evidence_writes_changes_nothing(engine):
    assert _answers(engine, "How does APP affect ribosomes?")[:2] == [CASP3, CYCS]
