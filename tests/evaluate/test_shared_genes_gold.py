"""The gold answer of "Which diseases share genes with D?" (kgbuild/evaluate/shared_genes.py):
every other disease a gold file relates to one of D's genes, read from a real PubTator file."""

from __future__ import annotations

from kgbuild.evaluate.gold import read_gold_corpus
from kgbuild.evaluate.shared_genes import gold_shared, score

DOC = """1|t|APP and MAPT in two diseases.
1|a|APP is linked to Alzheimer disease and Parkinson disease; MAPT to Alzheimer disease.
1\t0\t3\tAPP\tGeneOrGeneProduct\t351
1\t8\t12\tMAPT\tGeneOrGeneProduct\t4137
1\t58\t75\tAlzheimer disease\tDiseaseOrPhenotypicFeature\tD000544
1\t80\t97\tParkinson disease\tDiseaseOrPhenotypicFeature\tD010300
1\tAssociation\t351\tD000544\tNovel
1\tPositive_Correlation\t351\tD010300\tNovel
1\tAssociation\t4137\tD000544\tNovel

2|t|Migraine and ACHE.
2|a|ACHE in migraine.
2\t0\t8\tMigraine\tDiseaseOrPhenotypicFeature\tD008881
2\t13\t17\tACHE\tGeneOrGeneProduct\t43
2\tAssociation\t43\tD008881\tNovel

"""


def test_diseases_sharing_a_gold_gene_are_the_gold_answer(tmp_path):
    path = tmp_path / "gold.PubTator"
    path.write_text(DOC)
    shared = gold_shared(read_gold_corpus(path))
    ad, pd = "MESH:D000544", "MESH:D010300"
    assert shared == {ad: {pd}, pd: {ad}}  # migraine shares no gene: not a question


def test_figures_count_the_gold_among_the_top_five():
    rows = [
        {"answers": ["a", "b"], "hit5": True, "p5": 0.5, "top5_gold": 1, "r10": 1.0},
        {"answers": [], "hit5": False, "p5": None, "top5_gold": 0, "r10": 0.0},
    ]
    got = score(rows)
    assert (got["questions"], got["answered"], got["hit_at_5"], got["p_at_5"]) == (2, 1, 0.5, 0.5)
    assert (got["recall_at_10"], got["top5_gold"], got["top5_shown"]) == (0.5, 1, 2)
