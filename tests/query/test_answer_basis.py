"""Answers say what they rest on: served facts first; then facts whose evidence is
not served (background, hedged, read across sentences), with that sentence and its status;
never a fact whose only evidence denies it. The toy KG of tests/support/query_kg.py plus three
triples about dementia."""

from __future__ import annotations

from typer.testing import CliRunner

from kgbuild.cli import app
from kgbuild.query.engine import QueryEngine
from kgbuild.records import Entity, Evidence, Triple
from kgbuild.store.snapshots import Warehouse
from tests.support.query_kg import EDGES_2019, EDGES_2020, NODES, publish_year

DEMENTIA, DONEPEZIL, ACH, FILLER = "MESH:D003704", "MESH:D000077265", "MESH:D000109", "MESH:C000001"
BACKGROUND = f"t:{DONEPEZIL}|treats|{DEMENTIA}"
NEGATED = f"t:{ACH}|treats|{DEMENTIA}"
ASSERTED = f"t:{FILLER}|treats|{DEMENTIA}"
SAID = {
    BACKGROUND: [("4001", "Donepezil has been shown to treat dementia in earlier trials.",
                  "background"),
                 ("4002", "Previous studies reported that donepezil treats dementia.",
                  "background")],
    NEGATED: [("4003", "Acetylcholine did not treat dementia.", "negated")],
    ASSERTED: [("4004", "Filler compound 1 treats dementia.", "asserted")],
}  # fmt: skip


def _kg(tmp_path):
    root = tmp_path / "wh"
    w = Warehouse(root).writer("toy")
    publish_year(w, 2019, EDGES_2019, [Entity(i, n, t, [n], 2019) for i, n, t in NODES])
    w.add("triples", [Triple(t, t.split("|")[0][2:], "treats", DEMENTIA, "treats", "generative")
                      for t in SAID])  # fmt: skip
    rows = []
    for tid, said in SAID.items():
        for pmid, s, status in said:
            rows.append(Evidence(f"e:{pmid}", tid, pmid, 2020, s, 0, len(s), 0, 5, 6, 10,
                                 "generative", "g", confidence=0.6, epistemic=status,
                                 epistemic_cue=""))  # fmt: skip
    w.add("evidence", rows)
    publish_year(w, 2020, EDGES_2020)
    return root


def test_served_facts_first_then_weaker_facts_with_their_status(tmp_path):
    eng = QueryEngine(_kg(tmp_path), embeddings=False)
    r = eng.retrieve("Which drugs treat dementia?", embed="off")
    got = [(a["id"], a["basis"]) for a in r.answers]
    # the asserted fact first, though the background one has more PMIDs
    assert got[:2] == [(FILLER, "fact"), (DONEPEZIL, "weaker_fact")]
    weaker = r.answers[1]
    shown = [ev for f in weaker["facts"] for ev in f["evidence"]]
    assert {ev["status"] for ev in shown} == {"background"}
    assert {ev["pmid"] for ev in shown} == {"4001", "4002"} and weaker["support"] == 2
    assert "background" in weaker["why"] and weaker["sentence"]
    # a fact whose only evidence denies it is no answer, in any tier
    assert ACH not in {a["id"] for a in r.answers}
    # the served triples themselves stay served-only
    assert BACKGROUND not in {t.triple_id for t in r.triples}


def test_no_weaker_tier_under_filters_or_with_every_row(tmp_path):
    from kgbuild.query.explore import Filters

    root = _kg(tmp_path)
    eng = QueryEngine(root, embeddings=False)
    only = Filters(relations=frozenset({"treats"}))
    r = eng.retrieve("Which drugs treat dementia?", embed="off", filters=only)
    assert [a["basis"] for a in r.answers] == ["fact"]  # a filter would not hold below
    every = QueryEngine(root, embeddings=False, all_evidence=True)
    r = every.retrieve("Which drugs treat dementia?", embed="off")
    basis = {a["id"]: a["basis"] for a in r.answers}
    assert basis[DONEPEZIL] == "fact"  # every row is served: it is a fact like any other


def test_ask_prints_what_each_answer_rests_on(tmp_path):
    root = _kg(tmp_path)
    res = CliRunner().invoke(app, ["ask", "Which drugs treat dementia?", "--warehouse",
                                   str(root), "--no-llm", "--embed", "off"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "asserted fact" in res.output and "fact, background" in res.output


def test_an_answer_stated_mostly_as_background_ranks_by_all_its_rows(tmp_path):
    """Established knowledge is stated as background: a drug served in 1 abstract and stated
    as prior work in 12 more outranks one served in 2 (at half weight for its other rows)."""
    memantine, galantamine = "MESH:D008559", "MESH:D005702"
    rows = {f"t:{memantine}|treats|{DEMENTIA}":
            [("5000", "Memantine treats dementia.", "asserted")]
            + [(str(5001 + i), "Memantine is approved to treat dementia.", "background")
               for i in range(12)],
            f"t:{galantamine}|treats|{DEMENTIA}":
            [("5100", "Galantamine treats dementia.", "asserted"),
             ("5101", "Galantamine treated dementia in a trial.", "asserted")]}  # fmt: skip
    root = tmp_path / "wh"
    w = Warehouse(root).writer("toy")
    ents = [Entity(i, n, t, [n], 2019) for i, n, t in NODES]
    ents += [Entity(memantine, "memantine", "Compound", ["memantine"], 2019),
             Entity(galantamine, "galantamine", "Compound", ["galantamine"], 2019)]  # fmt: skip
    publish_year(w, 2019, EDGES_2019, ents)
    w.add("triples", [Triple(t, t.split("|")[0][2:], "treats", DEMENTIA, "treats", "generative")
                      for t in rows])  # fmt: skip
    w.add("evidence", [Evidence(f"e:{p}", t, p, 2020, s, 0, len(s), 0, 5, 6, 10, "generative",
                                "g", confidence=0.6, epistemic=st, epistemic_cue="")
                       for t, said in rows.items() for p, s, st in said])  # fmt: skip
    publish_year(w, 2020, EDGES_2020)
    r = QueryEngine(root, embeddings=False).retrieve("Which drugs treat dementia?", embed="off")
    got = [(a["id"], a["basis"]) for a in r.answers]
    assert got[:2] == [(memantine, "fact"), (galantamine, "fact")], got
    top = next(a for a in r.answers if a["id"] == memantine)
    assert top["support"] == 13
    # still a served fact's answer: its served triple is featured, never "no asserted fact"
    assert top["edges"] and "why" not in top


def test_a_disease_attribute_heading_is_no_answer(tmp_path):
    """MeSH's Disease Attributes (Late Onset Disorders: "late-onset" of "late-onset AD") name
    how a disease runs, not a disease: never a side effect, however it was extracted."""
    drug, late, nausea = "MESH:D000077265", "MESH:D000067562", "MESH:D009325"
    ents = [Entity(drug, "donepezil", "Compound", ["donepezil"], 2019),
            Entity(late, "Late Onset Disorders", "Disease", ["late-onset"], 2019),
            Entity(nausea, "Nausea", "Disease", ["nausea"], 2019)]  # fmt: skip
    said = [
        ("6001", 2019, "Donepezil caused late-onset AD.", 0.8),
        ("6002", 2019, "Donepezil induced late-onset AD.", 0.8),
    ]
    edges = [
        (drug, "causes", late, said),
        (drug, "causes", nausea, [("6003", 2019, "Donepezil caused nausea.", 0.8)]),
    ]
    root = tmp_path / "wh"
    publish_year(Warehouse(root).writer("toy"), 2019, edges, ents)
    r = QueryEngine(root, embeddings=False).retrieve(
        "What are the side effects of donepezil?", embed="off"
    )
    assert [a["id"] for a in r.answers] == [nausea]
