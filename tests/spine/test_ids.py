"""Only identifiers of known prefixes become node IDs; a NaN PMID is no document.

An annotator ID whose prefix is not in ``data/id_prefixes.tsv`` or whose local part does not
match the prefix's pattern leaves its mention as free text (no concept ID) with a ``problems``
row; the KGX export of such a build passes the real kgx validator.
"""

import json

import pytest

from kgbuild.export import export_snapshot
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.schema import to_curies
from kgbuild.store.snapshots import Warehouse
from tests.conftest import shared
from tests.support.kgx_venv import run_check

#: (annotator ID, problem kind): none of them may become a node.
HOSTILE = {
    "FOO": ("FOO:123", "unknown_id_prefix"),
    "XSS": ("javascript:alert(1)", "unknown_id_prefix"),
    "EMPTY": ("MESH:", "bad_local_id"),
    "ABC": ("NCBIGene:abc", "bad_local_id"),
}


def test_only_known_prefixes_with_well_formed_local_ids_are_curies():
    for raw, _ in HOSTILE.values():
        assert to_curies("Gene", raw) == [], raw
    assert to_curies("Gene", "351;FOO:1;NCBIGene:x1;11820") == ["NCBIGene:351", "NCBIGene:11820"]
    assert to_curies("Chemical", "12345") == []  # a bare number is no MeSH ID
    assert to_curies("Disease", "MESH:D000544 x") == []  # the whole local ID must match
    assert to_curies("Chemical", "drugbank:DB00001") == ["DRUGBANK:DB00001"]  # Biolink's spelling
    assert to_curies("Disease", "mesh:D000544|OMIM:104300") == ["MESH:D000544", "OMIM:104300"]


def record(pmid: str, title: str, abstract: str, ids: dict[str, str]) -> str:
    """A PubTator record with one mention per occurrence of each ``ids`` form."""
    text = f"{title} {abstract}"
    lines = [f"{pmid}|t|{title}", f"{pmid}|a|{abstract}"]
    for form, kind_id in ids.items():
        kind, cid = kind_id.split("\t")
        at = text.find(form)
        while at >= 0:
            lines.append(f"{pmid}\t{at}\t{at + len(form)}\t{form}\t{kind}\t{cid}")
            at = text.find(form, at + 1)
    return "\n".join(lines) + "\n\n"


@pytest.fixture(scope="module")
def hostile_build(tmp_path_factory):
    """One year of hostile IDs and NaN PMIDs (PubTator and BioC-JSON), built by co-occurrence."""
    root = tmp_path_factory.mktemp("ids")
    src = root / "src"
    src.mkdir()
    ids = {"APOE": "Gene\t348", "Alzheimer disease": "Disease\tMESH:D000544"}
    ids |= {form: f"Gene\t{raw}" for form, (raw, _) in HOSTILE.items()}
    good = record("8001", "APOE and FOO in Alzheimer disease.",
                  "APOE, FOO, XSS, EMPTY and ABC bind in Alzheimer disease.", ids)  # fmt: skip
    nan = "".join(
        record(pmid, "APOE in Alzheimer disease.", "APOE rises in Alzheimer disease.", ids)
        for pmid in ("nan", "NaN", "inf", "-Infinity")
    )
    (src / "2019.pubtator").write_text(good + nan, encoding="utf-8")
    passage = {"offset": 0, "text": "APOE in Alzheimer disease.", "annotations": []}
    bioc = [{"id": "nan", "passages": [passage]}, {"pmid": float("nan"), "passages": [passage]}]
    (src / "2019.json").write_text(json.dumps(bioc), encoding="utf-8")
    wh = root / "wh"
    opts = ExtractionOptions("cooccurrence", None, embed_model="none")
    build_kg(src, kg="ids", extractor=opts, warehouse=wh)
    return Warehouse(wh), src


def test_unknown_prefixes_and_bad_local_ids_are_free_text_with_a_problem_row(hostile_build):
    wh, _ = hostile_build
    nodes = {r[0] for r in wh.query("SELECT id FROM entities")}
    assert nodes == {"NCBIGene:348", "MESH:D000544"}
    ends = {i for r in wh.query("SELECT head_id, tail_id FROM triples") for i in r}
    assert ends == {"NCBIGene:348", "MESH:D000544"}
    mentions = dict(wh.query("SELECT text, concept_id FROM mentions WHERE pmid = '8001'"))
    for form in HOSTILE:
        assert form in mentions and mentions[form] is None, form  # kept, as free text
    problems = wh.query("SELECT kind, detail FROM problems WHERE pmid = '8001'")
    for raw, kind in HOSTILE.values():
        assert {k for k, d in problems if repr(raw) in d} == {kind}, raw
    assert all("kept as free text" in d for _, d in problems)


def test_a_nan_pmid_never_becomes_a_document(hostile_build):
    wh, _ = hostile_build
    docs = {r[0] for r in wh.query("SELECT pmid FROM documents")}
    assert docs == {"8001"}
    rows = wh.query("SELECT source_file, pmid, status, reason FROM doc_status WHERE pmid <> '8001'")
    assert len(rows) == 6 and {r[2] for r in rows} == {"rejected"}
    reasons = {(f, p): r for f, p, _, r in rows}
    for pmid in ("nan", "NaN", "inf", "-Infinity"):
        reason = reasons["2019.pubtator", pmid]
        assert "not a PMID" in reason or "not a finite number" in reason, reason
    assert "not a PMID" in reasons["2019.json", "nan"]


@pytest.mark.slow  # the kgx venv
def test_the_kgx_export_of_a_build_with_hostile_ids_is_valid(hostile_build, kgx_python, tmp_path):
    wh, _ = hostile_build
    kgx = export_snapshot(wh, wh.resolve("latest"), tmp_path, ["kgx"])["kgx"]
    got = run_check(kgx_python, "--graph", str(kgx["nodes.tsv"][0]), str(kgx["edges.tsv"][0]))
    (result,) = got["validation"]
    assert result["errors"] == {}, result["errors"]
    assert result["nodes"] == 2 and result["edges"] >= 1


@pytest.mark.integration  # the shared corpora
def test_no_annotator_id_of_the_shared_corpora_is_refused():
    """DALK, BioRED and BC5CDR keep every ID they had: the table covers what real annotators
    write, so only hostile or broken IDs are refused."""
    from kgbuild.schema import parse_ids

    files = [
        *shared("dalk", "by_year").glob("*.pubtator"),
        *shared("biored").glob("*.PubTator"),
        *shared("bc5cdr").glob("*.PubTator.txt"),
    ]
    n = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            cols = line.split("\t")
            if len(cols) == 6 and cols[1].isdigit():
                assert not parse_ids(cols[4], cols[5]).refused, line
                n += 1
    assert n > 200_000
