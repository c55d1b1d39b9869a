"""What answers' evidence sentences say (kgbuild/question/cues.py): a drug's target is what the
sentences say it binds or inhibits, a drug asked of a target is one stated to inhibit it, and a
qualifier of the question ("late-onset") favours answers whose sentences share it — on a small
real KG (tests/support/cues_kg.py)."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.query.generic_chemicals import is_generic
from kgbuild.question.cues import near_name, read_qualifiers
from kgbuild.question.intent import read_intent
from kgbuild.question.kinds import answer_kinds, for_anchors
from tests.support.cues_kg import (
    ACHE,
    APOE,
    APP,
    DONEPEZIL,
    FLAVONOIDS,
    IL1B,
    LICL,
    MTOR,
    OCT1,
    RELA,
    ZINC,
    build_cues_kg,
)  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("cues") / "wh"
    build_cues_kg(root)
    return QueryEngine(root, embeddings=False)


def _ids(engine, q: str) -> list[str]:
    return [a["id"] for a in engine.retrieve(q).answers]


def test_a_direct_relation_word_counts_only_next_to_the_answer_name():
    direct = next(k for k in answer_kinds() if k.key == "target").direct
    assert direct is not None
    assert near_name("Donepezil is an acetylcholinesterase inhibitor.", ("acetylcholinesterase",),
                     direct)  # fmt: skip
    far = "Donepezil, an inhibitor used for dementia, reduced the release of microglial IL-1beta."
    assert not near_name(far, ("il 1beta",), direct)
    assert not near_name("Donepezil lowered IL-1beta.", ("il 1beta",), direct)


def test_a_drug_target_is_what_it_binds_or_inhibits_not_a_better_supported_effect(engine):
    for q in (
        "What are the targets of donepezil?",
        "What proteins does donepezil bind or inhibit?",
    ):
        ids = _ids(engine, q)
        assert ids[:2] == [ACHE, IL1B], (q, ids)


def test_drugs_asked_of_a_target_are_its_stated_inhibitors_first(engine):
    r = engine.retrieve("Which drugs target GSK3B?")
    assert r.intent["answer_kind"] == "drug targeting"
    assert [a["id"] for a in r.answers][:2] == [LICL, ZINC]
    assert _ids(engine, "Which drugs inhibit GSK3B?")[:2] == [LICL, ZINC]


def test_the_inverse_kind_is_taken_only_for_the_answer_type_it_gives():
    target = next(k for k in answer_kinds() if k.key == "target")
    assert for_anchors(target, ["Compound"], "Gene") is target
    assert for_anchors(target, ["Gene"], "Compound").key == "targeting_drug"
    assert for_anchors(target, ["Gene"], None).key == "targeting_drug"
    assert for_anchors(target, ["Gene"], "Gene") is None  # "Which genes inhibit BACE1?"
    assert for_anchors(target, ["Disease"], "Compound") is None


def test_a_question_qualifier_favours_answers_whose_sentences_share_it(engine):
    assert [q.key for q in read_qualifiers("Which CSF biomarkers are used?")] == ["csf"]
    assert [q.key for q in read_intent("Which genes cause late-onset AD?").qualifiers] == [
        "late_onset"]  # fmt: skip
    assert read_intent("Is APOE linked to late-onset AD?").qualifiers == ()  # yes/no: no list
    assert _ids(engine, "Which genes are associated with Alzheimer's disease?")[:2] == [APP, APOE]
    late = _ids(engine, "Which genes are associated with late-onset Alzheimer's disease?")
    assert late[:2] == [APOE, APP]


def test_a_mechanism_is_the_subject_effects_that_reach_the_second_entity_first(engine):
    r = engine.retrieve("By what mechanism does metformin affect tau phosphorylation?")
    assert r.intent["answer_kind"] == "mechanism"
    ids = [a["id"] for a in r.answers]
    assert ids[:2] == [MTOR, RELA]  # metformin → mTOR → tau first; then an effect off the path
    assert OCT1 not in ids  # a regulator of metformin is no step of what metformin does


def test_generic_chemicals_rank_below_a_drug_when_drugs_are_asked_for(engine):
    assert is_generic("MESH:D015032", "Zinc") and is_generic(FLAVONOIDS, "Flavonoids")
    assert is_generic("MESH:D014867", "Water") and is_generic(
        "MESH:D017382", "Reactive Oxygen Species"
    )
    assert not is_generic(DONEPEZIL, "Donepezil") and not is_generic(LICL, "Lithium Chloride")
    assert _ids(engine, "Which drugs treat Alzheimer's disease?")[0] == DONEPEZIL
    # a question asking for chemicals is left alone: the better-supported ones first
    assert _ids(engine, "Which chemicals treat Alzheimer's disease?") == [FLAVONOIDS, ZINC,
                                                                          DONEPEZIL]  # fmt: skip
