"""A question's acronym the annotator never tags ("MCI") links to what the corpus's abstracts
define it as — the mention ending right before "(MCI)", when its initials spell the acronym's
end (kgbuild/corpus/acronyms.py) — on a small real KG with abstracts and mentions."""

from __future__ import annotations

import pytest

from kgbuild.corpus.acronyms import cut_spans, initials, spells
from kgbuild.query.engine import QueryEngine
from tests.support.sentences_kg import mentions_of, publish_abstracts, question_links

AD, CD, DEM, FEVER = "MESH:D000544", "MESH:D003072", "MESH:D003704", "MESH:D005334"
DONEPEZIL = "MESH:D000077265"
NODES = [(AD, "Alzheimer disease", "Disease", ["Alzheimer's disease"]),
         (CD, "Cognition Disorders", "Disease", ["cognitive impairment"]),
         (DEM, "Dementia", "Disease", ["dementia"]), (FEVER, "Fever", "Disease", ["fever"]),
         (DONEPEZIL, "donepezil", "Compound", [])]  # fmt: skip
DOCS = [
    (str(700 + i), 2019, "MCI.",
     f"Patients with mild cognitive impairment (MCI) took donepezil ({i}). MCI often "
     "precedes Alzheimer's disease. Frontotemporal dementia (FTD) differs. A fever (CSF) "
     "was noted.",
     {"cognitive impairment": CD, "donepezil": DONEPEZIL, "Alzheimer's disease": AD,
      "dementia": DEM, "fever": FEVER})
    for i in range(3)
]  # fmt: skip


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    root = tmp_path_factory.mktemp("acronyms") / "wh"
    docs = [(p, t, a, n) for p, _, t, a, n in DOCS]
    edges = [
        (DONEPEZIL, "treats", CD, [("900", 2019, "donepezil eased cognitive impairment.", 0.8)]),
        (DEM, "associates", AD, [("901", 2019, "dementia and Alzheimer's disease.", 0.8)]),
        (FEVER, "associates", AD, [("902", 2019, "fever and Alzheimer's disease.", 0.8)]),
    ]
    publish_abstracts(root, "acr", docs, mentions_of(docs), edges, NODES)
    return QueryEngine(root, embeddings=False)


def test_an_acronym_links_to_what_its_abstracts_define_it_as(engine):
    got = question_links(engine, "Does donepezil help MCI patients?")
    assert got["MCI"] == CD and got["donepezil"] == DONEPEZIL
    r = engine.retrieve("Does donepezil help MCI patients?", embed="off")
    mci = next(x for x in r.links if x.surface == "MCI")
    assert mci.method == "corpus:abbreviation"
    # the words around it stay unlinked words, not one span with the acronym inside
    assert all("MCI" not in u for u in r.unlinked())


def test_a_long_form_that_does_not_spell_the_acronym_is_no_definition(engine):
    # "dementia (FTD)" and "fever (CSF)": their initials cover too little of the acronym
    got = question_links(engine, "Is FTD different from CSF findings in Alzheimer's disease?")
    assert got.get("FTD") is None and got.get("CSF") is None


def test_initials_and_spans():
    assert initials("cognitive impairment") == "ci" and initials("Parkinson's disease") == "pd"
    assert initials("dementia with Lewy bodies") == "dlb"
    assert spells("MCI", "cognitive impairment") and spells("CAA", "cerebral amyloid angiopathy")
    assert not spells("FTD", "dementia") and not spells("CSF", "fever")
    assert not spells("PD", "disease") and spells("PD", "Parkinson disease")
    text = "Does it help MCI patients?"
    assert cut_spans(text, [(5, 25)], [(13, 16)]) == [(5, 12), (17, 25)]
    # a cut covering a span, or part of it, takes that part
    assert cut_spans("abc def ghi", [(0, 7)], [(4, 11)]) == [(0, 3)]
    assert cut_spans("abc def ghi", [(4, 7), (8, 11)], [(0, 7)]) == [(8, 11)]


def test_an_acronym_the_question_defines_otherwise_is_not_linked(engine):
    # "FEVER" is an alias of Fever; the question says it stands for something else
    q = "Does a familial early vascular event risk (FEVER) raise Alzheimer's disease?"
    got = question_links(engine, q)
    assert got["FEVER"] is None and got["Alzheimer's disease"] == AD
    r = engine.retrieve(q, embed="off")
    assert "familial early vascular event risk" in r.unlinked()  # one phrase, not its words
    # a definition that names the linked concept keeps it, acronym and long form alike
    kept = question_links(
        engine, "Does mild cognitive impairment (MCI) precede Alzheimer's disease?"
    )
    assert kept["MCI"] == CD and kept["cognitive impairment"] == CD


def test_words_of_a_defined_long_form_linked_elsewhere_are_dropped():
    from kgbuild.corpus.acronyms import question_definitions
    from kgbuild.link.linker import Link
    from kgbuild.query.engine import defined_otherwise

    q = "Can arterial spin labelling (ASL) MRI detect Alzheimer's disease?"
    ((a, b, ls, le),) = question_definitions(q)
    assert q[a:b] == "ASL" and q[ls:le] == "arterial spin labelling"
    spin = Link("spin", "question", 1, "NCBIGene:10927", "SPIN1 (spindlin 1)", "dictionary", 1.0,
                q.index("spin"), q.index("spin") + 4)  # fmt: skip
    asl = Link("ASL", "question", 2, "NCBIGene:435", "ASL (argininosuccinate lyase)",
               "dictionary", 1.0, a, b)  # fmt: skip
    ad = Link("Alzheimer's disease", "question", 3, AD, "Alzheimer Disease", "dictionary", 1.0,
              q.index("Alzheimer"), len(q) - 1)  # fmt: skip
    kept, spans = defined_otherwise(q, [spin, asl, ad])
    assert kept == [ad] and spans == [(ls, le), (a, b)]
    assert question_definitions("Is tau (MAPT) phosphorylated?") == []  # no definition
    assert defined_otherwise("Is APP cleaved?", [ad]) == ([ad], [])
