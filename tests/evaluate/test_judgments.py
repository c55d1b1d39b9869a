"""The judgment harness: status sheets read and scored with their interval,
a bad sheet refused in one line, sections skipped with a reason, the headline JSON keys."""

from pathlib import Path

import pytest

from kgbuild.errors import InputError
from kgbuild.evaluate.judgments import (
    evaluate_judgments,
    gold_by_corpus,
    headline,
    read_status_sheet,
    render,
    status_precision,
)


def _sheet(path: Path, status: str, verdicts: list[str]) -> Path:
    col = f"really_{status}"
    rows = "".join(f"{i}\te{i}\tsentence {i}\tA\tB\t{v}\t\n" for i, v in enumerate(verdicts, 1))
    path.write_text(f"# status: {status}\n# n: {len(verdicts)}\n"
                    f"item\tevidence_id\tsentence\thead\ttail\t{col}\tnote\n{rows}")  # fmt: skip
    return path


def test_status_precision_pools_sheets_per_status_with_a_wilson_interval(tmp_path):
    a = _sheet(tmp_path / "a.tsv", "negated", ["yes"] * 9 + ["no"])
    b = _sheet(tmp_path / "b.tsv", "negated", ["yes"] * 8 + ["no", ""])  # a blank is not counted
    h = _sheet(tmp_path / "h.tsv", "hypothesis", ["yes", "no"])
    got = status_precision([a, b, h])
    assert got["negated"]["judged"] == 19 and got["negated"]["correct"] == 17
    assert got["negated"]["precision"] == round(17 / 19, 4)
    lo, hi = got["negated"]["ci95"]
    assert lo < 17 / 19 < hi and hi < 1.0
    assert got["hypothesis"]["precision"] == 0.5


def test_a_sheet_that_is_not_a_judged_status_sheet_is_refused(tmp_path):
    bad = _sheet(tmp_path / "x.tsv", "negated", ["maybe"])
    with pytest.raises(InputError, match="yes or no"):
        read_status_sheet(bad)
    other = tmp_path / "y.tsv"
    other.write_text("# status: asserted\nitem\tsentence\n1\tx\n")
    with pytest.raises(InputError, match="not a judged status sheet"):
        read_status_sheet(other)


def test_sections_without_inputs_say_why_and_the_headline_keeps_its_keys(tmp_path):
    report = evaluate_judgments(sections=("epistemic", "confidence"))
    assert "status sheets" in report["epistemic"]["skipped"]
    assert "audit sheets" in report["confidence"]["skipped"]
    sheet = _sheet(tmp_path / "n.tsv", "negated", ["yes", "yes", "no", "yes"])
    report = evaluate_judgments(status_sheets=[sheet], sections=("epistemic",))
    line = headline(report)
    assert line["negated_precision"] == 0.75 and line["hypothesis_precision"] is None
    assert {"id_false_removal_bc5cdr", "biored_pair_f1", "cdr_cid_f1", "confidence_auc",
            "served_supported"} <= set(line)  # fmt: skip
    assert "| negated | 4 | 3 | 75.0%" in render(report)


def test_curated_files_are_grouped_by_corpus_from_their_names():
    got = gold_by_corpus([Path("a/CDR_TrainingSet.PubTator.txt"), Path("b/Dev.PubTator"),
                          Path("c/Test.BioC.XML"), Path("d/mine.pubtator")])  # fmt: skip
    assert sorted(got) == ["bc5cdr", "biored", "mine"] and len(got["biored"]) == 2
