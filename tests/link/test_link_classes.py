"""Question linking of microRNA names, generic words and misspelt names inside a question, on a
small real KG (tests/support/link_kg.py) through the real index and linker."""

from __future__ import annotations

import pytest

from kgbuild.link.generic import generic_blocked
from kgbuild.link.linker import Linker
from kgbuild.link.mirna import find_mirnas
from kgbuild.search.index import open_index
from kgbuild.search.tag_share import tag_shares
from kgbuild.store.snapshots import Warehouse
from tests.support.link_kg import AD, APP, GENERIC_MIR, MIR132, PSEN1, build_link_kg


@pytest.fixture(scope="module")
def linker(tmp_path_factory):
    root = tmp_path_factory.mktemp("link-wh")
    info = build_link_kg(root)
    wh = Warehouse(root)
    return Linker(open_index(wh, info.snapshot_id))


def _links(linker, q):
    links, spans = linker.dictionary(q, "question")
    return {x.surface: x for x in links}, [q[a:b] for a, b in spans]


@pytest.mark.parametrize(
    ("text", "symbol"),
    [("miR-34a", "MIR34A"), ("hsa-miR-146a-5p", "MIR146A"), ("microRNA-132", "MIR132"),
     ("let-7b", "MIRLET7B"), ("miRNA-29a-3p", "MIR29A"), ("miR-125b-2", "MIR125B2"),
     ("mmu-miR-155*", "MIR155")],
)  # fmt: skip
def test_microrna_names_mean_their_gene_symbol(text, symbol):
    got = find_mirnas(f"is {text} raised?")
    assert [(g.symbol, g.end - g.start) for g in got] == [(symbol, len(text))]


def test_no_microrna_without_a_number():
    assert find_mirnas("which miR and microRNA families; admir-12; Mir") == []


def test_microrna_links_to_its_mir_gene_not_the_generic_mir_node(linker):
    got, _ = _links(linker, "does hsa-miR-132-3p protect against Alzheimer's disease")
    assert got["hsa-miR-132-3p"].curie == MIR132
    assert got["Alzheimer's disease"].curie == AD
    assert all(x.curie != GENERIC_MIR for x in got.values())


def test_microrna_absent_from_kg_is_unlinked_with_its_symbol(linker):
    got, rest = _links(linker, "what does miR-34a do")
    x = got["miR-34a"]
    assert (x.node, x.curie, x.name, x.method) == (None, None, "MIR34A", "unlinked")
    assert all(x.curie != GENERIC_MIR for x in got.values())
    assert "34a" not in rest


def test_generic_word_needs_frequent_mentions(linker):
    got, rest = _links(linker, "which cell lines are used to study amyloid beta toxicity")
    assert got["amyloid beta"].curie == APP
    assert "toxicity" not in got and "toxicity" in rest
    assert generic_blocked("toxicity", "mention", 4.0)
    assert not generic_blocked("toxicity", "mention", 500.0)
    assert not generic_blocked("neuron", "name", 1.0)


def test_misspelt_name_inside_a_question_links_by_spelling(linker):
    got, rest = _links(linker, "is Alzhiemer's disease risk heritable")
    x = got["Alzhiemer's disease"]
    assert (x.curie, x.method) == (AD, "spelling")
    assert rest == ["risk heritable"]


def test_spelling_never_takes_a_one_word_chunk(linker):
    got, _ = _links(linker, "is toxicityy common")
    assert got == {}


def test_short_gene_key_rarely_tagged_where_written_links_no_gene(linker):
    got, rest = _links(linker, "which CSF biomarkers predict conversion")
    assert got == {} and rest == ["CSF biomarkers predict conversion"]
    got, _ = _links(linker, "do PS1 mutations cause AD")
    assert got["PS1"].curie == PSEN1


def test_tag_share_counts_abstracts_and_words_inside_mentions():
    aliases = {"key": ["tnf", "app"], "node": [0, 1], "source": ["mention", "name"]}
    ids = ["NCBIGene:7124", "NCBIGene:351"]
    forms = {0: ("TNF",)}
    occurs = [("TNF", f"p{i}") for i in range(40)]
    tagged = [(f"p{i}", "NCBIGene:7124", "TNF-alpha") for i in range(10)]
    tagged += [("p99", "NCBIGene:7124", "TNF")]  # an abstract not counted as writing it
    shares = tag_shares(aliases, ids, forms, occurs, tagged)
    assert shares.tolist() == [0.25, 1.0]
    few = tag_shares(aliases, ids, forms, occurs[:5], [])
    assert few.tolist() == [1.0, 1.0]  # too few abstracts to judge
