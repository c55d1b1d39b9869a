"""The blind epistemic sheet: seeded uniform draw among rows of one status, nothing of
the classifier's reasoning on the sheet, and a scorer with a Wilson interval."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from kgbuild.records import Entity, Evidence, SnapshotCounts, Triple
from kgbuild.store.snapshots import Warehouse

ROOT = Path(__file__).resolve().parents[2]
COUNTS = {"records": 1, "documents": 1, "duplicates": 0, "rejected": 0, "mentions": 0,
          "entities": 2, "nodes": 2, "relations": 1, "triples": 1, "evidence": 12,
          "problems": 0}  # fmt: skip


def _bench(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _warehouse(tmp_path: Path) -> Warehouse:
    wh = Warehouse(tmp_path / "wh")
    w = wh.writer("toy")
    w.add("entities", [Entity("G:1", "APP", "Gene"), Entity("D:1", "Alzheimer disease",
                                                            "Disease")])  # fmt: skip
    w.add("triples", [Triple("t1", "G:1", "associates", "D:1", "associates", "cooccurrence")])
    s = "Abeta did not increase the risk of AD."
    rows = [Evidence(f"e{i:02d}", "t1", str(i), 2020, s, 0, len(s), 0, 5, 35, 37,
                     "cooccurrence", "x", head_text="Abeta", tail_text="AD",
                     epistemic="negated" if i < 8 else "asserted",
                     epistemic_cue="did not") for i in range(12)]  # fmt: skip
    w.add("evidence", rows)
    w.commit(2020, "b", {}, "i", "test", SnapshotCounts.from_dict(COUNTS))
    return wh


def test_sheet_is_seeded_blind_and_scored(tmp_path, capsys):
    sample, score = _bench("epistemic_sample"), _bench("epistemic_score")
    _warehouse(tmp_path)
    out = tmp_path / "sheet.tsv"
    args = ["--warehouse", str(tmp_path / "wh"), "--status", "negated", "--n", "5", "--out"]
    assert sample.main([*args, str(out), "--seed", "7"]) == 0
    text = out.read_text()
    assert "cue" not in text and "confidence" not in text  # nothing of the classifier
    meta, rows = score.read(out)
    assert meta["status"] == "negated" and meta["population"].startswith("8 evidence rows")
    assert [r["item"] for r in rows] == ["1", "2", "3", "4", "5"]
    assert set(rows[0]) == set(sample.columns("negated"))  # no cue, no rule, no confidence
    assert rows[0]["head"] == "APP (written: Abeta)" and rows[0]["tail"].startswith("Alzheimer")
    assert all(int(r["evidence_id"][1:]) < 8 for r in rows)  # only rows with that status
    # the same warehouse and seed give the same sheet
    again = tmp_path / "again.tsv"
    sample.main([*args, str(again), "--seed", "7"])
    assert again.read_text() == text
    # judge four rows (3 yes, 1 no), leave one blank
    lines = text.splitlines()
    body = [ln for ln in lines if not ln.startswith("#")]
    head, judged = body[0], []
    for n, line in enumerate(body[1:]):
        cells = line.split("\t")
        cells[5:7] = (["yes", "no"], ["yes", "no"], ["yes", "yes"], ["no", "yes"], ["", ""])[n]
        judged.append("\t".join(cells))
    out.write_text("\n".join([ln for ln in lines if ln.startswith("#")] + [head, *judged]))
    capsys.readouterr()
    assert score.main([str(out)]) == 0
    got = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (got["judged"], got["yes"], got["blank"], got["precision"]) == (4, 3, 1, 0.75)
    assert got["relation_stated_positive"] == 2
    assert got["wilson95"][0] < 0.75 < got["wilson95"][1]


def test_a_fresh_sample_leaves_out_the_sentences_of_earlier_sheets(tmp_path):
    sample = _bench("epistemic_sample")
    _warehouse(tmp_path)
    first = tmp_path / "first.tsv"
    args = ["--warehouse", str(tmp_path / "wh"), "--status", "negated", "--seed", "7"]
    assert sample.main([*args, "--n", "5", "--out", str(first)]) == 0
    fresh = tmp_path / "fresh.tsv"
    assert sample.main([*args, "--n", "5", "--out", str(fresh), "--exclude", str(first)]) == 0
    text = fresh.read_text()
    # every row of this toy warehouse has the one sentence the first sheet showed
    assert "# n: 0" in text and "0 evidence rows" in text and "1 sentences of earlier" in text
