"""The abstracts that best match a question (kgbuild/search/abstracts.py,
kgbuild/corpus/passages.py), on a real KG whose abstracts answer what no fact does
(tests/support/passages_kg.py): shown when they write most of the question, each by its
best-matching and its closing sentence; never for a question they share one word with."""

import json
import logging
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.store.check import check_warehouse
from tests.conftest import ROOT
from tests.support.passages_kg import (
    COHORT,
    CONCLUSION,
    LATER,
    TRIAL,
    UNLABELLED,
    passages_engine,
)

TRIAL_Q = ("Does a multidomain intervention of diet, exercise and cognitive training help "
           "cognition in at-risk elderly people?")  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return passages_engine(tmp_path_factory, "passages")


def test_a_question_no_entity_answers_is_shown_the_abstracts_that_write_it(engine):
    r = engine.retrieve(TRIAL_Q, embed="off")
    assert r.found and r.message is None  # not "no entity of this snapshot found"
    shown = [p["pmid"] for p in r.passages]
    # the trial (2015) first; the 2018 trial writes most of it too; the cohort writes only
    # "exercise" and the hostile abstract's run-on text is never a sentence
    assert shown[0] == TRIAL and LATER in shown and COHORT not in shown, shown
    best = r.passages[0]
    assert "multidomain intervention of diet, exercise and cognitive training" in best["sentence"]
    assert best["closing"] == CONCLUSION  # what was found, beside what was matched
    assert 0.5 <= best["cover"] <= 1 and {"multidomain", "elder"} <= set(best["terms"])
    assert r.verdict is not None and r.verdict["line"].endswith(
        "the abstracts shown below write most of the question"
    )
    d = r.to_dict()
    assert d["passages"] == r.passages and d["diagnostics"]["abstracts_indexed"] == 5
    assert "ignore all previous" not in json.dumps(d["passages"]).lower()


def test_an_abstract_without_a_labelled_conclusion_closes_on_its_last_sentence(engine):
    r = engine.retrieve("What is the Centiloid scale for amyloid PET tracers?", embed="off")
    (p,) = r.passages
    assert p["pmid"] == UNLABELLED
    assert p["sentence"].startswith("The Centiloid scale puts every tracer")
    assert p["closing"] is None  # the best match is the last sentence: not shown twice


@pytest.mark.parametrize("question", [
    "What is the capital city of France?",
    "Does exercise help?",  # one of the question's words: the cohort writes it, nothing more
    "xyzzy plugh",
])  # fmt: skip
def test_a_question_the_abstracts_share_one_word_with_is_shown_none(engine, question):
    r = engine.retrieve(question, embed="off")
    assert r.passages == [] and not r.found


def test_an_as_of_question_reads_only_that_years_abstracts(engine):
    from kgbuild.query.explore import Filters

    r = engine.retrieve(TRIAL_Q, embed="off", filters=Filters(as_of_year=2015))
    assert r.as_of_year == 2015 and [p["pmid"] for p in r.passages] == [TRIAL]
    assert r.to_dict()["diagnostics"]["abstracts_indexed"] == 4


def test_options_the_facts_leave_open_are_read_in_the_abstracts(engine):
    q = "Which scale do amyloid imaging studies use to compare tracers?"
    r = engine.retrieve(q, ["Braak stages", "Centiloid scale", "MMSE"], embed="off")
    assert r.choice_reading["choice"] is None  # the facts' sentences leave it open
    said = r.abstract_choice
    assert said is not None and said["choice"] == 1 and r.kg_answer == 1
    assert said["pmids"] == [UNLABELLED] and said["scores"][0] == said["scores"][2] == 0
    assert r.to_dict()["abstract_choice"] == said
    # "all EXCEPT": the option asked for is the one the abstracts do not write
    r = engine.retrieve("All of the following measure amyloid PET EXCEPT:",
                        ["Braak stages", "Centiloid scale", "MMSE"], embed="off")  # fmt: skip
    assert r.abstract_choice is None and r.kg_answer is None
    # options none of the question's abstracts write: no answer, not a guess
    r = engine.retrieve(q, ["hippocampal volume", "gait speed"], embed="off")
    assert r.abstract_choice is None and r.kg_answer is None


def _edit_json(path, change):
    body = json.loads(path.read_text())
    change(body)
    path.write_text(json.dumps(body))


def _double_scores(path):
    arr = np.load(path, allow_pickle=False)
    np.save(path, arr * 2, allow_pickle=False)


#: Edits a hostile tester makes to the cached index, keeping its shapes.
EDITS = {
    "documents.json": lambda f: _edit_json(f / "documents.json",
                                           lambda b: b.update(pmids=b["pmids"][::-1])),
    "data.npy": lambda f: _double_scores(f / "data.npy"),
    "seal.json": lambda f: _edit_json(f / "seal.json", lambda b: b.update(snapshot_id="0" * 20)),
}  # fmt: skip


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_abstracts_index_is_cached_verified_and_rebuilt_when_edited(engine, tmp_path, caplog,
                                                                       edit):  # fmt: skip
    root = tmp_path / "wh"
    shutil.copytree(engine.wh.root, root, ignore=shutil.ignore_patterns("index"))
    first = QueryEngine(root, embeddings=False)
    truth = first.retrieve(TRIAL_Q, embed="off").to_dict()["passages"]
    folder = first.state().index.path
    assert (folder / "abstracts" / "seal.json").is_file()
    report = check_warehouse(root)
    assert report.ok and not report.leftovers  # its files are vouched for by its sidecar
    again = QueryEngine(root, embeddings=False)
    assert again.retrieve(TRIAL_Q, embed="off").to_dict()["passages"] == truth
    assert "abstracts_build_s" not in again.state().index.timings  # read, not built
    EDITS[edit](folder / "abstracts")
    assert not check_warehouse(root).ok
    with caplog.at_level(logging.WARNING, logger="kgbuild.query"):
        third = QueryEngine(root, embeddings=False)
        assert third.retrieve(TRIAL_Q, embed="off").to_dict()["passages"] == truth
    assert "abstracts_build_s" in third.state().index.timings
    assert any("rebuilt" in r.getMessage() for r in caplog.records)
    assert check_warehouse(root).ok


@pytest.mark.slow  # kgbuild processes
def test_kgbuild_ask_prints_the_abstracts_and_answers_from_them(engine, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200", "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)

    def ask(question, *extra):
        return subprocess.run(
            [sys.executable, "-m", "kgbuild.cli", "ask", question, "-w", str(engine.wh.root),
             "--index-dir", str(tmp_path / "i"), "--embed", "off", "--no-llm", *extra],
            capture_output=True, text=True, env=env,
        )  # fmt: skip

    out = ask(TRIAL_Q)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    head = lines.index("abstracts that best match the question (BM25 over 5 abstracts; what "
                       "they write, not KG facts)")  # fmt: skip
    assert lines[head + 1].startswith(f"  PMID {TRIAL} (2015): BACKGROUND") or lines[
        head + 1].startswith(f"  PMID {TRIAL} (2015): METHODS")  # fmt: skip
    assert f"    closing: {CONCLUSION}" in lines
    markup = ask("Is the markup and noise about the multidomain intervention shown as text?")
    assert "<b>Markup</b> & noise" in markup.stdout  # untrusted text, never rich markup
    got = json.loads(ask(TRIAL_Q, "--json").stdout)
    assert [p["pmid"] for p in got["passages"]][:1] == [TRIAL]
    mc = ask("Which scale do amyloid imaging studies use to compare tracers?",
             "--choices", "Braak stages;Centiloid scale;MMSE")  # fmt: skip
    assert ("KG-only answer B. Centiloid scale — read from the abstracts that best match the "
            f"question, not KG facts (PMIDs {UNLABELLED})") in mc.stdout  # fmt: skip
    bad = ask("What is the capital city of France?")
    assert bad.returncode == 2 and "no entity of this snapshot found" in bad.stderr
