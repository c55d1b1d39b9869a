"""``kgbuild eval facts``: questions from gold relations, the relation lines hidden from the
build, the scoring arithmetic, and one run end to end as a user types it.

Fixtures (tests/fixtures/facts, hand-written): ``biored_small.PubTator`` (3 abstracts, 10
BioRED relations: Association, Bind, Negative/Positive_Correlation), ``cdr_small.PubTator``
(2 abstracts, 3 CID lines, one pair in both) and ``no_relations.PubTator`` (the BioRED
abstracts with their relation lines removed). Expected figures are worked out by hand.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from kgbuild.errors import InputError
from kgbuild.evaluate.facts import (
    _Snapshot,
    evaluate_facts,
    hide_relations,
    ranked_answers,
    score_one,
)
from kgbuild.evaluate.facts_questions import (
    Question,
    co_mention_ranking,
    interleave,
    make_questions,
    mention_names,
)
from kgbuild.evaluate.facts_score import Ranked, Scored, is_stated, ranks_of, summarize
from kgbuild.evaluate.gold import read_gold_corpus
from tests.conftest import FIXTURES

FACTS = FIXTURES / "facts"
BIORED = FACTS / "biored_small.PubTator"
CDR = FACTS / "cdr_small.PubTator"
NO_RELATIONS = FACTS / "no_relations.PubTator"
BIORED_BIOC = FIXTURES / "eval" / "biored_small.BioC.JSON"


# ---- questions ------------------------------------------------------------------------------
def test_cdr_cid_lines_become_which_chemicals_induce_questions():
    qs = make_questions(read_gold_corpus(CDR))
    assert [(q.form, q.text, q.answers) for q in qs] == [
        ("cid_chemicals_induce", "Which chemicals induce tardive dyskinesia?",
         {"MESH:D006220": {"91000001", "91000002"}}),
        ("cid_chemicals_induce", "Which chemicals induce nephrotoxicity?",
         {"MESH:D002945": {"91000002"}}),
    ]  # fmt: skip


def test_biored_relations_become_questions_per_entity_and_form():
    qs = {(q.form, q.entity): q for q in make_questions(read_gold_corpus(BIORED))}
    ad = qs[("assoc_genes_of_disease", "MESH:D000544")]
    assert ad.text == "Which genes are associated with Alzheimer's disease?"
    # APOE is annotated associated in two abstracts, TREM2 in one: two answers, one question
    assert ad.answers == {"NCBIGene:348": {"90000001", "90000003"}, "NCBIGene:54209": {"90000003"}}
    assert qs[("bind_what_chemical_binds", "MESH:D008559")].text == "What does Memantine bind?"
    assert qs[("neg_chemicals_lower_gene", "NCBIGene:43")].answers == {
        "MESH:D000077265": {"90000001"}
    }
    assert qs[("neg_chemicals_treat_disease", "MESH:D000544")].text == (
        "Which chemicals treat Alzheimer's disease?"
    )
    assert (
        qs[("pos_chemicals_raise_gene", "NCBIGene:7157")].text == "Which chemicals increase TP53?"
    )
    assert len(qs) == 8


def test_the_baseline_ranks_what_shares_an_abstract_with_the_asked_entity():
    gold = read_gold_corpus(CDR)
    td, nephro = make_questions(gold)
    # tardive dyskinesia: haloperidol in both abstracts; cisplatin, clozapine in one (by ID)
    assert co_mention_ranking(gold, [td, nephro]) == [
        ["MESH:D006220", "MESH:D002945", "MESH:D003024"],
        ["MESH:D002945", "MESH:D006220"],
    ]


def test_the_entity_is_named_by_its_most_frequent_gold_mention():
    names = mention_names(read_gold_corpus(CDR))
    assert names["MESH:D006220"] == "Haloperidol"  # 2 × "Haloperidol", 1 × "haloperidol"
    assert names["MESH:D002945"] == "Cisplatin"


def test_a_limited_run_samples_every_form_first():
    qs = [Question(f, e, "?") for f, e in [("a", "1"), ("a", "2"), ("a", "3"), ("b", "4")]]
    assert [(q.form, q.entity) for q in interleave(qs)] == [
        ("a", "1"), ("b", "4"), ("a", "2"), ("a", "3"),
    ]  # fmt: skip


def test_a_file_without_relations_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match="no relation lines"):
        evaluate_facts(NO_RELATIONS, work=tmp_path)
    assert not (tmp_path / "warehouse").exists()  # refused before building anything
    with pytest.raises(InputError, match="no such gold file"):
        evaluate_facts(tmp_path / "missing.PubTator")


# ---- the build input ------------------------------------------------------------------------
def test_the_build_input_keeps_the_mentions_and_no_relation_line(tmp_path):
    gold = read_gold_corpus(BIORED)
    hidden = hide_relations(BIORED, gold.fmt, tmp_path)
    text = hidden.read_text()
    for rel_type in ("Association", "Bind", "Negative_Correlation", "Positive_Correlation"):
        assert rel_type not in text
    copy = read_gold_corpus(hidden)
    assert copy.relations == []
    assert {p: len(ms) for p, ms in copy.mentions.items()} == {
        p: len(ms) for p, ms in gold.mentions.items()
    }
    assert [d.abstract for d in copy.documents] == [d.abstract for d in gold.documents]


def test_a_bioc_json_gold_file_loses_its_relations_too(tmp_path):
    gold = read_gold_corpus(BIORED_BIOC)
    assert gold.relations
    copy = read_gold_corpus(hide_relations(BIORED_BIOC, gold.fmt, tmp_path))
    assert copy.relations == [] and copy.pmids == gold.pmids
    assert sum(map(len, copy.mentions.values())) == sum(map(len, gold.mentions.values()))


# ---- scoring --------------------------------------------------------------------------------
def scored(ranks: list[int | None], stated: list[bool] | None = None, form: str = "f") -> Scored:
    found = [r for r in ranks if r is not None]
    return Scored(form, "?", "E", [f"g{i}" for i in range(len(ranks))], [], ranks,
                  stated if stated is not None else [True] * len(found))  # fmt: skip


def test_ranks_count_only_the_first_ten_answers():
    ranked = [f"x{i}" for i in range(12)] + ["g1"]
    ranked[2], ranked[9], ranked[10] = "g0", "g2", "g3"
    assert ranks_of(["g0", "g1", "g2", "g3"], ranked) == [3, None, 10, None]


def test_recall_mrr_hits_and_stated_are_computed_exactly():
    rows = [
        scored([1, None]),  # recall 1/2, RR 1, hit
        scored([None, 4, 2, None], [False, True]),  # recall 2/4, RR 1/2, no hit
        scored([None]),  # recall 0, RR 0
    ]
    s = summarize(rows, resamples=50)
    assert s["questions"] == 3 and s["gold_answers"] == 7 and s["found"] == 3
    assert s["recall_at_10"] == round(3 / 7, 4)
    assert s["recall_at_10_macro"] == round((1 / 2 + 2 / 4 + 0) / 3, 4)
    assert s["mrr"] == round((1 + 1 / 2 + 0) / 3, 4)
    assert s["hits_at_1"] == round(1 / 3, 4)
    assert s["stated_share"] == round(2 / 3, 4)
    lo, hi = s["mrr_ci"]
    assert 0 <= lo <= s["mrr"] <= hi <= 1
    assert s["recall_at_10_ceiling"] == 1.0
    rows[1].without_fact = 1  # one of its two found answers is only named in the abstract
    assert summarize(rows, resamples=5)["recall_at_10_with_fact"] == round(2 / 7, 4)
    # 12 gold answers: at most 10 of them fit in the first 10
    assert summarize([scored([None] * 12)], resamples=5)["recall_at_10_ceiling"] == round(
        10 / 12, 4
    )


def test_the_stated_proxy_needs_the_annotated_pmid_and_both_mentions():
    names = ({"donepezil"}, {"acetylcholinesterase", "ache"})
    sentence = "Donepezil inhibits AChE in the cortex."
    assert is_stated(sentence, "1", {"1"}, *names)
    assert not is_stated(sentence, "2", {"1"}, *names)  # a PMID not annotated with the pair
    assert not is_stated("Donepezil was given.", "1", {"1"}, *names)
    assert not is_stated("", "1", {"1"}, *names)


def test_each_miss_is_put_down_to_its_first_reason():
    snap = _Snapshot(
        nodes={"Q": "Q", "A": "A", "B": "B", "C": "C", "mouse": "C"},
        entities={"Q", "A", "B", "C"},
        pairs={frozenset(("Q", "A")), frozenset(("Q", "B")), frozenset(("Q", "C"))},
        served={frozenset(("Q", "A")), frozenset(("Q", "C"))},
    )
    q = Question("f", "Q", "Which?", {"A": {"1"}, "B": {"1"}, "C": {"1"}, "mouse": {"2"},
                                      "gone": {"1"}})  # fmt: skip
    texts = {("1", "Q"): {"q"}, ("1", "C"): {"c"}}
    got = score_one(q, snap, texts, [Ranked("X"), Ranked("C", "q and c", "1")], {"Q"}, "triples")
    assert got.gold == ["A", "B", "C", "gone"]  # the mouse gene is its ortholog's node, C
    assert got.ranks == [None, None, 2, None] and got.stated == [True]
    assert got.without_fact == 0
    co_named = [Ranked("C", "", "1", fact=False)]  # named in the abstract, no fact, no sentence
    got_c = score_one(q, snap, texts, co_named, {"Q"}, "answers")
    assert (got_c.found, got_c.without_fact, got_c.stated) == (1, 1, [False])
    # A: joined, served, not ranked; B: joined by unserved evidence only; "gone": no node
    assert got.misses == {"joined_not_ranked": 1, "joined_not_served": 1, "answer_not_in_kg": 1}
    no_b = _Snapshot(snap.nodes, snap.entities, snap.served, snap.served)
    got = score_one(q, no_b, texts, [], {"Q"}, "triples")
    assert got.misses["pair_not_joined"] == 1
    eleventh = [Ranked(f"X{i}") for i in range(10)] + [Ranked("A")]
    assert score_one(q, snap, texts, eleventh, {"Q"}, "answers").misses["ranked_below_10"] == 1
    unlinked = score_one(q, snap, texts, [], set(), "triples")
    assert unlinked.misses == {"question_entity_not_linked": 3, "answer_not_in_kg": 1}
    absent = score_one(Question("f", "Z", "?", {"A": {"1"}}), snap, texts, [], set(), "-")
    assert absent.misses == {"question_entity_not_in_kg": 1}


def test_ranked_answers_come_from_the_engines_answers_when_it_gives_them():
    link = SimpleNamespace(where="question", node=0, curie="Q")
    ev = SimpleNamespace(pmid="7", sentence="s")
    triples = [
        SimpleNamespace(head_id="A", tail_id="Q", evidence=(ev,)),
        SimpleNamespace(head_id="B", tail_id="C", evidence=()),  # no question entity
        SimpleNamespace(head_id="Q", tail_id="A", evidence=()),  # A again
        SimpleNamespace(head_id="Q", tail_id="D", evidence=()),
    ]
    r = SimpleNamespace(links=[link], triples=triples)
    got, path = ranked_answers(r)
    assert path == "triples" and [a.id for a in got] == ["A", "D"]
    assert (got[0].pmid, got[0].sentence) == ("7", "s")
    r.answers = [{"id": "D", "evidence": [{"pmid": "8", "sentence": "t"}]}, {"id": "A"}]
    got, path = ranked_answers(r)
    assert path == "answers" and got == [Ranked("D", "t", "8", True, "fact"),
                                         Ranked("A", "", "", True, "fact")]  # fmt: skip
    r.answers = [{"id": "D", "facts": [], "pmid": "9", "why": "named in the same abstract"}]
    assert ranked_answers(r)[0] == [Ranked("D", "", "9", False, "same_abstract")]
    # an answer the engine says rests on a fact whose evidence is not served: no served fact
    r.answers = [{"id": "D", "facts": [{"evidence": []}], "basis": "weaker_fact"}]
    assert ranked_answers(r)[0] == [Ranked("D", "", "", False, "weaker_fact")]


# ---- end to end -----------------------------------------------------------------------------
@pytest.mark.slow
def test_eval_facts_runs_as_a_user_types_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGBUILD_", "OPENAI_"))}
    env |= {"KGBUILD_WAREHOUSE": str(tmp_path / "wh"), "KGBUILD_EMBED_MODEL": "none"}
    scratch, tsv = tmp_path / "scratch", tmp_path / "rows.tsv"
    proc = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "eval", "facts", "--gold", str(BIORED),
         "--scratch", str(scratch), "--out", str(tsv), "--json", "--bootstrap", "100"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["overall"]["questions"] == 8 and report["overall"]["gold_answers"] == 9
    assert sum(report["answers_from"].values()) == 8
    assert 0 < report["overall"]["recall_at_10"] <= 1  # every pair shares a sentence
    assert report["build"]["extractor"] == "classifier"
    rows = tsv.read_text().splitlines()
    assert len(rows) == 9 and rows[0].startswith("form\tquestion\t")
    # what the build read holds no relation line, and neither does the warehouse
    build_input = (scratch / "build-input" / "abstracts.pubtator").read_text()
    assert "\tAssociation\t" not in build_input and "\tBind\t" not in build_input
    from kgbuild.store.snapshots import Warehouse

    wh = Warehouse(scratch / "warehouse")
    sid = wh.resolve("latest")
    assert wh.query("SELECT count(*) FROM source_relations_at(?)", [sid]) == [(0,)]
    assert wh.query("SELECT count(DISTINCT pmid) FROM documents_at(?)", [sid]) == [(3,)]

    bad = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "eval", "facts", "--gold", str(NO_RELATIONS)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        f"error: the gold file holds no relation lines: no question to ask (path={NO_RELATIONS})"
    ]
