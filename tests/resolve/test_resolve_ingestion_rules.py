"""Ingestion rules that check an annotator's ID against the text (precision audit, round 2):
long forms, family stems, class words and disease forms that share nothing with their ID's names.
Each case is one the blind audits of the replayed DALK build found stored as a wrong triple."""

from kgbuild.lexical import names_something_else, only_says_something_is_wrong
from kgbuild.records import Document, Mention
from kgbuild.resolve import mislinkrules
from kgbuild.resolve.longforms import long_form_links
from kgbuild.resolve.mislinked import family_stem, mislinked_table, unlink_slice, why_mislinked
from kgbuild.resolve.vocab import reference
from kgbuild.sources.local import YearSlice


def mention(text, word, cid, kind="Gene", pmid="1", after=0):
    start = text.index(word, after)
    return Mention(pmid, start, start + len(word), word, kind, kind, cid, [cid])


def test_a_disease_form_sharing_nothing_with_its_ids_names_names_something_else():
    menkes = frozenset({"menkes kinky hair syndrome"})
    assert names_something_else("axonal transport deficits", menkes)
    assert names_something_else("vascular disease", frozenset({"aneurysm", "aneurysms"}))
    # words that say what is wrong are not a shared concept
    assert names_something_else("memory defects", frozenset({"birth defects"}))
    # related forms pass: a shared stem, contained words, initials, an abbreviation word
    assert not names_something_else("muscle disease", frozenset({"muscle pain", "myalgia"}))
    assert not names_something_else("bioflavonoid", frozenset({"flavonoid"}))
    assert not names_something_else("sch23390", frozenset({"sch 23390"}))
    assert not names_something_else("nicotinamide adenine dinucleotide", frozenset({"nad"}))
    assert not names_something_else("familial ad", frozenset({"ad", "alzheimer disease"}))
    assert not names_something_else("cognitive deficits", frozenset({"cognition disorders"}))
    # nothing to judge: no content word, or an abbreviation
    assert not names_something_else("dysfunction", menkes)
    assert not names_something_else("dat", menkes)


def test_gene_family_stems_and_class_words_lose_an_id_outside_the_family():
    ref = reference()
    assert family_stem("CYP", ref) and family_stem("TGF-beta", ref)
    assert not family_stem("CYP2D6", ref)  # an official symbol
    assert not family_stem("APP", ref)  # a symbol, though APPL1 etc. exist
    text = "TGF-beta and Akt, caspases and growth hormone; vascular disease and muscle pain."
    why = {
        w: why_mislinked(mention(text, w, cid, kind), text, ref)
        for w, cid, kind in (
            ("TGF-beta", "NCBIGene:7039", "Gene"),  # TGFA: the alpha, not a TGFB gene
            ("Akt", "NCBIGene:207", "Gene"),  # AKT1: a member, the usual reading
            ("caspases", "NCBIGene:842", "Gene"),
            ("growth hormone", "NCBIGene:2688", "Gene"),  # GH1: one protein
            ("vascular disease", "MESH:D000783", "Disease"),  # Aneurysm
            ("muscle pain", "MESH:D063806", "Disease"),  # Myalgia
        )
    }
    assert why["TGF-beta"] == "family stem (TGFB…) linked to TGFA, not a member"
    assert why["caspases"] == "names a class of proteins, not one gene"
    assert why["vascular disease"] == "shares no word with any reference name of the ID"
    assert why["Akt"] is None and why["growth hormone"] is None and why["muscle pain"] is None


DAT_TEXT = (
    "CSF tau may predict dementia of the Alzheimer type (DAT). Patients with DAT (n = 46) "
    "and the beta2-adrenoreceptor (beta2AR) agonist; DAT imaging."
)


def dat_mentions():
    ad, slc6a3 = "MESH:D000544", "NCBIGene:6531"
    lf = mention(DAT_TEXT, "dementia of the Alzheimer", ad, "Disease", "5")
    first = mention(DAT_TEXT, "DAT", slc6a3, pmid="5")
    second = mention(DAT_TEXT, "DAT", slc6a3, pmid="5", after=first.end)
    b2 = mention(DAT_TEXT, "beta2-adrenoreceptor", "NCBIGene:154", pmid="5")
    b2ar = mention(DAT_TEXT, "beta2AR", "NCBIGene:135", pmid="5")
    other = mention(DAT_TEXT, "DAT", "NCBIGene:13162", pmid="5", after=second.end)  # mouse
    return [lf, first, second, b2, b2ar, other]


def test_a_short_form_takes_the_id_of_its_long_form_in_the_same_abstract():
    ms = dat_mentions()
    links = long_form_links(ms, DAT_TEXT, reference())
    assert {k: v.concept_id for k, v in links.items()} == {
        ("dat", "NCBIGene:6531"): "MESH:D000544",
        ("beta2ar", "NCBIGene:135"): "NCBIGene:154",
    }
    ys = YearSlice(2011, [], [Document("5", 2011, DAT_TEXT, "")], ms)
    out = unlink_slice(ys)
    got = [(m.text, m.hetionet_type, m.concept_id) for m in out.mentions]
    assert got == [
        ("dementia of the Alzheimer", "Disease", "MESH:D000544"),
        ("DAT", "Disease", "MESH:D000544"),  # both DAT mentions with the tagger's gene ID
        ("DAT", "Disease", "MESH:D000544"),
        ("beta2-adrenoreceptor", "Gene", "NCBIGene:154"),
        ("beta2AR", "Gene", "NCBIGene:154"),
        # mouse Slc6a3 takes its human ortholog SLC6A3 first, then the definition
        ("DAT", "Disease", "MESH:D000544"),
    ]
    assert [p.kind for p in out.problems] == ["ortholog_id"] + ["relinked_id"] * 4
    assert "its long form here is 'dementia of the Alzheimer'" in out.problems[1].detail


ABETA_TEXT = "Alzheimer's beta (Abeta) peptides aggregate. Abeta oligomers were neurotoxic."


def test_a_definition_keeps_the_id_its_vocabulary_confirms_on_either_side():
    """ "Alzheimer's beta" tagged ACSM3 (no name of ACSM3 matches it), "Abeta" tagged APP (a
    reviewed product name of APP): the definition says both are one concept, and the confirmed
    side wins — the long form becomes APP; the Abeta mentions are not moved to ACSM3."""
    lf = mention(ABETA_TEXT, "Alzheimer's beta", "NCBIGene:6296", pmid="6")
    first = mention(ABETA_TEXT, "Abeta", "NCBIGene:351", pmid="6")
    second = mention(ABETA_TEXT, "Abeta", "NCBIGene:351", pmid="6", after=first.end)
    ys = YearSlice(2011, [], [Document("6", 2011, ABETA_TEXT, "")], [lf, first, second])
    out = unlink_slice(ys)
    got = [(m.text, m.concept_id, m.annotator_id, m.id_check) for m in out.mentions]
    assert got == [
        ("Alzheimer's beta", "NCBIGene:351", "NCBIGene:6296", "hgnc:kept"),
        ("Abeta", "NCBIGene:351", None, "hgnc:kept"),
        ("Abeta", "NCBIGene:351", None, "hgnc:kept"),
    ]
    assert [p.kind for p in out.problems] == ["relinked_id"]
    assert "defines it as the short form 'Abeta'" in out.problems[0].detail


def test_a_tagger_s_truncated_long_form_takes_the_short_form_s_confirmed_id():
    """DALK 22280020: "Alzheimer's beta-amyloid (Abeta)" with the tagger's mention
    "Alzheimer's beta" (ACSM3) stopping short of the long form; it and the same form in the
    title become APP, and a truncated mention never gives its ID to the short form."""
    abstract = "The 40-residue Alzheimer's beta-amyloid (Abeta) peptide. Abeta misfolded."
    doc = Document("7", 2012, "Excessive misfolding for Alzheimer's beta.", abstract)
    text = doc.text
    a = mention(text, "Alzheimer's beta", "NCBIGene:6296", pmid="7")
    b = mention(text, "Alzheimer's beta", "NCBIGene:6296", pmid="7", after=a.end)
    c = mention(text, "Abeta", "NCBIGene:351", pmid="7", after=b.end)
    d = mention(text, "Abeta", "NCBIGene:351", pmid="7", after=c.end)
    out = unlink_slice(YearSlice(2012, [], [doc], [a, b, c, d]))
    assert [m.concept_id for m in out.mentions] == ["NCBIGene:351"] * 4
    assert [p.kind for p in out.problems] == ["relinked_id"] * 2
    # the other way round (the truncated mention's ID confirmed, the short form's not): no link
    e = mention(text, "Alzheimer's beta", "NCBIGene:351", pmid="7", after=a.end)
    f = mention(text, "Abeta", "NCBIGene:6296", pmid="7", after=b.end)
    out = unlink_slice(YearSlice(2012, [], [doc], [e, f]))
    assert out.mentions[1].concept_id != "NCBIGene:351"
    assert "relinked_id" not in [p.kind for p in out.problems]


def test_a_gene_form_that_is_a_reviewed_name_of_another_gene_takes_that_gene():
    """ "Abeta" tagged SUCLA2 (HGNC alias A-BETA, no name of SUCLA2 matches the form) is APP,
    whose reviewed product name it is; "AbetaO" is no ABO (no Greek letter is read here) and a
    form its ID's names confirm is never moved."""
    text = "Abeta rose; AbetaO and APP fell."
    ms = [mention(text, "Abeta", "NCBIGene:8803"), mention(text, "AbetaO", "NCBIGene:8803"),
          mention(text, "APP", "NCBIGene:351")]  # fmt: skip
    out = unlink_slice(YearSlice(2011, [], [Document("1", 2011, text, "")], ms))
    got = [(m.text, m.concept_id) for m in out.mentions]
    assert got == [("Abeta", "NCBIGene:351"), ("AbetaO", "NCBIGene:8803"), ("APP", "NCBIGene:351")]
    relinked = [p.detail for p in out.problems if p.kind == "relinked_id"]
    why = "its text is a reviewed name of APP; no name of its ID matches it"
    assert relinked == [f"0-5 'Abeta': NCBIGene:8803 relinked to NCBIGene:351 ({why})"]


def test_no_definition_no_relink_and_a_disease_never_becomes_a_gene():
    ms = dat_mentions()
    assert long_form_links(ms, DAT_TEXT, reference(), definitions=lambda _t: {}) == {}
    text = "spinocerebellar ataxia type 1 (SCA1) mice"
    lf = mention(text, "spinocerebellar ataxia type 1", "NCBIGene:20238")
    sca1 = mention(text, "SCA1", "MESH:D020754", "Disease")
    assert long_form_links([lf, sca1], text, reference()) == {}
    # a species is no definition
    text = "human IAPP (hIAPP)"
    hs = mention(text, "human", "NCBITaxon:9606", "Species")
    assert long_form_links([hs, mention(text, "hIAPP", "NCBIGene:3375")], text, reference()) == {}


def test_a_normal_function_is_not_its_disorder_and_a_reviewed_keep_wins(monkeypatch):
    ref = reference()
    text = "glucose metabolism, cognitive function, impaired glucose metabolism, episodic memory"

    def why(word, cid):
        return why_mislinked(mention(text, word, cid, "Disease"), text, ref)

    # PubTator links the process to the disorder of it (MESH:D044882 Glucose Metabolism Disorders)
    assert why("glucose metabolism", "MESH:D044882") == (
        "names a normal function, not a disorder of it"
    )
    assert why("cognitive function", "MESH:D003072") is not None
    # a word for something wrong makes it the disorder
    assert why("impaired glucose metabolism", "MESH:D044882") is None
    assert why("episodic memory", "MESH:D008569") is not None  # Memory Disorders
    # a reviewed keep line wins over every automatic rule: a person read those forms
    table = {**mislinked_table(), ("MESH:D044882", "glucose metabolism"): ("keep", "read")}
    monkeypatch.setattr(mislinkrules, "mislinked_table", lambda: table)
    assert why("glucose metabolism", "MESH:D044882") is None


def test_a_form_that_only_says_something_is_wrong_and_words_in_lower_case_are_judged():
    """Precision audit, seed 1605: "dysfunction" stored as Neurologic Manifestations, "dystrophic
    neurites" as Neuritis. ("fits" of a model stored as Seizures stays: CDR's curators list
    "fits" for seizures, and which reading is meant takes the sentence.)"""
    ref = reference()
    text = "dysfunction and neurological deficits; spells and SPELLS; fits"

    def why(word, cid, after=0):
        return why_mislinked(mention(text, word, cid, "Disease", after=after), text, ref)

    assert only_says_something_is_wrong("dysfunction") and only_says_something_is_wrong("deficits")
    assert not only_says_something_is_wrong("neurological deficits")
    assert why("dysfunction", "MESH:D009461") == "says only that something is wrong, not what"
    assert why("neurological deficits", "MESH:D009461") is None  # the reference lists it
    assert why("spells", "MESH:D012640") == "shares no word with any reference name of the ID"
    assert why("SPELLS", "MESH:D012640") is None  # written as an abbreviation: not judged
    assert why("fits", "MESH:D012640") is None
    # a disease suffix on one word only is no shared stem
    assert names_something_else("dystrophic neurites", frozenset({"neuritis"}))
    assert not names_something_else("optic neuritis", frozenset({"neuritis"}))


def test_x_in_y_is_judged_by_x_and_motility_or_degeneration_name_no_disorder():
    """Precision audit, seed 1606: "cortical microinfarcts in neurodegenerative diseases" tagged
    as Neurodegenerative Diseases, "degeneration" as Retinal Degeneration, "dendritic spine
    motility" as Gastrointestinal Motility Disorders."""
    ref = reference()
    text = (
        "cortical microinfarcts in neurodegenerative diseases; degeneration; spine motility; recall"
    )

    def why(word, cid):
        return why_mislinked(mention(text, word, cid, "Disease"), text, ref)

    assert why("cortical microinfarcts in neurodegenerative diseases", "MESH:D019636") == (
        "names 'cortical microinfarcts' (in …), which shares no word with the ID's reference names"
    )
    assert why("degeneration", "MESH:D012162") == "says only that something is wrong, not what"
    assert why("spine motility", "MESH:D015835") == "names a normal function, not a disorder of it"
    assert why("recall", "MESH:D008569") == "names a normal function, not a disorder of it"  # 1607
    # related forms stay
    assert names_something_else("neuronal degeneration", frozenset({"retinal degeneration"}))
    assert not names_something_else("macular degeneration", frozenset({"macular degeneration"}))


def test_a_bare_head_noun_of_the_ids_names_is_not_that_disease():
    """Precision audit, seed 1608: Abeta "fibrillation" tagged Ventricular Fibrillation (180
    mentions in DALK's corpus), "arrest" of the cell cycle tagged Cardiac Arrest."""
    ref = reference()
    text = "fibrillation, Fibrillation, ventricular fibrillation, arrest"

    def why(word, cid):
        return why_mislinked(mention(text, word, cid, "Disease"), text, ref)

    assert why("fibrillation", "MESH:D014693").startswith("only the head noun of the ID's names")
    assert why("arrest", "MESH:D006323") is not None
    assert why("ventricular fibrillation", "MESH:D014693") is None  # the reference's own name
    assert why("Fibrillation", "MESH:D014693") is None  # capitalized: may be a title's name
