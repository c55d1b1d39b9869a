from kgbuild import schema
from kgbuild.pair_relations import pair_relation, pair_relations, signed_name, signed_reading
from tests.conftest import shared


def test_type_map_follows_dalk_table_10():
    assert schema.hetionet_kind("Gene") == "Gene"
    assert schema.hetionet_kind("Chemical") == "Compound"
    assert schema.hetionet_kind("Disease") == "Disease"
    for kept_as_mention in ("Species", "CellLine", "ProteinMutation", "SNP", "Chromosome"):
        assert schema.hetionet_kind(kept_as_mention) is None
    assert schema.hetionet_kind("GeneOrGeneProduct") == "Gene"


def test_table_11_pairs_and_directions():
    rels = {(o.head_kind, o.relation, o.tail_kind): o for o in schema.type_pair_relations()}
    assert len(rels) == 13
    assert rels[("Gene", "regulates", "Gene")].direction == "directed"
    assert rels[("Gene", "interacts", "Gene")].direction == "symmetric"
    assert rels[("Compound", "treats", "Disease")].direction == "oriented"
    assert {o.relation for o in schema.relations_for("Gene", "Disease")} == {
        "associates",
        "upregulates",
        "downregulates",
    }
    assert schema.relations_for("Gene", "Anatomy") == []
    assert schema.hetionet_relations() == {
        "covaries",
        "interacts",
        "regulates",
        "resembles",
        "downregulates",
        "upregulates",
        "associates",
        "binds",
        "treats",
        "palliates",
    }


def test_curies():
    assert schema.to_curies("Gene", "351;11820") == ["NCBIGene:351", "NCBIGene:11820"]
    assert schema.to_curies("Disease", "MESH:D000544") == ["MESH:D000544"]
    assert schema.to_curies("DiseaseOrPhenotypicFeature", "D003409") == ["MESH:D003409"]
    assert schema.to_curies("Species", "9606") == ["NCBITaxon:9606"]
    assert schema.to_curies("CellLine", "CVCL_0019;NCBITaxID:9606") == ["cellosaurus:CVCL_0019"]
    assert schema.to_curies("CellLine", "CVCL:1E42") == ["cellosaurus:CVCL_1E42"]
    assert schema.to_curies("ProteinMutation", "tmVar:p|SUB|M|146|V;HGVS:p.M146V") == [
        "tmVar:p|SUB|M|146|V"
    ]
    assert schema.to_curies("Gene", "-") == []
    # Composite mentions: BioRED lists concepts with ",", BC5CDR with "|".
    assert schema.to_curies("GeneOrGeneProduct", "836,840") == ["NCBIGene:836", "NCBIGene:840"]
    assert schema.to_curies("Disease", "D002971|D002972") == ["MESH:D002971", "MESH:D002972"]
    assert schema.to_curies("SequenceVariant", "c|DEL|1314_1328|") == ["tmVar:c|DEL|1314_1328|"]
    assert schema.to_curies("SequenceVariant", "rs1800562") == ["tmVar:rs1800562"]
    assert schema.to_curies("SequenceVariant", "c|Allele|A|-1082") == ["tmVar:c|Allele|A|-1082"]
    assert schema.to_curies("SequenceVariant", "p.G593S") == ["tmVar:p.G593S"]
    assert schema.to_curies("Chemical", "-1") == []
    assert schema.to_curies("CellLine", "T cell") == []


def test_metaedges_agree_with_hetionet():
    path = shared("hetionet", "metaedges.tsv")
    theirs = set()
    for line in path.read_text().splitlines()[1:]:
        metaedge, abbr = line.split("\t")[:2]
        sep = " > " if " > " in metaedge else " - "
        s, r, t = metaedge.split(sep)
        theirs.add((abbr, s, r, t, "directed" if sep == " > " else "undirected"))
    ours = {
        (m["abbreviation"], m["source_kind"], m["relation"], m["target_kind"], m["direction"])
        for m in schema.metaedges()
    }
    assert ours == theirs and len(ours) == 24
    kinds = shared("hetionet", "metanodes.tsv").read_text().splitlines()[1:]
    assert set(schema.metanodes()) == {k.split("\t")[0] for k in kinds}
    for o in schema.type_pair_relations():
        assert o.metaedge in {m[0] for m in ours}


#: BioRED's relation types (Luo et al. 2022, the BioRED annotation guideline).
BIORED_TYPES = (
    "Association", "Positive_Correlation", "Negative_Correlation", "Bind", "Cotreatment",
    "Comparison", "Drug_Interaction", "Conversion",
)  # fmt: skip


def test_every_kind_pair_of_the_schema_names_every_biored_type():
    from kgbuild.resolve.relations import OPEN_PREDICATES

    pairs = {tuple(sorted((o.head_kind, o.tail_kind))) for o in schema.type_pair_relations()}
    assert pairs == {
        ("Compound", "Compound"), ("Compound", "Disease"), ("Compound", "Gene"),
        ("Disease", "Disease"), ("Disease", "Gene"), ("Gene", "Gene"),
    }  # fmt: skip
    metaedges = {r["abbreviation"]: r for r in schema.metaedges()}
    known = schema.hetionet_relation_names() | OPEN_PREDICATES.keys()
    for a, b in sorted(pairs):
        for reading in BIORED_TYPES:
            row = pair_relation(reading, b, a)  # either order
            assert row is not None, (reading, a, b)
            assert (row.head_kind, row.tail_kind) == (a, b) and row.relation in known
            if row.metaedge:  # a Hetionet metaedge of this pair, under its own name
                edge = metaedges[row.metaedge]
                assert edge["relation"] == row.relation
                assert {edge["source_kind"], edge["target_kind"]} == {a, b}
    assert len(pair_relations()) == len(pairs) * len(BIORED_TYPES) + 1  # + BC5CDR CID


def test_a_chemical_that_induces_a_disease_causes_it_and_one_that_lowers_it_treats_it():
    assert pair_relation("CID", "Disease", "Compound").relation == "causes"
    assert pair_relation("Positive_Correlation", "Compound", "Disease").relation == "causes"
    assert pair_relation("Negative_Correlation", "Compound", "Disease").relation == "treats"
    assert pair_relation("Positive_Correlation", "Compound", "Gene").metaedge == "CuG"
    assert signed_name("upregulates", "Compound", "Disease") == "causes"
    assert signed_name("downregulates", "Compound", "Disease") == "treats"
    # stated the other way round ("a disease raises a chemical's level"), the sign stays
    assert signed_name("upregulates", "Disease", "Compound") == "upregulates"
    assert signed_name("upregulates", "Compound", "Gene") == "upregulates"
    assert signed_name("upregulates", None, "Disease") == "upregulates"
    # the inverse, for a model trained on signed labels
    assert signed_reading("causes", "Compound", "Disease") == "upregulates"
    assert signed_reading("causes", "Gene", "Disease") == "causes"
