"""Mixed-concept IDs, reviewed unlinking at ingestion and node names (precision audit fixes)."""

from collections import Counter

from kgbuild.records import DocStatus, Document, Mention
from kgbuild.resolve.mislinked import banned_forms, mislinked_table, unlink_slice, why_mislinked
from kgbuild.resolve.mixed import detect
from kgbuild.resolve.naming import form_owners, node_name
from kgbuild.resolve.vocab import Reference, build_tables, reference
from kgbuild.sources.local import YearSlice
from tests.conftest import ROOT, shared

PLATELET = "MESH:D001791"


def rows():
    """Mention counts shaped like DALK's: the tagger links 'aggregation' to D001791."""
    return [
        ("NCBIGene:351", "Gene", "Abeta", 300), ("NCBIGene:11820", "Gene", "Abeta", 200),
        ("MESH:D005947", "Chemical", "glucose", 60), ("MESH:D003300", "Chemical", "copper", 40),
        ("MESH:D003300", "Chemical", "Cu", 30),  # a synonym sharing no word: not mixed
        (PLATELET, "Disease", "Abeta aggregation", 158), (PLATELET, "Disease", "aggregation", 5),
        (PLATELET, "Disease", "platelet aggregation", 7),
        ("MESH:D012892", "Disease", "sleep deprivation", 20),
        ("MESH:D012892", "Disease", "glucose deprivation", 6),
        ("MESH:D018149", "Disease", "glucose intolerance", 24),  # named by a chemical, alone
    ]  # fmt: skip


def test_detector_finds_head_noun_links_and_uses_the_reference():
    ref = Reference(forms={PLATELET: frozenset({"platelet aggregation"})})
    found = {m.concept_id: m for m in detect(rows(), ref)}
    assert set(found) == {PLATELET, "MESH:D012892"}  # not copper/Cu, not glucose intolerance
    plt = found[PLATELET]
    assert plt.foreign == {"kind:Gene": [("abeta aggregation", 158)]}
    assert plt.verdict.startswith("reference name matches the own forms")
    assert found["MESH:D012892"].foreign == {"MESH:D005947": [("glucose deprivation", 6)]}
    # without a reference, a majority of foreign forms is left for review, not decided
    assert detect(rows())[0].verdict.endswith("majority: review")


def test_node_name_prefers_reference_then_curated_then_own_forms():
    forms = {PLATELET: Counter({"Abeta aggregation": 158, "platelet aggregation": 7}),
             "NCBIGene:351": Counter({"Abeta": 300}), "MESH:D0": Counter({"Abeta levels": 9,
             "x syndrome": 2})}  # fmt: skip
    kinds = {PLATELET: "Disease", "NCBIGene:351": "Gene", "MESH:D0": "Disease"}
    owners = form_owners(forms, kinds)
    ref = Reference(
        names={"NCBIGene:351": "APP"}, forms={PLATELET: frozenset({"platelet aggregation"})}
    )
    assert node_name("NCBIGene:351", forms["NCBIGene:351"], "Gene", owners, ref) == "APP"
    assert node_name(PLATELET, forms[PLATELET], "Disease", owners, ref) == "platelet aggregation"
    # no reference: the most frequent form that is not another concept's name + generic words
    assert node_name("MESH:D0", forms["MESH:D0"], "Disease", owners, Reference()) == "x syndrome"
    assert node_name(PLATELET, forms[PLATELET], "Disease", owners, Reference()) == (
        "platelet aggregation"
    )


def test_reviewed_table_and_automatic_rules():
    table = mislinked_table()
    assert table[(PLATELET, "abeta aggregation")][0] == "unlink"
    assert table[(PLATELET, "platelet aggregation")][0] == "keep"
    assert PLATELET in banned_forms()["abeta aggregation"]
    ref = reference()
    text = "Pick disease and MMPs, APPs and C1s in PTMs."

    def m(word, cid, kind="Gene"):
        start = text.index(word)
        return Mention("1", start, start + len(word), word, kind, kind, cid)

    assert "eponymous" in why_mislinked(m("Pick", "NCBIGene:9463"), text, ref)
    assert "family" in why_mislinked(m("MMPs", "NCBIGene:4322"), text, ref)
    # a limitation: "PTMs" (modifications) is, case aside, the symbol PTMS, as "C1s" is C1S
    assert why_mislinked(m("PTMs", "NCBIGene:5763"), text, ref) is None
    assert why_mislinked(m("APPs", "NCBIGene:351"), text, ref) is None  # APP is a symbol
    assert why_mislinked(m("C1s", "NCBIGene:716"), text, ref) is None  # C1S is a symbol
    assert why_mislinked(m("Pick", "MESH:D020774", "Disease"), text, ref) is None


def test_unlinking_keeps_text_and_kind_and_accounts_for_each_mention():
    doc = Document("7", 2019, "Abeta aggregation in AD.", "")
    ad = "MESH:D000544"
    ms = [Mention("7", 0, 17, "Abeta aggregation", "Disease", "Disease", PLATELET, [PLATELET]),
          Mention("7", 21, 23, "AD", "Disease", "Disease", ad, [ad])]  # fmt: skip
    ys = YearSlice(2019, [], [doc], ms, statuses=[DocStatus("7", "2019.pubtator", 0, 2019,
                   "built", "")])  # fmt: skip
    out = unlink_slice(ys)
    assert [(m.text, m.hetionet_type, m.concept_id) for m in out.mentions] == [
        ("Abeta aggregation", "Disease", None),
        ("AD", "Disease", "MESH:D000544"),
    ]
    (p,) = out.problems
    assert (p.pmid, p.source_file, p.kind) == ("7", "2019.pubtator", "mislinked_id")
    assert p.detail.startswith("0-17 'Abeta aggregation': MESH:D001791 removed (reviewed:")
    assert unlink_slice(YearSlice(2019, [], [doc], ms[1:])).problems == []


def test_reference_tables_are_rebuilt_byte_for_byte(tmp_path):
    data = shared()
    build_tables(data, tmp_path)
    for name in ("reference_names.tsv", "reference_forms.tsv"):
        assert (tmp_path / name).read_bytes() == (ROOT / "data" / name).read_bytes(), name
    ref = reference()
    assert ref.name("NCBIGene:351") == "APP" and ref.name("MESH:D002303") == "Cardiac Output, Low"
    assert "platelet aggregation" in ref.known_forms(PLATELET)
    assert ref.name(PLATELET) is None  # MeSH diseases have no preferred name offline


def test_greek_letter_isoforms_are_relinked_to_the_symbols_gene():
    from kgbuild.names import greek_symbol

    assert greek_symbol("GSK-3beta") == "GSK3B" and greek_symbol("IL-1beta") == "IL1B"
    assert greek_symbol("GSK3") is None  # no Greek letter: nothing to read
    text = "GSK3beta and GSK3alpha and IL-1beta and IL-1beta."
    ms = []
    for word, cid in (("GSK3beta", "NCBIGene:2931"), ("GSK3alpha", "NCBIGene:2931"),
                      ("IL-1beta", "NCBIGene:3552"), ("IL-1beta", "NCBIGene:24493")):  # fmt: skip
        start = text.index(word, ms[-1].end if ms else 0)
        ms.append(Mention("9", start, start + len(word), word, "Gene", "Gene", cid, [cid]))
    doc = Document("9", 2019, text, "")
    out = unlink_slice(YearSlice(2019, [], [doc], ms))
    # the tagger's alpha for beta is corrected; a rat gene takes its human ortholog
    assert [m.concept_id for m in out.mentions] == [
        "NCBIGene:2932",
        "NCBIGene:2931",
        "NCBIGene:3553",
        "NCBIGene:3553",
    ]
    assert [p.kind for p in out.problems] == ["ortholog_id", "relinked_id", "relinked_id"]
    assert "NCBIGene:2931 relinked to NCBIGene:2932" in out.problems[1].detail


def test_a_form_that_names_a_concept_of_another_kind_is_foreign():
    rows = [("NCBIGene:4137", "Gene", "tau", 400), ("MESH:C1", "Chemical", "tau", 20),
            ("MESH:C1", "Chemical", "PN401", 5)]  # fmt: skip
    (mc,) = detect(rows)
    assert mc.concept_id == "MESH:C1" and mc.foreign == {"NCBIGene:4137": [("tau", 20)]}
    owners = form_owners({"NCBIGene:4137": Counter({"tau": 400}),
                          "MESH:C1": Counter({"tau": 20, "PN401": 5})},
                         {"NCBIGene:4137": "Gene", "MESH:C1": "Compound"})  # fmt: skip
    assert node_name("MESH:C1", Counter({"tau": 20, "PN401": 5}), "Compound", owners,
                     Reference()) == "PN401"  # fmt: skip
