"""Negation and hedge scoped to the pair: a cue counts only when it governs the
relation between the two endpoints, not a group, a third concept or another clause."""

from __future__ import annotations

import pytest

from kgbuild.extract.epistemics import classify


def status(sentence: str, head: str, tail: str, relation: str = "") -> str:
    """The status of the pair (head, tail) in ``sentence``, the second sentence of a document
    (spans of the first occurrences; co-occurrence passes no relation)."""
    title = "T."
    text = f"{title} {sentence}"
    s0 = len(title) + 1
    h, t = text.index(head, s0), text.index(tail, s0)
    got = classify(text, (s0, len(text)), (h, h + len(head)), (t, t + len(tail)), relation)
    return got[0]


APOE_AGE = "The protective effect of APOE epsilon2 allele for AD was unaffected by age."
INDEPENDENT = ("Midlife Hypertension Is a Strong Risk Factor for Alzheimer Disease, Independent "
               "of Apolipoprotein E epsilon4 Genotype.")  # fmt: skip
NO_DEMENTIA = (
    "Compared to individuals with no dementia, carriers of APOE4 had higher amyloid burden."
)
NO_DIABETES = ("Among participants without diabetes, higher glucose was associated with a higher "
               "risk of dementia.")  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "head", "tail"),
    [
        # "unaffected by age" negates the effect's dependence on age, not APOE–AD
        (APOE_AGE, "APOE", "AD"),
        (APOE_AGE, "AD", "age"),
        # "independent of" a third concept (an adjunct) negates nothing between the pair
        (INDEPENDENT, "Hypertension", "Alzheimer Disease"),
        (INDEPENDENT, "Alzheimer Disease", "Apolipoprotein E"),
        ("CSF Abeta42 is associated with the diagnosis of AD and cortical Abeta accumulation "
         "independent of APOE genotype.", "AD", "Abeta accumulation"),
        # a negation naming a group is not a negation of a relation
        (NO_DEMENTIA, "dementia", "APOE4"),
        (NO_DEMENTIA, "APOE4", "amyloid"),
        (NO_DIABETES, "glucose", "dementia"),
        (NO_DIABETES, "diabetes", "glucose"),
        ("Non-demented carriers of APOE4 showed increased amyloid deposition.", "APOE4",
         "amyloid"),
        # pseudo-negations
        ("APOE not only raises Abeta levels but also impairs their clearance.", "APOE", "Abeta"),
        ("KUZ overexpression not only failed to rescue the memory deficit, it exacerbated this "
         "deficit.", "KUZ", "memory deficit"),
        ("Abeta is necessary, but not sufficient, to cause AD.", "Abeta", "AD"),
        ("Amyloid is not necessarily toxic, and TREM2 bound Abeta in microglia.", "TREM2",
         "Abeta"),
        # the negation ends at a termination term ("no significant difference …, but")
        ("There was no significant difference in age between groups, but TREM2 was "
         "associated with tau.", "TREM2", "tau"),
        ("No significant difference in tau was found between groups but APOE4 increased "
         "amyloid.", "tau", "APOE4"),
        # "did not differ between A and B": A and B are the groups compared
        ("Tau levels did not differ between AD patients and controls.", "AD", "controls"),
        # contrast: "A increased C but not B" negates A–B only
        ("Lithium reduced tau phosphorylation but not Abeta production.", "tau", "Abeta"),
        # "without" + a noun names a condition
        ("Patients with hypertension but without diabetes had more amyloid.", "hypertension",
         "diabetes"),
        # the object of a verb is not the subject of a later negation
        ("Galantamine decreased IL-1 and TNF, but did not change IL-6.", "TNF", "IL-6"),
        # "NO" is nitric oxide, "NOR" novel object recognition
        ("Abeta increased NO production by iNOS in microglia.", "Abeta", "iNOS"),
        # a hedged negation is no denial
        ("Galantamine may not cure AD, but it slows its progression.", "Galantamine", "AD"),
    ],
)  # fmt: skip
def test_negation_outside_the_pair_is_not_a_negated_relation(sentence, head, tail):
    assert status(sentence, head, tail) != "negated"


@pytest.mark.parametrize(
    ("sentence", "head", "tail"),
    [
        ("Donepezil did not increase ACHE activity in mice.", "Donepezil", "ACHE"),
        ("No association between APOE and dementia was found.", "APOE", "dementia"),
        ("We found no association between APOE and dementia.", "APOE", "dementia"),
        ("APOE was not associated with dementia in this cohort.", "APOE", "dementia"),
        ("Clusterin does not bind amyloid in plasma.", "Clusterin", "amyloid"),
        ("Lack of effect of statins on Abeta levels in CSF.", "statins", "Abeta"),
        ("Simvastatin had no effect on BACE1 expression.", "Simvastatin", "BACE1"),
        ("Tau levels did not differ between APOE4 carriers and non-carriers.", "Tau", "APOE4"),
        ("Lithium reduced tau phosphorylation without affecting Abeta production.", "Lithium",
         "Abeta"),
        ("Lithium reduced tau phosphorylation but not Abeta production.", "Lithium", "Abeta"),
        ("Neither Abeta40 nor its reverse peptide affected COX-2 expression.", "Abeta40",
         "COX-2"),
        ("CSF tau and plasma Abeta were not correlated.", "tau", "Abeta"),
        ("The association between homocysteine and dementia was not significant.",
         "homocysteine", "dementia"),
        ("Cortical Abeta deposition was not increased in diabetic mice.", "Abeta", "diabetic"),
    ],
)  # fmt: skip
def test_negation_of_the_relation_stays(sentence, head, tail):
    assert status(sentence, head, tail) == "negated"


@pytest.mark.parametrize(
    ("sentence", "head", "tail"),
    [
        # the hedge governs another clause
        ("APOE4 carriers may be at higher risk, and TREM2 increased tau in our cohort.",
         "TREM2", "tau"),
        ("Statins might help; however, simvastatin lowered cholesterol in all patients.",
         "simvastatin", "cholesterol"),
        # a reported ability is a result, not a conjecture
        ("Genistein could reverse the down-regulation of Nrf2 induced by Abeta.", "Genistein",
         "Nrf2"),
        # "probable AD" is a diagnosis
        ("Donepezil improved cognition in patients with probable AD.", "Donepezil", "AD"),
        # items of a list under "whether" are not hypothesised to relate to each other
        ("We asked whether BACE1 or cathepsin B produces pGlu-Abeta.", "BACE1", "cathepsin B"),
        # the pair names the model, not a relation ("in APP/PS1 transgenic mice")
        ("We examined the effect of CXCR3 in APP transgenic mice.", "CXCR3", "APP"),
        # an aim that names no relation
        ("To study its safety, donepezil was given to patients and reduced ACHE activity.",
         "donepezil", "ACHE"),
    ],
)  # fmt: skip
def test_hedge_outside_the_pair_is_not_a_hypothesis(sentence, head, tail):
    assert status(sentence, head, tail) != "hypothesis"


@pytest.mark.parametrize(
    ("sentence", "head", "tail"),
    [
        ("Clioquinol may inhibit Abeta aggregation.", "Clioquinol", "Abeta"),
        ("APOE might increase the risk of dementia.", "APOE", "dementia"),
        ("We hypothesized that TREM2 regulates microglial clearance of Abeta.", "TREM2",
         "Abeta"),
        ("We asked whether clusterin binds amyloid.", "clusterin", "amyloid"),
        ("These data suggest that insulin enhances Abeta degradation.", "insulin", "Abeta"),
        ("To examine the effect of IGF-1 on BACE1 expression, mice were injected.", "IGF-1",
         "BACE1"),
        ("The role of CLU in AD remains unclear.", "CLU", "AD"),
        ("Copper is thought to promote Abeta aggregation.", "Copper", "Abeta"),
        ("GSK-3beta is a potential target for the treatment of AD.", "GSK-3beta", "AD"),
        ("Whether or not APOE binds Abeta is unclear.", "APOE", "Abeta"),
    ],
)  # fmt: skip
def test_hedge_of_the_relation_stays(sentence, head, tail):
    assert status(sentence, head, tail) == "hypothesis"


def test_methods_and_objective_sections_are_not_hypotheses():
    title = "A study."
    text = (f"{title} OBJECTIVES: Amyloid and tau shape the course of AD. "
            "METHODS: CSF Abeta and tau were measured in 40 patients.")  # fmt: skip

    def span(w, after=0):
        i = text.index(w, after)
        return i, i + len(w)

    m = text.index("METHODS")
    s1 = (text.index("Amyloid"), m - 1)
    s2 = (m, len(text))
    assert classify(text, s1, span("tau"), span("AD"))[0] == "background"
    assert classify(text, s2, span("Abeta", m), span("tau", m)) == ("unstated", "METHODS:")
