"""The answer-sentence reader (kgbuild/corpus/answer_reader.py) and its trainer
(kgbuild/evaluate/answer_reader.py): the shipped model loads and prefers what a study found to
what it set out to do; a foreign or malformed model file is refused (the hybrid stands); the
trainer reads the blind ceiling judgments in the repository, labels a candidate by the judge's
quote, and its held-out choice of regularisation is reproducible."""

import json

import numpy as np
import pytest

from kgbuild.corpus import answer_reader as ar
from kgbuild.evaluate import answer_reader as trainer
from kgbuild.search.abstracts import AbstractIndex

QUESTION = "What does plasma neurofilament light tell us in Alzheimer's disease?"
AIM = "We investigated plasma neurofilament light in Alzheimer's disease and in controls."
FOUND = ("Plasma neurofilament light was raised in Alzheimer's disease and correlated with "
         "atrophy (p < 0.001).")  # fmt: skip
DOCS = [("11", 2017, "A cohort.", f"{AIM} {FOUND}"),
        ("12", 2017, "Another cohort.", "Neurofilament light in plasma was measured.")]  # fmt: skip


def _read(reader):
    index = AbstractIndex.build(DOCS)
    texts = {p: (y, t, a) for p, y, t, a in DOCS}
    rows = [{"pmid": p, "rank": i, "cover": 1.0} for i, (p, *_) in enumerate(DOCS)]

    def encode(texts: list[str]) -> np.ndarray:  # the aim and the finding equally close
        return np.array([[1.0, 0.0]] + [[0.8, 0.6]] * (len(texts) - 1))

    from kgbuild.corpus.answer_sentences import read_abstracts

    return read_abstracts(index, QUESTION, rows, texts, encode, reader=reader)


def test_the_shipped_reader_prefers_the_finding_to_the_aim():
    reader = ar.load()
    assert reader is not None and reader.weights.shape == (len(ar.FEATURES),)
    shown, said = _read(True)
    assert said[0]["sentence"] == FOUND and said[0]["pmid"] == "11"
    assert [x["sentence"] for x in said].index(AIM) > 0
    assert shown[0]["sentence"] == FOUND  # the abstract is shown by it too
    assert len(said) <= 3 and sum(x["pmid"] == "11" for x in said) <= 2


def test_without_a_reader_the_hybrid_ranks():
    _, said = _read(None)
    # equal cosines: the hybrid weighs the words, and the aim writes as much of them
    scores = {x["sentence"]: x["score"] for x in said}
    assert FOUND in scores and AIM in scores
    assert scores[AIM] >= scores[FOUND] - 1e-9


@pytest.mark.parametrize("bad", [
    {"format": "other/1", "feature_set": ar.FEATURE_SET, "coefficients": {}},
    {"format": ar.FORMAT, "feature_set": ar.FEATURE_SET, "coefficients": {"cover": 1.0}},
    {"format": ar.FORMAT, "feature_set": ar.FEATURE_SET,
     "coefficients": {"intercept": "nan", **dict.fromkeys(ar.FEATURES, 0.0)}},
])  # fmt: skip
def test_a_foreign_or_malformed_model_is_refused(bad, tmp_path):
    with pytest.raises(ValueError):
        ar.reader_from(bad)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert ar.load(path) is None
    path.write_text("{not json", encoding="utf-8")
    assert ar.load.__wrapped__(path) is None
    assert ar.load.__wrapped__(tmp_path / "missing.json") is None


def test_the_trainer_reads_the_judged_quotes():
    questions = trainer.judged_questions()
    assert len(questions) >= 150  # walks 8-11, 13 and 15: stated or partly, with a quote
    assert {q["walk"] for q in questions} >= {"walk8", "walk13", "walk15"}
    q = questions[0]
    assert q["evidence"] and q["pmids"] and q["question"].strip()
    assert trainer.is_quote("  " + q["evidence"].upper() + " ", q["evidence"])
    assert not trainer.is_quote("Tau was measured.", q["evidence"])


def test_training_is_held_out_by_walk_and_reproducible():
    rng = np.random.default_rng(7)
    pool = []
    for i in range(24):  # the quote is the candidate with the highest first feature
        x = rng.normal(size=(10, len(ar.FEATURES)))
        quote = np.zeros(10, dtype=bool)
        quote[int(np.argmax(x[:, 0]))] = True
        pool.append({"walk": f"w{i % 3}", "x": x, "hybrid": -x[:, 0], "quote": quote,
                     "judged": quote.copy()})  # fmt: skip
    said: list[str] = []
    first = trainer.train(pool, said.append)
    again = trainer.train(pool, lambda s: None)
    assert first == again
    assert first["held_out"]["reader"]["quote@1"] > first["held_out"]["hybrid"]["quote@1"]
    assert first["held_out"]["hybrid"]["quote@1"] == 0  # the hybrid here ranks it last
    assert ar.reader_from(first).weights[0] > 0
    assert any(s.startswith("reader C=") for s in said)
