"""A question that asks for a claim ("why…", "how does X…", "what does X show") answered first
by the sentences naming its entities that write most of its words
(kgbuild/query/explanation.py), on a real KG whose abstracts say things no fact holds
(tests/support/phrase_kg.py)."""

import re

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.query.explanation import _pattern, explains
from tests.support.phrase_kg import phrase_engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return phrase_engine(tmp_path_factory, "explanation")


@pytest.mark.parametrize(
    "question",
    [
        "why use the CSF Abeta42/Abeta40 ratio rather than Abeta42 alone?",
        "How does HDAC2 cause an epigenetic blockade of memory?",
        "SV2A PET in AD - what does it measure and what was found?",
        "What do MR spectroscopy metabolites show in early AD",
        "what happens to miR-27a-3p in CSF?",
        "What is the role of TREM2 in microglia?",
        "What form of amyloid beta does solanezumab bind to?",
    ],
)
def test_questions_asking_for_a_claim(question):
    assert explains(question)


@pytest.mark.parametrize(
    "question",
    [
        "Which microRNAs are linked to AD?",
        "What are the side effects of donepezil?",
        "What does miR-26b do?",  # an open question about one entity: its own reading
        "Does APOE interact with APP?",
        "What is the target of memantine?",
    ],
)
def test_questions_asking_for_a_list_or_a_verdict(question):
    assert not explains(question)


def test_a_stem_finds_the_words_it_stands_for():
    assert re.search(_pattern("memori"), "learning and memory")  # Snowball's y → i
    assert re.search(_pattern("endosom"), "early endosomes")
    assert not re.search(_pattern("endosom"), "preendosomal")  # a word's start only
    assert re.search(_pattern("mir-29"), "miR-29a".lower())
    assert not re.search(_pattern("mir-29"), "mir-299")


def test_a_how_question_is_answered_by_the_sentences_writing_its_words(engine):
    r = engine.retrieve("How does PSEN1 cleave Notch receptors?", embed="off")
    v = r.verdict
    assert v is not None and v["basis"] == "sentences" and v["answer"] == "from sentences"
    assert "write most of the question's words ('cleave', 'Notch', 'receptors')" in v["line"]
    first = v["sentences"][0]["sentence"]
    # the question's entity and words are marked; the sentence stands whole
    assert "«PSEN1»" in first and "«Notch»" in first and not first.startswith("…")
    # only abstracts naming one of the question's entities: JAG1's Notch sentence is not one
    assert "603" not in v["pmids"]
    # 601 writes all three ("cleaves receptors of the Notch…"), 602 two ("Notch", "cleavage")
    assert v["pmids"][:2] == ["601", "602"]


def test_a_why_question_reads_the_sentence_stating_it(engine):
    r = engine.retrieve("Why is TREM2 expressed by microglia?", embed="off")
    assert r.verdict is not None and r.verdict["pmids"][0] == "604"
    assert "«microglia»" in r.verdict["sentences"][0]["sentence"]


def test_no_words_beyond_the_entities_leaves_the_facts_reading(engine):
    r = engine.retrieve("How does TREM2 affect Alzheimer's disease?", embed="off")
    assert r.verdict is None or "write most of the question's words" not in r.verdict["line"]


def test_a_list_question_keeps_its_answers(engine):
    r = engine.retrieve("Which genes are expressed by microglia with TREM2?", embed="off")
    assert r.verdict is None or "write most of the question's words" not in r.verdict["line"]


def test_beside_a_claim_no_list_of_mere_co_mentions(engine):
    # the abstracts naming PSEN1 name HES1, APP and EVILGENE; no fact joins them to PSEN1
    r = engine.retrieve("What do PSEN1 mutations show about Notch cleavage?", embed="off")
    assert "write most of the question's words" in r.verdict["line"]
    assert r.answers == [] and r.intent["answer_note"] is None


def test_a_list_asked_beside_a_claim_keeps_its_answers(engine):
    r = engine.retrieve("Which genes does PSEN1 cleave in the Notch pathway and why?", embed="off")
    assert "write most of the question's words" in r.verdict["line"]
    assert {a["name"] for a in r.answers} >= {"HES1", "APP"}


def test_up_or_down_is_answered_by_the_sentences_saying_which_way():
    from kgbuild.query.explanation import asks_direction, question_words

    q = "Is miR-132 up or down in AD brain?"
    assert asks_direction(q) and explains(q)
    words = question_words(q, [])
    # the ways abstracts write a direction, shown to the reader as one
    assert {"reduc", "downregul", "elev"} <= set(words) and words["reduc"][0] == "up or down"
    assert words["reduc"][1].search("severely reduced in the AD brain")
    # a name with digits or a hyphen is one word, never its pieces ("mir" finds "mirror")
    assert "mir-132" in words and "mir" not in words
    assert not words["mir-132"][1].search("mirror neurons")


def test_a_name_the_linker_missed_must_be_written(engine):
    # no abstract writes "miR-999": no sentence about PSEN1's Notch cleavage stands for it
    r = engine.retrieve("Why does miR-999 change PSEN1 cleavage of Notch?", embed="off")
    assert r.verdict is None or "write most of the question's words" not in r.verdict["line"]


def test_a_missed_name_is_the_subject_when_the_entities_are_the_topics(tmp_path):
    """ "Is miR-29 up or down in AD?" with miR-29 no node: the sentences writing it, read for
    which way it changed; never the topic's sentences that do not write it."""
    from kgbuild.records import Document, Entity
    from kgbuild.store.snapshots import Warehouse
    from tests.support.query_kg import publish_year
    from tests.support.sentences_kg import mentions_of

    ad = "MESH:D000544"
    docs = [
        ("701", "MicroRNAs in AD.", "miR-29 was reduced in AD brain.", {"AD": ad}),
        ("702", "Plaques.", "Plaques rise in AD and are elevated with age.", {"AD": ad}),
        ("703", "Blood.", "Serum miR-29 levels were unchanged.", {}),
    ]
    root = tmp_path / "wh"
    w = Warehouse(root).writer("mir")
    w.add("documents", [Document(p, 2019, t, a) for p, t, a, _ in docs])
    w.add("mentions", mentions_of(docs))
    ents = [Entity(ad, "Alzheimer disease", "Disease", ["Alzheimer disease", "AD"], 2019)]
    publish_year(w, 2019, [(ad, "associates", ad, [("704", 2019, "AD in AD.", 0.8)])], ents)
    r = QueryEngine(root, embeddings=False).retrieve("Is miR-29 up or down in AD?", embed="off")
    v = r.verdict
    assert v is not None and "the sentences naming 'miR-29'" in v["line"]
    # the one writing the name and a direction first; the topic's sentence without it never
    assert v["pmids"][0] == "701" and "702" not in v["pmids"]
    assert "«reduced»" in v["sentences"][0]["sentence"]


def test_only_a_name_like_word_must_be_written():
    from kgbuild.query.explanation import _name_like

    assert _name_like("miR-29") and _name_like("beta-CTF") and _name_like("C99")
    assert not _name_like("long-term") and not _name_like("non-amnestic")
    assert not _name_like("Plaques")  # a capital first letter only opens a sentence
