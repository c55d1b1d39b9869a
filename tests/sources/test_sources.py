import json
from pathlib import Path

import pytest

from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.local import discover, parse_years, read_slices
from kgbuild.sources.pubtator_files import read_pubtator
from tests.conftest import FIXTURES, shared


def records(path: Path):
    return {r.pmid: r for r in read_pubtator(path, year=2019)}


def kinds(rec):
    return sorted(p.kind for p in rec.problems)


def test_pubtator_mentions_and_curies(corpus):
    rec = records(corpus / "2019.pubtator")["1001"]
    assert len(rec.mentions) == 11 and not rec.problems
    abeta = next(m for m in rec.mentions if m.text == "Abeta")
    assert abeta.concept_id == "NCBIGene:351"
    assert abeta.concept_ids == ["NCBIGene:351", "NCBIGene:11820"]
    assert rec.text[abeta.start : abeta.end] == "Abeta"
    mice = next(m for m in rec.mentions if m.text == "mice")
    assert mice.hetionet_type is None and mice.concept_id == "NCBITaxon:10090"
    assert rec.relations == [("Association", "348", "MESH:D000544")]


def test_pubtator_bad_lines_are_recorded_not_dropped(corpus):
    rec = records(corpus / "2019.pubtator")["1002"]
    assert kinds(rec) == ["bad_offset", "malformed_line", "offset_repaired", "unparsable_id"]
    repaired = next(m for m in rec.mentions if m.text == "Oxidative stress")
    assert rec.text[repaired.start : repaired.end] == "Oxidative stress"
    assert not any(m.text == "glia" for m in rec.mentions)
    tau = next(m for m in rec.mentions if m.text == "tau")
    assert tau.concept_id is None and tau.hetionet_type == "Gene"
    t_cells = next(m for m in rec.mentions if m.text == "T cells")
    assert t_cells.concept_id is None


def test_empty_abstract_is_built_with_a_warning(corpus):
    rec = records(corpus / "2019.pubtator")["1003"]
    assert rec.reject_reason is None and rec.warnings == ["empty abstract (title only)"]


def test_non_utf8_bytes_decode_and_keep_offsets(tmp_path, corpus):
    raw = (corpus / "2019.pubtator").read_bytes().replace(b"Tau and memory", b"Tau \xe9t memory")
    path = tmp_path / "2019.pubtator"
    path.write_bytes(raw)
    rec = records(path)["1002"]
    assert rec.title.startswith("Tau ét memory")
    assert "non_utf8" in kinds(rec)
    loss = next(m for m in rec.mentions if m.text == "memory loss" and m.start < 20)
    assert rec.text[loss.start : loss.end] == "memory loss"


def test_bioc_rebases_offsets_and_records_bad_annotations():
    recs = list(read_bioc(FIXTURES / "pubtator3_small.json"))
    rec = recs[0]
    assert rec.pmid == "2001" and rec.year == 2018 and rec.journal == "J Test"
    for m in rec.mentions:
        assert rec.text[m.start : m.end] == m.text
    assert {m.concept_id for m in rec.mentions} >= {"MESH:D003474", "NCBIGene:351", "MESH:D000544"}
    assert kinds(rec) == ["malformed_annotation"]
    assert recs[1].year is None and recs[1].warnings == ["empty abstract (title only)"]


def test_bioc_biored_shape_untyped_passages_and_entity_relations():
    """BioRED's BioC-JSON: passages carry no type infon (title first, then abstract) and
    relations name ``entity1``/``entity2`` with a ``novel`` flag; read as its PubTator twin."""
    bioc = {r.pmid: r for r in read_bioc(FIXTURES / "eval" / "biored_small.BioC.JSON")}
    text = {r.pmid: r for r in read_pubtator(FIXTURES / "eval" / "biored_small.PubTator")}
    assert list(bioc) == ["101", "102", "103"]
    for pmid, rec in bioc.items():
        twin = text[pmid]
        assert (rec.title, rec.abstract, rec.reject_reason) == (twin.title, twin.abstract, None)
        assert [(m.start, m.end, m.concept_ids) for m in rec.mentions] == [
            (m.start, m.end, m.concept_ids) for m in twin.mentions
        ]
        assert rec.relations == [tuple(r) for r in twin.relations]
    assert bioc["101"].relations[0] == ("Positive_Correlation", "D008094", "D018500", "Novel")
    caspases = next(m for m in bioc["102"].mentions if m.text == "Caspase-3/7")
    assert caspases.concept_ids == ["NCBIGene:836", "NCBIGene:840"]  # a composite mention


def test_bioc_unreadable_file_is_one_rejected_record(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"PubTator3": [')
    (rec,) = read_bioc(path)
    assert rec.reject_reason.startswith("unreadable BioC-JSON")


def test_real_pubtator3_responses_parse_with_valid_offsets():
    folder = shared("pubtator3")
    n = expected = 0
    for path in sorted(folder.glob("*.json")):
        payload = json.loads(path.read_text())
        docs = payload.get("PubTator3", [payload]) if isinstance(payload, dict) else payload
        for doc in docs:
            for p in doc["passages"]:
                if p["infons"].get("type") in ("title", "front", "abstract"):
                    expected += len(p["annotations"])
        for rec in read_bioc(path):
            assert rec.pmid, path.name
            for m in rec.mentions:
                assert rec.text[m.start : m.end] == m.text
                n += 1
            bad = [p for p in rec.problems if p.kind in ("bad_offset", "malformed_annotation")]
            assert not bad, (path.name, bad[:2])
    assert n == expected and n > 200  # every title/abstract annotation became a valid mention


def test_read_slices_accounts_for_every_record(corpus):
    slices = list(read_slices(corpus))
    assert [s.year for s in slices] == [2019, 2020]
    statuses = {(s.source_file, s.pmid): s for y in slices for s in y.statuses}
    assert len(statuses) == 3 + 5  # 3 records in 2019; 4 + stray lines in 2020
    assert statuses[("2019.pubtator", "1001")].status == "built"
    assert statuses[("2019.pubtator", "1003")].reason == "empty abstract (title only)"
    dup = statuses[("2020.pubtator", "1001")]
    assert dup.status == "duplicate" and "identical text" in dup.reason and "2019" in dup.reason
    changed = statuses[("2020.pubtator", "1002")]
    assert changed.status == "duplicate" and "text differs" in changed.reason
    assert statuses[("2020.pubtator", "1005")].status == "rejected"
    assert statuses[("2020.pubtator", "")].reason == "lines outside any document"
    built = [d.pmid for y in slices for d in y.documents]
    assert sorted(built) == ["1001", "1002", "1003", "1004"]


def test_year_selection_and_year_parsing(corpus):
    assert parse_years("2011-2020") == (2011, 2020)
    assert parse_years("2015") == (2015, 2015)
    assert [f.year for f in discover(corpus)] == [2019, 2020]
    (only,) = read_slices(corpus, (2020, 2020))
    assert only.year == 2020 and {d.pmid for d in only.documents} == {"1001", "1002", "1004"}


def test_yearless_file_uses_record_year_or_default(tmp_path, corpus):
    from kgbuild.errors import InputError
    from kgbuild.pipeline.build import build_kg
    from kgbuild.store.snapshots import Warehouse

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "batch.pubtator").write_bytes((corpus / "2019.pubtator").read_bytes())
    with pytest.raises(InputError, match="--default-year"):
        build_kg(tmp_path / "src", warehouse=tmp_path / "w1")
    report = build_kg(tmp_path / "src", warehouse=tmp_path / "w2", default_year=2005)
    assert [y.year for y in report.years] == [2005]
    (tmp_path / "src" / "pubtator3.json").write_bytes(
        (FIXTURES / "pubtator3_small.json").read_bytes()
    )
    report = build_kg(tmp_path / "src", warehouse=tmp_path / "w3", default_year=2005)
    assert [y.year for y in report.years] == [2005, 2018]  # BioC record keeps its own year
    statuses = Warehouse(tmp_path / "w3").query(
        "SELECT status, count(*) FROM doc_status GROUP BY 1"
    )
    assert dict(statuses) == {"built": 5}
