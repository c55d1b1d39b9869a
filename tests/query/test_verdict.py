"""Yes/no verdicts that answer the predicate asked (data/yes_no_predicates.tsv,
kgbuild/query/verdict.py, verdict_open.py) and `ask`'s answer line, first and last — on a small
real KG (tests/support/kinds_kg.py)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from kgbuild.cli import app
from kgbuild.query.engine import QueryEngine
from kgbuild.query.verdict import decide
from kgbuild.question.predicates import predicate_for, predicates
from tests.support.kinds_kg import build_kinds_kg


@pytest.fixture(scope="module")
def kinds_wh(tmp_path_factory):
    root = tmp_path_factory.mktemp("verdict") / "wh"
    build_kinds_kg(root)
    return root


@pytest.fixture(scope="module")
def engine(kinds_wh):
    return QueryEngine(kinds_wh, embeddings=False)


def _verdict(engine, q: str) -> dict:
    return engine.retrieve(q, embed="off").verdict


def test_an_association_whose_sentence_names_a_marker_states_the_biomarker(engine):
    # NEFL–AD is an `associates` fact: "Neurofilament light is a blood biomarker of AD"
    v = _verdict(engine, "Is NEFL a biomarker for Alzheimer's disease?")
    assert v["answer"] == "yes" and v["stated"] == 1 and v["pmids"] == ["302"]
    assert v["line"].startswith("yes: 1 PMIDs state NEFL is a biomarker of Alzheimer disease")


def test_the_opposite_relation_answers_no(engine):
    v = _verdict(engine, "Does donepezil increase ACHE?")
    assert v["answer"] == "no" and v["opposite"] == 1 and v["stated"] == 0
    opposite = "no: 1 PMIDs state the opposite of donepezil increases or activates ACHE"
    assert v["line"].startswith(opposite)


def test_a_pair_joined_only_otherwise_has_no_stated_evidence_never_related(engine):
    v = _verdict(engine, "Does donepezil bind bradycardia?")
    assert v["answer"] == "no stated evidence" and v["mentioned"] == 1
    assert v["line"].startswith("no stated evidence: no PMID states donepezil binds Bradycardia")
    assert "related" not in v["line"]


def test_a_missing_entity_is_named(engine):
    v = _verdict(engine, "Do statins reduce the risk of Alzheimer's disease?")
    assert v["answer"] == "not found" and v["missing"] == ["statins"]
    # and the corpus's sentences were read for it (kgbuild/query/verdict_sentences.py)
    assert v["line"] == ("not found: could not find 'statins' in this KG "
                         "(found: Alzheimer disease); no sentence of the corpus names "
                         "'statins' with Alzheimer disease")  # fmt: skip


def test_one_entity_and_a_predicate_is_answered_from_its_facts(engine):
    v = _verdict(engine, "Does donepezil cause any adverse effects?")
    assert v["answer"] == "yes" and v["pmids"] == ["402", "405"]
    assert [p["name"] for p in v["partners"]] == ["Abnormalities, Drug-Induced", "Bradycardia"]
    # a disease it treats (memory disorders, "increased … scores") is not an adverse effect
    assert "memory" not in v["line"]
    none = _verdict(engine, "Does memantine cause any adverse effects?")
    assert none["answer"] == "no stated evidence" and none["stated"] == 0


def test_the_table_decides_and_every_row_compiles():
    assert {"biomarker", "upregulates", "downregulates", "treats", "causes", "interacts",
            "binds", "associates", "downregulates+risk_factor"} <= set(predicates())  # fmt: skip
    assert predicate_for(["downregulates", "risk_factor"]).says == "reduces the risk of"
    assert predicate_for([]).says == "is associated with"
    up = predicate_for(["upregulates"])
    assert up.reading("regulates", "Abeta-induced rise in nuclear NF-kB levels") == "yes"
    assert up.reading("regulates", "NF-kB was measured") is None
    assert (
        up.reading("co_mentioned", "Abeta increases NF-kB") is None
    )  # a co-mention states nothing
    assert up.reading("downregulates", "") == "no"
    # a cued row's sentence may state the opposite, or both sides (then neither)
    assert up.reading("associates", "Curcumin reduced Abeta levels") == "no"
    assert up.reading("associates", "Memantine reduced the increased Abeta") is None
    got = [decide(3, 1, 5), decide(2, 2, 5), decide(1, 3, 5), decide(0, 0, 5), decide(0, 0, 0)]
    assert got == ["yes", "mixed", "no", "no stated evidence", "no evidence"]


@pytest.mark.parametrize(("sentence", "side"), [
    ("Smoking increased the risk of Alzheimer disease.", "yes"),
    ("Diabetes is a risk factor for Alzheimer disease.", "yes"),
    # "risk" is a word of the opposite's phrase, not the risk factor's cue
    ("Statin use reduced the risk of Alzheimer disease.", "no"),
    ("Exercise lowered the risk of dementia.", "no"),
    ("Coffee was associated with a lower risk of dementia.", None),  # both sides: neither
    ("Coffee was measured.", None),
])  # fmt: skip
def test_a_cue_within_a_longer_cue_of_the_other_side_is_that_phrases_word(sentence, side):
    risk = predicates()["risk_factor"]
    assert risk.cue_side(sentence) == side
    assert risk.reading("associates", sentence) == side


def _ask(wh, *args):
    res = CliRunner().invoke(app, ["ask", *args, "--warehouse", str(wh), "--no-llm",
                                   "--embed", "off"])  # fmt: skip
    assert res.exit_code == 0, res.output
    return res.output


def test_ask_prints_the_answer_line_first_and_last_and_json_carries_it(kinds_wh):
    q = "Is NEFL a biomarker for Alzheimer's disease?"
    text = _ask(kinds_wh, q)
    lines = text.strip().splitlines()
    first = next(i for i, x in enumerate(lines) if x.startswith("verdict: yes: 1 PMIDs"))
    assert first < next(i for i, x in enumerate(lines) if "ranked triples" in x)
    assert lines[-1] == lines[first]
    got = json.loads(_ask(kinds_wh, q, "--json"))
    assert got["answer_line"] == lines[first]
    # a multiple-choice question: the KG-only choice first, not only after its tables
    text = _ask(kinds_wh, "Which drug causes bradycardia?", "--choices", "memantine;donepezil")
    lines = text.strip().splitlines()
    assert lines[-1] == "KG-only answer B. donepezil"
    assert lines.index(lines[-1]) < next(i for i, x in enumerate(lines) if "ranked triples" in x)


def test_the_answer_line_of_each_kind_of_question():
    from kgbuild.query.cli import answer_line

    opts = ["memantine", "donepezil"]
    assert answer_line({"kg_answer": 1}, opts, 0, True) == "answer (LLM): A. memantine"
    assert answer_line({"kg_answer": 1}, opts, None, True) == "answer (LLM): (no readable choice)"
    assert answer_line({"kg_answer": 1}, opts, None, False) == "KG-only answer B. donepezil"
    assert answer_line({"kg_answer": None}, opts, None, False).startswith("no KG-only answer")
    assert answer_line({"verdict": {"line": "yes: 1 PMIDs"}}, [], None, False) == (
        "verdict: yes: 1 PMIDs"
    )
    assert answer_line({"answers": [{"id": "x"}]}, [], None, False) is None  # a list answer


def test_the_missing_phrase_leaves_out_the_words_understood():
    from kgbuild.query.verdict_open import missing_phrase
    from kgbuild.question.intent import read_intent

    q = "Do statins reduce the risk of Alzheimer's disease?"
    it = read_intent(q)
    assert missing_phrase(q, 3, q.index(" of"), it) == "statins"
    q = "Can galantamine cause bradycardia or other cardiac problems?"
    assert missing_phrase(q, q.index("brady"), len(q) - 1, read_intent(q)) == (
        "bradycardia or other cardiac problems"
    )
    assert missing_phrase("Does it cause harm", 0, 13, read_intent("Does it cause harm")) is None
