"""Questions read the way people ask them: the asked relation and answer kind from
the question's words, answer entities ranked by the asked relation before hubs, a yes/no pair
answered from its facts, and ``ask`` showing each fact's sentence with its entities marked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.corpus.marks import excerpt, find_span, mark
from kgbuild.query.engine import QueryEngine
from kgbuild.question.intent import read_intent, understood
from kgbuild.records import Entity
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import publish_year

ROOT = Path(__file__).resolve().parents[2]

# (question, spans of linked entities, asked relations, answer kind, yes/no)
READS = [
    ("Which drugs treat Alzheimer's disease?", [(23, 42)], ["treats"], "Compound", False),
    ("Which chemicals induce hepatitis?", [(23, 32)], ["causes"], "Compound", False),
    ("Which genes are associated with Alzheimer's disease?", [(32, 51)], ["associates"], "Gene",
     False),
    ("What does donepezil bind?", [(10, 19)], ["binds"], None, False),
    ("Which chemicals lower TNF?", [(22, 25)], ["downregulates"], "Compound", False),
    ("Which chemicals increase the risk of stroke?", [(37, 43)], ["risk_factor"], "Compound",
     False),
    ("Does APOE interact with APP in Alzheimer's disease?", [(5, 9), (24, 27), (31, 50)],
     ["interacts"], None, True),
    ("Is APOE a risk factor for Alzheimer's disease?", [(3, 7), (26, 45)], ["risk_factor"], None,
     True),
    ("Can lithium cause kidney failure?", [(4, 11), (18, 32)], ["causes"], None, True),
    ("Is CSF tau a biomarker of AD?", [(7, 10), (26, 28)], ["biomarker"], None, True),
    # must NOT be read as a relation or an answer kind
    ("What is the prevalence of dementia in Japan?", [(26, 34)], [], None, False),
    ("Which genes are expressed in the hippocampus?", [], [], "Gene", False),
    ("Is heart block common after surgery?", [(3, 14)], [], None, True),
    ("Which proteins accumulate in the lower limb?", [], [], "Gene", False),
    ("What is the role of reduced glutathione?", [(20, 39)], [], None, False),
]  # fmt: skip


@pytest.mark.parametrize(("question", "spans", "asked", "kind", "yes_no"), READS)
def test_intent_reads_relation_answer_kind_and_yes_no(question, spans, asked, kind, yes_no):
    it = read_intent(question, spans)
    assert it.asked == asked
    assert it.answer_type == kind
    assert it.yes_no is yes_no


def test_intent_maps_to_kg_relations_with_weights():
    it = read_intent("Which genes are associated with Alzheimer's disease?")
    assert it.relations[0] == "associates" and it.weight("associates") == 1.0
    assert it.weight("co_mentioned") < it.weight("associates")
    assert read_intent("Which drugs treat AD?").weight("treats") == 1.0
    assert read_intent("What is AD?").weight("anything") == 1.0  # nothing asked: no preference


def test_question_words_and_cues_are_understood_not_unlinked():
    q = "Does APOE interact with APP?"
    it = read_intent(q, [(5, 9), (24, 27)])
    assert understood(q, 0, 4, it) and understood(q, 10, 18, it)  # "Does", "interact"
    q = "Which drugs treat the Martian flu?"
    it = read_intent(q)
    assert not understood(q, q.index("Martian"), q.index("Martian") + 7, it)


def test_marks_find_the_two_entities_and_cut_around_them():
    s = "Chronic treatment with Donepezil improved Alzheimer's disease symptoms."
    h = find_span(s, ["donepezil"])
    t = find_span(s, ["Alzheimer disease", "AD"], h)
    assert mark(s, [h, t]) == ("Chronic treatment with «Donepezil» improved «Alzheimer's disease» "
                               "symptoms.")  # fmt: skip
    assert find_span("The ad campaign", ["AD"]) is None  # short forms keep their spelling
    long = "APOE " + "word " * 100 + "binds APP."
    cut = excerpt(long, [(0, 4), (len(long) - 4, len(long) - 1)], width=120)
    assert cut.startswith("«APOE»") and "«APP»" in cut and " … " in cut and len(cut) < 200


# ---- a KG with a hub: water co-occurs with everything, the drugs with Alzheimer's disease ----

HOSTILE = "[bold red]INJECT[/bold red] <script>alert(1)</script> Drugamab treats Alzheimer disease."
NODES = [
    ("MESH:D000544", "Alzheimer disease", "Disease"),
    ("MESH:D014867", "water", "Compound"),
    ("MESH:C000001", "drugamab", "Compound"),
    ("MESH:C000002", "curcuminoid", "Compound"),
    ("NCBIGene:348", "APOE", "Gene"),
    ("NCBIGene:351", "APP", "Gene"),
] + [(f"NCBIGene:{9000 + i}", f"GENE{i}", "Gene") for i in range(30)]


def _ev(n: int, start: int, text: str) -> list[tuple[str, int, str, float]]:
    return [(str(start + j), 2020, text, 0.9) for j in range(n)]


EDGES = [
    # the hub: named with Alzheimer disease in 40 abstracts, and with every gene
    ("MESH:D014867", "co_mentioned", "MESH:D000544", _ev(40, 1000, "Water and Alzheimer disease.")),
    ("MESH:C000001", "treats", "MESH:D000544", _ev(3, 2000, HOSTILE)),
    ("MESH:C000002", "associates", "MESH:D000544",
     _ev(5, 3000, "Curcuminoid associates with Alzheimer disease.")),
    ("NCBIGene:348", "associates", "MESH:D000544",
     _ev(6, 4000, "APOE is the main risk factor of Alzheimer disease.")),
    ("NCBIGene:348", "interacts", "NCBIGene:351", _ev(2, 5000, "APOE interacts with APP.")),
    ("NCBIGene:348", "co_mentioned", "NCBIGene:351", _ev(4, 5100, "APOE and APP in neurons.")),
] + [
    ("MESH:D014867", "co_mentioned", f"NCBIGene:{9000 + i}",
     _ev(20, 10000 + 100 * i, f"Water and GENE{i}.")) for i in range(30)
]  # fmt: skip


@pytest.fixture(scope="module")
def hub_kg(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub") / "wh"
    w = Warehouse(root).writer("hub")
    publish_year(w, 2020, EDGES, [Entity(i, n, t, [n], 2020) for i, n, t in NODES])
    return root


@pytest.fixture(scope="module")
def hub_engine(hub_kg):
    return QueryEngine(hub_kg, embeddings=False)


def test_which_drugs_rank_the_asked_relation_before_the_hub(hub_engine):
    r = hub_engine.retrieve("Which drugs treat Alzheimer disease?", embed="off")
    assert r.intent["answer_type"] == "Compound" and r.intent["relations"][0] == "treats"
    ids = [a["id"] for a in r.answers]
    assert ids[:2] == ["MESH:C000001", "MESH:C000002"]  # treats 3 > associates 5 > water 40
    assert ids.index("MESH:D014867") == 2
    top = r.answers[0]
    assert top["relation"] == ["treats"] and top["support"] == 3 and top["type"] == "Compound"
    assert top["facts"][0]["relation"] == "treats" and top["pmid"] == "2000"
    assert r.triples[0].relation == "treats"  # the asked relation leads the facts too
    assert "treat" not in r.unlinked() and not r.unlinked()
    d = r.to_dict()
    assert d["answers"][0]["id"] == "MESH:C000001" and "edges" not in d["answers"][0]
    assert d["intent"]["yes_no"] is False


def test_answer_kind_filters_and_what_does_x_bind_infers_it(hub_engine):
    genes = hub_engine.retrieve("Which genes are associated with Alzheimer disease?", embed="off")
    assert [a["id"] for a in genes.answers] == ["NCBIGene:348"]
    assert all(a["type"] == "Gene" for a in genes.answers)
    binds = hub_engine.retrieve("What does APOE bind?", embed="off")
    assert binds.intent["answer_type"] == "Compound"  # binds:Gene → Compound (no compound)
    inter = hub_engine.retrieve("Which genes interact with APOE?", embed="off")
    assert inter.answers[0]["id"] == "NCBIGene:351"
    assert inter.answers[0]["relation"][0] == "interacts"


def test_yes_no_pair_is_answered_from_its_facts(hub_engine):
    r = hub_engine.retrieve("Does APOE interact with APP in Alzheimer disease?", embed="off")
    v = r.verdict
    assert v["pair"] == ["NCBIGene:348", "NCBIGene:351"] and v["answer"] == "yes"
    assert v["asserted"] == 6 and v["stated"] == 2
    assert v["by_relation"] == {"co_mentioned": 4, "interacts": 2}
    # the co-mentions are counted, never as the answer
    assert v["line"] == (
        "yes: 2 PMIDs state APOE interacts with APP (interacts 2); mentioned "
        "together in 6 abstracts (co_mentioned 4, interacts 2)"
    )
    assert r.answers == []  # a yes/no question lists no answers
    no = hub_engine.retrieve("Is GENE1 a risk factor for Alzheimer disease?", embed="off")
    assert no.verdict["answer"] == "no evidence"


def test_a_choice_the_question_names_is_scored_by_its_other_entities(toy):
    # the README example's shape: the choice APOE is also named in the question
    r = QueryEngine(toy, embeddings=False).retrieve(
        "Does APOE regulate APP in Alzheimer disease?", ["APOE", "MAPT"], embed="off"
    )
    apoe = r.choice_scores[0]
    assert apoe["score"] is not None and apoe["score"] > 0
    assert not any("no sentence or fact joins it" in x for x in apoe["reasons"])


@pytest.mark.slow  # CLI processes
def test_ask_shows_answers_marked_sentences_and_exits_2_when_nothing_is_named(hub_kg, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)

    def ask(*args):
        return subprocess.run([sys.executable, "-m", "kgbuild.cli", "ask", *args, "-w",
                               str(hub_kg), "--index-dir", str(tmp_path / "i"), "--embed", "off",
                               "--no-llm"], capture_output=True, text=True, env=env)  # fmt: skip

    out = ask("Which drugs treat Alzheimer disease?")
    assert out.returncode == 0, out.stderr
    assert "answers (Compound)" in out.stdout and "unlinked" not in out.stdout
    assert "«Drugamab» treats «Alzheimer disease»" in out.stdout
    assert "PMID 2000 (2020), asserted, confidence" in out.stdout
    # a sentence's markup is text, never rich markup
    assert "[bold red]INJECT[/bold red] <script>alert(1)</script>" in out.stdout
    got = json.loads(ask("Which drugs treat Alzheimer disease?", "--json").stdout)
    assert got["answers"][0]["id"] == "MESH:C000001"
    ev = got["triples"][0]["evidence"][0]
    assert ev["marked"].endswith("«Drugamab» treats «Alzheimer disease».")
    assert ev["head_span"] and ev["tail_span"] and ev["status"] == "asserted"
    yn = ask("Does APOE interact with APP?")
    assert yn.returncode == 0 and "verdict: yes: 2 PMIDs state APOE interacts with APP" in yn.stdout
    for nothing in ("Which drugs treat boredom?", "What is the capital city of France?"):
        bad = ask(nothing)
        assert bad.returncode == 2 and "no entity of this snapshot found" in bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


def test_more_answers_than_are_shown_are_annotated_without_error():
    """A "which X" question over a real KG ranks more answers than ``ask`` shows (DALK: "Which
    drugs treat Alzheimer's disease?" has dozens); only the shown ones get a marked excerpt,
    and the rest are left as they are rather than crashing the command."""
    from types import SimpleNamespace

    from kgbuild.corpus.marks import SHOWN_ANSWERS, annotate

    def fact(i: int) -> dict:
        ev = {"sentence": f"drug{i} treats AD in mice.", "pmid": str(100 + i)}
        return {"head_id": f"X:{i}", "tail_id": "X:AD", "evidence": [ev]}

    answers = [{"id": f"X:{i}", "facts": [fact(i)]} for i in range(SHOWN_ANSWERS + 3)]
    rdict = {"triples": [], "answers": answers}
    annotate(SimpleNamespace(node_of={}), rdict)
    assert all("excerpt" in a for a in answers[:SHOWN_ANSWERS])
    assert not any("excerpt" in a for a in answers[SHOWN_ANSWERS:])


def test_what_a_marker_marks_is_asked_of_the_marker():
    """ "What is NfL a biomarker of?" asks for what it marks (diseases, processes), "What are
    the biomarkers of AD?" for markers; "what does neurogranin reflect" reads as the first."""
    from kgbuild.question.intent import infer_answer_type

    it = read_intent("What is NfL a biomarker of?")
    assert it.asked == ["biomarker"] and infer_answer_type(it, ["Gene"]) == "Disease"
    it = read_intent("What does neurogranin reflect in AD?")
    assert it.asked == ["biomarker"] and infer_answer_type(it, ["Gene", "Disease"]) == "Disease"
    it = read_intent("What are the biomarkers of AD?")
    assert infer_answer_type(it, ["Disease"]) == "Gene"


def test_slowing_a_decline_is_treating_and_detecting_a_disease_is_marking_it():
    assert read_intent("Does DHA slow cognitive decline in AD?").asked == ["treats"]
    assert read_intent("Does vitamin E delay functional decline in AD?").asked == ["treats"]
    assert read_intent("Can a blood test for p-tau detect Alzheimer's?").asked == ["biomarker"]
    assert read_intent("Is plasma NfL diagnostic for AD?").asked == ["biomarker"]
