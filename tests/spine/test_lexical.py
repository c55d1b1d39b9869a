"""The lexical gate on similarity matches: every pair below was merged by the fuzzy,
embedding or cluster step of the replayed DALK build, or is a right merge that must survive."""

import pytest

from kgbuild.lexical import incompatible


@pytest.mark.parametrize(
    ("name", "form", "semantic", "why"),
    [
        ("Abeta1-42 peptides", "abeta1 40 peptide", True, "numbers differ"),
        ("GluN2B-NMDARs", "GluN2A-NMDARs", True, "numbers differ"),
        ("M2a phenotype", "m2 phenotype", True, "numbers differ"),
        ("miR-16-5p", "mir 17 5p", True, "numbers differ"),
        ("IL-6", "IL-6R", False, "numbers differ"),
        ("B-cell lymphoma 2", "B-cell lymphoma", True, "numbers differ"),
        ("Apolipoprotein A-I KO", "apolipoprotein a i", False, "perturbation word 'ko'"),
        ("5-HT4 receptor agonist", "5 ht4 receptor", True, "perturbation word 'agonist'"),
        ("anti-Abeta antibody", "abeta", False, "perturbation word 'anti'"),
        ("no cognitive impairment", "cognitive impairment", False, "perturbation word 'no'"),
        ("mitochondrial function", "mitochondrial dysfunction", False, "antonym prefix"),
        ("hypoglycemia", "hyperglycemia", False, "antonym prefix"),
        ("phosphorylated tau", "dephosphorylated tau", False, "antonym prefix"),
        ("microglia", "dysfunctional microglia", True, "name is a part of a longer concept"),
        ("myelin", "myelin damage", True, "name is a part of a longer concept"),
        ("synaptic failure", "heart failure", True, "modifiers differ"),
        ("synaptic loss", "visual memory", True, "perturbation word 'loss'"),
        ("Abeta synaptotoxicity", "hypertension", True, "head words differ"),
        ("amyloid", "amyloidosis", True, "disease suffix on one name only"),
        ("onset of Alzheimer disease", "early onset alzheimer disease", True, "name is a part"),
        # right merges pass
        ("amyloid beta peptide", "amyloid-beta peptides", False, None),
        ("cognitive decline", "cognitive declines", True, None),
        ("tau hyperphosphorylation", "hyperphosphorylation of tau", True, None),
        ("beta-amyloid 40", "amyloid beta 40", True, None),
        ("BV2 microglial cells", "microglial bv 2 cells", True, None),
        ("human iPSC-derived neurons", "ipsc derived neurons", True, None),
        ("ipsc derived neurons", "human iPSC-derived neurons", True, None),
        ("spatial reference memory impairment", "memory impairment", True, None),
        ("tauopathies", "tauopathy", True, None),
        ("IL-6", "il 6", True, None),
        ("brain capillaries", "cerebral capillaries", True, None),
        ("short-term memory deficit", "memory deficit", True, None),
    ],
)
def test_incompatible(name, form, semantic, why):
    got = incompatible(name, form, semantic=semantic)
    assert (got is None) if why is None else (got or "").startswith(why), got


def test_list_numbers_are_not_part_of_a_name():
    from kgbuild.names import variants

    assert "alzheimer disease" in variants("1. Alzheimer's disease")
    assert "18 f florbetaben" in variants("6. 18 F-florbetaben")
    assert incompatible("dementia with Lewy bodies", "lewy body dementia", semantic=True) is None
