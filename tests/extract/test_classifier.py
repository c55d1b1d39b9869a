"""The classifier extractor: typed relations where the verifier is confident, co_mentioned for
pairs merely named together, evidence that cites the right sentences, and relations that the
gold mapping reads back as the verifier's type."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from kgbuild.evaluate.mapping import get_scheme
from kgbuild.extract.classifier import (
    CO_MENTIONED,
    NODE_PAIRS,
    RAW,
    ClassifierExtractor,
    extract_document,
    relation_for,
)
from kgbuild.extract.select import choose_extractor, make_extractor
from kgbuild.llm.client import LLMSettings
from kgbuild.pair_relations import pair_relations
from kgbuild.records import Document, Mention
from kgbuild.resolve.relations import canonical_relation
from kgbuild.schema import hetionet_kind, to_curies
from kgbuild.verifier.model import PairScore, load_verifier

TITLE = "Cisplatin-induced nephrotoxicity in patients with lung cancer."
ABSTRACT = (
    "Cisplatin is a first-line drug for lung cancer, but cisplatin causes acute kidney injury. "
    "In 120 patients, cisplatin treatment increased the incidence of nephrotoxicity. "
    "Serum creatinine, urea, magnesium and potassium were measured at baseline. "
    "Magnesium supplementation reduced cisplatin-induced nephrotoxicity."
)
ENTITIES = [
    ("Cisplatin", "Chemical", "D002945"), ("cisplatin", "Chemical", "D002945"),
    ("nephrotoxicity", "Disease", "D007674"), ("lung cancer", "Disease", "D008175"),
    ("acute kidney injury", "Disease", "D058186"), ("creatinine", "Chemical", "D003404"),
    ("urea", "Chemical", "D014508"), ("magnesium", "Chemical", "D008274"),
    ("Magnesium", "Chemical", "D008274"), ("potassium", "Chemical", "D011188"),
]  # fmt: skip


#: BioRED types annotated between two chemicals only (the table names them for every pair).
CHEMICALS_ONLY = {"Cotreatment", "Comparison", "Drug_Interaction", "Conversion"}


def document(title=TITLE, abstract=ABSTRACT, entities=ENTITIES, pmid="9"):
    text = f"{title} {abstract}"
    mentions = []
    for surface, typ, ident in entities:
        for m in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", text):
            ids = to_curies(typ, ident)
            mentions.append(
                Mention(pmid, m.start(), m.end(), surface, typ, hetionet_kind(typ), ids[0], ids)
            )
    return Document(pmid, 2020, title, abstract), sorted(mentions, key=lambda m: m.start)


def claims(doc, mentions, verifier=None):
    triples, evidence, capped = extract_document(doc, mentions, verifier or load_verifier())
    by_id = {t.triple_id: t for t in triples}
    out = {}
    for e in evidence:
        t = by_id[e.triple_id]
        out[(t.head_id, t.relation, t.tail_id)] = e
    return out, capped


def test_a_clearly_stated_pair_is_typed_and_a_list_is_only_co_mentioned():
    got, capped = claims(*document())
    assert capped == ""
    # cisplatin → nephrotoxicity: a chemical that induces a disease causes it (BC5CDR CID)
    induced = got[("MESH:D002945", "causes", "MESH:D007674")]
    assert induced.relation_raw == "CID" and induced.sentence == TITLE
    assert not [k for k in got if k[1] == "upregulates"]
    assert induced.verifier_score > load_verifier().pair_threshold
    assert got[("MESH:D008274", "treats", "MESH:D007674")].relation_raw == "Negative_Correlation"
    listed = got[("MESH:D003404", CO_MENTIONED, "MESH:D014508")]  # creatinine, urea
    assert listed.verifier_score < load_verifier().pair_threshold
    assert listed.sentence.startswith("Serum creatinine, urea")
    assert not any(
        {h, t} == {"MESH:D003404", "MESH:D014508"} and r != CO_MENTIONED for h, r, t in got
    )
    for e in got.values():
        assert e.method == "classifier" and e.model == load_verifier().ref
        assert e.sentence == f"{TITLE} {ABSTRACT}"[e.sent_start : e.sent_end]


def test_the_gold_mapping_reads_each_relation_back_as_its_type():
    biored, cdr = get_scheme("biored"), get_scheme("cdr")
    for (reading, a, b), row in pair_relations().items():
        if reading == "CID" or tuple(sorted((a, b))) not in NODE_PAIRS:
            continue
        if (a, b) != ("Compound", "Compound") and reading in CHEMICALS_ONLY:
            continue  # BioRED uses these types between two chemicals only
        canonical = canonical_relation(RAW.get(row.relation, row.relation), a, b).relation
        # a reading the pair cannot carry (a signed gene-gene pair without a direction, a
        # disease that "binds") is named as an association; cotreatment and comparison have
        # no canonical relation (related_to, which BioRED reads as Association)
        expected = "Association" if row.relation in ("associates", "related_to") else reading
        assert biored.gold_type(canonical, a, b) == expected, (reading, a, b, canonical)
    for relation in ("causes", "upregulates"):  # and snapshots named before
        assert cdr.gold_type(relation, "Compound", "Disease") == "CID"
    assert biored.gold_type("causes", "Compound", "Disease") == "Positive_Correlation"
    assert cdr.gold_type(canonical_relation("treats", "Compound", "Disease").relation,
                         "Compound", "Disease") is None  # fmt: skip
    related = canonical_relation(RAW["related_to"], "Compound", "Disease").relation
    assert related == "related_to" and cdr.gold_type(related, "Compound", "Disease") is None
    assert biored.gold_type(related, "Compound", "Disease") == "Association"


@pytest.mark.parametrize(
    ("rel_type", "cid", "expected"),
    [
        ("Positive_Correlation", True, "causes"),  # BC5CDR CID: "Cocaine causes Seizures"
        ("Negative_Correlation", True, "causes"),  # the CID head decides "induced"
        ("Association", True, "associates"),  # BioRED's reading of the pair stays unsigned
        ("Negative_Correlation", False, "treats"),
        ("Positive_Correlation", False, "related_to"),  # related, but not read as induced
    ],
)
def test_a_chemical_that_induces_a_disease_causes_it(rel_type, cid, expected):
    score = replace(
        _cocaine_seizures(), rel_type=rel_type, related=True, cid=cid, p_related=0.9, p_cid=0.8
    )
    relation, head, _, _ = relation_for(score)
    assert (relation, head) == (expected, "kind")


def _cocaine_seizures() -> PairScore:
    doc, mentions = document(
        "Cocaine-induced seizures.", "Cocaine caused seizures in 12 adolescents.",
        [("Cocaine", "Chemical", "D003042"), ("seizures", "Disease", "D012640")],
    )  # fmt: skip
    verifier = load_verifier()
    from kgbuild.verifier.features import doc_context
    from kgbuild.verifier.text import doc_view

    return verifier.score(doc_context(doc_view(doc, mentions)), "MESH:D003042", "MESH:D012640")


def test_co_mentioned_asserts_nothing_in_any_scheme():
    for kinds in (("Compound", "Disease"), ("Disease", "Gene"), ("Gene", "Gene")):
        assert canonical_relation(CO_MENTIONED, *kinds).relation == CO_MENTIONED
        assert get_scheme("biored").gold_type(CO_MENTIONED, *kinds) is None
        assert get_scheme("cdr").gold_type(CO_MENTIONED, *kinds) is None


class Always:
    """A verifier stub calling every pair related, with a fixed type."""

    ref = "stub"
    pair_threshold = cid_threshold = 0.5

    def __init__(self, rel_type="Association"):
        self.real = load_verifier()
        self.rel_type = rel_type

    def score(self, ctx, a, b):
        s = self.real.score(ctx, a, b)
        cid = None if s.cid is None else False
        return replace(s, p_related=0.9, related=True, rel_type=self.rel_type, p_cid=0.1, cid=cid)


def test_a_cross_sentence_pair_cites_the_sentences_of_its_closest_mentions():
    doc, mentions = document(
        "APOE in Alzheimer disease.",
        "We studied 300 patients. Carriers of the APOE allele had more plaques. "
        "Tau was not measured in the Alzheimer disease group.",
        [("APOE", "Gene", "348"), ("Alzheimer disease", "Disease", "D000544"),
         ("Tau", "Gene", "4137")],
    )  # fmt: skip
    got, _ = claims(doc, mentions, Always())
    e = got[("MESH:D000544", "associates", "NCBIGene:4137")]  # never in one sentence
    assert e.sentence == "Tau was not measured in the Alzheimer disease group."
    apoe_tau = got[("NCBIGene:348", "associates", "NCBIGene:4137")]
    assert apoe_tau.sentence.startswith("Carriers of the APOE") and apoe_tau.sentence.endswith(
        "Alzheimer disease group."
    )
    assert apoe_tau.epistemic == "not_in_sentence"


@pytest.mark.parametrize(
    ("rel_type", "triple"),
    [("Positive_Correlation", ("MESH:D000544", "upregulates", "NCBIGene:348")),
     ("Bind", ("NCBIGene:348", "interacts", "NCBIGene:4137"))],
)  # fmt: skip
def test_types_become_hetionet_relations_oriented_by_kind(rel_type, triple):
    doc, mentions = document(
        "APOE and tau in Alzheimer disease.", "APOE binds tau in Alzheimer disease.",
        [("APOE", "Gene", "348"), ("Alzheimer disease", "Disease", "D000544"),
         ("tau", "Gene", "4137")],
    )  # fmt: skip
    got, _ = claims(doc, mentions, Always(rel_type))
    assert triple in got


def test_relation_for_lets_the_cid_head_decide_chemical_disease_pairs():
    s = PairScore("MESH:C", "MESH:D", "Compound", "Disease", 0.2, False, "Association", 0.6,
                  0.9, True, None, None, True)  # type: ignore[arg-type]  # fmt: skip
    assert relation_for(s)[:3] == ("associates", "kind", "CID")
    s = replace(s, rel_type="Negative_Correlation", cid=False, p_cid=0.1)
    assert relation_for(s) is None  # not related, not induced
    s = replace(s, related=True, p_related=0.8)
    assert relation_for(s)[:3] == ("treats", "kind", "Negative_Correlation")


def test_auto_picks_the_classifier_offline_and_cooccurrence_still_works(tmp_path):
    offline = LLMSettings(base_url=None, api_key=None)
    assert choose_extractor("auto", offline) == "classifier"
    assert isinstance(make_extractor("classifier", offline, tmp_path / "c"), ClassifierExtractor)
    cooc = make_extractor("cooccurrence", offline, tmp_path / "c")
    doc, mentions = document()
    result = cooc.extract([doc], {doc.pmid: mentions})
    assert result.triples and {e.method for e in result.evidence} == {"cooccurrence"}


def test_the_extractor_gives_every_document_a_status_and_its_config_names_the_model():
    doc, mentions = document()
    empty = Document("10", 2020, "Nothing here.", "No entities.")
    extractor = ClassifierExtractor()
    result = extractor.extract([doc, empty], {doc.pmid: mentions})
    assert [(s.pmid, s.status) for s in result.statuses] == [("9", "done"), ("10", "done")]
    assert extractor.config()["verifier"] == load_verifier().ref
