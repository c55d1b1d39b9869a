"""Whom a list question is about (kgbuild/query/focus.py), diseases reached through shared genes
(kgbuild/query/shared_genes.py) and a kind the snapshot lacks (cell types) — on a small real KG
(tests/support/focus_kg.py)."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.query.focus import read_focus
from kgbuild.question.intent import read_intent
from tests.support.focus_kg import (
    AD,
    APOE,
    APP,
    FILLERS,
    MAPT,
    MIGRAINE,
    NAUSEA,
    PD,
    PPARG,
    SNCA,
    T2D,
    build_focus_kg,
)  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("focus") / "wh"
    build_focus_kg(root)
    return QueryEngine(root, embeddings=False)


def _ids(r) -> list[str]:
    return [a["id"] for a in r.answers]


def test_roles_are_read_from_the_words_before_each_entity():
    q = "What genes does miR-107 regulate in mouse models of Alzheimer's disease?"
    a, b = q.index("miR-107"), q.index("Alzheimer")
    f = read_focus(q, [(a, a + 7, 1), (b, len(q) - 1, 2)])
    assert (f.subject, f.context, f.excluded) == ([1], [2], [])
    q = "Which genes are associated with AD other than APOE?"
    f = read_focus(q, [(q.index("AD"), q.index("AD") + 2, 1), (q.index("APOE"), len(q) - 1, 2)])
    assert (f.subject, f.context, f.excluded) == ([1], [], [2])
    words = ("besides", "apart from", "except for", "excluding", "aside from", "vs", "versus",
             "compared with", "rather than")  # fmt: skip
    for word in words:
        q = f"Which genes besides AD? {word} APOE"
        f = read_focus(q, [(q.index("APOE"), len(q), 2), (0, 5, 1)])
        assert f.excluded == [2]
    # one entity in its setting is the subject: "Which genes are involved in AD?"
    q = "Which genes are involved in AD?"
    f = read_focus(q, [(q.index("AD"), q.index("AD") + 2, 1)])
    assert (f.subject, f.context) == ([1], [])


def test_answers_come_from_the_subject_not_the_context_hub(engine):
    r = engine.retrieve("What genes does miR-107 regulate in Alzheimer's disease?")
    ids = _ids(r)
    assert ids[0] == APP
    # MAPT and APOE are Alzheimer disease's genes, not miR-107's: never padding
    assert MAPT not in ids and APOE not in ids
    assert [a["basis"] for a in r.answers if a["id"] == APP] == ["fact"]
    assert r.answers[0].get("context") is True  # APP is also joined to the context
    note = r.intent["answer_note"]
    assert note.startswith("MIR107 has only 1 asserted answer of the kind asked")
    assert "Alzheimer disease re-ranks them" in note


def test_a_question_without_a_context_keeps_every_entity_as_anchor(engine):
    r = engine.retrieve("Which genes are associated with Alzheimer's disease?")
    assert {APP, MAPT, APOE} <= set(_ids(r)[:4])
    assert r.intent["answer_note"] is None


def test_an_excluded_entity_is_no_answer_and_brings_in_no_answers(engine):
    r = engine.retrieve("Which genes are associated with Alzheimer's disease besides APOE?")
    ids = _ids(r)
    assert APOE not in ids
    assert not set(FILLERS) & set(ids)  # APOE's own genes are not Alzheimer disease's
    assert ids[:3] == [APP, MAPT, PPARG]
    r = engine.retrieve("Which genes are associated with Parkinson's disease other than APP?")
    assert APP not in _ids(r) and MAPT in _ids(r)


def test_diseases_sharing_genes_are_reached_through_the_genes(engine):
    q = "Which diseases share risk genes with Alzheimer's disease?"
    assert read_intent(q).kind.key == "shared_gene_disease"
    r = engine.retrieve(q)
    assert r.intent["answer_kind"] == "related disease"
    ids = _ids(r)
    assert ids == [PD, T2D]  # two shared genes before one; migraine shares none
    assert MIGRAINE not in ids and AD not in ids
    # AD's MeSH ancestor (Dementia) and a process (Inflammation, MeSH C23) share more genes,
    # more strongly, and are still no answer
    pd = r.answers[0]
    assert pd["type"] == "Disease" and set(pd["shared"]) == {APP, MAPT}
    assert pd["why"].startswith("shares 2 genes: ")
    assert {"APP", "MAPT"} <= set(pd["why"][len("shares 2 genes: ") :].split(", "))
    # the legs are the facts shown: Alzheimer disease–gene and gene–Parkinson disease
    names = {(f["head"], f["tail"]) for f in pd["facts"]}
    assert ("APP", "Alzheimer disease") in names and ("APP", "Parkinson disease") in names


def test_diseases_sharing_genes_never_include_an_excluded_one(engine):
    r = engine.retrieve("Which diseases share genes with Alzheimer's disease besides "
                        "Parkinson's disease?")  # fmt: skip
    assert _ids(r) == [T2D]


def test_cell_types_asked_of_a_snapshot_without_them_get_a_plain_no(engine):
    r = engine.retrieve("Which cell types express APOE in Alzheimer's disease?")
    assert r.answers == []
    assert r.intent["answer_note"] == (
        "this snapshot has no cell type entities, so it cannot list cell types"
    )
    assert read_intent("Which genes are expressed in microglial cells?").kind is None


def test_an_example_of_the_answer_is_no_anchor_but_may_be_an_answer(engine):
    q = "Which genes are associated with AD, e.g. SNCA?"
    f = read_focus(q, [(q.index("AD"), q.index("AD") + 2, 1), (q.index("SNCA"), len(q) - 1, 2)])
    assert (f.subject, f.examples) == ([1], [2])
    r = engine.retrieve("Which genes are associated with Parkinson's disease, e.g. SNCA?")
    assert SNCA in _ids(r)  # an example named in the question is still an answer
    r = engine.retrieve("Which genes are associated with Parkinson's disease such as APOE?")
    assert not set(FILLERS) & set(_ids(r))  # APOE's own genes do not pad the list


def test_an_entity_joined_by_and_takes_the_role_of_the_one_before():
    q = "Which microRNAs does X regulate in AD and PD?"
    spans = [(q.index(w), q.index(w) + len(w), n) for w, n in (("X", 1), ("AD", 2), ("PD", 3))]
    f = read_focus(q, spans)
    assert (f.subject, f.context) == ([1], [2, 3])
    q = "Which genes link AD and PD besides APOE or APP?"
    spans = [(q.index(w), q.index(w) + len(w), n)
             for w, n in (("AD", 1), ("PD", 2), ("APOE", 3), ("APP", 4))]  # fmt: skip
    f = read_focus(q, spans)
    assert (f.subject, f.excluded) == ([1, 2], [3, 4])


def test_the_corpus_topic_is_no_side_effect_by_a_mere_association(engine):
    # AD is named in about a third of the abstracts: rivastigmine "associates" with it because
    # it treats it; only a fact saying the drug causes a disease makes it a side effect
    r = engine.retrieve("What are the side effects of rivastigmine?")
    assert _ids(r)[:1] == [NAUSEA] and AD not in _ids(r)
