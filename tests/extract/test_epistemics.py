"""The epistemic status of an evidence sentence: each status, NegEx scope, precedence."""

from __future__ import annotations

import pytest

from kgbuild.extract.epistemics import STATUSES, classify, cues


def status(sentence: str, head: str, tail: str, relation: str = "", title: str = "T.") -> tuple:
    """Classify ``sentence`` as the second sentence of a document titled ``title``."""
    text = f"{title} {sentence}"
    s0 = len(title) + 1
    h = text.index(head, s0)
    t = text.index(tail, s0)
    return classify(text, (s0, len(text)), (h, h + len(head)), (t, t + len(tail)), relation)


@pytest.mark.parametrize(
    ("sentence", "head", "tail", "relation", "expected"),
    [
        (
            "APOE increases the risk of Alzheimer disease.",
            "APOE",
            "Alzheimer",
            "increases",
            "asserted",
        ),
        (
            "We found no association between APOE and dementia.",
            "APOE",
            "dementia",
            "associated",
            "negated",
        ),
        (
            "Donepezil did not reduce ACHE activity in mice.",
            "Donepezil",
            "ACHE",
            "reduces",
            "negated",
        ),
        ("Tau and APP levels were not correlated.", "Tau", "APP", "correlated", "negated"),
        ("APOE may increase the risk of dementia.", "APOE", "dementia", "increases", "hypothesis"),
        (
            "We asked whether clusterin binds amyloid.",
            "clusterin",
            "amyloid",
            "binds",
            "hypothesis",
        ),
        (
            "These data suggest that TREM2 regulates microglia.",
            "TREM2",
            "microglia",
            "regulates",
            "hypothesis",
        ),
        (
            "Copper is thought to promote Abeta aggregation.",
            "Copper",
            "Abeta",
            "promotes",
            "hypothesis",
        ),
        (
            "Previous studies linked homocysteine to dementia.",
            "homocysteine",
            "dementia",
            "linked",
            "background",
        ),
        ("APOE has been shown to bind Abeta.", "APOE", "Abeta", "binds", "background"),
    ],
)
def test_each_status(sentence, head, tail, relation, expected):
    assert status(sentence, head, tail, relation)[0] == expected


def test_negation_outside_scope_does_not_count():
    # "without affecting Z": the negation governs Z, not the claim about X and Y
    s = "Lithium reduced tau phosphorylation without affecting neuronal survival in culture."
    assert status(s, "Lithium", "tau", "reduces") == ("asserted", "")
    # a terminator ends the scope: "no X ..., but Y increased Z"
    s = "There was no change in weight, but insulin increased glucose uptake."
    assert status(s, "insulin", "glucose", "increases")[0] == "asserted"


def test_contrastive_not_negates_only_its_phrase():
    s = "Abeta, not tau, induced synaptic loss in these slices."
    assert status(s, "Abeta", "synaptic loss", "induces")[0] == "asserted"
    assert status(s, "tau", "synaptic loss", "induces")[0] == "negated"


def test_pseudo_negation_is_no_negation():
    s = "APOE not only raises Abeta levels but also impairs clearance."
    assert status(s, "APOE", "Abeta", "raises")[0] == "asserted"


def test_hedge_reaches_only_its_clause():
    s = "Statins might help; however, simvastatin lowered cholesterol in all patients."
    assert status(s, "simvastatin", "cholesterol", "lowers")[0] == "asserted"


def test_precedence_negation_over_hedge_over_background():
    s = "Previous studies suggested that APOE does not bind tau."
    assert status(s, "APOE", "tau", "binds") == ("negated", "does not")
    # a hedged negation is a hedge: "may not" does not deny the relation
    s = "Previous studies suggested that APOE may not bind tau."
    assert status(s, "APOE", "tau", "binds")[0] == "hypothesis"
    s = "Previous studies suggested that APOE may bind tau."
    assert status(s, "APOE", "tau", "binds")[0] == "hypothesis"


def test_structured_abstract_sections():
    title = "A study."
    text = (f"{title} BACKGROUND: APOE raises the risk of dementia. "
            "RESULTS: Clusterin bound amyloid in plasma.")  # fmt: skip

    def span(w):
        i = text.index(w)
        return i, i + len(w)

    s1 = (text.index("APOE"), text.index("dementia.") + 9)
    s2 = (text.index("Clusterin"), len(text))
    assert classify(text, s1, span("APOE"), span("dementia"), "raises") == (
        "background",
        "BACKGROUND:",
    )
    assert classify(text, s2, span("Clusterin"), span("amyloid"), "binds")[0] == "asserted"


def test_title_question_is_a_hypothesis():
    text = "Does APOE cause dementia? We studied 200 patients."
    s = (0, text.index("?") + 1)
    got = classify(text, s, (5, 9), (16, 24), "causes", in_title=True)
    assert got == ("hypothesis", "title question")


def test_not_in_sentence():
    text = "T. APOE was measured. It was high in dementia patients."
    h, t = text.index("APOE"), text.index("dementia")
    # a run of two sentences, and no sentence of it names both endpoints
    got = classify(text, (3, len(text)), (h, h + 4), (t, t + 8), "associates", False,
                   ("APOE", "dementia"))  # fmt: skip
    assert got == ("not_in_sentence", "evidence runs over 2 sentences")
    # an endpoint outside the cited sentence
    s = (3, text.index("measured.") + 9)
    assert classify(text, s, (h, h + 4), (t, t + 8))[0] == "not_in_sentence"
    # no span and the name absent from the sentence
    assert classify(text, s, None, None, "", False, ("APOE", "tau"))[0] == "not_in_sentence"


def test_multi_sentence_run_with_one_sentence_naming_both_is_judged_on_it():
    text = "T. Abeta oligomers block LTP. Wnt prevents Abeta oligomer-induced toxicity."
    h, t = text.index("Abeta"), text.index("toxicity")
    got = classify(text, (3, len(text)), (h, h + 16), (t, t + 8), "causes", False,
                   ("Abeta oligomers", "toxicity"))  # fmt: skip
    assert got[0] == "asserted"


def test_cue_table_is_data_with_sources():
    table = cues()
    assert {c.kind for c in table} == {"negation", "pseudo", "hedge", "background", "terminator"}
    assert all(c.source for c in table)
    assert set(STATUSES) == {
        "asserted",
        "hypothesis",
        "negated",
        "background",
        "not_in_sentence",
        "unstated",
        "unsupported",  # set by the relation verifier after extraction
        "proposed",  # set by the sentence reader: it read the sentence as another relation
    }


@pytest.mark.parametrize(
    ("sentence", "head", "tail", "relation", "expected"),
    [
        # a specific claim (binding) over a mere co-mention: unstated
        ("Clusterin and amyloid were both present in CSF.", "Clusterin", "amyloid",
         "binds", "unstated"),
        # the same endpoints with the relation written between them: asserted
        ("Clusterin binds amyloid in CSF.", "Clusterin", "amyloid", "binds", "asserted"),
        # a change word of the family states a signed change ("reduced" for "downregulates")
        ("Donepezil reduced ACHE activity in mice.", "Donepezil", "ACHE", "DOWNREGULATES",
         "asserted"),
        # inside a hyphenated compound ("Abeta-induced"), the relation is written
        ("Abeta-induced apoptosis was seen in neurons.", "Abeta", "apoptosis", "causes",
         "asserted"),
        # the relation word far from both endpoints (beyond the window) does not count
        ("APOE and TREM2 were genotyped in all participants of the cohort, which was "
         "later found to bind to nothing.", "APOE", "TREM2", "binds", "unstated"),
        # an association is read from context ("the role of X in Y"): not checked
        ("PLD3 has a central role in Abeta pathology.", "PLD3", "Abeta", "associates",
         "asserted"),
    ],
)  # fmt: skip
def test_relation_stated(sentence, head, tail, relation, expected):
    assert status(sentence, head, tail, relation)[0] == expected


def test_unstated_is_a_status_after_negation():
    assert "unstated" in STATUSES
    # a negated relation that does not state the claim's own relation stays negated (the most
    # damaging misreading comes first)
    got = status("Clusterin did not change amyloid levels.", "Clusterin", "amyloid", "binds")
    assert got[0] == "negated"
