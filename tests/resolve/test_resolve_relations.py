"""Relation canonicalization: normalization, the synonym table, rules, kind-aware fallback, and
coverage on DALK's real LLM outputs (skipped without ../shared)."""

import csv
import json
import re
from collections import Counter

import pytest

from kgbuild.resolve.relations import (
    HETIONET_NAMES,
    OPEN_PREDICATES,
    SYNONYMS_TSV,
    CanonicalRelation,
    canonical_relation,
    coverage,
    normalize_predicate,
)
from kgbuild.schema import data_dir, hetionet_relation_names, hetionet_relations
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.triples import negation_cue
from tests.conftest import shared


def as_triple(head, raw, tail, head_kind=None, tail_kind=None):
    """``head raw tail`` written canonically (the reverse flag swaps the ends)."""
    c = canonical_relation(raw, head_kind, tail_kind)
    return (tail, c.relation, head) if c.reverse else (head, c.relation, tail)


def table_rows():
    with open(data_dir() / SYNONYMS_TSV, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


# --- normalization -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "is associated with",
        "associated_with",
        "associates with",
        "Associated with",
        "associatedWith",
        "be_associated_with",
        "has been associated with",
        "are significantly associated with",
        "associating with",
        "Associated-With.",
    ],
)
def test_association_variants_share_one_key(raw):
    assert normalize_predicate(raw) == "associate with"
    assert canonical_relation(raw) == CanonicalRelation("associates", False, "synonym", True)


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ("increases", "increase"),
        ("increased", "increase"),
        ("induces", "induce"),
        ("modifies", "modify"),
        ("expresses", "express"),
        ("has_symptom", "have symptom"),
        ("is a", "be"),
        ("isA", "be"),
        ("is", "be"),
        ("is a type of", "type of"),
        ("up-regulated in", "upregulate in"),
        ("Down regulates", "downregulate"),
        ("is known to cause", "cause"),
        ("partOf", "part of"),
        ("", ""),
    ],
)
def test_normalize_predicate(raw, key):
    assert normalize_predicate(raw) == key


def test_table_keys_are_normalized_and_relations_known():
    rows = table_rows()
    exact = [r["predicate"] for r in rows if r["match"] == "exact"]
    assert len(exact) == len(set(exact)), "duplicate exact keys"
    assert [k for k in exact if normalize_predicate(k) != k] == []
    allowed = hetionet_relations() | OPEN_PREDICATES.keys() | HETIONET_NAMES.keys()
    assert {r["relation"] for r in rows} <= allowed
    assert {r["reverse"] for r in rows} == {"yes", "no"}
    assert {r["match"] for r in rows} == {"exact", "keyword"}
    assert len(OPEN_PREDICATES) <= 15
    assert len(hetionet_relations()) == 10


# --- table, passives, rules ----------------------------------------------------------------------


def test_hetionet_names_in_any_case():
    for name in hetionet_relations():
        for raw in (name, name.upper(), f" {name.title()} "):
            assert canonical_relation(raw) == CanonicalRelation(name, False, "hetionet", True)


@pytest.mark.parametrize(
    ("head", "raw", "tail", "triple"),
    [
        ("APP", "regulated by", "BACE1", ("BACE1", "regulates", "APP")),
        ("APP", "is regulated by", "BACE1", ("BACE1", "regulates", "APP")),
        ("Abeta", "inhibited by", "curcumin", ("curcumin", "downregulates", "Abeta")),
        ("tau", "phosphorylated_by", "GSK3B", ("GSK3B", "regulates", "tau")),
        ("AD", "treated with", "donepezil", ("donepezil", "treats", "AD")),
        ("AD", "treatment", "donepezil", ("donepezil", "treats", "AD")),
        ("TREM2", "upregulated in", "AD", ("AD", "upregulates", "TREM2")),
        # Hetionet's own AeG "Anatomy expresses Gene" and DpS "Disease presents Symptom"
        ("HEK293", "expresses", "TLR2", ("HEK293", "expresses", "TLR2")),
        ("TLR2", "expressed in", "HEK293", ("HEK293", "expresses", "TLR2")),
        ("TLR2", "expressed by", "HEK293", ("HEK293", "expresses", "TLR2")),
        ("PET", "measures", "amyloid", ("amyloid", "measured_by", "PET")),
        ("amyloid", "Measured by", "PET", ("amyloid", "measured_by", "PET")),
        ("APP", "mutation", "E693G", ("E693G", "variant_of", "APP")),
        ("AD", "biomarker", "tau", ("tau", "biomarker_of", "AD")),
        ("plaque", "contains", "Abeta", ("Abeta", "part_of", "plaque")),
        ("AD", "symptom", "memory loss", ("AD", "presents", "memory loss")),
        ("memory loss", "is a symptom of", "AD", ("AD", "presents", "memory loss")),
        ("EGCG", "is a", "polyphenol", ("EGCG", "isa", "polyphenol")),
        ("SH-SY5Y", "SPECIES", "human", ("SH-SY5Y", "in_taxon", "human")),
    ],
)
def test_table_direction(head, raw, tail, triple):
    assert as_triple(head, raw, tail) == triple


@pytest.mark.parametrize(
    ("raw", "relation"),
    [
        ("causes", "causes"),
        ("caused by", "causes"),
        ("has", "associates"),
        ("involves", "associates"),
        ("plays a role in", "associates"),
        ("alleviates symptoms of", "palliates"),
        ("ameliorates", "treats"),
        ("protects against", "treats"),
        ("binds to", "binds"),
        ("colocalizes with", "associates"),  # no interaction stated
        ("is similar to", "resembles"),
        ("coexpressed with", "covaries"),
        ("found in", "located_in"),
        ("encodes", "encodes"),
        ("age", "related_to"),
    ],
)
def test_synonyms(raw, relation):
    c = canonical_relation(raw)
    assert (c.relation, c.method) == (relation, "synonym")
    assert c.hetionet == (relation in hetionet_relation_names())


@pytest.mark.parametrize(
    ("raw", "relation"),
    [
        ("markedly increases the level of", "upregulates"),
        ("increases expression of", "upregulates"),  # signed verb before the noun "expression"
        ("strongly suppresses the expression of", "downregulates"),
        ("increases risk of", "associates"),  # risk before increase
        ("is a genetic risk modifier of", "associates"),
        ("transcriptionally regulates", "regulates"),
        ("is a substrate for cleavage by", "regulates"),
        ("serves as a biomarker in", "biomarker_of"),
    ],
)
def test_keyword_rules(raw, relation):
    c = canonical_relation(raw)
    assert (c.relation, c.method) == (relation, "rule")


def test_negated_and_unknown_fall_to_related_to():
    assert canonical_relation("does not bind") == CanonicalRelation(
        "related_to", False, "rule", False
    )
    for raw in ("zorbulates", "in the vicinity of", "", "   "):
        assert canonical_relation(raw) == CanonicalRelation("related_to", False, "open", False)


# --- kinds ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "kinds", "relation", "method", "allowed"),
    [
        ("treats", ("Compound", "Disease"), "treats", "hetionet", True),
        ("treated with", ("Disease", "Compound"), "treats", "synonym", True),
        ("treats", ("Gene", "Disease"), "associates", "kind", True),
        ("binds", ("Disease", "Gene"), "associates", "kind", True),
        ("interacts with", ("Compound", "Gene"), "interacts", "synonym", False),
        ("binds", ("Gene", "Gene"), "interacts", "kind", True),
        ("increases", ("Gene", "Gene"), "regulates", "kind", True),
        ("upregulates", ("Disease", "Gene"), "upregulates", "hetionet", True),
        # causal relations are not turned round: Gene up Disease is not Disease up Gene (DuG)
        ("upregulates", ("Gene", "Disease"), "associates", "kind", True),
        ("upregulated in", ("Gene", "Disease"), "upregulates", "synonym", True),
        # a signed reading between a chemical and a disease takes the pair's own name
        # (data/pair_relations.tsv): "Cocaine induces Seizures" causes, never upregulates
        ("induces", ("Compound", "Disease"), "causes", "kind", True),
        ("upregulates", ("Compound", "Disease"), "causes", "kind", True),
        ("induced by", ("Disease", "Compound"), "causes", "kind", True),
        ("reduces", ("Compound", "Disease"), "treats", "kind", True),
        # a disease that raises a chemical is no cause of it: the sign stays, not allowed
        ("increases", ("Disease", "Compound"), "upregulates", "synonym", False),
        ("causes", ("Gene", "Disease"), "causes", "synonym", None),
        # nothing allowed: kept, and said so
        ("regulates", ("Compound", "Disease"), "regulates", "hetionet", False),
        ("associates", ("Disease", "Disease"), "associates", "hetionet", False),
        # open predicates between Disease and Gene can only be an association
        ("found in", ("Gene", "Disease"), "associates", "kind", True),
        ("zorbulates", ("Disease", "Gene"), "associates", "kind", True),
        ("found in", ("Gene", "Gene"), "located_in", "synonym", None),
        ("is a", ("Disease", "Gene"), "associates", "kind", True),  # "isa" needs one kind
        # kinds outside DALK Table 11 are not judged
        ("treats", ("Species", "Disease"), "treats", "hetionet", None),
        ("treats", ("Gene", None), "treats", "hetionet", None),
    ],
)
def test_kind_aware(raw, kinds, relation, method, allowed):
    c = canonical_relation(raw, *kinds)
    assert (c.relation, c.method, c.allowed) == (relation, method, allowed)
    assert c.hetionet == (relation in hetionet_relation_names())


def test_cached():
    canonical_relation.cache_clear()
    for _ in range(3):
        canonical_relation("is associated with", "Gene", "Disease")
    assert canonical_relation.cache_info().hits == 2


def test_coverage_counts():
    got = coverage(["regulates", "Regulated by", "is a", "zorbulates", ("binds", "Gene", "Gene")])
    assert got == {
        "triples": 5,
        "distinct_raw": 5,
        "distinct_canonical": 4,  # regulates, isa, related_to, interacts
        "hetionet_share": 0.6,
        "dalk_relation_share": 0.6,
        "related_to_share": 0.2,
        "unmapped_share": 0.2,
    }


# --- DALK's real outputs -------------------------------------------------------------------------
# The target is Hetionet relations on >= 80% of triples (DALK: 35.0%). Without kinds that
# is out of reach: ~22% of DALK's triples are isa / located_in / has_symptom / part_of / produces /
# expressed_in / model_of / variant_of / measured_by / in_taxon claims that no Hetionet relation
# expresses (one end is a cell line, organism, place or class). Measured on all triples: 72.8%
# (kg_gen) and 73.4% (raw); on the triples whose both ends PubTator types as Gene/Compound/Disease
# (the only ones DALK Table 10 makes KG edges): >= 85%.


@pytest.mark.integration
def test_dalk_kg_gen_coverage():
    path = shared("dalk", "dalk_kg_gen.tsv")
    with open(path, encoding="utf-8") as fh:
        relations = [line.rstrip("\n").split("\t")[1] for line in fh if line.count("\t") == 2]
    got = coverage(relations)
    assert got["triples"] == 51309 and got["distinct_raw"] == 3493
    assert got["distinct_canonical"] <= 150
    assert got["hetionet_share"] >= 0.72
    assert got["unmapped_share"] <= 0.10  # the table plus rules read >= 90% of triples


def _dalk_raw_triples():
    """(relation, head kind, tail kind) of every triple in DALK's raw LLM outputs; kinds from the
    PubTator mention with the same text in the same abstract, else that text's commonest kind."""
    by_title: dict[str, dict[str, str | None]] = {}
    seen: dict[str, Counter] = {}
    for path in sorted(shared("dalk", "by_year").glob("*.pubtator")):
        for rec in read_pubtator(path):
            doc = by_title.setdefault(rec.title.strip().lower(), {})
            for m in rec.mentions:
                doc.setdefault(m.text.lower(), m.hetionet_type)
                seen.setdefault(m.text.lower(), Counter())[m.hetionet_type] += 1
    common = {text: c.most_common(1)[0][0] for text, c in seen.items()}

    def kind(name, doc):
        for text in (name.strip().lower(), re.sub(r"\s*\(.*\)$", "", name.strip().lower())):
            if text in doc or text in common:
                return doc[text] if text in doc else common[text]
        return None  # "AD (Alzheimer's disease)" is looked up as "ad" too

    out = []
    for path in sorted(shared("dalk", "extracted").glob("*_s2s.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            doc = by_title.get((item.get("title") or "").strip().lower(), {})
            for t in item.get("triplet") or []:
                try:
                    head, tail = t["entity1"]["entity_name"], t["entity2"]["entity_name"]
                    relation = t["relation"]
                except (KeyError, TypeError):
                    continue
                if isinstance(relation, str) and isinstance(head, str) and isinstance(tail, str):
                    out.append((relation, kind(head, doc), kind(tail, doc)))
    return out


@pytest.mark.integration
def test_dalk_raw_outputs_coverage():
    triples = _dalk_raw_triples()
    got = coverage(r for r, _, _ in triples)
    assert got["triples"] == 60999
    assert got["distinct_canonical"] <= 150
    assert got["hetionet_share"] >= 0.72
    assert got["unmapped_share"] <= 0.10
    # KG scope: both ends are DALK Table 10 kinds; the 80% holds there, kinds or not
    kg = [t for t in triples if t[1] and t[2]]
    assert len(kg) > 30000
    assert coverage(r for r, _, _ in kg)["hetionet_share"] >= 0.80
    assert coverage(kg)["hetionet_share"] >= 0.80


# --- precision audit fixes: meaning and direction kept --------------------------------------------


@pytest.mark.parametrize(
    ("head", "raw", "tail", "triple"),
    [
        # passives reverse the triple
        ("neuronal loss", "is caused by", "Abeta", ("Abeta", "causes", "neuronal loss")),
        ("neuronal loss", "CAUSED_BY", "Abeta", ("Abeta", "causes", "neuronal loss")),
        ("Abeta", "detected by", "bis-ANS", ("Abeta", "measured_by", "bis-ANS")),
        ("bis-ANS", "detects", "Abeta", ("Abeta", "measured_by", "bis-ANS")),
        # "<verb> from" names the source (the audit's "Zn2+ RELEASED_FROM glutamatergic neurons")
        ("Zn2+", "RELEASED_FROM", "neurons", ("neurons", "produces", "Zn2+")),
        ("Abeta", "secreted from", "neurons", ("neurons", "produces", "Abeta")),
        ("Abeta", "cleaved from", "APP", ("APP", "produces", "Abeta")),
        # causation keeps its direction instead of the undirected associates
        ("TBI", "causes", "dementia", ("TBI", "causes", "dementia")),
        ("TBI", "leads to", "dementia", ("TBI", "causes", "dementia")),
        ("dementia", "results from", "TBI", ("TBI", "causes", "dementia")),
        ("dementia", "is a consequence of", "TBI", ("TBI", "causes", "dementia")),
        # labels the audit found misread
        ("APP", "METABOLITE", "beta-CTF", ("APP", "produces", "beta-CTF")),
        ("cinnamon bark", "DISEASE_OR_SYNDROME", "AD", ("cinnamon bark", "related_to", "AD")),
    ],
)
def test_meaning_and_direction_kept(head, raw, tail, triple):
    assert as_triple(head, raw, tail) == triple


def test_causes_is_kept_between_any_kinds():
    for kinds in (("Gene", "Disease"), ("Compound", "Gene"), ("Disease", "Disease"), (None, None)):
        c = canonical_relation("causes", *kinds)
        assert c.relation == "causes" and not c.reverse


def test_interacts_never_strengthens_to_binds():
    for raw in ("interacts", "interacts with", "INTERACTS_WITH"):
        c = canonical_relation(raw, "Compound", "Gene")
        assert c.relation == "interacts" and c.allowed is False
    # the other way round weakens, which is allowed: Gene "binds" Gene is GiG interacts
    assert canonical_relation("binds", "Gene", "Gene").relation == "interacts"


@pytest.mark.parametrize(
    ("raw", "cue"),
    [
        ("does not bind", "not"),
        ("did not alter", "not"),
        ("doesn't affect", "not"),
        ("without affecting", "without"),
        ("lacks", "lacks"),
        ("independent_of", "independent"),
        ("is non-toxic to", "non-toxic"),
        ("fails to rescue", "fails"),
        ("binds", None),
        ("is a non-competitive inhibitor of", None),
        ("knocks down", None),
    ],
)
def test_negation_cue(raw, cue):
    assert negation_cue(raw) == cue


def test_a_disease_is_what_a_model_or_biomarker_is_of():
    # "AD mouse_model <AD mouse models>" (audit seed 1603): the label's direction is unreliable
    assert as_triple("AD", "mouse_model", "mice", "Disease", None) == ("mice", "model_of", "AD")
    assert as_triple("mice", "model of", "AD", None, "Disease") == ("mice", "model_of", "AD")
    assert as_triple("AD", "biomarker", "tau", "Disease", None) == ("tau", "biomarker_of", "AD")
    assert as_triple("AD", "model", "5xFAD", "Disease", None) == ("5xFAD", "model_of", "AD")


def test_isa_needs_one_kind():
    """Precision audit, seed 1606: a garbled "ABETA_TYPE" between AD and Abeta was stored as
    "AD isa APP"; between two kinds "is a" can only be a vaguer relation."""
    assert canonical_relation("is a", "Compound", "Compound").relation == "isa"
    assert canonical_relation("ABETA_TYPE", "Disease", "Gene").relation == "associates"
    c = canonical_relation("is a", "Compound", "Anatomy")
    assert (c.relation, c.method) == ("related_to", "kind")


def test_crossing_a_barrier_is_no_location():
    """Precision audit, seed 1607: "TO901317 crossed the blood-brain barrier" was stored as
    located_in the barrier."""
    assert canonical_relation("crosses").relation == "related_to"


def test_produced_via_names_the_source():
    """Precision audit, seed 1608: "Abeta is produced via the proteolysis of AbetaPP" was stored
    as Abeta produces the proteolysis."""
    c = canonical_relation("is produced via")
    assert (c.relation, c.reverse) == ("produces", True)
    assert canonical_relation("generated through").reverse
