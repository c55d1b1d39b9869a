"""Open questions whose subject is an unlinked phrase, answered from the sentences writing it
(kgbuild/query/phrase_answer.py, kgbuild/question/question_phrase.py), on a real KG
(tests/support/phrase_kg.py)."""

import re

import pytest

from kgbuild.question.intent import read_intent
from kgbuild.question.question_phrase import candidates, runs, shorter
from tests.support.phrase_kg import phrase_engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return phrase_engine(tmp_path_factory, "phrase")


def _ask(engine, q: str):
    return engine.retrieve(q, embed="off")


def test_a_pathway_phrase_is_answered_by_the_genes_its_sentences_name(engine):
    q = "Which genes in the Notch signaling pathway are associated with Alzheimer's disease?"
    r = _ask(engine, q)
    v = r.verdict
    assert v is not None and v["basis"] == "sentences" and v["phrase"] == "Notch signaling pathway"
    assert v["line"].startswith("from sentences, not extracted facts")
    # PSEN1 in three abstracts' pathway sentences, HES1 and JAG1 in one; EVILGENE is named only
    # in a run-on "sentence" no one can read: it follows, as named in the same abstracts only.
    # APP is named in most of the corpus's abstracts (its topic, as AD is DALK's): no answer
    said = [a["name"] for a in r.answers if a["basis"] == "sentence"]
    assert said[0] == "PSEN1" and set(said) == {"PSEN1", "HES1", "JAG1"}, said
    assert all(a["pmid"] and a["sentence"] for a in r.answers[:3])
    rest = r.answers[3:]
    assert {a["name"] for a in rest} == {"EVILGENE"}
    assert all(a["basis"] == "same_abstract" and not a["sentence"] for a in rest)
    assert r.answers[0]["support"] == 3
    # the sentence naming the question's other entity (AD) first, the phrase marked
    assert v["sentences"][0]["pmid"] == "601"
    assert "«Notch signaling pathway»" in v["sentences"][0]["sentence"]
    assert "«Alzheimer's disease»" in v["sentences"][0]["sentence"]
    # the JSON says where the answer comes from
    d = r.to_dict()
    assert d["verdict"]["basis"] == "sentences" and d["answers"][0]["basis"] == "sentence"


def test_a_shorter_form_of_the_phrase_is_read_after_the_whole(engine):
    q = "Which genes in the Notch signaling pathway are associated with Alzheimer's disease?"
    v = _ask(engine, q).verdict
    # "JAG1 activates Notch signaling" writes the phrase without its generic head
    assert "'Notch signaling'" in v["line"]
    assert "603" in v["pmids"]


def test_a_kind_the_kg_has_no_entities_for_lists_sentences_and_says_so(engine):
    # "cell types" is the kind asked (a kind the KG has no entities of), so the phrase read
    # is what is said of TREM2: the sentences saying where it is expressed
    r = _ask(engine, "Which cell types express TREM2?")
    v = r.verdict
    assert v is not None and v["basis"] == "sentences" and v["phrase"] == "express"
    assert r.answers == []  # no unrelated genes stand in for cell types
    assert "no cell type entities" in r.intent["answer_note"]
    assert v["sentences"][0]["pmid"] == "604"
    assert "«expressed»" in v["sentences"][0]["sentence"]
    assert "«TREM2»" in v["sentences"][0]["sentence"]


def test_a_question_naming_only_a_phrase_is_answered_from_its_sentences(engine):
    r = _ask(engine, "Which studies describe microglia?")
    assert not any(x.node is not None for x in r.links)
    assert r.found and r.message is None  # not "no entity of this snapshot found"
    assert r.verdict["phrase"] == "microglia"
    assert r.verdict["sentences"][0]["pmid"] == "604"


def test_a_phrase_no_sentence_names_says_so(engine):
    r = _ask(engine, "What role does the Hedgehog pathway play in Alzheimer's disease?")
    v = r.verdict
    assert v is not None and v["answer"] == "not found" and v["sentences"] == []
    assert "no sentence of the corpus names 'Hedgehog'" in v["line"]


def test_a_linked_subject_keeps_the_fact_answers(engine):
    # the disease comes first: its facts answer; the phrase only qualifies them
    r = _ask(engine, "Which genes are associated with Alzheimer's disease in the Notch pathway?")
    assert r.verdict is None
    assert [a["name"] for a in r.answers][:2] == ["APP", "TREM2"]
    assert all(a["basis"] == "fact" for a in r.answers[:2])


def test_a_word_said_of_the_answer_is_no_phrase(engine):
    # "bad" follows the answer's verb: it says what the genes are, it names nothing
    r = _ask(engine, "Which genes are bad for Alzheimer's disease?")
    assert r.verdict is None
    assert [a["name"] for a in r.answers][:2] == ["APP", "TREM2"]


def test_yes_no_questions_are_left_to_the_verdicts(engine):
    r = _ask(engine, "Is the Notch signaling pathway associated with Alzheimer's disease?")
    assert r.verdict is None or r.verdict.get("phrase") is None


@pytest.mark.parametrize(
    "q",
    [
        "Which genes in the Notch (signaling) pathway* are associated with AD?",
        "What role does the Notch'; DROP TABLE documents;-- pathway play?",
        "Which genes in the <b>Notch</b> $sid \\1 pathway are associated with AD?",
        "Which " + "Notch " * 200 + "pathway genes?",
    ],
)
def test_hostile_questions_are_read_safely(engine, q):
    r = _ask(engine, q)
    assert r.verdict is None or r.verdict["basis"] == "sentences"
    assert _ask(engine, "Which cell types express TREM2?").verdict["sentences"]  # still intact


def _runs(q: str, linked: list[str]) -> list[list[str]]:
    spans = [(q.index(x), q.index(x) + len(x)) for x in linked]
    it = read_intent(q, spans)
    return [[q[a:b] for a, b, _ in r] for r in runs(q, spans, it)]


def test_the_phrase_runs_leave_out_question_words_cues_and_generic_words():
    # "role" alone names nothing; the kind's noun ("pathway") is read, not a phrase word
    assert _runs("What role does the PI3K/Akt pathway play in AD?", ["AD"]) == [
        ["PI3K/Akt"],
        ["play"],
    ]
    # the words describing the answer ("CSF biomarkers", "drugs target") are no phrase
    assert _runs("What CSF biomarkers are used for AD?", ["AD"]) == []
    assert _runs("Which drugs target GSK3B?", ["GSK3B"]) == []
    # a linked name inside a run modifies its head ("Notch" of "Notch signaling pathway")
    q = "Which genes in the Notch signaling pathway are associated with AD?"
    assert _runs(q, ["Notch", "AD"]) == [["Notch", "signaling", "pathway"]]


def test_the_verb_after_the_asked_kind_is_no_phrase():
    # "make up" is what the proteins do, up to the article; the complex is what is named
    q = "which proteins make up the gamma-secretase complex"
    assert _runs(q, []) == [["gamma-secretase", "complex"]]
    assert _runs("Which kinase phosphorylates tau downstream of p25?", ["tau"]) == [["p25"]]
    # a how-question's subject follows its cue and is kept
    assert _runs("how does tau pathology spread through the brain", ["tau"])[0] == [
        "tau",
        "pathology",
        "spread",
    ]


def test_a_phrase_ends_in_an_unlinked_head_and_never_cuts_a_linked_name():
    q = "Which markers indicate mild cognitive impairment?"
    span = [(q.index("mild"), len(q) - 1)]
    it = read_intent(q, span)
    forms = [c.text for r in runs(q, span, it) for c in candidates(q, r, span)]
    assert "indicate mild cognitive impairment" not in forms and "indicate mild" not in forms
    q = "Which genes in the Notch signaling pathway are associated with AD?"
    span = [(q.index("Notch"), q.index("Notch") + 5)]
    it = read_intent(q, span)
    forms = [c.text for c in candidates(q, runs(q, span, it)[0], span)]
    assert forms[0] == "Notch signaling pathway" and "Notch" not in forms
    assert [p.text for p in shorter(candidates(q, runs(q, span, it)[0], span)[0])] == [
        "Notch signaling",
        "Notch",
    ]
    # a linked name inside modifies a generic head only: "tenofovir disoproxil fumarate" is
    # tenofovir, whose facts answer (what is left comes after it: not the subject)
    q = "What are the side effects of tenofovir disoproxil fumarate?"
    span = [(q.index("tenofovir"), q.index("tenofovir") + 9)]
    it = read_intent(q, span)
    forms = [c.text for r in runs(q, span, it) for c in candidates(q, r, span)]
    assert forms == ["disoproxil fumarate", "disoproxil", "fumarate"]


def test_a_phrase_ending_in_a_number_never_finds_a_longer_number():
    # "miR-29" is the family of miR-29a/b/c, not miR-299 (in Python and in DuckDB's RE2)
    import duckdb

    from kgbuild.query.verdict_sentences import Side
    from kgbuild.question.question_phrase import Phrase

    phrase = Phrase("miR-29", 0, 6, ("mir", "29"))
    texts = {"mir-29a targets bace1": True, "the mir-29 family": True, "mir-299-5p rises": False}
    for text, found in texts.items():
        assert (re.search(phrase.pattern(), text) is not None) is found, text
        got = duckdb.sql("SELECT regexp_matches(?, ?)", params=[text, phrase.pattern(sql=True)])
        assert got.fetchall()[0][0] is found, text
        assert all(p.search(text) for p in Side("x", stems=("mir", "29")).words()) is found


def test_words_before_a_linked_name_modify_it_and_are_no_phrase(engine):
    # "early-onset Alzheimer's disease" names the disease: its facts answer
    r = _ask(engine, "Which genes are associated with early-onset Alzheimer's disease?")
    assert r.verdict is None
    assert [a["name"] for a in r.answers][:2] == ["APP", "TREM2"]
    assert all(a["basis"] == "fact" for a in r.answers[:2])


def test_a_run_the_corpus_never_writes_gives_way_to_the_next(engine):
    # "xyzzical role" is written nowhere: the phrase is the next run, which the abstracts write
    # ("What is the molecular target of PBT2?": a common word first, the drug's name after)
    from kgbuild.question.question_phrase import question_phrase

    q = "What is the xyzzical role of the Notch signaling pathway?"
    spans = [(q.index("Notch"), q.index("Notch") + 5)]
    sid = engine.state().index.snapshot_id
    got, _ = question_phrase(engine.wh, sid, q, spans, read_intent(q, spans))
    assert got is not None and got.text == "Notch signaling pathway", got


def test_when_and_in_what_order_name_nothing():
    # "become" is a light verb: it names nothing and ends no phrase's run
    assert _runs("In what order do AD biomarkers become abnormal?", ["AD"]) == [["abnormal"]]


def test_a_light_verb_or_a_pronoun_is_no_part_of_the_phrase():
    assert _runs("What are the risks of giving antipsychotics to people?", []) == [
        ["antipsychotics"]
    ]
    # "someone" names nothing; a linked name stays in its run as a modifier
    assert _runs("Will someone with MCI progress?", ["MCI"]) == [["MCI", "progress"]]


def test_nothing_linked_says_which_words_no_abstract_writes(engine):
    from kgbuild.corpus.unwritten import content_words, unwritten, unwritten_note

    r = _ask(engine, "Is masitinib safe for neurons?")
    assert not r.found
    note = unwritten_note(engine.wh, r.snapshot_id, r.unlinked(), r.as_of_year)
    # the abstracts write "neurons" (PMID 603), never "masitinib"
    assert note.startswith("none of this snapshot's") and '"masitinib"' in note
    assert "neurons" not in note
    # a name-like word (digits, inner capitals) is looked up first; stop words never
    got = content_words(["does CT1812 bind", "what the receptor"])
    assert got == ["CT1812", "receptor", "bind"]
    n, absent = unwritten(engine.wh, r.snapshot_id, ["Notch", "hedgehog", "a'b)|(.*"])
    assert n >= 4 and absent == ["hedgehog", "a'b)|(.*"]  # hostile words are matched literally
    assert unwritten_note(engine.wh, r.snapshot_id, ["Notch signaling"], None) == ""
