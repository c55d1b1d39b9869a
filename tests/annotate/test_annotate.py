"""kgbuild.annotate: the scispaCy annotator (NER scoring and ``eval ner``: test_evaluate_ner.py).

Which tests need what:
- most tests build their own pipeline (``spacy.blank("en")`` + an ``entity_ruler``) and need no
  trained model; the UMLS linker is replaced by a stand-in (the real one downloads ~1 GB);
- tests marked by the ``chem_nlp`` fixture need the trained ``en_chem_ner`` model
  (``pip install --no-deps en-chem-ner==0.1.0``) and are skipped without it;
- the NER scoring and `eval ner` tests are in test_evaluate_ner.py.
"""

from __future__ import annotations

import pytest
import spacy

from kgbuild.annotate import scispacy_annotator as sa
from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator
from kgbuild.errors import ConfigError
from kgbuild.records import Document, Mention

PATTERNS = [
    ("CHEMICAL", "lithium carbonate"),
    ("DISEASE", "Alzheimer's disease"),
    ("GENE_OR_GENE_PRODUCT", "APOE"),
    ("ORGANISM", "humans"),
    ("CELL", "neurons"),
    ("CHEMICAL", "anti-inflammatory drugs"),
    ("GENE_OR_GENE_PRODUCT", "tumor necrosis factor"),
    ("CHEMICAL", "TNF"),  # deliberately not the long form's label: the NER's label is kept
]
DOC = Document(
    "42",
    2020,
    "Lithium carbonate toxicity (LCT) in Alzheimer's disease.",
    "Alzheimer's disease (AD) patients carrying APOE were given lithium carbonate. "
    "LCT and AD progressed in humans; neurons died.",
)


def ruler_nlp() -> spacy.language.Language:
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"phrase_matcher_attr": "LOWER"})
    ruler.add_patterns([{"label": label, "pattern": text} for label, text in PATTERNS])
    return nlp


def spans(mentions: list[Mention]) -> list[tuple]:
    return [(m.start, m.end, m.text, m.source_type, m.hetionet_type) for m in mentions]


def test_offsets_labels_and_unnormalized_ids():
    mentions = SciSpacyAnnotator("ruler", nlp=ruler_nlp()).annotate(DOC)
    assert spans(mentions) == [
        (0, 17, "Lithium carbonate", "Chemical", "Compound"),
        (36, 55, "Alzheimer's disease", "Disease", "Disease"),
        (57, 76, "Alzheimer's disease", "Disease", "Disease"),
        (78, 80, "AD", "Disease", "Disease"),  # short form: the NER missed it
        (100, 104, "APOE", "Gene", "Gene"),
        (116, 133, "lithium carbonate", "Chemical", "Compound"),
        (143, 145, "AD", "Disease", "Disease"),  # a later occurrence of the short form
        (160, 166, "humans", "Species", None),  # mapped, but Species is not a Hetionet kind
        (168, 175, "neurons", "CELL", None),  # not in the table: its label is its type
    ]
    assert all(DOC.text[m.start : m.end] == m.text for m in mentions)
    assert all(m.concept_id is None and m.concept_ids == [] for m in mentions)
    assert {m.annotator for m in mentions} == {"scispacy:ruler"}
    assert {m.pmid for m in mentions} == {"42"}
    # "LCT" is defined by "Lithium carbonate toxicity", whose head is no entity: not labelled.
    assert not any(m.text == "LCT" for m in mentions)


def test_abbreviations_off_keeps_only_the_ner():
    mentions = SciSpacyAnnotator("ruler", abbreviations=False, nlp=ruler_nlp()).annotate(DOC)
    assert not any(m.text == "AD" for m in mentions)
    assert len(mentions) == 7


def test_abbreviation_takes_the_head_entity_label_and_keeps_ner_labels():
    doc = Document(
        "7",
        2021,
        "Nonsteroidal anti-inflammatory drugs (NSAIDs) and tumor necrosis factor (TNF).",
        "NSAIDs lower TNF.",
    )
    mentions = SciSpacyAnnotator(nlp=ruler_nlp()).annotate(doc)
    got = {(m.start, m.text, m.source_type) for m in mentions}
    assert (38, "NSAIDs", "Chemical") in got  # label of "anti-inflammatory drugs", its head
    assert (79, "NSAIDs", "Chemical") in got
    assert (73, "TNF", "Chemical") in got  # the NER's own label wins over the long form's Gene
    assert (50, "tumor necrosis factor", "Gene") in got


def test_annotate_many_matches_annotate():
    ann = SciSpacyAnnotator("ruler", nlp=ruler_nlp())
    other = Document("43", 2020, "APOE in humans.", "No abbreviations here.")
    many = ann.annotate_many([DOC, other])
    assert list(many) == ["42", "43"]
    assert spans(many["42"]) == spans(ann.annotate(DOC))
    assert spans(many["43"]) == [(0, 4, "APOE", "Gene", "Gene"), (8, 14, "humans", "Species", None)]


def test_missing_model_is_a_config_error_with_the_install_command():
    with pytest.raises(ConfigError) as exc:
        SciSpacyAnnotator(model="en_ner_kgbuild_missing_md")
    url = "ai2-s2-scispacy/releases/v0.5.4/en_ner_kgbuild_missing_md-0.5.4.tar.gz"
    assert url in str(exc.value)
    if not spacy.util.is_package("en_ner_bc5cdr_md"):
        with pytest.raises(ConfigError, match=r"en_ner_bc5cdr_md-0\.5\.4\.tar\.gz"):
            SciSpacyAnnotator()
    assert sa.install_command("en_chem_ner") == "pip install --no-deps en-chem-ner==0.1.0"


class FakeLinker:
    """Stands in for scispaCy's EntityLinker (whose KB is an S3 download)."""

    def __init__(self, resolve_abbreviations: bool, linker_name: str) -> None:
        spacy.tokens.Span.set_extension("kb_ents", default=[], force=True)

    def __call__(self, doc):
        for ent in doc.ents:
            if ent.label_ == "DISEASE":
                ent._.kb_ents = [("C0002395", 0.99)]
        return doc


def test_umls_linker_gives_curies(monkeypatch):
    import scispacy.linking

    monkeypatch.setattr(scispacy.linking, "EntityLinker", FakeLinker)
    mentions = SciSpacyAnnotator("ruler", linker="umls", nlp=ruler_nlp()).annotate(DOC)
    ids = {m.text: m.concept_id for m in mentions}
    assert ids["Alzheimer's disease"] == "UMLS:C0002395" and ids["AD"] == "UMLS:C0002395"
    assert ids["APOE"] is None


def test_unavailable_linker_is_a_config_error(monkeypatch):
    import scispacy.linking

    def offline(**kwargs):
        raise OSError("no network")

    monkeypatch.setattr(scispacy.linking, "EntityLinker", offline)
    with pytest.raises(ConfigError, match="downloads its KB"):
        SciSpacyAnnotator("ruler", linker="umls", nlp=ruler_nlp())
    with pytest.raises(ConfigError, match="unknown scispaCy linker"):
        SciSpacyAnnotator("ruler", linker="wikidata", nlp=ruler_nlp())


@pytest.fixture(scope="module")
def chem_nlp() -> spacy.language.Language:
    pytest.importorskip(
        "en_chem_ner", reason="needs the en_chem_ner model: pip install --no-deps en-chem-ner"
    )
    return sa.load_pipeline("en_chem_ner")


def test_en_chem_ner_on_sentences(chem_nlp):
    doc = Document(
        "1",
        2000,
        "Naloxone reverses the antihypertensive effect of clonidine.",
        "Lithium carbonate and haloperidol were given to rats.",
    )
    mentions = SciSpacyAnnotator("en_chem_ner", nlp=chem_nlp).annotate(doc)
    got = {(x.start, x.end, x.text) for x in mentions}
    assert {(0, 8, "Naloxone"), (49, 58, "clonidine"), (60, 77, "Lithium carbonate")} <= got
    assert {(x.source_type, x.hetionet_type, x.concept_id) for x in mentions} == {
        ("Chemical", "Compound", None)
    }
