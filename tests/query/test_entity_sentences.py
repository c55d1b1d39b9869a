"""An open question about one entity, no kind of answer asked ("What does PSEN1 do in
Alzheimer's disease?"), answered first by the sentences naming it and the entities they name
(kgbuild/query/entity_sentences.py), on a real KG whose abstracts name entities no served fact
joins (tests/support/phrase_kg.py)."""

import pytest

from kgbuild.query.entity_sentences import subject_node
from tests.support.phrase_kg import AD, HES1, PSEN1, phrase_engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return phrase_engine(tmp_path_factory, "entity-sentences")


def test_an_entity_without_facts_is_answered_by_its_sentences(engine):
    r = engine.retrieve("What does PSEN1 do in Alzheimer's disease?", embed="off")
    v = r.verdict
    assert v is not None and v["basis"] == "sentences" and v["answer"] == "from sentences"
    assert "sentences in 3 abstracts name PSEN1" in v["line"] and "0 served facts" in v["line"]
    # the sentence naming the question's other entity (AD) first, then newest
    assert v["sentences"][0]["pmid"] == "601"
    assert "«PSEN1»" in v["sentences"][0]["sentence"]
    # its answers are what those sentences name: never the question's own entities
    ids = [a["id"] for a in r.answers]
    assert HES1 in ids and PSEN1 not in ids and AD not in ids
    assert all(a["basis"] == "sentence" and "naming PSEN1" in a["why"] for a in r.answers)
    # the triples are its own facts (none): never another entity's hubs
    assert r.to_dict()["triples"] == []


def test_the_subject_is_the_first_named_entity_not_the_least_written(engine):
    idx = engine.state().index
    psen1, hes1 = idx.node_of[PSEN1], idx.node_of[HES1]
    # the question's order decides, whichever is rarer
    assert subject_node(idx, [psen1, hes1]) == psen1
    assert subject_node(idx, [hes1, psen1]) == hes1


def test_a_kind_asked_keeps_the_facts_answer(engine):
    r = engine.retrieve("Which genes are associated with PSEN1?", embed="off")
    assert r.verdict is None or "name PSEN1" not in r.verdict.get("line", "")
