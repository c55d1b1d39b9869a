"""A question word linked alone is unlinked where the corpus writes it in a phrase its annotator
does not tag so ("oxidative stress" is not Psychological Distress; kgbuild/corpus/phrase_tags.py)
— on a small real KG with abstracts and mentions."""

from __future__ import annotations

import pytest

from kgbuild.corpus.phrase_tags import differs
from kgbuild.query.engine import QueryEngine
from tests.support.sentences_kg import mentions_of, publish_abstracts, question_links

AD, STRESS, TAU = "MESH:D000544", "MESH:D000079225", "NCBIGene:4137"
ISCHEMIC = "MESH:D000083242"
NODES = [(AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]),
         (STRESS, "Psychological Distress", "Disease", ["stress"]),
         (TAU, "MAPT", "Gene", ["tau"])]  # fmt: skip


def _docs() -> list[tuple[str, str, str, dict[str, str | None]]]:
    docs = []
    for i in range(20):  # "chronic stress": the annotator's Psychological Distress
        docs.append(
            (f"1{i:03d}", "Stress.", f"Chronic stress worsened memory ({i}).", {"stress": STRESS})
        )
    for i in range(30):  # "oxidative stress": written everywhere, tagged once
        docs.append(
            (
                f"2{i:03d}",
                "Neurons.",
                f"Oxidative stress damaged neurons ({i}).",
                {"stress": STRESS} if i == 0 else {},
            )
        )
    for i in range(20):  # "reduced tau": tau tagged there as elsewhere
        docs.append(
            (
                f"3{i:03d}",
                "Tau.",
                f"Tau pathology spread; the drug reduced tau ({i}).",
                {"tau": TAU, "Tau": TAU} if i % 4 else {"Tau": TAU},
            )
        )
    for i in range(12):  # "ischemic stroke": tagged whole, as a narrower concept
        docs.append((f"4{i:03d}", "Stroke.", f"Ischemic stroke followed ({i}).",
                     {"Ischemic stroke": ISCHEMIC}))  # fmt: skip
    return docs


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("phrases") / "wh"
    docs = _docs()
    mentions = [m for m in mentions_of(docs)
                if m.text in ("stress", "tau", "Tau", "Ischemic stroke")]  # fmt: skip
    edges = [
        (STRESS, "associates", AD, [("900", 2019, "stress and Alzheimer's disease.", 0.8)]),
        (TAU, "associates", AD, [("901", 2019, "tau and Alzheimer's disease.", 0.8)]),
    ]
    publish_abstracts(root, "phr", docs, mentions, edges, NODES)
    return QueryEngine(root, embeddings=False)


def test_a_word_its_phrase_never_tags_so_is_not_linked(engine):
    q = "Why is oxidative stress an early event in Alzheimer's disease?"
    got = question_links(engine, q)
    assert got.get("stress") is None and got["Alzheimer's disease"] == AD
    unlinked = engine.retrieve(q, embed="off").unlinked()
    assert "oxidative stress" in unlinked and "oxidative" not in unlinked  # one phrase
    # where the annotator does tag it so, the word keeps its link
    assert question_links(engine, "Does chronic stress raise Alzheimer's disease risk?")["stress"] \
        == STRESS  # fmt: skip
    # tagged in the phrase about as often as elsewhere: kept
    assert (
        question_links(engine, "Does the drug leave reduced tau in Alzheimer's disease?")["tau"]
        == TAU
    )


def test_the_rule_on_dalk_counts():
    # (phrase occurrences, tagged there, word occurrences, tagged): DALK's abstracts
    assert differs(702, 45, 1203, 175)  # "oxidative stress": 6% against 30% elsewhere
    assert differs(201, 4, 4852, 2832)  # "cognitive performance": 2% against 67%
    assert not differs(14, 4, 5842, 4510)  # "reduced tau": 29% against 77%
    assert not differs(437, 115, 977, 441)  # "cell death": 26% against 60%
    assert not differs(187, 8, 3469, 131)  # "CSF Abeta42": 4% and 4%
    assert not differs(9, 0, 1203, 175)  # a phrase written too rarely is not judged


def test_own_names_acronyms_and_protein_names_are_not_judged():
    from kgbuild.corpus.phrase_tags import own_name, phrases, plain_word
    from kgbuild.link.linker import Link

    assert plain_word("stress") and plain_word("Cognitive") and plain_word("beta-amyloid")
    assert not plain_word("NMDA") and not plain_word("Abeta42") and not plain_word("ER")
    assert own_name("glucose", "Glucose") and own_name("lipids", "Lipids")
    assert not own_name("stress", "Psychological Distress")
    assert not own_name("cognitive", "Cognition Disorders") and not own_name("tau", "MAPT")
    q = "Is glucose metabolism lower in Alzheimer's disease?"
    at = q.index("glucose")
    glucose = Link("glucose", "question", 1, "MESH:D005947", "Glucose", "dictionary", 1.0, at,
                   at + 7)  # fmt: skip
    assert phrases(q, [glucose]) == []
    # a protein named after its chemical: BC5CDR tags the chemical there
    q = "Does serum lactate dehydrogenase rise after a stroke?"
    at = q.index("lactate")
    lactate = Link("lactate", "question", 2, "MESH:D019344", "Lactic Acid", "dictionary", 1.0,
                   at, at + 7)  # fmt: skip
    assert [p.words for p in phrases(q, [lactate])] == ["serum lactate"]


def test_a_phrase_tagged_as_a_narrower_concept_is_covered(engine):
    from kgbuild.corpus.phrase_tags import Phrase, covered_share

    sid = engine.state().index.snapshot_id
    stroke = Phrase(0, 15, 9, 15, STRESS, "ischemic stroke")
    assert covered_share(engine.wh, sid, stroke) == 1.0  # another concept, not another sense
    oxidative = Phrase(0, 16, 10, 16, STRESS, "oxidative stress")
    assert covered_share(engine.wh, sid, oxidative) < 0.1  # tagged once in 30
