"""Entity resolution: the rule order, type-aware thresholds, sticky decisions, and the audit list
of pairs that must / must not merge (tests/fixtures/resolution_audit.tsv)."""

import csv
from pathlib import Path

import pytest

from kgbuild.extract.ground import abbreviations
from kgbuild.names import norm
from kgbuild.resolve.embed import Embedder
from kgbuild.resolve.entities import AliasIndex, Resolver
from kgbuild.sources.local import read_slices
from tests.conftest import FIXTURES, shared

AUDIT = FIXTURES / "resolution_audit.tsv"


def audit_pairs():
    lines = [ln for ln in AUDIT.read_text(encoding="utf-8").splitlines() if not ln.startswith("#")]
    return [
        (r["a"], r["b"], r["expected"], r["why"]) for r in csv.DictReader(lines, delimiter="\t")
    ]


def small_index():
    idx = AliasIndex()
    for form, cid, kind in [
        ("Alzheimer's disease", "MESH:D000544", "Disease"),
        ("AD", "MESH:D000544", "Disease"),
        ("familial Alzheimer's disease", "MESH:D000544", "Disease"),
        ("amyloid beta", "NCBIGene:351", "Gene"),
        ("APP", "NCBIGene:351", "Gene"),
        ("APOE", "NCBIGene:348", "Gene"),
        ("memantine", "MESH:D008559", "Compound"),
        ("oxidative stress", "MESH:D018384", "Disease"),
    ]:
        idx.add(form, cid, kind, 3)
    return idx


def test_rules_in_order_and_sticky_decisions():
    r = Resolver(small_index())
    r.observe_abbreviations([("abeta", "amyloid beta")])
    names = {
        "free:alzheimer disease ad": "Alzheimer disease (AD)",  # alias via parenthetical parts
        "free:abeta": "Abeta",  # abbreviation learned from the corpus
        "free:oxidative stresses": "oxidative stresses",  # plural → alias
        "free:memantines": "memantines",  # plural
        "free:apoe4 carriers": "APOE4 carriers",  # nothing settles it: stays its own node
        "free:familial ad": "familial AD",  # a modified name is not an alias of AD
    }
    new = {d.node_id: (d.merged_into, d.method) for d in r.resolve(names, 2011)}
    assert new["free:alzheimer disease ad"] == ("MESH:D000544", "alias")
    assert new["free:abeta"] == ("NCBIGene:351", "abbreviation")
    assert new["free:oxidative stresses"][0] == "MESH:D018384"
    assert new["free:memantines"][0] == "MESH:D008559"
    assert new["free:apoe4 carriers"] == ("free:apoe4 carriers", "unresolved")
    assert new["free:familial ad"][1] == "unresolved"
    assert r.resolve(names, 2012) == []  # decided before: reused, not resolved again
    assert r.target("free:abeta") == "NCBIGene:351"


def test_fuzzy_thresholds_are_type_aware():
    idx = small_index()
    idx.add("presenilin 1", "NCBIGene:5663", "Gene", 2)
    idx.add("Parkinson's disease", "MESH:D010300", "Disease", 2)
    r = Resolver(idx)
    names = {"free:parkinsons diseas": "Parkinsons diseas", "free:presenilin 2": "presenilin 2"}
    out = {d.node_id: d for d in r.resolve(names, 2011)}
    assert out["free:parkinsons diseas"].merged_into == "MESH:D010300"  # disease: 90 is enough
    assert out["free:presenilin 2"].method == "unresolved"  # gene: one character is another gene


@pytest.fixture(scope="module")
def dalk_resolver(tmp_path_factory):
    """The alias index and abbreviations of DALK's whole annotated corpus, with MiniLM."""
    source = shared("dalk", "by_year")
    idx = AliasIndex()
    resolver = Resolver(idx)
    # As the pipeline does while grounding, learn abbreviations where a document defines one
    # of the audit names ("... (MCI)"); running the detector on all 8,519 abstracts is not needed.
    wanted = {f"({x})" for a, b, _, _ in audit_pairs() for x in (a, b)}
    for ys in read_slices(Path(source)):
        for m in ys.mentions:
            if m.concept_id and m.hetionet_type:
                idx.add(m.text, m.concept_id, m.hetionet_type)
        for doc in ys.documents:
            if any(w in doc.text for w in wanted):
                resolver.observe_abbreviations(abbreviations(doc.text).items())
    cache = tmp_path_factory.mktemp("emb") / "embeddings.sqlite"
    resolver.use_embedder(Embedder(cache_path=cache))
    return resolver


@pytest.mark.slow  # loads the embedding model
def test_audit_list_merge_precision_and_recall(dalk_resolver):
    pairs = audit_pairs()
    names = {f"free:{norm(x)}": x for a, b, _, _ in pairs for x in (a, b)}
    dalk_resolver.resolve(names, 2020)
    wrong = []
    for a, b, expected, why in pairs:
        same = dalk_resolver.target(f"free:{norm(a)}") == dalk_resolver.target(f"free:{norm(b)}")
        if same != (expected == "merge"):
            wrong.append((a, b, expected, why))
    merges = [p for p in pairs if p[2] == "merge"]
    assert len(pairs) == 32 and len(merges) == 17
    # Every must-merge merged and every must-stay-apart kept apart (precision and recall 1.0).
    ends = [
        (a, b, *(dalk_resolver.target(f"free:{norm(x)}") for x in (a, b))) for a, b, *_ in wrong
    ]
    assert wrong == [], ends
