"""Hostile inputs never crash a build or lose a record, among them numbers no
parser takes and years no snapshot should have."""

import json
import os
import subprocess
import sys

import pytest

from kgbuild.errors import IntegrityError
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.local import SourceFile, read_file
from kgbuild.sources.pubtator_files import count_records, read_pubtator
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import DIGITS_5000, write_bad_corpus


@pytest.fixture(scope="module")
def bad_build(tmp_path_factory):
    root = tmp_path_factory.mktemp("bad")
    files = write_bad_corpus(root / "corpus")
    report = build_kg(root / "corpus", kg="bad", warehouse=root / "wh")
    return files, Warehouse(root / "wh"), report


def statuses(wh, name):
    return wh.query(
        "SELECT pmid, status, reason FROM doc_status WHERE source_file = ? ORDER BY record_no",
        [name],
    )


def test_every_record_of_every_bad_file_has_a_status(bad_build):
    files, wh, report = bad_build
    assert [y.year for y in report.years] == [2015]
    for f in files:
        assert len(statuses(wh, f.name)) == f.records, f
    total = wh.query("SELECT count(*) FROM doc_status")[0][0]
    assert total == sum(f.records for f in files)


def test_line_endings_and_byte_order_marks(bad_build):
    _, wh, _ = bad_build
    for name, pmids in (
        ("2015_cr_only.pubtator", ["9101", "9102", "9103"]),
        ("2015_crlf.pubtator", ["9111", "9112"]),
        ("2015_bom.pubtator", ["9201"]),
        ("2015_utf16.pubtator", ["9211"]),
    ):
        assert [(p, s) for p, s, _ in statuses(wh, name)] == [(p, "built") for p in pmids]
    # the BOM is gone from the PMID, and mentions sit where their text is
    bad = wh.query(
        "SELECT count(*) FROM mentions m JOIN documents d USING (pmid) "
        "WHERE substr(d.title || ' ' || d.abstract, m.start + 1, m.\"end\" - m.start) != m.text"
    )
    assert bad == [(0,)]
    assert wh.query("SELECT count(*) FROM mentions WHERE pmid = '9201'") == [(5,)]
    kinds = {k for (k,) in wh.query("SELECT DISTINCT kind FROM problems")}
    assert {"normalized", "non_utf8", "malformed_line", "bad_offset"} <= kinds


def test_offsets_repair_to_the_nearest_and_negative_offsets_are_problems(tmp_path):
    path = write_bad_corpus(tmp_path, dense_chars=100) and tmp_path / "2015_offsets.pubtator"
    (rec,) = list(read_pubtator(path))
    text = rec.text
    near = text.index("tau", text.index("tau", 9) + 1)  # the third "tau", not the first
    assert near > 20
    assert [(m.start, m.text) for m in rec.mentions] == [(near, "tau")]
    kinds = sorted(p.kind for p in rec.problems)
    assert kinds == ["bad_offset", "bad_offset", "malformed_line", "offset_repaired",
                     "pmid_mismatch"]  # fmt: skip
    assert rec.relations == [("Association", "4137", "MESH:D000544")]


def test_wrong_shaped_json_rejects_its_records_and_keeps_the_rest(bad_build):
    _, wh, _ = bad_build
    rows = statuses(wh, "2015_wrong_shape.json")
    assert len(rows) == 10
    by_status = {}
    for pmid, status, reason in rows:
        by_status.setdefault(status, []).append((pmid, reason))
    assert [p for p, _ in by_status["built"]] == ["9914", "9915"]
    assert all("malformed" in r or "without id" in r for _, r in by_status["rejected"])
    # the good annotation of 9914 was kept; its bad ones are problems
    assert wh.query("SELECT text FROM mentions WHERE pmid = '9914'") == [("APOE",)]
    assert wh.query(
        "SELECT count(*) FROM problems WHERE pmid = '9914' AND kind = 'malformed_annotation'"
    ) == [(3,)]
    for name in ("2015_deep.json", "2015_top_string.json", "2015_not_json.json"):
        ((_, status, reason),) = statuses(wh, name)
        assert status == "rejected" and reason, name


def test_a_huge_abstract_is_rejected_with_its_size(bad_build):
    _, wh, _ = bad_build
    ((_, status, reason),) = statuses(wh, "2015_dense.pubtator")
    assert status == "rejected" and "2,000,0" in reason and "--max-doc-chars" in reason
    assert wh.query("SELECT count(*) FROM documents WHERE pmid = '9801'") == [(0,)]


def test_files_with_no_records_say_so(bad_build):
    _, wh, _ = bad_build
    for name in ("2015_empty.pubtator", "2015_binary.pubtator"):
        ((_, status, reason),) = statuses(wh, name)
        assert status == "rejected" and ("no PubTator records" in reason or "outside" in reason)


def test_a_reader_that_loses_records_stops_the_build(tmp_path, monkeypatch):
    """The per-file record count is checked against the raw bytes: a reader that drops a record
    (as the CR-only bug did) is an error, not a smaller KG."""
    path = tmp_path / "2019.pubtator"
    path.write_bytes(b"1|t|A.\n1|a|B.\n\n2|t|C.\n2|a|D.\n\n")
    assert count_records(path.read_bytes()) == 2
    assert count_records(path.read_bytes().replace(b"\n", b"\r")) == 2
    from kgbuild.sources import local

    real = local.read_pubtator
    monkeypatch.setattr(local, "read_pubtator", lambda *a, **k: list(real(*a, **k))[:1])
    with pytest.raises(IntegrityError, match="1 of 2 records were lost"):
        list(read_file(SourceFile(path, "pubtator", 2019), tmp_path))


def test_bioc_entries_that_are_not_objects_are_records_too(tmp_path):
    path = tmp_path / "x.json"
    path.write_text(json.dumps([1, "two", None, {"pmid": "3", "passages": []}]))
    recs = list(read_bioc(path))
    assert len(recs) == 4
    assert [r.reject_reason is not None for r in recs] == [True, True, True, True]
    assert recs[3].reject_reason.startswith("empty document")


def problems(wh, pmid):
    return wh.query("SELECT kind, detail FROM problems WHERE pmid = ? ORDER BY line_no", [pmid])


def test_numbers_no_parser_takes_reject_their_record_or_annotation(bad_build):
    """A PMID or offset of 5,000 digits, NaN, inf, 1e5, superscript digits, -0: a status or a
    problem row naming the value, never a traceback; the good records beside them build."""
    _, wh, _ = bad_build
    rows = statuses(wh, "2015_numbers.pubtator")
    assert [(p, s) for p, s, _ in rows] == [
        ("9951", "built"), (DIGITS_5000, "rejected"), ("-0", "rejected")
    ]  # fmt: skip
    assert "5,000 characters" in rows[1][2] and "'-0'" in rows[2][2]
    assert wh.query("SELECT text FROM mentions WHERE pmid = '9951'") == [("tau",)]
    assert wh.query("SELECT count(*) FROM source_relations WHERE pmid = '9951'") == [(0,)]
    found = problems(wh, "9951")
    assert [k for k, _ in found] == ["bad_offset", "bad_offset"] + ["malformed_line"] * 4
    for (_, detail), value in zip(found, ["9999", "9" * 30, "NaN", "inf", "1e5", "\u00b2"],
                                  strict=True):  # fmt: skip
        assert f"'{value}" in detail

    rows = statuses(wh, "2015_numbers.json")
    assert [s for _, s, _ in rows] == ["built"] + ["rejected"] * 6 + ["built"]
    reasons = [r for _, s, r in rows if s == "rejected"]
    for reason, value in zip(reasons, ["nan", "inf", "100000.0", "-0.0", "5,000 characters",
                                       "'-0'"], strict=True):  # fmt: skip
        assert value in reason, reason
    assert wh.query("SELECT text FROM mentions WHERE pmid = '9961'") == [("APOE",)]
    assert [k for k, _ in problems(wh, "9961")] == ["malformed_annotation"] * 6
    # a superscript year in a file whose name gives the year: a problem row, still built
    ((kind, detail),) = problems(wh, "9962")
    assert kind == "bad_year" and SUPERSCRIPT_2015 in detail


def test_years_outside_1800_to_next_year_publish_no_snapshot(bad_build):
    _, wh, report = bad_build
    assert [y.year for y in report.years] == [2015]
    for name in ("0000", "1799", "9999", "2099"):
        ((pmid, status, reason),) = statuses(wh, f"{name}.pubtator")
        assert (pmid, status) == (f"99{name}", "rejected")
        assert f"year {name} is outside 1800-" in reason and "file name" in reason


SUPERSCRIPT_2015 = "\u00b2\u2070\u00b9\u2075"  # str.isdigit() is True; int() refuses it


def _bioc(pmid, **dated):
    return {"pmid": pmid, **({"date": dated["date"]} if "date" in dated else {}), "passages": [
        {"infons": {"type": "title", **({"year": dated["year"]} if "year" in dated else {})},
         "offset": 0, "text": "APOE and tau."},
        {"infons": {"type": "abstract"}, "offset": 14, "text": "APOE binds tau."},
    ]}  # fmt: skip


def test_a_records_own_unusable_year_rejects_it(tmp_path):
    """Without a year in the file name the record's own year decides: superscripts, NaN,
    0000, 9999 and 1799 reject the record naming the value (no snapshot for them), even with
    ``--default-year``, which is for records that carry no year at all."""
    src = tmp_path / "src"
    src.mkdir()
    docs = [
        _bioc("1", year=SUPERSCRIPT_2015), _bioc("2", date=f"{SUPERSCRIPT_2015}-01-01"),
        _bioc("3", year="9999"), _bioc("4", year="0000"), _bioc("5", date="1799-12-31"),
        _bioc("6", year="NaN"), _bioc("7", year="2016"), _bioc("8"),
    ]  # fmt: skip
    (src / "batch.json").write_text(json.dumps(docs))
    for default, wh in ((None, tmp_path / "w1"), (2015, tmp_path / "w2")):
        report = build_kg(src, kg="t", warehouse=wh, extractor=ExtractionOptions(
            "cooccurrence", embed_model="none"), default_year=default)  # fmt: skip
        assert [y.year for y in report.years] == ([2016] if default is None else [2015, 2016])
        rows = dict((p, (s, r)) for p, s, r in statuses(Warehouse(wh), "batch.json"))
        for pmid, value in (("1", SUPERSCRIPT_2015), ("2", f"{SUPERSCRIPT_2015}-01-01"),
                            ("3", "year 9999"), ("4", "year 0000"), ("5", "year 1799"),
                            ("6", "'NaN'")):  # fmt: skip
            status, reason = rows[pmid]
            assert status == "rejected" and value in reason, (pmid, reason)
        assert rows["7"][0] == "built"
        assert rows["8"][0] == ("rejected" if default is None else "built")


def test_year_settings_outside_the_range_are_one_clear_line(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text("1|t|APOE and tau.\n1|a|APOE binds tau.\n\n")
    for option in (["--years", "0000-2015"], ["--years", "2015-9999"],
                   ["--default-year", "9999"], ["--default-year", "1066"]):  # fmt: skip
        proc = subprocess.run(
            [sys.executable, "-m", "kgbuild.cli", "build", "--source", str(src), "--kg", "t",
             "-w", str(tmp_path / "wh"), "--extractor", "cooccurrence", "--embed-model",
             "none", *option],
            capture_output=True, text=True, timeout=120,
            env={k: v for k, v in os.environ.items() if not k.startswith(("KGBUILD_", "OPENAI_"))},
        )  # fmt: skip
        assert proc.returncode == 2, (option, proc.stderr[-500:])
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert "Traceback" not in proc.stderr and "1800-" in lines[-1], (option, lines)


def test_inputs_that_left_no_trace_end_with_their_status(bad_build):
    """Inputs that used to leave no trace, in the hostile corpus: mixed line endings build each
    record whole, BioC XML is read, an entity bomb, a folder named ``2018.pubtator`` and a
    ``.docx`` are one rejected record each (no 2018 snapshot), a zero-padded PMID is its plain
    spelling (the second a duplicate), and a NUL in a title is a space with a problem row."""
    _, wh, report = bad_build
    assert [y.year for y in report.years] == [2015]
    rows = statuses(wh, "2015_mixed_eol.pubtator")
    assert [(p, s) for p, s, _ in rows] == [("9971", "built"), ("9972", "built"), ("9973", "built")]
    assert wh.query("SELECT title FROM documents WHERE pmid = '9972'") == [
        ("APOE and amyloid beta in Alzheimer's disease.",)
    ]  # fmt: skip
    assert [(p, s) for p, s, _ in statuses(wh, "2015_bioc.xml")] == [
        ("9974", "built"), ("9975", "built")
    ]  # fmt: skip
    assert wh.query("SELECT count(*) FROM mentions WHERE pmid = '9974'") == [(4,)]
    for name, kind in (("2015_laughs.xml", "unsafe_xml"), ("2018.pubtator", "not_regular"),
                       ("2015_notes.docx", "unknown_format")):  # fmt: skip
        ((pmid, status, reason),) = statuses(wh, name)
        assert (pmid, status) == ("", "rejected") and reason, name
        assert wh.query("SELECT kind FROM problems WHERE source_file = ?", [name]) == [(kind,)]
    rows = statuses(wh, "2015_zero_pmids.pubtator")
    assert [(p, s) for p, s, _ in rows] == [("99760001", "built"), ("99760001", "duplicate")]
    ((title,),) = wh.query("SELECT title FROM documents WHERE pmid = '9977'")
    assert title == "APOE and amyloid beta    Alzheimer's disease."  # same length: same offsets
    assert wh.query("SELECT kind FROM problems WHERE pmid = '9977'") == [("control_chars",)]
