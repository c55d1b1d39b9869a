"""The question's unlinked words qualify its answers (kgbuild/question/context_words.py): "How does
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
    (CASP3, "regulates", CYCS, [("2005", 2019, "CASP3 makes CYCS active.", 0.8)]),
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


def test_a_light_verb_is_never_the_context_word(engine):
    # "make" is as rare in this evidence as "mitochondria" (one sentence each), and says nothing
    assert _answers(engine, "How does APP make mitochondria leak?")[:2] == [CYCS, CASP3]


def test_a_word_no_evidence_writes_changes_nothing(engine):
    assert _answers(engine, "How does APP affect ribosomes?")[:2] == [CASP3, CYCS]


def test_a_how_question_in_some_respect_shows_the_sentences_naming_both(tmp_path):
    """ "How does tau spread?": the abstracts' sentences naming tau with "spread" are shown
    (labelled as read from sentences); the answers stay the facts'."""
    from kgbuild.records import Document
    from tests.support.sentences_kg import mentions_of

    tau = "NCBIGene:4137"
    nodes = [(APP, "APP", "Gene"), (tau, "tau", "Gene"), (CASP3, "CASP3", "Gene")]
    docs = [
        ("3001", "Tau in networks.", "Tau spreads between connected neurons.", {"Tau": tau}),
        ("3002", "Seeds.", "Oligomers seed the spread of tau pathology.", {"tau": tau}),
        ("3003", "Other.", "The spread of infection was fast.", {}),
    ]
    edges = [(APP, "regulates", tau, [("3004", 2019, "APP drives tau spread.", 0.8)]),
             (tau, "regulates", CASP3, [("3005", 2019, "Tau raised CASP3.", 0.8)])]  # fmt: skip
    root = tmp_path / "wh"
    w = Warehouse(root).writer("ctx")
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in docs])
    w.add("mentions", mentions_of(docs))
    publish_year(w, 2019, edges, [Entity(i, n, t, [n], 2019) for i, n, t in nodes])
    r = QueryEngine(root, embeddings=False).retrieve("How does tau spread?", embed="off")
    v = r.verdict
    assert v is not None and v["basis"] == "sentences" and v["phrase"] == "spread", v
    assert [s["pmid"] for s in v["sentences"]] == ["3001", "3002"] or [
        s["pmid"] for s in v["sentences"]
    ] == ["3002", "3001"]
    assert "3003" not in v["pmids"]  # "spread" without tau
    assert {a["id"] for a in r.answers} >= {CASP3}


def test_a_genes_mechanism_is_not_ranked_by_what_it_binds(tmp_path):
    """A drug's mechanism runs through what it binds; a gene's as much through what it
    activates: the binding cue ranks a drug's answers, never a gene's."""
    gsk3b, ttr, drug = "NCBIGene:2932", "NCBIGene:7276", "MESH:D008559"
    nodes = [(APP, "APP", "Gene"), (gsk3b, "GSK3B", "Gene"), (ttr, "TTR", "Gene"),
             (drug, "memantine", "Compound")]  # fmt: skip
    edges = [(APP, "regulates", gsk3b, [(str(7000 + i), 2019, "APP activated GSK3B.", 0.8)
                                        for i in range(3)]),
             (APP, "interacts", ttr, [("7010", 2019, "APP binds TTR.", 0.8)]),
             (drug, "regulates", gsk3b, [(str(7020 + i), 2019, "Memantine raised GSK3B.", 0.8)
                                         for i in range(3)]),
             (drug, "interacts", ttr, [("7030", 2019, "Memantine binds TTR.", 0.8)])]  # fmt: skip
    root = tmp_path / "wh"
    publish_year(Warehouse(root).writer("ctx"), 2019, edges,
                 [Entity(i, n, t, [n], 2019) for i, n, t in nodes])  # fmt: skip
    eng = QueryEngine(root, embeddings=False)
    gene = [a["id"] for a in eng.retrieve("How does APP work?", embed="off").answers]
    assert gene[:2] == [gsk3b, ttr], gene
    drug_answers = [a["id"] for a in eng.retrieve("How does memantine work?", embed="off").answers]
    assert drug_answers[:2] == [ttr, gsk3b], drug_answers


def test_the_drugs_targeting_a_gene_are_ranked_by_what_binds_it(tmp_path):
    """Asked of a gene, the drugs targeting it: the binding cue ranks them (the drug is the
    answer, not the anchor)."""
    # (lithium, a metal, would be ranked as a generic chemical: tideglusib is a drug)
    gsk3b, tideglusib, ghrelin = "NCBIGene:2932", "MESH:C551139", "MESH:D054439"
    nodes = [(gsk3b, "GSK3B", "Gene"), (tideglusib, "tideglusib", "Compound"),
             (ghrelin, "ghrelin", "Compound")]  # fmt: skip
    said = [("7100", 2019, "Tideglusib, a GSK3B inhibitor.", 0.8)]
    edges = [(tideglusib, "downregulates", gsk3b, said),
             (ghrelin, "downregulates", gsk3b, [(str(7110 + i), 2019, "Ghrelin lowered GSK3B.", 0.8)
                                                 for i in range(3)])]  # fmt: skip
    root = tmp_path / "wh"
    publish_year(Warehouse(root).writer("ctx"), 2019, edges,
                 [Entity(i, n, t, [n], 2019) for i, n, t in nodes])  # fmt: skip
    got = QueryEngine(root, embeddings=False).retrieve("Which drugs target GSK3B?", embed="off")
    assert [a["id"] for a in got.answers][:2] == [tideglusib, ghrelin]
