"""The sentence-verdict measurement (kgbuild/evaluate/sentence_verdicts.py) on a tiny BC5CDR
file (tests/fixtures/eval/cdr_small.PubTator.txt)."""

from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.sentence_verdicts import answer, measure, questions
from kgbuild.question.predicates import predicate_for
from tests.conftest import ROOT

CDR = ROOT / "tests" / "fixtures" / "eval" / "cdr_small.PubTator.txt"


def test_co_mentioned_chemical_disease_pairs_are_the_questions():
    qs = questions(read_gold_corpus(CDR), "causes")
    assert len(qs) == 7 and sum(g for *_, g in qs) == 6
    assert all(a.startswith("MESH:") and b.startswith("MESH:") for _, a, b, _ in qs)


def test_cues_say_yes_only_where_the_sentence_states_the_cause():
    gold = read_gold_corpus(CDR)
    got = {(a, b): answer(d, a, b, gold, predicate_for(["causes"]))
           for d, a, b, _ in questions(gold, "causes")}  # fmt: skip
    assert got[("MESH:D002945", "MESH:D058186")] == "yes"  # "Cisplatin caused acute renal …"
    assert got[("MESH:D004999", "MESH:D051437")] == "no"  # "Amifostine prevented renal failure"
    figures = measure(gold, "causes")
    assert figures["comention"] == {"tp": 6, "fp": 1, "fn": 0, "precision": 0.857,
                                    "recall": 1.0, "f1": 0.923}  # fmt: skip
    assert figures["cues"]["fp"] == 0 and figures["cues"]["tp"] == 3
