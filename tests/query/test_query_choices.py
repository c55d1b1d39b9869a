"""Question-aware retrieval — the sentence index (BM25, lift), per-choice scores with
reasons, hubs as context, phrase choices found through sentences, the embedding budget, and
``eval adqa --replay-entities``."""

import json
import subprocess
import sys

import numpy as np
import pytest

from kgbuild.query.choices import ChoiceScore, asks_for_exception, kg_answer, npmi
from kgbuild.query.engine import QueryEngine
from kgbuild.query.explore import Filters
from kgbuild.search.index import open_index
from kgbuild.search.sentences import SentenceIndex, terms
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, ROOT

SENTENCES = [
    "Amyloid plaques are made of amyloid beta peptide.",
    "Neurofibrillary tangles are made of hyperphosphorylated tau.",
    "Alzheimer disease patients show plaques and tangles.",
    "Alzheimer disease is the most common dementia.",
    "Alzheimer disease risk rises with age.",
    "Trisomy 21 carriers develop Alzheimer disease early.",
]


@pytest.fixture(scope="module")
def engine(toy):
    return QueryEngine(toy, embeddings=False)


# ---- the sentence index ----------------------------------------------------------------------


def test_terms_are_stemmed_content_words_and_keep_numbers():
    assert terms("The plaques of Trisomy 21 carriers") == ["plaqu", "trisomi", "21", "carrier"]
    assert terms("Which of the following is true?") == []  # stopwords only


def test_search_needs_a_term_of_the_choice_and_of_the_question():
    ix = SentenceIndex.build(SENTENCES)
    q = ix.term_ids("What are plaques made of?")
    hits = ix.search(q, ix.term_ids("amyloid beta"))
    assert [r for r, _ in hits] == [0]  # not 2 ("plaques" only), not 1 ("made of" only)
    assert ix.search(q, ix.term_ids("ribosome")) == []  # the choice's term is in no sentence
    # with no question term in the index, the choice's own sentences count
    assert [r for r, _ in ix.search([], ix.term_ids("tau"))] == [1]


def test_lift_favours_terms_of_the_question_neighbourhood_and_not_hub_terms():
    ix = SentenceIndex.build(SENTENCES)
    rows, w = ix.neighbourhood(ix.scores(ix.term_ids("What are plaques made of?")), n=3)
    assert set(rows.tolist()) <= {0, 1, 2} and w.sum() == pytest.approx(1.0)
    amyloid = ix.lift(rows, w, ix.term_ids("amyloid"))[0]
    trisomy = ix.lift(rows, w, ix.term_ids("trisomy"))[0]
    alzheimer = ix.lift(rows, w, ix.term_ids("Alzheimer"))[0]
    assert amyloid > 0 > trisomy  # in the plaques' sentences vs never near them
    assert amyloid > alzheimer  # a term of most sentences lifts little
    assert ix.lift(rows, w, []) is None
    assert ix.lift(np.zeros(0, np.int64), np.zeros(0), ix.term_ids("amyloid")) is None


def test_the_saved_index_is_the_same_index_and_a_damaged_one_is_refused(tmp_path):
    ix = SentenceIndex.build(SENTENCES)
    again = SentenceIndex.build(SENTENCES)
    assert ix.vocab == again.vocab and np.array_equal(ix.data, again.data)  # deterministic
    ix.save(tmp_path / "bm25")
    back = SentenceIndex.load(tmp_path / "bm25", len(SENTENCES))
    q = ix.term_ids("plaques")
    assert np.array_equal(back.scores(q), ix.scores(q))
    assert SentenceIndex.load(tmp_path / "bm25", len(SENTENCES) + 1) is None  # other snapshot
    idx = np.load(tmp_path / "bm25" / "indices.npy")
    idx[0] = 10_000  # a row that does not exist
    np.save(tmp_path / "bm25" / "indices.npy", idx)
    assert SentenceIndex.load(tmp_path / "bm25", len(SENTENCES)) is None
    (tmp_path / "bm25" / "vocab.json").write_text("{not json")
    assert SentenceIndex.load(tmp_path / "bm25", len(SENTENCES)) is None


def test_the_snapshot_index_carries_every_sentence_and_rebuilds_a_damaged_bm25(toy, tmp_path):
    wh = Warehouse(toy)
    sid = wh.resolve("latest")
    idx = open_index(wh, sid, tmp_path)
    sents = idx.sentences["sentence"]
    assert "Donepezil inhibits ACHE." in sents and len(sents) == len(set(zip(
        idx.sentences["pmid"], sents, strict=True)))  # fmt: skip
    row = sents.index("Donepezil inhibits ACHE.")
    (edge,) = idx.sentence_edge_ids(row).tolist()
    assert idx.edges["triple_id"][edge] == "t:MESH:D000077265|downregulates|NCBIGene:43"
    assert idx.n_docs == len(set(idx.evidence["pmid"]))
    ad = idx.node_of["MESH:D000544"]
    assert idx.node_docs[ad] == max(idx.node_docs)  # the hub is in the most documents
    (idx.path / "bm25" / "data.npy").write_bytes(b"not an array")
    again = open_index(wh, sid, tmp_path)
    assert again.lexical is not None and again.lexical.n_docs == len(sents)
    assert np.load(idx.path / "bm25" / "data.npy", allow_pickle=False).size > 0  # saved again


# ---- scores, reasons and hubs ------------------------------------------------------------------


def test_a_hub_edge_is_not_specific_and_a_rare_pair_is(engine):
    idx = engine.state().index
    n = idx.node_of
    e = idx.edges
    sup = {(int(h), int(t)): int(s) for h, t, s in zip(e["head"], e["tail"], e["support"],
                                                        strict=True)}  # fmt: skip
    filler = n["MESH:C000001"]
    hub = n["MESH:D000544"]
    assert npmi(idx, filler, hub, sup[(filler, hub)]) < 0.2  # with everything: context
    done, ache = n["MESH:D000077265"], n["NCBIGene:43"]
    assert npmi(idx, done, ache, sup[(done, ache)]) > 0.4  # together and rarely apart


def test_every_choice_gets_a_score_with_reasons_facts_and_cited_sentences(engine):
    r = engine.retrieve("Which drug treats Alzheimer's disease by inhibiting ACHE?",
                        ["APP", "donepezil", "MAPT", "memory disorders"])  # fmt: skip
    assert r.kg_answer == 1
    scores = r.choice_scores
    assert [s["choice"] for s in scores] == [0, 1, 2, 3]
    best = scores[1]
    assert best["score"] == max(s["score"] for s in scores if s["score"] is not None)
    reasons = " | ".join(best["reasons"])
    assert "NPMI" in reasons and "lexical lift" in reasons
    assert best["triple_ids"] and all(s["pmid"] for s in best["sentences"])
    assert {s["pmid"] for s in best["sentences"]} & {"2101", "2102", "2103"}
    # the context cites the sentences it shows, under their choice
    assert "(B) donepezil" in r.context
    assert 'PMID 2103 (2020): "Donepezil inhibits ACHE."' in r.context
    assert r.choice_support[1] == best["score"]
    assert r.to_dict()["sentences"][0]["for"].startswith("choice:")


def test_a_choice_that_is_a_phrase_not_a_node_is_scored_through_sentences(engine):
    r = engine.retrieve("Which gene is the main genetic risk factor of Alzheimer's disease?",
                        ["the e4 allele of APOE", "hydrolysis at the synapse"])  # fmt: skip
    a, _ = r.choice_scores
    assert a["score"] is not None and a["sentences"]
    assert any(s["pmid"] == "1002" for s in a["sentences"])  # "The APOE e4 allele raises …"
    assert r.kg_answer == 0


def test_nothing_about_a_choice_is_said_not_scored(engine):
    r = engine.retrieve("What is the capital city of France?", ["Paris", "Lyon"])
    assert r.kg_answer is None
    assert all(s["score"] is None for s in r.choice_scores)
    assert all("nothing in the snapshot" in s["reasons"][-1] for s in r.choice_scores)


def test_kg_answer_is_none_on_a_tie():
    assert kg_answer([ChoiceScore(0, 1.0), ChoiceScore(1, 1.0)]) is None
    assert kg_answer([ChoiceScore(0, None), ChoiceScore(1, -0.5)]) == 1
    assert kg_answer([ChoiceScore(0), ChoiceScore(1)]) is None


@pytest.mark.parametrize(
    ("question", "exception"),
    [
        ("All of the following are features of Alzheimer's disease EXCEPT:", True),
        ("Which of the following is not associated with amyloid plaques?", True),
        ("Which drug is least likely to cause delirium?", True),
        ("Which statement about tau is false?", True),
        ("The drug does not cross the blood-brain barrier. Which is it?", False),
        ("Which gene is associated with early-onset Alzheimer's disease?", False),
        ("Notably, which enzyme cleaves APP?", False),
    ],
)
def test_a_question_that_asks_for_the_exception_is_recognised(question, exception):
    assert asks_for_exception(question) is exception


def test_an_except_question_is_flagged_in_the_diagnostics(engine):
    ch = ["donepezil", "memantine", "APP"]
    plain = engine.retrieve("Which of these treats Alzheimer's disease?", ch)
    neg = engine.retrieve("All of these treat Alzheimer's disease EXCEPT:", ch)
    assert neg.diagnostics["asks_for_exception"] and not plain.diagnostics["asks_for_exception"]


def test_the_as_of_filter_keeps_later_sentences_out(engine):
    q, ch = "Which drug treats Alzheimer's disease?", ["donepezil", "APP"]
    now = engine.retrieve(q, ch)
    then = engine.retrieve(q, ch, filters=Filters(as_of_year=2019))
    assert any(s["year"] == 2020 for s in now.sentences)
    assert then.sentences == [] or all(s["year"] <= 2019 for s in then.sentences)
    assert "2101" not in then.context and "2103" not in then.context


def test_the_same_question_gives_the_same_retrieval(engine):
    q, ch = "Which drug treats Alzheimer's disease by inhibiting ACHE?", ["APP", "donepezil"]
    a, b = engine.retrieve(q, ch).to_dict(False), engine.retrieve(q, ch).to_dict(False)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# ---- the embedding budget ---------------------------------------------------------------------


@pytest.mark.slow  # loads the embedding model
def test_a_choice_the_sentences_find_is_not_embedded_one_nothing_finds_is(toy, tmp_path):
    eng = QueryEngine(toy, index_dir=tmp_path)
    q = "Which gene is the main genetic risk factor of Alzheimer's disease?"
    r = eng.retrieve(q, ["the e4 allele", "a genetic risk"])  # both found by sentences
    assert r.diagnostics["embedded_texts"] == 0
    assert [x.method for x in r.links if x.where.startswith("choice")] == ["lexical", "lexical"]
    r = eng.retrieve(q, ["the e4 allele", "zzyzx quux"])  # nothing has "zzyzx quux"
    assert r.diagnostics["embedded_texts"] == 1
    r = eng.retrieve(q, ["the e4 allele", "zzyzx quux"], embed="off")
    assert r.diagnostics["embedded_texts"] == 0


# ---- eval adqa --replay-entities -------------------------------------------------------------


def kgbuild(*args):
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *map(str, args)],
                          capture_output=True, text=True, env=env)  # fmt: skip


@pytest.mark.slow  # CLI processes
def test_replayed_entities_are_what_retrieval_starts_from(toy, tmp_path):
    qfile = tmp_path / "medqa_replay.json"
    qfile.write_text(json.dumps([{
        "id": "r1", "question": "Which one is its main genetic risk factor?",
        "choices": ["APOE", "ACHE", "donepezil", "memory disorders"], "answer": ["APOE"],
        "entity": "1. Alzheimer's disease",
    }]))  # fmt: skip
    plain = kgbuild("eval", "adqa", qfile, "-w", toy, "--json", "--embed", "off")
    replay = kgbuild("eval", "adqa", qfile, "-w", toy, "--json", "--embed", "off",
                     "--replay-entities")  # fmt: skip
    assert plain.returncode == 0 and replay.returncode == 0, plain.stderr + replay.stderr
    p, r = json.loads(plain.stdout), json.loads(replay.stdout)
    assert p["subsets"]["medqa"]["linked_question"] == 0.0  # nothing in the text links
    assert r["replay_entities"] and r["subsets"]["medqa"]["linked_question"] == 100.0
    assert r["subsets"]["medqa"]["gold_reachable"] == 100.0
    missing = kgbuild("eval", "adqa", FIXTURES / "query" / "adqa" / "mmlu_toy.jsonl", "-w", toy,
                      "--replay-entities")  # fmt: skip
    assert missing.returncode == 2 and "needs recorded question entities" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_every_choices_entities_count_as_linked_not_only_the_last_ones(engine, monkeypatch):
    """A triple at a choice's entity earns the linked-endpoint weight whichever choice it is
    (a loop variable once shadowed the set of all choices' nodes with the last choice's)."""
    import kgbuild.query.rank as rank
    from kgbuild.query.explore import Candidates

    for w in ("W_PAGERANK", "W_PATH", "W_SPECIFIC", "W_CHOICE", "W_CONFIDENCE"):
        monkeypatch.setattr(rank, w, 0.0)
    monkeypatch.setattr(rank, "W_LINKED", 1.0)
    idx = engine.state().index
    e, n = idx.edges, idx.node_of
    first, last = n["NCBIGene:351"], n["NCBIGene:4137"]  # APP, MAPT
    at = {x: next(i for i in range(idx.n_edges) if x in (int(e["head"][i]), int(e["tail"][i])))
          for x in (first, last)}  # fmt: skip
    cand = Candidates()
    for x in at.values():
        cand.add(x, "neighbour")
    scored = rank.rank_triples(idx, cand, rank.Ranking({}, []), [], [[first], [last]],
                               [ChoiceScore(0), ChoiceScore(1)])  # fmt: skip
    by_edge = {s.edge: s.score for s in scored}
    assert by_edge[at[first]] == by_edge[at[last]] > 0
