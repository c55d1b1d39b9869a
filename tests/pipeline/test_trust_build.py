"""Facts a curator would sign, end to end on a tiny corpus: a mouse gene ID becomes the human
gene's node with the species kept on the evidence, a form that names nothing its ID denotes
loses the ID, and `kgbuild quality` reports the vocabulary check (real HGNC and MeSH data
files, installed by `make install` from vocabularies.txt)."""

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.report.quality import snapshot_quality
from kgbuild.resolve.vocabularies import installed
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES

pytestmark = pytest.mark.skipif(
    not (installed()["mesh"] and installed()["hgnc"]),
    reason="vocabularies not installed (make install installs vocabularies.txt)",
)


def test_one_node_per_gene_species_on_evidence_and_vocabulary_figures(tmp_path):
    wh_path = tmp_path / "wh"
    build_kg(FIXTURES / "species_corpus", kg="t", warehouse=wh_path, extractor="cooccurrence")
    wh = Warehouse(wh_path)
    sid = wh.resolve("latest")
    ids = {m[0]: m[1:] for m in wh.query(
        "SELECT text || '@' || start, concept_id, annotator_id, id_check FROM mentions_at(?)", [sid]
    )}  # fmt: skip
    app = [v for k, v in ids.items() if k.startswith("App@")]
    assert app and all(v[0] == "NCBIGene:351" and v[1] == "NCBIGene:11820" for v in app)
    # "Toxicity" is no "Drug-Related Side Effects and Adverse Reactions": the ID goes, text stays
    tox = next(v for k, v in ids.items() if k.startswith("Toxicity@"))
    assert tox[0] is None and tox[1] == "MESH:D064420" and tox[2] == "mesh:dropped"
    # the mouse App and the human amyloid beta are one node; the evidence keeps the species
    nodes = {r[0] for r in wh.query(
        "SELECT head_id FROM triples_at(?) UNION SELECT tail_id FROM triples_at(?)", [sid, sid]
    )}  # fmt: skip
    assert "NCBIGene:351" in nodes and "NCBIGene:11820" not in nodes
    species = {r[0] for r in wh.query(
        "SELECT e.species FROM evidence_at(?) e JOIN triples_at(?) t USING (triple_id) "
        "WHERE (t.head_id = 'NCBIGene:351' OR t.tail_id = 'NCBIGene:351') "
        "AND e.sentence LIKE '%App %'", [sid, sid]
    )}  # fmt: skip
    assert species == {"NCBIGene:11820=mouse"}
    human_only = wh.query(
        "SELECT DISTINCT e.species FROM evidence_at(?) e WHERE e.sentence LIKE 'Human APOE%'",
        [sid],
    )
    assert human_only == [("",)]
    q = snapshot_quality(wh, sid)
    assert q["mentions_moved_to_human_ortholog"] == 2 and q["mentions_vocabulary_dropped"] == 1
    mesh = next(r for r in q["vocabulary"] if r["vocabulary"] == "mesh")
    assert mesh["mentions_dropped"] == 1 and mesh["mentions_kept"] >= 2
