"""Answers named in the same sentences or abstracts leave out the corpus's topic
(kgbuild/query/answer_entities.py ``topic_nodes``): every abstract of a corpus built around
Alzheimer's disease names it, so sharing one with a drug says nothing about the drug's side
effects (tests/support/sentences_kg.py: AD is named in 7 of 11 abstracts)."""

import pytest

from kgbuild.query.engine import QueryEngine
from tests.support.sentences_kg import AD, DEMENTIA, NAUSEA, build_sentences_kg


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("topic") / "wh"
    build_sentences_kg(root)
    return QueryEngine(root, embeddings=False)


def test_the_corpus_topic_and_its_mesh_relatives_are_no_same_abstract_answer(engine):
    r = engine.retrieve("What are the side effects of donepezil?", embed="off")
    ids = [a["id"] for a in r.answers]
    # "Donepezil caused nausea in Alzheimer's disease patients with dementia": nausea is
    # named in the sentence with a cue word (the same-sentence tier,
    # kgbuild/corpus/same_sentence.py)
    assert NAUSEA in ids and r.answers[0]["basis"] == "same_sentence"
    # Alzheimer disease (7 of 11 abstracts) and dementia (its MeSH ancestor) share the
    # sentence too, and are no side effect in either tier
    assert AD not in ids and DEMENTIA not in ids
