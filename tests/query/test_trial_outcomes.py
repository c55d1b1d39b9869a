"""What abstracts report of an intervention tried in people, read from their sentences, and
the yes/no verdict it gives when the facts do not decide."""

import pytest

from kgbuild.corpus.trial_outcomes import asks_trial, outcome
from tests.support.trial_kg import build_trial_kg

TRIAL = "We ran a randomized placebo-controlled trial in 800 patients with mild AD."
MICE = "APP/PS1 mice were treated for three months."


@pytest.mark.parametrize(
    ("sentence", "abstract", "want"),
    [
        ("Two phase III trials of X failed to meet their primary endpoints.", "", "no benefit"),
        ("X did not slow cognitive decline compared with placebo.", TRIAL, "no benefit"),
        ("There was no significant difference in ADAS-Cog between X and placebo.", TRIAL,
         "no benefit"),
        ("The trial of X was halted for futility.", "", "no benefit"),
        ("X slowed cognitive decline by 30% over 18 months.", TRIAL, "benefit"),
        ("Patients taking X had a lower risk of dementia.", "", "benefit"),
        ("X met its primary endpoint in patients with prodromal AD.", "", "benefit"),
        # animals or cells: nothing about people, in the sentence or in the abstract
        ("X improved memory in APP/PS1 mice.", TRIAL, None),
        ("X slowed cognitive decline.", MICE + " " + TRIAL, None),
        # aims and designs state no result
        ("OBJECTIVE: To determine whether X slows cognitive decline.", TRIAL, None),
        ("We evaluated whether X reduces the risk of dementia in older adults.", "", None),
        # no clinical outcome, or no study in people anywhere
        ("X did not change plasma cholesterol.", TRIAL, None),
        ("X slowed cognitive decline.", "A review of the chemistry of X.", None),
    ],
)  # fmt: skip
def test_what_a_sentence_reports(sentence, abstract, want):
    assert outcome(sentence, abstract) == want


def test_which_questions_ask_whether_an_intervention_helps():
    assert asks_trial("did solanezumab slow cognitive decline in phase 3?", [])
    assert asks_trial("Does vitamin E help people with AD?", [])
    assert asks_trial("Does X treat AD?", ["treats"])
    assert not asks_trial("Does lithium inhibit GSK3B?", ["downregulates"])


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from kgbuild.query.engine import QueryEngine

    root = tmp_path_factory.mktemp("trials") / "wh"
    build_trial_kg(root)
    return QueryEngine(root, embeddings=False)


def test_a_failed_trial_answers_no_with_its_sentences(engine):
    r = engine.retrieve("Did solanezumab slow cognitive decline in people with mild AD?",
                        embed="off")  # fmt: skip
    v = r.verdict
    assert v is not None and v["answer"] == "no", v
    assert "2 report no benefit in people, 0 a benefit" in v["line"]
    assert v["pmids"] == ["701", "702"]  # the mouse study is no trial in people
    assert all(s["reading"] == "no" for s in v["sentences"])
    assert "«solanezumab»" in v["sentences"][0]["sentence"].lower()


def test_a_question_not_about_helping_keeps_the_facts_verdict(engine):
    r = engine.retrieve("Does solanezumab bind APP?", embed="off")
    assert r.verdict is None or "trial" not in r.verdict["line"]
