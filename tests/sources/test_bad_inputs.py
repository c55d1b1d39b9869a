"""Hostile inputs never crash a build or lose a record (issue 11, items 5–7 and 9)."""

import json

import pytest

from kgbuild.errors import IntegrityError
from kgbuild.pipeline.build import build_kg
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.local import SourceFile, read_file
from kgbuild.sources.pubtator_files import count_records, read_pubtator
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import write_bad_corpus


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
