"""The trial-outcome reading scored against judged rows: weighted by stratum, per split."""

import csv

from kgbuild.evaluate.trial_outcomes import measure
from tests.support.trial_kg import DOCS, build_trial_kg


def _write(path, header, rows):
    with path.open("w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def test_precision_and_recall_are_weighted_by_stratum(tmp_path):
    build_trial_kg(tmp_path / "wh")
    judged = tmp_path / "judged"
    judged.mkdir()
    text = {p: a for p, _, _, a, _ in DOCS}
    # (row, pmid, split, sentence, stratum size, rows taken, primary label, second label)
    rows = [
        ("r1", "701", "dev", text["701"], 10, 2, "no benefit", "no benefit"),  # read right
        ("r2", "702", "dev", text["702"], 10, 2, "neither", "neither"),  # read no benefit: wrong
        ("r3", "703", "train", text["703"], 30, 1, "benefit", "neither"),  # missed (mice)
    ]
    _write(judged / "rows.tsv",
           ["row_id", "pmid", "split", "sentence", "stratum_size", "stratum_taken"],
           [r[:4] + r[4:6] for r in rows])  # fmt: skip
    _write(judged / "judgments.tsv", ["row_id", "round", "label"],
           [(r[0], "1", r[6]) for r in rows] + [(r[0], "2", r[7]) for r in rows])  # fmt: skip
    got = measure(judged, tmp_path / "wh")
    assert got["rows"] == 3 and got["missing_abstracts"] == 0 and got["unjudged"] == 0
    assert got["dev/no benefit"] == {"precision": 0.5, "recall": 1.0, "judged_positive_rows": 1}
    # the missed benefit weighs its stratum: 30 sentences of which none was read
    assert got["all/benefit"] == {"precision": None, "recall": 0.0, "judged_positive_rows": 1}
