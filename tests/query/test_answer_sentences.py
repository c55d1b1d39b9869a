"""Each shown abstract by its sentence closest to the question in words and meaning
(kgbuild/corpus/answer_sentences.py), with the bundled MiniLM encoder run for real: an
abstract whose one sentence writes every word of the question but says nothing of it, and
whose other sentence answers it in other words, is shown by the answer; without the encoder
(``embed="off"``), by the sentence that writes most of the question, as before."""

import pytest

from kgbuild.corpus.answer_sentences import closest_sentences
from kgbuild.query.engine import QueryEngine
from kgbuild.records import Document, Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

QUESTION = "What happens to memory when people stop taking donepezil?"
WORDY = ("The clinic's people, taking turns at the front desk, stop patients to happen upon "
         "memory forms and donepezil leaflets.")  # fmt: skip
ANSWER = "After donepezil was discontinued, patients' memory declined within six weeks."
DOCS = [
    ("701", 2016, "A clinic cohort.", f"{WORDY} We followed 120 patients. {ANSWER}"),
    ("702", 2016, "Cholinergic drugs.", "Cholinesterase inhibitors raise acetylcholine."),
    ("703", 2016, "Sleep in old age.", "Older people sleep less. Naps were counted."),
]
AD, APP = "MESH:D000544", "NCBIGene:351"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("answer_sentences") / "wh"
    w = Warehouse(root).writer("sentences")
    ents = [Entity(AD, "Alzheimer disease", "Disease", ["Alzheimer disease"], 2016),
            Entity(APP, "APP", "Gene", ["APP"], 2016)]  # fmt: skip
    w.add("documents", [Document(p, y, t, a) for p, y, t, a in DOCS])
    publish_year(w, 2016, [(APP, "associates", AD, [("700", 2016, "APP and the disease.", 0.8)])],
                 ents)  # fmt: skip
    return root


def test_an_abstract_is_shown_by_the_sentence_that_answers_in_other_words(root):
    engine = QueryEngine(root)  # the default: the linker's encoder loaded
    r = engine.retrieve(QUESTION)
    (shown,) = r.passages
    assert shown["pmid"] == "701" and shown["sentence"] == ANSWER
    # closeness: the answer-sentence reader's log-odds; the answer closes the abstract
    assert isinstance(shown["closeness"], float) and shown["closing"] is None
    # the same sentence leads the sentences that best answer it, which the answer line reads
    assert r.answering[0] == {"pmid": "701", "year": 2016, "sentence": ANSWER,
                              "score": shown["closeness"]}  # fmt: skip
    from kgbuild.query import cli

    # the verdict only reports the sentences a word is named in: the reader's sentence leads,
    # and the verdict follows it
    rdict = r.to_dict()
    assert rdict["verdict"]["answer"] == "from sentences"
    line = cli.answer_line(rdict, [], None, False)
    assert line.startswith(f"{cli.ANSWERING_LEAD}: {ANSWER}")
    with cli.out.capture() as captured:
        cli._print_retrieval(r, rdict, line)
    printed = captured.get()
    assert printed.index(cli.ANSWERING_LEAD) < printed.index("verdict: from sentences")
    assert cli.answer_line({**rdict, "verdict": None}, [], None, False) == line
    off = engine.retrieve(QUESTION, embed="off")
    assert [p["sentence"] for p in off.passages] == [WORDY]  # words alone: the wordy one
    assert "closeness" not in off.passages[0]


def test_the_abstracts_are_ordered_by_their_closest_sentence():
    """The hand-weighted hybrid (no trained reader) itself, on vectors whose cosines are
    known: the closer sentence of a lower-ranked abstract comes first, and an abstract with no
    sentence writing two of the question's terms is not shown."""
    import numpy as np

    from kgbuild.search.abstracts import AbstractIndex

    docs = [("1", 2016, "", "Alpha beta gamma. Delta epsilon."),
            ("2", 2016, "", "Alpha beta zeta."),
            ("3", 2016, "", "Omega only.")]  # fmt: skip
    index = AbstractIndex.build(docs)
    texts = {p: (y, t, a) for p, y, t, a in docs}
    rows = [{"pmid": p, "rank": i, "sentence": "", "closing": None} for i, (p, *_) in
            enumerate(docs)]  # fmt: skip
    near = {"Alpha beta zeta.": 0.95}

    def encode(texts: list[str]) -> np.ndarray:
        # the question is the unit x; each sentence's cosine to it is ``near`` or 0.1
        out = []
        for t in texts[1:]:
            c = near.get(t, 0.1)
            out.append([c, float(np.sqrt(1 - c * c))])
        return np.array([[1.0, 0.0], *out])

    got = closest_sentences(index, "alpha beta gamma zeta", rows, texts, encode, reader=None)
    assert [g["pmid"] for g in got] == ["2", "1"]
    assert got[0]["sentence"] == "Alpha beta zeta."
    assert got[1]["sentence"] == "Alpha beta gamma."


def test_a_sentence_reader_shows_the_sentence_closest_to_the_question_first():
    """closest_first with the bundled encoder run for real: within a group (the reader's own
    key) the sentence answering in other words comes before a newer one that does not; a
    sentence of a better group stays first however far it is; without an encoder, or with one
    that fails, the reader's order stands."""
    from kgbuild.corpus.answer_sentences import closest_first
    from kgbuild.resolve.embed import DEFAULT_MODEL
    from kgbuild.search.numpy_encoder import numpy_encoder

    encoder = numpy_encoder(DEFAULT_MODEL)
    if encoder is None:
        pytest.skip("the bundled MiniLM model is not installed")
    question = "Which part of amyloid beta does ponezumab grab onto?"
    hits = [  # (group, sentence), in the reader's order: newest first within a group
        (0, "Ponezumab was given to 120 healthy volunteers in two trials."),
        (1, "Ponezumab was safe and well tolerated at every dose."),
        (1, "Ponezumab binds specifically to the C-terminus of amyloid beta 40."),
        (1, "Doses of ponezumab were infused over ten minutes."),
    ]
    got = closest_first(hits, lambda h: h[1], question, encoder.encode, lambda h: h[0])
    assert got[0] == hits[0]  # its group first, whatever its cosine
    assert got[1] == hits[2]  # the answer, though older in the reader's order
    assert sorted(got) == sorted(hits)
    assert closest_first(hits, lambda h: h[1], question, None, lambda h: h[0]) == hits

    def broken(texts):
        raise OSError("model folder gone")

    assert closest_first(hits, lambda h: h[1], question, broken, lambda h: h[0]) == hits
    # only the first n are re-ordered; the rest keep their places
    assert closest_first(hits, lambda h: h[1], question, encoder.encode, lambda h: h[0],
                         n=2) == hits  # fmt: skip


@pytest.mark.parametrize(("intent", "choices", "verdict", "leads"), [
    ({"yes_no": False}, [], None, True),
    ({"yes_no": False}, [], {"answer": "from sentences"}, True),
    ({"yes_no": False}, [], {"answer": "not found"}, True),
    ({"yes_no": False}, [], {"answer": "yes"}, False),  # a pair's facts answer it
    ({"yes_no": True}, [], {"answer": "not found"}, False),  # yes/no: the verdict answers
    ({"yes_no": False}, ["APOE", "TREM2"], None, False),  # options: the choice answers
])  # fmt: skip
def test_the_reader_leads_only_where_nothing_else_answers(intent, choices, verdict, leads):
    from kgbuild.query.cli import reader_leads

    rdict = {"intent": intent, "choices": choices, "verdict": verdict}
    assert reader_leads(rdict) is leads


def test_an_llm_answer_reads_the_sentences_that_best_answer_it(root):
    """With an endpoint (a real loopback server), the answer prompt holds the reader's
    sentences, and a PMID cited from them counts as shown (not an invalid citation): an
    abstract that served no fact is otherwise outside the LLM's context."""
    import json

    from kgbuild.llm.client import LLMClient, LLMSettings
    from kgbuild.query.answer import answer_question
    from kgbuild.query.context import ANSWERING_LABEL
    from tests.support.scripted_llm_server import ScriptedLLM, serve

    reply = json.dumps({"answer": "Memory declined after stopping.", "pmids": ["701"]})
    llm = ScriptedLLM(default=("ok", reply))
    with serve(llm) as url:
        c = LLMClient(LLMSettings(model="m", base_url=url, max_retries=0, backoff_s=0.01))
        try:
            a = answer_question(QueryEngine(root), c, QUESTION, llm_entities=False,
                                rerank=False, llm_intent=False)  # fmt: skip
        finally:
            c.close()
    prompt = "\n".join(m["content"] for m in llm.requests[-1]["body"]["messages"])
    assert ANSWERING_LABEL in prompt and f'PMID 701 (2016): "{ANSWER}"' in prompt
    assert a.cited == ["701"] and a.invalid_citations == []


def test_the_readers_sentences_keep_their_room_when_facts_fill_the_budget(root):
    """Facts that fill the token budget alone (ten on a hub do) leave the reader's sentences
    their room, up to a third of it; the facts that no longer fit are counted as left out."""
    from kgbuild.llm.tokens import estimate_tokens
    from kgbuild.query.context import ANSWERING_LABEL, HEADER, build_context, render_triple

    idx = QueryEngine(root).state().index
    ranked = [(0, 1.0, ("test",))] * 10  # the one fact, ten times: more than the budget holds
    one, _, _ = build_context(idx, ranked[:1], 1, 10_000)
    budget = estimate_tokens(HEADER) + 6 * (estimate_tokens(render_triple(one[0])) + 1)
    said = [{"pmid": "701", "year": 2016, "sentence": ANSWER}]
    alone, text, stats = build_context(idx, ranked, 10, budget)
    assert len(alone) == 6 and stats["left_out"] == 4 and ANSWERING_LABEL not in text
    kept, text, stats = build_context(idx, ranked, 10, budget, answering=said)
    assert ANSWERING_LABEL in text and f'PMID 701 (2016): "{ANSWER}"' in text
    assert stats["sentences"] == 1 and len(kept) < 6 and stats["left_out"] == 10 - len(kept)
