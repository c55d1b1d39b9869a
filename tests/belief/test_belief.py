"""Belief per fact per year — ``belief_at(year)``, ``belief_history(triple or node)``.

The KG of tests/cli/test_diff.py, published through the real snapshot writer: 2019, then 2020,
where APOE gains three papers, MAPT one, and APP only a negated sentence (``contested``,
read from the conflicts view, is tested on real sentences in test_as_of.py). The belief is checked
against INDRA's formula recomputed here from the rows' calibrated confidences (the same model
``kg_edges`` applies), the negation against Dempster's rule, and a year outside the snapshots
against an error that names the years there are."""

from __future__ import annotations

import duckdb
import pytest

from kgbuild.belief.confidence import confidence_sql, load_model, row_features_sql
from kgbuild.belief.history import SYSTEMATIC_ERROR
from kgbuild.records import Entity, Triple
from kgbuild.store.snapshots import Warehouse
from tests.cli.test_diff import (
    AD,
    APOE,
    APP,
    MAPT,
    T_APOE,
    T_APP,
    T_MAPT,
    _commit,
    _evidence,
    _tid,
    build_diff_kg,
)


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    root = tmp_path_factory.mktemp("belief") / "wh"
    build_diff_kg(root)
    return Warehouse(root)


def _belief(wh: Warehouse, year: int) -> dict[str, dict]:
    rows = wh.query(f"SELECT * FROM belief_at({year})")
    cols = [r[0] for r in wh.query("DESCRIBE SELECT * FROM belief")]
    return {r[0]: dict(zip(cols, r, strict=True)) for r in rows}


def _paper_p(wh: Warehouse, sid: str, tid: str, status: str) -> list[float]:
    """Each paper's best row probability on one side, computed apart from the belief SQL."""
    sql = confidence_sql(load_model())
    if status == "negated":  # read as stated: the model without its negation term
        sql = sql.replace("epistemic_negated", "0.0")
    rows = wh.query(
        f"SELECT pmid, max({sql}) FROM ({row_features_sql(repr(sid))}) "
        "WHERE triple_id = ? AND epistemic = ? GROUP BY pmid",
        [tid, status],
    )
    return [float(p) for _, p in rows]


def _indra(ps: list[float]) -> float:
    prod = 1.0
    for p in ps:
        prod *= 1 - p
    return (1 - SYSTEMATIC_ERROR) * (1 - prod) if ps else 0.0


def test_belief_follows_indra_and_more_papers_raise_it(wh):
    b19, b20 = _belief(wh, 2019), _belief(wh, 2020)
    apoe19, apoe20 = b19[_tid(T_APOE)], b20[_tid(T_APOE)]
    assert (apoe19["pmids_asserted"], apoe20["pmids_asserted"]) == (2, 5)
    assert apoe20["n_asserted"] == 6  # PMID 2 twice: two rows, one paper
    sid20 = wh.resolve("diffkg@2020")
    expected = _indra(_paper_p(wh, sid20, _tid(T_APOE), "asserted"))
    assert apoe20["belief_for"] == pytest.approx(expected, abs=1e-4)
    assert apoe20["belief"] == apoe20["belief_for"] and apoe20["status"] == "asserted"
    assert apoe20["belief"] > apoe19["belief"] > 0
    assert max(r["belief"] for r in b20.values()) <= 1 - SYSTEMATIC_ERROR  # the cap


def test_a_negated_paper_weighs_against_by_dempsters_rule(wh):
    """The negated row lowers the belief; the fact is not labelled contested, which is for
    what the ``conflicts`` view reads as a disagreement (none here: no such sentences)."""
    app19, app20 = _belief(wh, 2019)[_tid(T_APP)], _belief(wh, 2020)[_tid(T_APP)]
    assert (app19["status"], app20["status"]) == ("asserted", "asserted")
    assert (app20["pmids_asserted"], app20["pmids_negated"], app20["first_negated"]) == (1, 1, 2020)
    sid20 = wh.resolve("diffkg@2020")
    against = _indra(_paper_p(wh, sid20, _tid(T_APP), "negated"))
    assert app20["belief_against"] == pytest.approx(against, abs=1e-4) and against > 0
    f = app20["belief_for"]
    assert app20["belief"] == pytest.approx(f * (1 - against) / (1 - f * against), abs=1e-4)
    assert app20["belief"] < app19["belief"]


def test_history_is_one_row_per_year_equal_to_belief_at(wh):
    hist = wh.query(
        "SELECT year, pmids_asserted, pmids_negated, belief, status, head_id "
        f"FROM belief_history('{_tid(T_APP)}')"
    )
    assert [(y, n) for y, _, n, *_ in hist] == [(2019, 0), (2020, 1)]  # the negating paper
    for year, _, _, belief, _, head in hist:
        assert belief == _belief(wh, year)[_tid(T_APP)]["belief"] and head == APP
    # a fact new in 2020 has no 2019 row
    assert [r[0] for r in wh.query(
        "SELECT year FROM belief_history((SELECT triple_id FROM triples "
        "WHERE relation = 'treats'))")] == [2020]  # fmt: skip


def test_the_head_view_and_a_year_between_or_outside(wh):
    assert {r[0] for r in wh.query("SELECT head_id FROM belief")} >= {APOE, APP, MAPT}
    for year in (2018, 2021):
        with pytest.raises(duckdb.Error, match=rf"as of {year}; the years there are: 2019, 2020"):
            wh.query(f"SELECT * FROM belief_at({year})")
    assert wh.query("SELECT year FROM lineage_years() ORDER BY year") == [(2019,), (2020,)]


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        ("belief_at(NULL)", "belief_at: the year is NULL; give a whole year such as 2015"),
        ("belief_at('2019')", "whole number such as 2015, not VARCHAR 2019"),
        ("belief_at(2019.5)", "whole number such as 2015, not DECIMAL"),
        ("belief_at(2019, kg_name := 'nope')", "no KG named nope; the KGs there are: "),
        ("belief_at(2019, kg_name := 42)", "no KG named 42; the KGs there are: "),
        ("belief_history('x', kg_name := 'nope')", "no KG named nope; the KGs there are: "),
        (
            "belief_history(42)",
            r"give one triple_id \(kg_edges.triple_id\) or one node's ID, .* not INTEGER 42",
        ),
        ("belief_history(NULL)", "give one triple_id .* not NULL"),
        ("belief_history((SELECT triple_id FROM triples))", "More than one row"),
    ],
)
def test_a_null_unknown_or_wrong_typed_argument_fails_at_once_naming_what_is_valid(wh, sql, says):
    """Before: ``belief_at(NULL)`` and an unknown ``kg_name`` returned 0 rows in silence, and
    ``belief_history(42)`` or a many-row subquery ran until the SQL time limit. The arguments
    are checked first; the KG list names the one there is."""
    with pytest.raises(duckdb.Error, match=says) as err:
        wh.query(f"SELECT * FROM {sql}")
    assert "\n" not in str(err.value).strip() or "More than one row" in says
    if "KGs there are" in says:
        kgs = ", ".join(sorted(k for (k,) in wh.query("SELECT DISTINCT kg FROM snapshots")))
        assert str(err.value).rstrip().endswith(kgs)


#: Nodes named the way abstracts name them: "AD" is an alias of two nodes (Alzheimer's disease
#: and autosomal dominant inheritance), "apolipoprotein E" of APOE only.
AUTOSOMAL = "HP:0000006"
NAMED_NODES = [
    Entity(AD, "Alzheimer disease", "Disease", ["AD", "Alzheimer's"], 2019,
           display_name="Alzheimer's disease"),
    Entity(APOE, "APOE", "Gene", ["apolipoprotein E", "ApoE4"], 2019,
           display_name="APOE (apolipoprotein E)"),
    Entity(MAPT, "MAPT", "Gene", ["tau"], 2019, display_name="MAPT (microtubule associated tau)"),
    Entity(AUTOSOMAL, "autosomal dominant", "Disease", ["AD"], 2019),
]  # fmt: skip


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """APOE → AD in 2019 and 2020 (two more papers in 2020), MAPT → AD from 2020."""
    wh = Warehouse(tmp_path_factory.mktemp("named") / "wh")
    w = wh.writer("named")
    w.add("entities", NAMED_NODES)
    w.add("triples", [Triple(_tid(T_APOE), *T_APOE, T_APOE[1], "generative")])
    w.add("evidence", _evidence([(T_APOE, "1", "asserted")], 2019))
    _commit(w, 2019)
    w.add("triples", [Triple(_tid(T_MAPT), *T_MAPT, T_MAPT[1], "generative")])
    w.add("evidence", _evidence([(T_APOE, "2", "asserted"), (T_MAPT, "3", "asserted")], 2020))
    _commit(w, 2020)
    return wh


def _history(wh: Warehouse, key: str) -> list[tuple]:
    return wh.query("SELECT year, triple_id, pmids_asserted FROM belief_history(?)", [key])


@pytest.mark.parametrize(
    "key", ["APOE", "apoe", "NCBIGene:348", "ncbigene:348", "APOE (apolipoprotein E)",
            "Apolipoprotein E", "apoe4"],
)  # fmt: skip
def test_history_of_a_node_by_its_id_name_or_alias(named, key):
    """Before, ``belief_history('APOE')`` returned 0 rows in silence (the macro matched only a
    triple's hash); a node's ID, name, display name or alias, in any case, is its history."""
    assert _history(named, key) == [(2019, _tid(T_APOE), 1), (2020, _tid(T_APOE), 2)]


def test_history_of_a_node_is_every_fact_it_is_an_end_of(named):
    by_name = _history(named, "alzheimer disease")
    assert by_name == _history(named, "Alzheimer's disease") == _history(named, "Alzheimer's")
    assert by_name == [(2019, _tid(T_APOE), 1), (2020, _tid(T_APOE), 2), (2020, _tid(T_MAPT), 1)]
    assert _history(named, _tid(T_MAPT)) == [(2020, _tid(T_MAPT), 1)]  # a triple ID still works


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ("APOEx", r"no triple or node of named matches 'APOEx'; give a triple_id"),
        ("t:nope", r"no triple or node of named matches 't:nope'"),
        (
            "ad",
            r"'ad' names 2 nodes of named: HP:0000006 \(autosomal dominant\), "
            r"MESH:D000544 \(Alzheimer's disease\); give one of their IDs",
        ),
    ],
)
def test_a_key_that_names_nothing_or_several_nodes_is_an_error_naming_it(named, key, says):
    """Never 0 rows for a key that matches nothing, and never the merged history of unrelated
    nodes for an ambiguous alias: the error names the key and the candidates."""
    with pytest.raises(duckdb.Error, match=says):
        named.query(f"SELECT * FROM belief_history('{key}')")
