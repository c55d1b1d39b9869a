"""A question about a name no abstract writes ("what does miR-342-5p do in AD models?") is
told so, on a real KG: the run holding the name is the question's subject, never a later run
the corpus writes ("AD models"), and when the question names nothing else but the corpus's
topic, neither the topic's facts nor its hubs are given as the answer
(kgbuild/question/question_phrase.py, kgbuild/query/phrase_answer.py)."""

import pytest

from kgbuild.corpus.unwritten import name_like, unwritten
from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent
from kgbuild.question.question_phrase import question_phrase
from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year
from tests.support.sentences_kg import mentions_of

AD, APP, PSEN1 = "MESH:D000544", "NCBIGene:351", "NCBIGene:5663"
TREM2, JAG1, HES1 = "NCBIGene:54209", "NCBIGene:182", "NCBIGene:3280"
NODES = [(AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]), (APP, "APP", "Gene", []),
         (PSEN1, "PSEN1", "Gene", []), (TREM2, "TREM2", "Gene", []), (JAG1, "JAG1", "Gene", []),
         (HES1, "HES1", "Gene", [])]  # fmt: skip
DOCS = [
    ("801", 2019, "Notch.", "PSEN1 cleaves receptors of the Notch signaling pathway.",
     {"PSEN1": PSEN1}),
    ("802", 2019, "Models.", "Alzheimer's disease models lose neuronal synapses.",
     {"Alzheimer's disease": AD}),
    ("803", 2019, "Aged rats.", "Levels of miR-9, -16 and -195 fell in aged rats.", {}),
]  # fmt: skip


def _ev(pmid: str) -> list[tuple[str, int, str, float]]:
    return [(pmid, 2019, f"Sentence {pmid}.", 0.8)]


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    """Facts whose abstracts name Alzheimer's disease in 3 of 8 (the corpus's topic, ≥ 25%)
    and TREM2 in 1 (not the topic)."""
    root = tmp_path_factory.mktemp("unwritten_subject") / "wh"
    w = Warehouse(root).writer("unwritten")
    w.add("documents", [Document(p, y, t, a) for p, y, t, a, _ in DOCS])
    w.add("mentions", mentions_of([(p, t, a, n) for p, _, t, a, n in DOCS]))
    edges = [(APP, "associates", AD, _ev("900") + _ev("901")),
             (PSEN1, "associates", AD, _ev("902")), (TREM2, "associates", JAG1, _ev("903")),
             (JAG1, "upregulates", HES1, [x for p in "4567" for x in _ev(f"90{p}")])]  # fmt: skip
    publish_year(w, 2019, edges, [Entity(i, n, t, [n, *a], 2019) for i, n, t, a in NODES])
    return QueryEngine(root)


def test_a_name_no_abstract_writes_with_only_the_topic_beside_it_gets_no_answer(engine):
    r = engine.retrieve("What does miR-342-5p do in Alzheimer's disease models?", embed="off")
    v = r.verdict
    assert v is not None and v["answer"] == "not found" and v["phrase"] == "miR-342-5p"
    assert "no sentence of the corpus names 'miR-342-5p'" in v["line"]
    assert "names only the corpus's topic" in v["line"]
    # neither the topic's hub answers (APP, PSEN1) nor its facts
    assert r.answers == [] and r.to_dict()["triples"] == []


def test_another_entity_beside_the_unwritten_name_keeps_its_facts(engine):
    r = engine.retrieve("What does miR-342-5p do to TREM2?", embed="off")
    v = r.verdict
    assert v is not None and v["answer"] == "not found"
    assert "names only the corpus's topic" not in v["line"]
    assert TREM2 in {t["head_id"] for t in r.to_dict()["triples"]}
    # a linked name is no unwritten name, though its run holds words no abstract writes
    r = engine.retrieve("How does loss of TREM2 function raise amyloid in Alzheimer's disease?",
                        embed="off")  # fmt: skip
    assert "names only the corpus's topic" not in ((r.verdict or {}).get("line") or "")
    assert TREM2 in {t["head_id"] for t in r.to_dict()["triples"]}


def test_the_run_holding_an_unwritten_name_is_the_subject(engine):
    sid = engine.state().index.snapshot_id
    q = "What does miR-342-5p do in the Notch signaling pathway?"
    phrase, unwritten = question_phrase(engine.wh, sid, q, [], read_intent(q, []))
    assert phrase is None and unwritten is not None and unwritten.text == "miR-342-5p"
    # a name heading its run is the subject, not the modifier the corpus writes ("neuronal")
    q = "What does neuronal miR-342-5p tell about Alzheimer's disease?"
    phrase, unwritten = question_phrase(engine.wh, sid, q, [], read_intent(q, []))
    assert phrase is None and unwritten is not None and unwritten.text == "neuronal miR-342-5p"
    # a plain word no abstract writes still gives way to the next run the corpus writes
    q = "What is the xyzzical role of the Notch signaling pathway?"
    phrase, _ = question_phrase(engine.wh, sid, q, [], read_intent(q, []))
    assert phrase is not None and phrase.text == "Notch signaling pathway"


@pytest.mark.parametrize(("word", "name"), [
    ("miR-342-5p", True), ("TTP488", True), ("DaTscan", True), ("ARGO", True),
    ("hsa-miR-27a-3p", True), ("12-15-fold", False), ("Alzheimer's", False), ("xyzzical", False),
])  # fmt: skip
def test_a_name_is_written_with_a_digit_or_an_inner_capital(word, name):
    assert name_like(word) is name


def test_a_name_written_inside_a_list_that_drops_its_prefix_is_written(engine):
    """ "miR-9, -16 and -195" writes miR-195 (coordinated ellipsis): never told unwritten."""
    sid = engine.state().index.snapshot_id
    words = ["miR-195", "miR-9", "miR-342-5p", "miR-19"]
    assert unwritten(engine.wh, sid, words)[1] == ["miR-342-5p", "miR-19"]  # "-195" not "-19"
    r = engine.retrieve("What does miR-195 do in Alzheimer's disease models?", embed="off")
    assert "names 'miR-195'" not in ((r.verdict or {}).get("line") or "")
