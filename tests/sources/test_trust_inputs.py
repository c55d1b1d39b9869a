"""No input is lost without a trace: line breaks in any
mix, BioC XML read as a source format (safely), every entry of the source folder ends with a
status, one PMID however it is zero-padded, and control characters never reach the text in
silence. Each test failed on the code before these fixes."""

from __future__ import annotations

import codecs
import json
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.bioc_xml import read_bioc_xml
from kgbuild.sources.files import CHUNK_BYTES
from kgbuild.sources.local import discover, read_file
from kgbuild.sources.pubmed_xml import PubMedArticle, parse_pubmed_xml, to_source_record
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.sources.record import SourceRecord
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import good_record

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "bioc_xml"
BIORED_JSON = Path(__file__).resolve().parents[3] / "shared" / "data" / "biored" / "Dev.BioC.JSON"
COOCCURRENCE = ExtractionOptions("cooccurrence", embed_model="none")
TITLE = "APOE and amyloid beta in Alzheimer's disease."  # good_record's text
ABSTRACT = "APOE binds amyloid beta. Donepezil treats Alzheimer's disease."


def _mentions(rec: SourceRecord) -> list[tuple[int, int, str, str, str | None]]:
    return [(m.start, m.end, m.text, m.source_type, m.concept_id) for m in rec.mentions]


def _lines_ending(text: str, endings: tuple[str, ...]) -> str:
    """``text``'s lines, the i-th ending in ``endings[i % len(endings)]``."""
    lines = text.split("\n")
    return "".join(ln + endings[i % len(endings)] for i, ln in enumerate(lines[:-1])) + lines[-1]


# (a) CR, CRLF and LF in any mix -------------------------------------------------------------


def test_cr_crlf_and_lf_are_line_breaks_in_any_mix(tmp_path):
    """A file whose lines end in a mix of CR, CRLF and LF reads as the LF file does: the lone
    CR used to stay inside the line, and each title ran on into its abstract."""
    text = "".join(good_record(p) for p in ("9121", "9122", "9123"))
    (tmp_path / "lf.pubtator").write_text(text)
    (tmp_path / "mixed.pubtator").write_bytes(_lines_ending(text, ("\r", "\r\n", "\n")).encode())
    want = [(r.pmid, r.title, r.abstract, _mentions(r))
            for r in read_pubtator(tmp_path / "lf.pubtator")]  # fmt: skip
    got = list(read_pubtator(tmp_path / "mixed.pubtator"))
    assert [(r.pmid, r.title, r.abstract, _mentions(r)) for r in got] == want
    assert [r.title for r in got] == [TITLE] * 3 and len(want[0][3]) == 5
    ((kind, detail),) = [(p.kind, p.detail) for r in got for p in r.problems]
    assert kind == "normalized" and "mixed line endings" in detail


@pytest.mark.parametrize("lone", [False, True], ids=["crlf-split", "lone-cr"])
def test_a_line_break_across_the_read_block_boundary_is_one_break(tmp_path, lone):
    """A CR ending one 1 MiB block and an LF starting the next are one CRLF, not a line break
    and an empty line (which would end the document before its abstract); a lone CR ending a
    block is one break too. Both files also hold lone CRs and LFs elsewhere (a mix)."""
    head = "1|t|Padding.\n1|a|"
    title2 = "2|t|Second title about APOE."
    fill = CHUNK_BYTES - 1 - len(head) - len("\n\n") - len(title2)
    data = (
        f"{head}{'x' * fill}\n\n{title2}" + ("\r" if lone else "\r\n")
        + "2|a|APOE binds tau.\r2\t19\t23\tAPOE\tGene\t348\r\r3|t|Third.\n3|a|Tau.\n"
    ).encode()  # fmt: skip
    assert data[CHUNK_BYTES - 1 : CHUNK_BYTES + 1] == (b"\r2" if lone else b"\r\n")
    path = tmp_path / "2015.pubtator"
    path.write_bytes(data)
    recs = list(read_file(discover(path)[0], tmp_path))
    assert [(r.pmid, r.reject_reason) for r in recs] == [("1", None), ("2", None), ("3", None)]
    second = recs[1]
    assert (second.title, second.abstract) == ("Second title about APOE.", "APOE binds tau.")
    assert _mentions(second) == [(19, 23, "APOE", "Gene", "NCBIGene:348")]
    kinds = [p.kind for r in recs for p in r.problems]
    assert kinds == ["normalized"], kinds  # no missing_title, no orphan line


# (b) BioC XML is a source format, parsed safely ------------------------------------------------


def _xml_to_json(path: Path) -> dict:
    """The fixture's BioC XML as the BioC-JSON document list BioC tools write (a trusted
    fixture: plain ElementTree), to check the two readers agree."""
    root = ET.parse(path).getroot()

    def infons(el: ET.Element) -> dict[str, str]:
        return {i.get("key"): i.text or "" for i in el.findall("infon")}

    docs = []
    for d in root.findall("document"):
        docs.append({
            "id": d.findtext("id"),
            "passages": [{
                "infons": infons(p), "offset": int(p.findtext("offset")),
                "text": p.findtext("text"),
                "annotations": [{
                    "id": a.get("id"), "infons": infons(a), "text": a.findtext("text"),
                    "locations": [{"offset": int(loc.get("offset")),
                                   "length": int(loc.get("length"))}
                                  for loc in a.findall("location")],
                } for a in p.findall("annotation")],
            } for p in d.findall("passage")],
            "relations": [{"id": r.get("id"), "infons": infons(r)}
                          for r in d.findall("relation")],
        })  # fmt: skip
    return {"source": root.findtext("source"), "documents": docs}


def _record(r: SourceRecord, annotator: bool = True) -> tuple:
    mentions = [(*x, m.concept_ids, m.annotator if annotator else "")
                for x, m in zip(_mentions(r), r.mentions, strict=True)]  # fmt: skip
    return (r.pmid, r.title, r.abstract, r.year, r.journal, mentions, r.relations,
            r.reject_reason, r.warnings, sorted(p.kind for p in r.problems))  # fmt: skip


def test_bioc_xml_gives_the_records_pubtator_text_and_bioc_json_give(tmp_path):
    """The same three documents as PubTator text, BioC-JSON and BioC XML (BioRED's layout:
    typed passages, annotations with identifier/type/location, relations with entity1/entity2/
    novel) give the same records: text, year (from the file name), mentions with their
    offsets re-based across two abstract passages, relations. The XML file is found in a
    folder beside nothing else (it used to be skipped without a word)."""
    folders = {}
    for kind, name in (("pubtator", "2015_small.PubTator"), ("xml", "2015_small.BioC.XML")):
        folders[kind] = tmp_path / kind
        folders[kind].mkdir()
        (folders[kind] / name).write_bytes((FIXTURES / name).read_bytes())
    (tmp_path / "json").mkdir()
    as_json = _xml_to_json(FIXTURES / "2015_small.BioC.XML")
    (tmp_path / "json" / "2015_small.json").write_text(json.dumps(as_json))
    folders["json"] = tmp_path / "json"
    read = {}
    for kind, folder in folders.items():
        (sf,) = discover(folder)
        read[kind] = list(read_file(sf, folder))
    assert [r.pmid for r in read["xml"]] == ["31000001", "31000002"]
    assert [_record(r) for r in read["xml"]] == [_record(r) for r in read["json"]]
    # PubTator text's mentions are the "pubtator" annotator's, BioC's "pubtator3"'s: the rest
    assert [_record(r, annotator=False) for r in read["xml"]] == [
        _record(r, annotator=False) for r in read["pubtator"]
    ]
    first = read["xml"][0]
    assert first.year == 2015 and len(first.mentions) == 7 and first.reject_reason is None
    assert first.relations == [("Association", "348", "D000544", "Novel"),
                               ("Negative_Correlation", "D000077265", "D000544", "No")]  # fmt: skip
    assert (
        read["xml"][1].abstract.startswith("BACKGROUND: ")
        and "RESULTS: " in read["xml"][1].abstract
    )


def _json_to_xml(payload: dict) -> bytes:
    """BioC-JSON → BioC XML in the BioC DTD's layout (the BioC tools' conversion)."""
    root = ET.Element("collection")
    for key in ("source", "date", "key"):
        ET.SubElement(root, key).text = str(payload.get(key, ""))

    def infons(parent: ET.Element, values: dict) -> None:
        for k, v in values.items():
            ET.SubElement(parent, "infon", key=k).text = str(v)

    for doc in payload["documents"]:
        d = ET.SubElement(root, "document")
        ET.SubElement(d, "id").text = str(doc["id"])
        infons(d, doc.get("infons", {}))
        for p in doc["passages"]:
            pe = ET.SubElement(d, "passage")
            infons(pe, p.get("infons", {}))
            ET.SubElement(pe, "offset").text = str(p["offset"])
            ET.SubElement(pe, "text").text = p.get("text", "")
            for a in p.get("annotations", []):
                ae = ET.SubElement(pe, "annotation", id=str(a["id"]))
                infons(ae, a.get("infons", {}))
                for loc in a["locations"]:
                    ET.SubElement(ae, "location", offset=str(loc["offset"]),
                                  length=str(loc["length"]))  # fmt: skip
                ET.SubElement(ae, "text").text = a["text"]
        for r in doc.get("relations", []):
            re_ = ET.SubElement(d, "relation", id=str(r["id"]))
            infons(re_, r.get("infons", {}))
    head = b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE collection SYSTEM "BioC.dtd">\n'
    return head + ET.tostring(root, encoding="utf-8")


@pytest.mark.skipif(not BIORED_JSON.exists(), reason="needs ../shared/data/biored")
def test_biored_as_bioc_xml_reads_as_its_bioc_json(tmp_path):
    """BioRED's 100 Dev documents (untyped passages, 2 per document) converted to BioC XML
    read exactly as the BioC-JSON reader reads them."""
    from kgbuild.sources.bioc_xml import read_bioc_xml

    payload = json.loads(BIORED_JSON.read_text())
    (tmp_path / "Dev.BioC.XML").write_bytes(_json_to_xml(payload))
    from_json = list(read_bioc(BIORED_JSON, year=2021))
    from_xml = list(read_bioc_xml(tmp_path / "Dev.BioC.XML", year=2021))
    assert len(from_xml) == len(from_json) == 100
    assert [_record(r) for r in from_xml] == [_record(r) for r in from_json]
    assert sum(len(r.mentions) for r in from_xml) > 3000


def _listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.settimeout(0.3)
    return sock


def _connections(sock: socket.socket) -> int:
    try:
        conn, _ = sock.accept()
    except TimeoutError:
        return 0
    conn.close()
    return 1


DOC = ("<document><id>77</id><passage><infon key=\"type\">title</infon><offset>0</offset>"
       "<text>APOE and tau.</text></passage></document>")  # fmt: skip


def test_hostile_bioc_xml_is_refused_without_expanding_or_fetching(tmp_path):
    """Billion laughs, an external entity naming /etc/passwd, a parameter entity and an
    external DTD on a loopback port: nothing is expanded, read or fetched. Each file (and a
    NUL character reference, absurd nesting, PubMed XML: another vocabulary) is one rejected
    record saying why; the usual ``<!DOCTYPE collection SYSTEM "BioC.dtd">`` is accepted and
    never read. A truncated file keeps the documents before the cut; a file over 64 MiB is
    refused unread."""
    from kgbuild.sources.bioc_xml import MAX_XML_BYTES, read_bioc_xml

    assert MAX_XML_BYTES == 64 << 20
    sock = _listening()
    port = sock.getsockname()[1]
    laughs = '<!ENTITY l0 "ha">' + "".join(
        f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10)
    )
    cases = {
        "laughs.xml": f"<!DOCTYPE collection [{laughs}]><collection>{DOC}<x>&l9;</x></collection>",
        "xxe.xml": '<!DOCTYPE collection [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                   "<collection><document><id>78</id><passage><text>&x;</text></passage>"
                   "</document></collection>",
        "param.xml": f'<!DOCTYPE collection [<!ENTITY % p SYSTEM "http://127.0.0.1:{port}/p.dtd">'
                     f" %p;]><collection>{DOC}</collection>",
        "nul.xml": "<collection><document><id>79</id><passage><text>a&#0;b</text></passage>"
                   "</document></collection>",
        "pubmed.xml": "<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>",
        "deep.xml": f"<collection>{'<x>' * 100_000}{'</x>' * 100_000}</collection>",
    }  # fmt: skip
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        t0 = time.perf_counter()
        (rec,) = read_bioc_xml(tmp_path / name, year=2015)
        assert time.perf_counter() - t0 < 5, name
        assert rec.reject_reason and rec.pmid == "" and len(rec.problems) == 1, (name, rec)
        assert "root:" not in rec.reject_reason + rec.problems[0].detail
    assert "entit" in read_bioc_xml(tmp_path / "laughs.xml").__next__().reject_reason.lower()
    assert "PubmedArticleSet" in next(read_bioc_xml(tmp_path / "pubmed.xml")).reject_reason
    # the BioC DTD named by a system id (here: a loopback URL) is not fetched
    dtd = f'<!DOCTYPE collection SYSTEM "http://127.0.0.1:{port}/BioC.dtd"><collection>'
    (tmp_path / "dtd.xml").write_text(f"{dtd}{DOC}</collection>")
    (rec,) = read_bioc_xml(tmp_path / "dtd.xml", year=2015)
    assert (rec.pmid, rec.title, rec.reject_reason) == ("77", "APOE and tau.", None)
    assert _connections(sock) == 0
    sock.close()
    # truncated: the documents before the cut are read, the rest is one rejected record
    (tmp_path / "cut.xml").write_text(f"<collection>{DOC}{DOC.replace('77', '80')}<document><id>8")
    recs = list(read_bioc_xml(tmp_path / "cut.xml", year=2015))
    assert [(r.pmid, r.reject_reason is None) for r in recs] == [("77", True), ("80", True),
                                                                 ("", False)]  # fmt: skip
    assert "after document 2" in recs[2].reject_reason
    # over the size limit: refused unread (a small limit here; the default is 64 MiB)
    (tmp_path / "big.xml").write_text(f"<collection>{DOC * 40}</collection>")
    (rec,) = read_bioc_xml(tmp_path / "big.xml", year=2015, max_bytes=1000)
    assert [p.kind for p in rec.problems] == [
        "file_too_large"
    ] and "1,000-byte" in rec.reject_reason


def _xml(encoding: str, body: str) -> str:
    return f'<?xml version="1.0" encoding="{encoding}"?><collection>{body}</collection>'


def test_an_unknown_or_false_xml_encoding_is_a_problem_row_and_the_build_goes_on(tmp_path):
    """An XML file declaring an encoding Python does not know used to abort the whole build
    with a ``LookupError`` (three good abstracts beside it lost). Now each such file is one
    rejected record with a ``bad_encoding`` row naming the encoding; a Latin-1 declaration over
    UTF-8 bytes is read as the UTF-8 it is (no mojibake) and says so; bytes invalid in the
    declared encoding, a codec that is not a text encoding and a garbled declaration are
    refused the same way, and the build publishes the good files."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text("".join(good_record(p) for p in ("1001", "1002", "1003")))
    cases = {
        "2015_x.xml": _xml("x-made-up", DOC).encode(),
        "2015_rot.xml": _xml("rot13", DOC).encode(),
        "2015_badbytes.xml": _xml("utf-8", DOC.replace("tau", "t\xe9u")).encode("latin-1"),
        "2015_ebcdic.xml": _xml("cp037", DOC).encode(),
    }
    for name, data in cases.items():
        (src / name).write_bytes(data)
    lying = _xml("ISO-8859-1", DOC.replace("77", "78").replace("tau", "Aß and tau"))
    (src / "2015_lie.xml").write_bytes(lying.encode("utf-8"))
    latin = _xml("ISO-8859-1", DOC.replace("77", "79").replace("tau", "Aß and tau"))
    (src / "2015_latin.xml").write_bytes(latin.encode("latin-1"))  # what it says it is
    build_kg(src, kg="t", warehouse=tmp_path / "wh", extractor=COOCCURRENCE)
    w = Warehouse(tmp_path / "wh")
    status = {(f, p): (s, r) for f, p, s, r in
              w.query("SELECT source_file, pmid, status, reason FROM doc_status")}  # fmt: skip
    kinds = {(f, p): d for f, p, d in w.query(
        "SELECT source_file, pmid, detail FROM problems WHERE kind = 'bad_encoding'")}  # fmt: skip
    assert [status[("2015.pubtator", p)][0] for p in ("1001", "1002", "1003")] == ["built"] * 3
    for name in cases:
        state, reason = status[(name, "")]
        assert state == "rejected" and "not read" in reason, (name, reason)
        assert "not read" in kinds[(name, "")], name
    assert "'x-made-up'" in kinds[("2015_x.xml", "")]
    assert "byte" in kinds[("2015_badbytes.xml", "")]
    titles = dict(w.query("SELECT pmid, title FROM documents WHERE pmid IN ('78', '79')"))
    assert titles == {"78": "APOE and Aß and tau.", "79": "APOE and Aß and tau."}
    assert "bytes are UTF-8" in kinds[("2015_lie.xml", "78")]
    assert ("2015_latin.xml", "79") not in kinds  # a true declaration is no problem
    # the same rule for PubMed's EFetch answers: an unknown encoding is a ValueError (retried)
    with pytest.raises(ValueError, match="x-made-up"):
        parse_pubmed_xml(_xml("x-made-up", "").replace("collection", "PubmedArticleSet").encode())


def test_undecodable_utf16_is_said_not_stored_silently(tmp_path):
    """A UTF-16 PubTator file with a lone surrogate: the unit becomes U+FFFD, and the record
    carries a ``bad_encoding`` row counting it."""
    data = good_record("1001").encode("utf-16-le")
    cut = data.index("APOE".encode("utf-16-le"))
    (tmp_path / "u.pubtator").write_bytes(
        codecs.BOM_UTF16_LE + data[:cut] + b"\x00\xdc" + data[cut:]
    )
    (rec,) = read_pubtator(tmp_path / "u.pubtator", year=2015)
    assert rec.title.startswith("\ufffdAPOE")
    assert [p.detail for p in rec.problems if p.kind == "bad_encoding"] == [
        "1 U+FFFD replacement character(s) in the decoded UTF-16 text"
    ]


# (b, c) every entry of the source folder ends with a status ------------------------------------


def test_every_entry_of_the_source_folder_ends_with_a_status(tmp_path):
    """A BioC XML file beside a PubTator file is read; a folder named like a corpus file, a
    file of no corpus format (even one whose name gives a year), a kgbuild.toml, a hidden
    file and a hidden folder each end with a status and a problem row. None of them makes a
    year of its own (no 2018 snapshot for a folder named 2018.pubtator)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text(good_record("1001"))
    xml = (FIXTURES / "2015_small.BioC.XML").read_text()
    (src / "2015.xml").write_text(xml)
    (src / "2018.pubtator").mkdir()  # a folder, empty
    (src / "sub.pubtator").mkdir()  # a folder named like a file, holding one: both seen
    (src / "sub.pubtator" / "2015_inner.pubtator").write_text(good_record("1002"))
    for name in ("notes.docx", "2018_table.csv", "kgbuild.toml", ".DS_Store", "README"):
        (src / name).write_text("not a corpus file\n")
    for name in ("HEAD", "objects/ab/cdef", "objects/ab/0123"):
        (src / ".git" / name).parent.mkdir(parents=True, exist_ok=True)
        (src / ".git" / name).write_text("x")
    report = build_kg(src, kg="t", warehouse=tmp_path / "wh", extractor=COOCCURRENCE)
    assert [y.year for y in report.years] == [2015]
    w = Warehouse(tmp_path / "wh")
    rows = {f: (s, r) for f, s, r in w.query("SELECT source_file, status, reason FROM doc_status")}
    kinds = dict(w.query("SELECT source_file, kind FROM problems WHERE pmid = ''"))
    assert rows["2015.xml"][0] == "built" and rows["2015.pubtator"][0] == "built"
    assert rows["sub.pubtator/2015_inner.pubtator"][0] == "built"
    for name, kind in (("2018.pubtator", "not_regular"), ("sub.pubtator", "not_regular"),
                       ("notes.docx", "unknown_format"), ("2018_table.csv", "unknown_format"),
                       ("kgbuild.toml", "unknown_format"), (".DS_Store", "unknown_format"),
                       ("README", "unknown_format"), (".git", "unknown_format")):  # fmt: skip
        status, reason = rows[name]
        assert status == "rejected" and reason.startswith("file not read"), (name, reason)
        assert kinds[name] == kind, name
    assert "3 files" in rows[".git"][1] and "folder" in rows["2018.pubtator"][1]
    # 1 + 2 XML documents + 1 inner + 8 entries not read: nothing else, nothing twice
    assert w.query("SELECT count(*) FROM doc_status") == [(12,)] and len(rows) == 11


# (d) one PMID however it is zero-padded ----------------------------------------------------------


def _bioc_doc(pmid: object, title: str = TITLE) -> dict:
    return {"id": pmid, "passages": [
        {"infons": {"type": "title"}, "offset": 0, "text": title},
        {"infons": {"type": "abstract"}, "offset": len(title) + 1, "text": ABSTRACT},
    ]}  # fmt: skip


def test_zero_padded_pmids_are_one_document_in_every_reader(tmp_path):
    """``0091000001`` and ``91000001`` are one PubMed record: the padded spelling is read as
    the plain one (with a problem row saying so), so the second is a ``duplicate``, in
    PubTator text (title and annotation lines), BioC-JSON, BioC XML and PubMed XML."""
    src = tmp_path / "src"
    src.mkdir()
    padded = good_record("0091000001")
    (src / "2015.pubtator").write_text(padded.replace("0091000001\t", "91000001\t", 1))
    (src / "2016.pubtator").write_text(good_record("91000001") + good_record("000091000002"))
    (src / "2016.json").write_text(json.dumps([_bioc_doc("0091000002"), _bioc_doc(91000003)]))
    (src / "2016.xml").write_text(
        f"<collection>{DOC.replace('<id>77', '<id>00091000003')}</collection>"
    )
    build_kg(src, kg="t", warehouse=tmp_path / "wh", extractor=COOCCURRENCE)
    w = Warehouse(tmp_path / "wh")
    assert w.query("SELECT pmid, year FROM documents ORDER BY 1") == [
        ("91000001", 2015), ("91000002", 2016), ("91000003", 2016)
    ]  # fmt: skip
    rows = w.query("SELECT source_file, pmid, status, reason FROM doc_status ORDER BY 1, record_no")
    assert [(f, p, s) for f, p, s, _ in rows] == [
        ("2015.pubtator", "91000001", "built"),
        ("2016.json", "91000002", "built"), ("2016.json", "91000003", "built"),
        ("2016.pubtator", "91000001", "duplicate"), ("2016.pubtator", "91000002", "duplicate"),
        ("2016.xml", "91000003", "duplicate"),
    ]  # fmt: skip
    assert "first built from 2015.pubtator" in rows[3][3]
    # the annotation lines of the padded record (one written unpadded) are its mentions
    assert w.query("SELECT count(*) FROM mentions WHERE pmid = '91000001'") == [(5,)]
    padded_rows = w.query("SELECT detail FROM problems WHERE kind = 'normalized' ORDER BY 1")
    assert len(padded_rows) == 4 and all("leading zeros" in d for (d,) in padded_rows)
    xml = (
        b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>0091000004</PMID><Article>"
        b"<ArticleTitle>T.</ArticleTitle></Article></MedlineCitation></PubmedArticle>"
        b"</PubmedArticleSet>"
    )
    (article,) = parse_pubmed_xml(xml)
    assert to_source_record(article, 1, "pubmed:2015").pmid == "91000004"


# (e) control characters in a title or abstract -----------------------------------------------


def test_control_characters_are_replaced_and_said_in_every_reader(tmp_path):
    """NUL and other C0 controls (not tab or newline) in a title or abstract become spaces,
    so every offset still lines up, and a problem row names how many and where; the status
    reason says so too. PubTator text, BioC-JSON and PubMed records alike."""
    title, abstract = "APOE\x00 and tau\x07.", "APOE binds\x1b\x00 tau."
    text = f"{title} {abstract}"
    at = text.index("tau", text.index("binds"))
    (tmp_path / "2015.pubtator").write_text(
        f"1|t|{title}\n1|a|{abstract}\n1\t{at}\t{at + 3}\ttau\tGene\t4137\n"
        f"1\t{text.index('APOE', 5)}\t{text.index('APOE', 5) + 4}\tAPOE\tGene\t348\n\n"
    )
    (tmp_path / "2015.json").write_text(json.dumps([_bioc_doc("2", title="A\x00B\x01C.")]))
    (pubtator,) = read_pubtator(tmp_path / "2015.pubtator")
    (bioc,) = read_bioc(tmp_path / "2015.json")
    pubmed = to_source_record(PubMedArticle("3", title="T\x00.", abstract="A\x0b."), 1, "pm")
    assert (pubtator.title, pubtator.abstract) == ("APOE  and tau .", "APOE binds   tau.")
    assert [m.text for m in pubtator.mentions] == ["tau", "APOE"]
    assert all(pubtator.text[m.start : m.end] == m.text for m in pubtator.mentions)
    assert bioc.title == "A B C." and (pubmed.title, pubmed.abstract) == ("T .", "A .")
    for rec, fields in ((pubtator, ["abstract", "title"]), (bioc, ["title"]),
                        (pubmed, ["abstract", "title"])):  # fmt: skip
        found = sorted(p.detail for p in rec.problems if p.kind == "control_chars")
        assert [d.split(":")[0] for d in found] == fields, (rec.pmid, found)
        assert any("control character" in w for w in rec.warnings)
    details = sorted(p.detail for p in pubtator.problems if p.kind == "control_chars")
    assert details[0].startswith("abstract: 2 control characters") and "U+001B" in details[0]
    assert details[1].startswith("title: 2 control characters") and "U+0000" in details[1]


@pytest.mark.slow  # one CLI build
def test_the_trust_drill_finds_nothing_lost(tmp_path):
    """``bench/trust_inputs.py``: a real ``kgbuild build`` of a folder holding every class
    above, and a CLI export and ``kgbuild sql`` of a snapshot of spreadsheet formulas; each of
    its counts of what was lost, kept in error or written as a formula is 0."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "trust_inputs.py"), "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    zeros = ("files_without_status", "merged_title_abstract", "duplicate_pmids_built",
             "control_chars_kept", "encodings_unsaid", "mojibake_kept", "build_exit",
             "formula_cells_written", "formula_values_changed", "formula_exit")  # fmt: skip
    assert {k: out[k] for k in zeros} == dict.fromkeys(zeros, 0), out
    assert out["entries"] == 8 and out["documents"] == 8 and out["statuses"] == 14, out
    assert out["csv_files_checked"] == 15 + 4 + 2 + 1, out  # tsv, kgx, neo4j, sql csv


def test_bc5cdr_bioc_names_its_ids_mesh_and_they_are_kept(tmp_path):
    """BC5CDR's BioC files write the ID as ``<infon key="MESH">`` (PubTator and BioRED:
    ``identifier``); its test split must read unchanged, IDs included, as XML and as JSON."""
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><collection><source>CDR</source><date/><key/>'
        '<document><id>123</id><passage><infon key="type">title</infon><offset>0</offset>'
        '<text>Lithium causes tremor.</text><annotation id="0"><infon key="MESH">D008094'
        '</infon><infon key="type">Chemical</infon><location offset="0" length="7"/>'
        "<text>Lithium</text></annotation></passage></document></collection>"
    )
    (tmp_path / "2015.BioC.xml").write_text(xml)
    (rec,) = list(read_bioc_xml(tmp_path / "2015.BioC.xml", 2015))
    assert [(m.text, m.concept_id) for m in rec.mentions] == [("Lithium", "MESH:D008094")]
    doc = {"documents": [{"id": "123", "passages": [{"offset": 0, "infons": {"type": "title"},
           "text": "Lithium causes tremor.", "annotations": [{"id": "0", "infons": {
               "type": "Chemical", "MESH": "D008094"}, "text": "Lithium",
               "locations": [{"offset": 0, "length": 7}]}]}]}]}  # fmt: skip
    (tmp_path / "2015.json").write_text(json.dumps(doc))
    (rec,) = list(read_bioc(tmp_path / "2015.json", 2015))
    assert [(m.text, m.concept_id) for m in rec.mentions] == [("Lithium", "MESH:D008094")]
