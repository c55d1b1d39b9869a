"""``kgbuild diff`` names what changed and ranks it by how much.

A KG published through the real snapshot writer, 2019 then 2020: in 2020 two facts are new,
three existing facts gain PMIDs (one a PMID it already had, which is no new support), and one
gains only a negated sentence (not served, so its support does not move). The diff lists each
category largest change first with display names and IDs, counts each category, cuts each at
``--limit``, and refuses two KGs' snapshots in one line; hostile names print as text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.errors import InputError, StoreError
from kgbuild.records import Entity, Evidence, SnapshotCounts, Triple
from kgbuild.store.diff import diff_snapshots
from kgbuild.store.snapshots import SnapshotInfo, Warehouse
from tests.conftest import ROOT
from tests.support.query_kg import build_query_kg

AD, APOE, APP, MAPT = "MESH:D000544", "NCBIGene:348", "NCBIGene:351", "NCBIGene:4137"
DONEPEZIL, ACHE, EVIL = "MESH:D000077265", "NCBIGene:43", "free:evil"
HOSTILE = "[red]x[/red]<script>alert(1)</script>"
NODES = [
    Entity(AD, "Alzheimer disease", "Disease", [], 2019, display_name="Alzheimer's disease"),
    Entity(APOE, "APOE", "Gene", [], 2019, display_name="APOE (apolipoprotein E)"),
    Entity(APP, "APP", "Gene", [], 2019),  # no display name: its name is shown
    Entity(MAPT, "MAPT", "Gene", [], 2019, display_name="MAPT (microtubule associated tau)"),
    Entity(DONEPEZIL, "donepezil", "Compound", [], 2019, display_name="donepezil"),
    Entity(ACHE, "ACHE", "Gene", [], 2019, display_name="ACHE (acetylcholinesterase)"),
    Entity(EVIL, HOSTILE, "", [], 2019, display_name=HOSTILE),
]
T_APOE, T_APP, T_MAPT = (APOE, "associates", AD), (APP, "associates", AD), (MAPT, "associates", AD)
T_EVIL, T_DONEPEZIL = (EVIL, "associates", AD), (DONEPEZIL, "treats", AD)
T_ACHE = (DONEPEZIL, "downregulates", ACHE)

# (triple, pmid, epistemic): 2019, then 2020 (the triples of 2019 are not re-added in 2020)
EVIDENCE_2019 = [(T_APOE, "1", "asserted"), (T_APOE, "2", "asserted"), (T_APP, "3", "asserted"),
                 (T_MAPT, "4", "asserted"),
                 (T_EVIL, "5", "hypothesis")]  # hedged in 2019, asserted in 2020  # fmt: skip
EVIDENCE_2020 = [
    (T_APOE, "6", "asserted"), (T_APOE, "7", "asserted"), (T_APOE, "8", "asserted"),
    (T_APOE, "2", "asserted"),  # a second sentence of a PMID it had: no new support
    (T_APP, "9", "negated"),  # not served: APP's support does not move
    (T_MAPT, "10", "asserted"), (T_EVIL, "11", "asserted"),
    (T_DONEPEZIL, "12", "asserted"), (T_DONEPEZIL, "13", "asserted"), (T_ACHE, "14", "asserted"),
]  # fmt: skip


def _tid(t: tuple[str, str, str]) -> str:
    return "t:" + "|".join(t)


def _evidence(rows: list, year: int) -> list[Evidence]:
    out = []
    for n, (t, pmid, status) in enumerate(rows):
        sentence = f"{t[0]} {t[1]} {t[2]} (sentence {n})."
        out.append(Evidence(f"e:{year}:{n}", _tid(t), pmid, year, sentence, 0, len(sentence), 0,
                            1, 2, 3, "generative", "generative", "m", None, t[1], "", "", 0.7,
                            epistemic=status))  # fmt: skip
    return out


def _commit(w, year: int) -> SnapshotInfo:
    return w.commit(year, f"b{year}", {"extractor": "generative"}, f"in{year}", "test",
                    SnapshotCounts())  # fmt: skip


def build_diff_kg(root: Path, kg: str = "diffkg") -> list[SnapshotInfo]:
    w = Warehouse(root).writer(kg)
    w.add("entities", NODES)
    w.add("triples", [Triple(_tid(t), *t, t[1], "generative") for t in (T_APOE, T_APP, T_MAPT,
                                                                          T_EVIL)])  # fmt: skip
    w.add("evidence", _evidence(EVIDENCE_2019, 2019))
    first = _commit(w, 2019)
    w.add("triples", [Triple(_tid(t), *t, t[1], "generative") for t in (T_DONEPEZIL, T_ACHE)])
    w.add("evidence", _evidence(EVIDENCE_2020, 2020))
    return [first, _commit(w, 2020)]


@pytest.fixture(scope="module")
def diff_kg(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, list[SnapshotInfo]]:
    root = tmp_path_factory.mktemp("diff") / "wh"
    infos = build_diff_kg(root)
    build_query_kg(root, kg="other")  # a second KG in the same warehouse
    return Warehouse(root), infos


def _rows(d, change: str) -> list[tuple]:
    return [(f.head_id, f.relation, f.tail_id, f.support_before, f.support_after, f.delta)
            for f in d.facts[change]]  # fmt: skip


def test_facts_added_and_changed_largest_change_first(diff_kg):
    wh, (y2019, y2020) = diff_kg
    d = diff_snapshots(wh, y2019.snapshot_id, y2020.snapshot_id)
    assert d.counts == {"added": 2, "removed": 0, "changed": 3, "belief_moved": 4,
                        "status_changed": 1}  # fmt: skip
    assert (d.kg, d.before_year, d.after_year) == ("diffkg", 2019, 2020)
    assert _rows(d, "added") == [(*T_DONEPEZIL, None, 2, 2), (*T_ACHE, None, 1, 1)]
    assert _rows(d, "changed")[0] == (*T_APOE, 2, 5, 3)  # PMIDs 1 2 → 1 2 6 7 8
    assert {r[:3] for r in _rows(d, "changed")[1:]} == {T_MAPT, T_EVIL}  # +1 each
    assert T_APP not in {r[:3] for r in _rows(d, "changed")}  # a negated sentence: no support
    first = d.facts["changed"][0]
    assert (first.head, first.tail) == ("APOE (apolipoprotein E)", "Alzheimer's disease")


def test_the_reverse_diff_lists_removed_facts_and_losses(diff_kg):
    wh, (y2019, y2020) = diff_kg
    d = diff_snapshots(wh, y2020.snapshot_id, y2019.snapshot_id)
    assert d.counts == {"added": 0, "removed": 2, "changed": 3, "belief_moved": 4,
                        "status_changed": 1}  # fmt: skip
    assert _rows(d, "removed") == [(*T_DONEPEZIL, 2, None, -2), (*T_ACHE, 1, None, -1)]
    assert _rows(d, "changed")[0] == (*T_APOE, 5, 2, -3)
    assert d.facts["removed"][1].tail == "ACHE (acetylcholinesterase)"


def test_limit_cuts_each_category_not_the_counts(diff_kg):
    wh, (y2019, y2020) = diff_kg
    d = diff_snapshots(wh, y2019.snapshot_id, y2020.snapshot_id, limit=1)
    assert d.counts == {"added": 2, "removed": 0, "changed": 3, "belief_moved": 4,
                        "status_changed": 1}  # fmt: skip
    assert [len(v) for v in d.facts.values()] == [1, 0, 1, 1, 1]
    assert _rows(d, "changed") == [(*T_APOE, 2, 5, 3)]
    assert diff_snapshots(wh, y2019.snapshot_id, y2020.snapshot_id, limit=0).facts == {
        "added": [], "removed": [], "changed": [], "belief_moved": [],
        "status_changed": []}  # fmt: skip
    with pytest.raises(InputError, match="--limit"):
        diff_snapshots(wh, y2019.snapshot_id, y2020.snapshot_id, limit=-1)


def test_a_status_change_and_a_negating_paper_move_the_belief(diff_kg):
    """EVIL's fact was only hedged in 2019 ("may") and is asserted in 2020: a status change,
    from no belief to some. APP's one 2020 sentence is negated: no new support, and its belief
    falls (Dempster's rule: one negation against one assertion) — but it is not *contested*:
    that label is for what the ``conflicts`` view reads as a disagreement, and a bare negated
    row is not one. More agreeing papers raise APOE's belief."""
    wh, (y2019, y2020) = diff_kg
    d = diff_snapshots(wh, y2019.snapshot_id, y2020.snapshot_id)
    (flip,) = d.facts["status_changed"]
    assert (flip.head_id, flip.relation, flip.tail_id) == T_EVIL
    assert (flip.status_before, flip.status_after, flip.delta) == ("hedged", "asserted", 1)
    assert flip.belief_before == 0 < flip.belief_after
    moved = {(f.head_id, f.relation, f.tail_id): f for f in d.facts["belief_moved"]}
    assert moved[T_APOE].belief_after > moved[T_APOE].belief_before
    app = moved[T_APP]
    assert app.belief_after < app.belief_before and app.status_after == "asserted"
    assert app.belief_delta == round(app.belief_after - app.belief_before, 4)


def test_two_kgs_snapshots_are_refused(diff_kg):
    wh, (y2019, _) = diff_kg
    with pytest.raises(StoreError, match=r"one KG; .* is of diffkg and .* of other"):
        diff_snapshots(wh, y2019.snapshot_id, wh.resolve("other@2020"))


def _kgbuild(wh: Warehouse, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh.root)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", "diff", *args],
                          capture_output=True, text=True, env=env, timeout=180)  # fmt: skip


@pytest.mark.slow  # processes
def test_the_command_prints_names_ids_and_changes(diff_kg):
    wh, (y2019, y2020) = diff_kg
    run = _kgbuild(wh, "diffkg@2019", "diffkg@2020")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "diffkg@2019" in out and "2 facts added, 0 removed, 3 with changed support" in out
    assert "APOE (apolipoprotein E) [NCBIGene:348]" in out and "2 → 5" in out and "+3" in out
    assert "donepezil [MESH:D000077265]" in out and "— → 2" in out
    assert f"{HOSTILE} [free:evil]" in out  # markup and HTML shown as text, not interpreted
    assert out.index("added facts") < out.index("support changed")
    assert "hedged → asserted" in out and "status changed" in out
    as_json = _kgbuild(wh, "2019", "2020", "--kg", "diffkg", "--json", "--limit", "1")
    got = json.loads(as_json.stdout)
    assert (got["from"], got["to"]) == (y2019.snapshot_id, y2020.snapshot_id)
    assert (got["added"], got["removed"], got["changed"]) == (2, 0, 3)
    (changed,) = got["facts"]["changed"]
    assert {k: changed[k] for k in ("head_id", "head", "relation", "tail_id", "tail",
                                    "support_before", "support_after", "delta")} == {
        "head_id": APOE, "head": "APOE (apolipoprotein E)", "relation": "associates",
        "tail_id": AD, "tail": "Alzheimer's disease", "support_before": 2, "support_after": 5,
        "delta": 3}  # fmt: skip
    assert (changed["status_before"], changed["status_after"]) == ("asserted", "asserted")
    assert changed["belief_after"] > changed["belief_before"] > 0
    assert got["facts"]["status_changed"][0]["status_before"] == "hedged"


@pytest.mark.slow  # processes
@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["diffkg@2019", "other@2020"], "one KG"),
        (["2019", "other@2020", "--kg", "diffkg"], "belongs to KG 'other'"),
        (["diffkg@2019", "diffkg@2020", "--limit", "-1"], "--limit"),
        (["diffkg@2005", "diffkg@2020"], "diffkg has 2019–2020"),
    ],
    ids=["two-kgs", "kg-conflict", "limit", "no-such-year"],
)
def test_bad_input_is_one_line_and_exit_2(diff_kg, args, says):
    run = _kgbuild(diff_kg[0], *args)
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert says in lines[0], lines
