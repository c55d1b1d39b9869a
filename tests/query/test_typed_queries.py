"""Questions typed the way people type them: a kind named without a wh-word ("side effects of
donepezil", "donepezil side effects"), spelled with a space or hyphen ("micro RNAs",
"bio-markers"), answered as the wh-form is (kgbuild/question/kinds.py, intent.py); and "how does
X affect Y" answered first by what joins X and Y (kgbuild/query/how_pair.py) — on small real
KGs (tests/support/kinds_kg.py, tests/support/sentences_kg.py)."""

from __future__ import annotations

import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent, understood
from tests.support.kinds_kg import build_kinds_kg
from tests.support.sentences_kg import build_sentences_kg


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    root = tmp_path_factory.mktemp("typed-kinds") / "wh"
    build_kinds_kg(root)
    return QueryEngine(root, embeddings=False)


@pytest.fixture(scope="module")
def sentences(tmp_path_factory):
    root = tmp_path_factory.mktemp("typed-sentences") / "wh"
    build_sentences_kg(root)
    return QueryEngine(root, embeddings=False)


def _kind(q: str, spans: list[tuple[int, int]] | None = None) -> str | None:
    k = read_intent(q, spans).kind
    return k.key if k else None


def test_a_query_opening_with_a_kind_reads_that_kind():
    assert _kind("side effects of memantine?") == "side_effect"
    assert _kind("targets of curcumin") == "target"
    assert _kind("microRNAs in Alzheimer's disease") == "microrna"
    assert _kind("biomarkers for AD") == "biomarker"
    assert _kind("tell me the targets of huperzine A") == "target"
    assert _kind("mechanism of action of donepezil") == "mechanism"
    # after its entity, the kind ends the query or goes on with a preposition
    assert _kind("memantine side effects", [(0, 9)]) == "side_effect"
    assert _kind("AD biomarkers in CSF", [(0, 2)]) == "biomarker"
    # a claim, a yes/no question, or a kind after other words is no list question
    assert _kind("memantine targets NMDA receptors", [(0, 9)]) is None
    assert _kind("Does memantine cause side effects?") is None
    assert read_intent("Does memantine cause side effects?").yes_no
    assert _kind("Explain why memantine has side effects") is None


def test_a_query_without_a_wh_word_reads_the_answer_noun_of_its_wh_form():
    for typed, wh in [("side effects of donepezil", "What are the side effects of donepezil?"),
                      ("targets of donepezil", "What are the targets of donepezil?")]:  # fmt: skip
        a, b = read_intent(typed), read_intent(wh)
        assert (a.kind, a.answer_type, a.asked, a.wh) == (b.kind, b.answer_type, b.asked, b.wh)


def test_a_wrapped_or_noun_first_query_is_a_list_question_and_a_claim_is_not():
    for q in ("Can you list the side effects of donepezil?",
              "Are there any microRNAs that regulate APP?",
              "Is there a drug that treats Alzheimer's disease?"):  # fmt: skip
        it = read_intent(q)
        assert not it.yes_no and it.wh, q
    assert _kind("Are there any microRNAs that regulate APP?") == "microrna"
    assert _kind("drugs that target GSK3B", [(18, 23)]) == "target"  # of a gene: its drugs
    assert read_intent("genes linked to tau", [(16, 19)]).answer_type == "Gene"
    # asking whether evidence exists is a yes/no question; "drugs target GSK3B" is a claim
    assert read_intent("Is there evidence that statins prevent AD?").yes_no
    assert read_intent("Is there an association between APOE and AD?").yes_no
    it = read_intent("drugs target GSK3B", [(13, 18)])
    assert it.kind is None and not it.wh


def test_a_request_is_read_not_left_unlinked():
    # "tell me" is no phrase to find in the corpus's sentences (it matched "tell" and "telluride")
    q = "tell me the targets of huperzine A"
    assert understood(q, 0, len("tell me the targets"), read_intent(q))


def test_space_and_hyphen_spellings_of_a_kind():
    assert _kind("Which micro RNAs target ADAM10?") == "microrna"
    assert _kind("Which micro-RNAs target ADAM10?") == "microrna"
    assert _kind("What are the side-effects of donepezil?") == "side_effect"
    assert _kind("List the adverse-events of donepezil") == "side_effect"
    assert _kind("Which bio-markers indicate AD?") == "biomarker"
    assert _kind("Which bio markers indicate AD?") == "biomarker"


@pytest.mark.parametrize(
    ("typed", "wh"),
    [
        ("side effects of donepezil", "What are the side effects of donepezil?"),
        ("donepezil side effects", "What are the side effects of donepezil?"),
        ("list the side effects of donepezil", "What are the side effects of donepezil?"),
        ("targets of donepezil", "What are the targets of donepezil?"),
        ("tell me the targets of donepezil", "What are the targets of donepezil?"),
        ("micro RNAs linked to Alzheimer's disease",
         "Which microRNAs are linked to Alzheimer's disease?"),
        ("Which micro RNAs are linked to Alzheimer's disease?",
         "Which microRNAs are linked to Alzheimer's disease?"),
        # a request or an existential question around a list question is that question
        ("Can you list the side effects of donepezil?", "What are the side effects of donepezil?"),
        ("Could you tell me which microRNAs are linked to Alzheimer's disease?",
         "Which microRNAs are linked to Alzheimer's disease?"),
        ("Are there any microRNAs linked to Alzheimer's disease?",
         "Which microRNAs are linked to Alzheimer's disease?"),
        # a query opening with its answer noun
        ("genes associated with Alzheimer's disease",
         "Which genes are associated with Alzheimer's disease?"),
    ],
)  # fmt: skip
def test_a_typed_query_gets_the_answers_of_its_wh_form(kinds, typed, wh):
    got, want = kinds.retrieve(typed, embed="off"), kinds.retrieve(wh, embed="off")
    assert want.answers, wh
    assert [a["id"] for a in got.answers] == [a["id"] for a in want.answers]
    assert got.intent["answer_kind"] == want.intent["answer_kind"]


def test_how_a_pair_is_joined_by_a_fact(sentences):
    r = sentences.retrieve("How does APP affect Alzheimer's disease?", embed="off")
    v = r.verdict
    assert v is not None and v["basis"] == "facts", r.intent
    assert v["line"].startswith("what joins APP and Alzheimer disease: 1 served fact in 1 PMID")
    assert [x["pmid"] for x in v["sentences"]] == ["900"]
    assert r.intent["answer_note"] is None  # never "no answer" while a fact joins them
    assert r.triples[0].head_id == "NCBIGene:351" and r.triples[0].tail_id == "MESH:D000544"


def test_how_a_pair_is_joined_only_by_sentences(sentences):
    r = sentences.retrieve("How does lithium affect APP?", embed="off")
    v = r.verdict
    assert v is not None and v["basis"] == "sentences", r.intent
    assert "no served fact; 2 sentences in 2 abstracts naming both" in v["line"]
    assert {x["pmid"] for x in v["sentences"]} == {"507", "508"}
    assert r.intent["answer_note"] is None
    # a pair nothing joins keeps the plain note
    none = sentences.retrieve("How does donepezil affect GSK3B?", embed="off")
    assert none.verdict is None and none.intent["answer_note"].startswith("no asserted fact")


def test_kinases_and_receptors_are_kinds_named_so():
    assert _kind("Which kinases phosphorylate tau?") == "kinase"
    assert _kind("Which receptors mediate Abeta toxicity?") == "receptor"
    # coordinated with another kind of answer, or not the answer noun: no such kind (the
    # verb asks for the drug's targets, which are either)
    assert _kind("Which receptors or enzymes does galantamine act on?") == "target"
    assert _kind("Which drug is an NMDA receptor antagonist?") is None
    assert _kind("Which infectious agents are linked to AD?") == "organism"
