"""Scope rules from a blind judge's reading of ``negated`` and ``hypothesis`` rows:
the sentences are paraphrases of the judged errors' patterns, a negation or hedge
about a third concept, a modifier, a presupposed phrase or a study population."""

from __future__ import annotations

import pytest

from kgbuild.extract.epistemics import classify


def status(sentence: str, head: str, tail: str, in_title: bool = False) -> str:
    """The status of the pair (head, tail) in ``sentence`` (the title when ``in_title``, else
    the second sentence of a document; spans of the first occurrences)."""
    title = sentence if in_title else "T."
    text = title if in_title else f"{title} {sentence}"
    s0 = 0 if in_title else len(title) + 1
    h, t = text.index(head, s0), text.index(tail, s0)
    return classify(text, (s0, len(text)), (h, h + len(head)), (t, t + len(tail)), "",
                    in_title)[0]  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "head", "tail"),
    [
        # the endpoint only names a drug class or a part ("the X antagonist memantine")
        ("The glutamate receptor antagonist memantine did not reduce tau phosphorylation.",
         "glutamate receptor", "tau"),
        ("Treatment with the gamma-secretase inhibitor semagacestat failed to slow cognitive "
         "decline in patients with moderate Alzheimer disease.", "gamma-secretase",
         "Alzheimer disease"),
        ("The intracellular SORL1 domain does not contribute to binding with APP.", "SORL1",
         "APP"),
        ("Plasma Abeta alone was not related to hippocampal volume or AD signature cortical "
         "thickness.", "Abeta", "AD"),
        ("GM- and WM fibrinogen deposition was not different between AD and controls.", "GM",
         "AD"),
        # the endpoint modifies what follows it ("B exposure-induced death")
        ("MLA, but not hexamethonium, prevented Abeta exposure-induced cell death.",
         "hexamethonium", "Abeta"),
        # the negated predicate's argument is a third concept
        ("Resveratrol did not reduce the aggregation of Abeta42 mutants at Glu22.",
         "Resveratrol", "Glu22"),
        ("Ghrelin failed to elicit a downstream response only in APOE4 cortical neurons.",
         "Ghrelin", "APOE4"),
        ("Clusterin was found on CD11b(+) macrophages, but not on TMEM119(+) resident "
         "microglia.", "Clusterin", "TMEM119"),
        ("Compound 3 stabilizes off-pathway Abeta oligomers unable to trigger synaptic "
         "toxicity.", "Abeta", "toxicity"),
        # "can be blocked without affecting B": the agent is unnamed, not A
        ("Excitotoxicity can be blocked without affecting NMDAR-evoked calcium currents.",
         "Excitotoxicity", "calcium"),
        # a negated separation states the bond: "A is not released from B"
        ("Zinc is not released from Abeta, but remains trapped within a ternary complex.",
         "Zinc", "Abeta"),
    ],
)  # fmt: skip
def test_negation_of_a_third_concept_or_modifier_is_not_negated(sentence, head, tail):
    assert status(sentence, head, tail) != "negated"


@pytest.mark.parametrize(
    ("sentence", "head", "tail", "in_title"),
    [
        # the hedged clause's subject is a third concept; the pair is a presupposed phrase
        ("We asked whether antioxidants could relieve synaptic loss in AD.", "synaptic loss",
         "AD", False),
        ("These findings suggest that GFAP-positive reactive astrocytes may modify Abeta "
         "deposition in the AD brain.", "Abeta", "AD", False),
        ("We investigated whether noise exposure could influence the accumulation of the "
         "neurotoxic protein Abeta.", "neurotoxic", "Abeta", False),
        ("Our data suggest the hypothesis that AD susceptibility of APOE4 may originate from "
         "impaired phagocytosis.", "AD", "APOE4", False),
        ("We hypothesized that sex modulates the association between APOE4 and tau deposition "
         "in individuals with mild cognitive impairment.", "tau", "cognitive impairment",
         False),
        ("To test whether physical activity moderates the association of Abeta burden with "
         "cognitive decline.", "Abeta", "cognitive decline", False),
        # one endpoint is only context: an approved use, a cohort, a population
        ("We tested whether the drug methylene blue, used for treatment of malaria, might "
         "improve AD pathology.", "malaria", "AD", False),
        ("We assessed the relationship between APOE dosage and brain amyloid burden in the "
         "FACEHBI and Alzheimer's Disease Neuroimaging Initiative cohorts.", "APOE",
         "Alzheimer's Disease", False),
        ("We evaluated whether poor sleep is associated with mortality in patients undergoing "
         "surgery for renal cancer.", "mortality", "renal cancer", False),
        ("The presence of Abeta antibodies in IVIG might decrease neuroprotective effects in "
         "AD.", "Abeta", "AD", False),
        # two items of a list, a group, a modifier: no relation between them is hedged
        ("We hypothesize that changes in Abeta metabolism and abnormal tau phosphorylation "
         "are reasonable candidates.", "Abeta", "tau", False),
        ("Abeta plaques are thought to be responsible for this decrease in AD patients.",
         "Abeta", "AD", False),
        ("We have hypothesized a pivotal role for these AD-related proteins in autism.", "AD",
         "autism", False),
        ("This study was designed to test the interaction between amyloid and tau proteins as "
         "a determinant of metabolic decline in preclinical AD.", "tau", "AD", False),
        # the relation is granted, its details asked about
        ("Efforts have been made to explore the exact role of Abeta in AD pathogenesis.",
         "Abeta", "AD", False),
        # "a potential drug for C inhibiting B": the hedge is on C
        ("Valproate a potential drug for AD inhibiting aggregation of Abeta.", "Valproate",
         "Abeta", False),
        # a title's question after a colon, the pair related before it
        ("Chronic neuropathologies of repetitive TBI: substrates of dementia?",
         "neuropathologies", "TBI", True),
    ],
)  # fmt: skip
def test_hedge_of_a_third_concept_or_context_is_not_a_hypothesis(sentence, head, tail,
                                                                 in_title):  # fmt: skip
    assert status(sentence, head, tail, in_title) != "hypothesis"


@pytest.mark.parametrize(
    ("sentence", "head", "tail", "expected"),
    [
        ("Simvastatin did not reduce Abeta levels.", "Simvastatin", "Abeta", "negated"),
        ("Levels of TDP-43 were not associated with the rate of hippocampal atrophy.",
         "TDP-43", "hippocampal atrophy", "negated"),
        ("The CSF tau/Abeta ratio did not differ between isoflurane- versus propofol-treated "
         "patients.", "tau", "isoflurane", "negated"),
        ("ACE inhibitors may protect against AD.", "ACE", "AD", "hypothesis"),
        ("We hypothesized that HDAC2 represses BDNF.", "HDAC2", "BDNF", "hypothesis"),
        ("We investigated whether seizures promote dementia.", "seizures", "dementia",
         "hypothesis"),
        ("We investigated whether these oligosaccharides interact with Abeta.",
         "oligosaccharides", "Abeta", "hypothesis"),
        ("We hypothesized that gp120, methamphetamine and nicotine can enhance Abeta "
         "accumulation.", "gp120", "Abeta", "hypothesis"),
        ("These results suggest that calcium dysregulation may influence AD pathogenesis "
         "through the modulation of Abeta production.", "AD", "Abeta", "hypothesis"),
        ("Is amyloid a cause of dementia?", "amyloid", "dementia", "hypothesis"),
        # a determiner inside the subject ("in this trial") opens no second subject, and
        # "progression to B" speaks of B (GuidAge, PMID 22959217)
        ("Long-term use of standardised ginkgo biloba extract in this trial did not reduce the "
         "risk of progression to Alzheimer's disease compared with placebo.", "ginkgo biloba",
         "Alzheimer's disease", "negated"),
        ("Cdk5 and its regulatory subunit p35 is thought to be important in neurodegenerative "
         "disease pathogenesis.", "Cdk5", "neurodegenerative disease", "hypothesis"),
    ],
)  # fmt: skip
def test_negation_or_hedge_of_the_pair_stays(sentence, head, tail, expected):
    in_title = sentence.endswith("?")
    assert status(sentence, head, tail, in_title) == expected
