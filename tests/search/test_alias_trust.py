"""Aliases and search keys come only from mentions the pipeline trusts, and the "also called"
list carries no other concept's abbreviation nor junk tokens (kgbuild.search.alias_trust), on
a real snapshot written to DuckDB and read back through the query index."""

from pathlib import Path

import numpy as np
import pytest

from kgbuild.records import Entity, Mention
from kgbuild.resolve.vocabularies import installed
from kgbuild.search.alias_trust import acronym_ok, head_final_forms, is_acronym, trusted
from kgbuild.search.aliases import SEP, build_aliases, ortholog_nodes
from kgbuild.search.entities import find_entities
from kgbuild.search.index import open_index
from kgbuild.serve.explorer.pages import _aliases
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import EDGES_2019, publish_year

needs_vocab = pytest.mark.skipif(
    not (installed()["mesh"] and installed()["hgnc"]), reason="MeSH and HGNC not installed"
)

AD, APOE, PD = "MESH:D000544", "NCBIGene:348", "MESH:D010300"
#: (ID, text, count, id_check): what the DALK build's tagger and vocabulary check left.
MENTIONS = [
    (AD, "AD", 40, "mesh:kept"),
    (AD, "Alzheimer's disease", 30, "mesh:kept"),
    (AD, "Alzheimer", 5, "mesh:kept"),
    (AD, "late-onset Alzheimer disease", 3, "mesh:kept"),
    (AD, "LOAD", 3, "mesh:kept"),  # abbreviates a kind of AD: stays
    (AD, "ADNI", 15, "mesh:kept"),  # a study named after AD: no alias
    (AD, "Alzheimer's Disease Neuroimaging Initiative", 8, "mesh:kept"),
    (AD, "ADNP", 10, "mesh:kept"),  # another gene's HGNC symbol
    (AD, "odd-token", 1, "mesh:kept"),  # seen once
    (PD, "Parkinson disease", 20, "mesh:kept"),
    (PD, "Alzhiemer's Disease", 1, "mesh:suspect"),  # misspelt, mislinked, flagged
    (APOE, "APOE", 50, "hgnc:kept"),
    (APOE, "apolipoprotein E", 9, "hgnc:kept"),
    (APOE, "GRS", 6, "hgnc:suspect"),  # genetic risk score
    (APOE, "BMIxAPOE4", 2, "hgnc:suspect"),
    (APOE, "GRSexAPOE", 3, "hgnc:dropped"),
    ("NCBIGene:5663", "PS1", 5, "hgnc:kept"),
    ("NCBIGene:338399", "PS1", 9, "hgnc:suspect"),  # a pseudogene the tagger picked
]


def _mentions(rows):
    out = []
    for j, (cid, text, n, check) in enumerate(rows):
        for i in range(n):
            out.append(Mention(f"{j}{i:03d}", 0, len(text), text, "Disease", "Disease", cid,
                               [cid], id_check=check))  # fmt: skip
    return out


RAT_ACHE, ACHE = "NCBIGene:83817", "NCBIGene:43"


def _rat_ache():
    """Rat Ache's mentions: three from a year before the build mapped it (a node of its own),
    five later ones relinked to human ACHE (annotator_id keeps the rat ID)."""
    text = "acetylcholinesterase"
    early = [Mention(f"81{i}", 0, 20, text, "Gene", "Gene", RAT_ACHE, [RAT_ACHE],
                     id_check="hgnc:uncheckable") for i in range(3)]  # fmt: skip
    late = [Mention(f"82{i}", 0, 20, text, "Gene", "Gene", ACHE, [ACHE], annotator_id=RAT_ACHE,
                    id_check="hgnc:uncheckable") for i in range(5)]  # fmt: skip
    return early + late


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    wh = Warehouse(tmp_path_factory.mktemp("trust") / "wh")
    w = wh.writer("trust")
    shown = {AD: "Alzheimer Disease", APOE: "APOE (apolipoprotein E)", PD: "Parkinson Disease"}
    ids = sorted({x for h, _, t, _ in EDGES_2019 for x in (h, t)}
                 | {PD, RAT_ACHE, "NCBIGene:5663", "NCBIGene:338399"})  # fmt: skip
    shown[RAT_ACHE] = "acetylcholinesterase"
    shown["NCBIGene:5663"] = "PSEN1 (presenilin 1)"
    shown["NCBIGene:338399"] = "TAS2R62P (taste 2 receptor member 62, pseudogene)"
    named = {"NCBIGene:338399": "PS1"}  # its most frequent form: the mislinked one
    ents = [Entity(cid, named.get(cid, shown.get(cid, cid)), "Disease", [], 2019,
                   shown.get(cid, "")) for cid in ids]  # fmt: skip
    w.add("mentions", _mentions(MENTIONS) + _rat_ache())
    publish_year(w, 2019, EDGES_2019, ents)
    return open_index(wh, wh.resolve("latest"), cache=False)


def test_a_suspect_mention_feeds_no_search_key(idx):
    """ "alzhiemer" finds Alzheimer disease, not the Parkinson node a flagged mention named."""
    keys = set(idx.aliases["key"])
    assert "alzhiemer disease" not in keys and "grs" not in keys and "bmixapoe4" not in keys
    hits = find_entities(idx, "alzhiemer")["entities"]
    assert hits and hits[0]["id"] == AD and PD not in [h["id"] for h in hits]
    # nor through the name a node took from its suspect mentions
    assert [h["id"] for h in find_entities(idx, "PS1")["entities"]] == ["NCBIGene:5663"]


@needs_vocab
def test_also_called_has_no_other_concepts_abbreviations_nor_junk(idx):
    also = {a.casefold() for a in _aliases(idx, idx.node_of[AD])}
    assert {"ad", "load", "late onset alzheimer disease"} <= also
    assert not also & {"adni", "adnp", "odd token"}
    apoe = {a.casefold() for a in _aliases(idx, idx.node_of[APOE])}
    assert "apolipoprotein e" in apoe or "apolipoprotein e" in idx.nodes["display"][
        idx.node_of[APOE]].casefold()  # fmt: skip
    assert not apoe & {"grs", "grsexapoe", "bmixapoe4"}


@needs_vocab
def test_surfaces_are_the_nodes_own():
    """A short key names one node, and shows only the forms that node was seen as: "sAD" for
    Alzheimer disease, never the depressive disorder's "SAD"."""
    ents = [(AD, "AD", "Disease", [], 2019, ""), ("MESH:D003865", "SAD", "Disease", [], 2019, "")]
    node_of = {AD: 0, "MESH:D003865": 1}
    mentions = [
        (AD, "sAD", 15, "mesh:kept"),
        (AD, "sporadic Alzheimer disease", 3, "mesh:kept"),
        ("MESH:D003865", "SAD", 6, "mesh:kept"),
    ]
    table, _ = build_aliases(ents, node_of, mentions, [], [], np.zeros(2, np.int32))
    row = table["key"].index("sad")
    assert table["node"][row] == 0 and table["surfaces"][row].split(SEP) == ["sAD"]


def test_rules_one_by_one():
    assert trusted("mesh:kept") and trusted("") and trusted("ncbitaxon:uncheckable")
    assert not trusted("hgnc:suspect") and not trusted("mesh:dropped")
    assert is_acronym("ADNI") and is_acronym("sAD") and not is_acronym("Abeta")
    names = ("alzheimer disease",)
    heads = head_final_forms(names, ["late-onset Alzheimer disease",
                                     "Alzheimer's Disease Neuroimaging Initiative"])  # fmt: skip
    assert heads == ["late onset alzheimer disease"]
    assert acronym_ok("LOAD", names, heads) and not acronym_ok("ADNI", names, heads)
    assert acronym_ok("AD", names, heads) and acronym_ok("ACh", ("acetylcholine",), [])
    assert acronym_ok("NFTs", ("neurofibrillary tangles",), [])
    # letter by letter "ADNI" is inside "alzheimer dementia"; as initials it is not
    assert not acronym_ok("ADNI", ("alzheimer dementia",), [])


def test_an_unchecked_snapshot_keeps_its_aliases(tmp_path: Path):
    """Mentions written before the vocabulary check ("" id_check) still make aliases."""
    ents = [(APOE, "APOE", "Gene", [], 2019, "")]
    table, _ = build_aliases(ents, {APOE: 0}, [(APOE, "apoE", 3)], [], [], np.zeros(1, np.int32))
    assert "apoe" in table["key"]


def test_the_index_shows_a_common_name_for_a_stored_systematic_one():
    """Snapshots written before readable display names show semagacestat, not its IUPAC name."""
    iupac = ("N2-((2S)-2-(3,5-difluorophenyl)-2-hydroxyethanoyl)-N1-((7S)-5-methyl-6-oxo-6,7-"
             "dihydro-5H-dibenzo(b,d)azepin-7-yl)-L-alaninamide")  # fmt: skip
    ents = [("MESH:C484278", "semagacestat", "Compound", [], 2019, iupac)]
    mentions = [("MESH:C484278", "semagacestat", 4, "mesh:suspect")]
    _, display = build_aliases(ents, {"MESH:C484278": 0}, mentions, [], [],
                               np.zeros(1, np.int32))  # fmt: skip
    assert display == ["semagacestat"]


def test_the_linker_links_a_misspelt_name_by_spelling(idx):
    """A name an LLM (or a user) misspells links by the search's fuzzy match, not at all
    before; a short or far-off word stays unlinked."""
    from kgbuild.link.linker import Linker

    linker = Linker(idx)
    got = linker.link_names(["alzhiemer", "Alzheimer", "zzz", "qwertyuiop"], "q", embed=False)
    assert [(x.surface, x.curie, x.method) for x in got] == [
        ("alzhiemer", AD, "llm+spelling"),
        ("Alzheimer", AD, "llm+dictionary"),
        ("zzz", None, "unlinked"),
        ("qwertyuiop", None, "unlinked"),
    ]


def test_a_non_human_gene_left_from_early_years_searches_as_its_human_ortholog(idx):
    """Rat Ache kept a node from the years before the build mapped it; its name finds human
    ACHE, which the rat node no longer outranks by being named so."""
    rat, human = idx.node_of[RAT_ACHE], idx.node_of[ACHE]
    assert idx.nodes["same_as"][rat] == human and idx.nodes["same_as"][human] == -1
    hits = find_entities(idx, "acetylcholinesterase")["entities"]
    assert hits[0]["id"] == ACHE and RAT_ACHE not in [h["id"] for h in hits]
    assert find_entities(idx, RAT_ACHE)["entities"][0]["id"] == RAT_ACHE  # by ID: still there


def test_ortholog_nodes_take_the_most_relinked_target_and_never_chain():
    node_of = {"a": 0, "b": 1, "c": 2, "d": 3}
    got = ortholog_nodes(node_of, [("a", "b", 5), ("a", "c", 2), ("d", "a", 3), ("x", "b", 9)])
    assert got.tolist() == [1, -1, -1, -1]  # d → a would chain through a → b: left alone
    # a human gene relinked to another human gene is no ortholog of it
    assert ortholog_nodes(node_of, [("a", "b", 5)], human={"a"}).tolist() == [-1] * 4


def test_a_form_the_build_mostly_took_away_from_an_id_names_it_nowhere():
    """Rule 5: "ARIA" whose link to ECSCR the vocabulary check dropped in the abstracts that
    define it (amyloid-related imaging abnormalities) gives ECSCR no key from the abstracts
    that define nothing; a form kept more often than dropped stays a key."""
    ecscr, app = "NCBIGene:641700", "NCBIGene:351"
    ents = [(ecscr, "ECSCR", "Gene", [], 2019, ""), (app, "APP", "Gene", [], 2019, "")]
    node_of = {ecscr: 0, app: 1}
    mentions = [
        (ecscr, "ARIA", 5, "hgnc:kept"),
        (ecscr, "ARIA", 19, "hgnc:dropped"),  # under the annotator's ID (search.index)
        (app, "Abeta", 30, "hgnc:kept"),
        (app, "Abeta", 4, "hgnc:dropped"),
    ]
    table, _ = build_aliases(ents, node_of, mentions, [], [], np.zeros(2, np.int32))
    assert "aria" not in table["key"]
    assert table["node"][table["key"].index("abeta")] == 1
    kept_only = [m for m in mentions if m[3] != "hgnc:dropped"]
    table, _ = build_aliases(ents, node_of, kept_only, [], [], np.zeros(2, np.int32))
    assert table["node"][table["key"].index("aria")] == 0  # without the evidence, a key
