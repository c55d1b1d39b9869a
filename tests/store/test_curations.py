"""Curations (kgbuild.store.curations): an append-only log in the warehouse, applied to every
snapshot holding the curated sentence — through a rebuild — and read back as judged rows.

Each test builds its own small real KG (tests/support/hostile_kg.py: two yearly snapshots
through the real snapshot writer) and reads it through the catalog's real SQL."""

from __future__ import annotations

import shutil

import pytest

from kgbuild.errors import InputError, StoreError
from kgbuild.reader.curated import write as export_judged
from kgbuild.reader.judged import fact, load
from kgbuild.search.index import open_index
from kgbuild.store import curations as C
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql import confined
from tests.support.hostile_kg import build_hostile_kg

pytestmark = pytest.mark.slow  # each test builds and reads a real KG (seconds)

TRIPLE = "t:NCBIGene:348|associates|MESH:D000544"
PMID = "1002"
SENTENCE = "The APOE e4 allele raises the risk of Alzheimer disease."
ROW_SQL = """
    SELECT e.pmid, e.triple_id, t.head_id, t.relation, t.tail_id, e.sentence, e.sent_start,
           e.head_start, e.head_end, e.tail_start, e.tail_end
    FROM evidence_status_at(?) e JOIN triples_at(?) t USING (triple_id)
    WHERE e.pmid = ? AND e.triple_id = ? ORDER BY e.evidence_id LIMIT 1"""
COLS = ("pmid", "triple_id", "head_id", "relation", "tail_id", "sentence", "sent_start",
        "head_start", "head_end", "tail_start", "tail_end")  # fmt: skip


@pytest.fixture
def kg(tmp_path):
    root = tmp_path / "wh"
    infos = build_hostile_kg(root)
    return root, Warehouse(root), infos[-1].snapshot_id


def curate(wh: Warehouse, sid: str, label: str, curator: str = "ann", note: str = "",
           pmid: str = PMID) -> C.Curation:  # fmt: skip
    row = dict(zip(COLS, wh.query(ROW_SQL, [sid, sid, pmid, TRIPLE])[0], strict=True))
    c = C.make(curator=curator, label=label, note=note, snapshot_id=sid, kg="toy", row=row)
    C.append(wh.root, c)
    return c


def served(wh: Warehouse, sid: str) -> tuple[int, int]:
    """(support in kg_edges, asserted PMIDs in belief_of) of the curated fact."""
    support = wh.query("SELECT support FROM kg_edges_at(?) WHERE triple_id = ?", [sid, TRIPLE])
    belief = wh.query("SELECT n_asserted FROM belief_of(?) WHERE triple_id = ?", [sid, TRIPLE])
    return support[0][0], belief[0][0]


def test_a_refuted_sentence_stops_counting_everywhere_served_is_decided(kg):
    root, wh, sid = kg
    assert served(wh, sid) == (3, 3)
    assert C.log_path(root).is_file() and C.log_path(root).stat().st_size == 0
    curate(wh, sid, "does_not_state", note="a risk factor, not an association")
    assert served(wh, sid) == (2, 2)
    status = dict(wh.query("SELECT pmid, epistemic FROM evidence_status_at(?) WHERE "
                           "triple_id = ?", [sid, TRIPLE]))  # fmt: skip
    assert status == {"1001": "asserted", PMID: C.CURATED_OUT, "1003": "asserted"}
    n = wh.query("SELECT n_curated_out, n_asserted FROM kg_edges_all_at(?) WHERE triple_id = ?",
                 [sid, TRIPLE])  # fmt: skip
    assert n == [(1, 2)]
    # the query index (ask, serve, the explorer) is rebuilt for the curated log, and drops it
    idx = open_index(wh, sid, root / "index")
    e = list(idx.edges["triple_id"]).index(TRIPLE)
    rows = range(int(idx.ev_ptr[e]), int(idx.ev_ptr[e + 1]))
    assert sorted(idx.evidence["pmid"][r] for r in rows) == ["1001", "1003"]
    # one more curation: a new cache, and the one of the log's earlier state is gone
    curate(wh, sid, "states", pmid="1001")
    open_index(wh, sid, root / "index")
    assert len([p for p in (root / "index").iterdir() if "-c" in p.name]) == 1
    # the earlier snapshot holds the same sentence: the curation is about the sentence
    first = wh.snapshots()[0]["snapshot_id"]
    assert served(wh, first) == (2, 2)


def test_the_log_is_append_only_and_the_latest_curation_of_a_sentence_wins(kg):
    root, wh, sid = kg
    curate(wh, sid, "wrong_concept", curator="ann")
    before = C.log_path(root).read_bytes()
    assert served(wh, sid)[0] == 2
    curate(wh, sid, "states", curator="bob", note="it does state it")
    after = C.log_path(root).read_bytes()
    assert after.startswith(before) and after.count(b"\n") == 2  # appended, never rewritten
    assert served(wh, sid)[0] == 3  # bob's later "states it" puts it back
    log = C.read_all(root)
    assert [c.label for c in log] == ["wrong_concept", "states"]
    assert log[0].snapshot_id == sid and log[0].curator == "ann" and log[0].created_at
    assert log[0].sentence_md5 == C.sentence_md5(SENTENCE)
    assert list(C.latest(log).values()) == [log[1]]


def test_curations_survive_a_rebuild_and_apply_to_the_new_snapshot(kg):
    root, wh, sid = kg
    curate(wh, sid, "does_not_state")
    log = C.log_path(root).read_bytes()
    # rebuild from nothing: every snapshot, part, cache and the catalog go; the log stays
    for sub in ("parts", "snapshots", "index"):
        shutil.rmtree(root / sub, ignore_errors=True)
    (root / "kg.duckdb").unlink()
    new = build_hostile_kg(root)[-1].snapshot_id
    assert C.log_path(root).read_bytes() == log  # a build's write connection kept it whole
    assert served(Warehouse(root), new) == (2, 2)


def test_a_warehouse_without_a_log_still_reads_and_user_sql_sees_the_log(kg):
    root, wh, sid = kg
    C.log_path(root).unlink()  # a warehouse from before curations, opened read-only
    assert served(wh, sid) == (3, 3)
    curate(wh, sid, "does_not_state")
    with confined(root) as con:  # kgbuild sql: the log is readable, nothing else outside parts/
        n = con.execute("SELECT count(*) FROM curation_log()").fetchone()[0]
        got = con.execute("SELECT support FROM kg_edges_at(?) WHERE triple_id = ?",
                          [sid, TRIPLE]).fetchone()[0]  # fmt: skip
    assert (n, got) == (1, 2)


def test_a_damaged_log_line_is_an_error_naming_it(kg):
    root, wh, sid = kg
    curate(wh, sid, "states")
    with C.log_path(root).open("a") as fh:
        fh.write('{"curator": "torn')
    with pytest.raises(StoreError, match="line 2"):
        C.read_all(root)


@pytest.mark.parametrize(
    ("field", "curator", "label", "note"),
    [
        ("label", "ann", "maybe", ""),
        ("curator", "", "states", ""),
        ("curator", "<script>", "states", ""),
        ("note", "ann", "states", "x" * (C.MAX_NOTE + 1)),
        ("note", "ann", "states", "two\nlines"),
    ],
)
def test_bad_fields_are_refused_before_anything_is_written(kg, field, curator, label, note):
    root, wh, sid = kg
    with pytest.raises(InputError) as exc:
        curate(wh, sid, label, curator=curator, note=note)
    assert exc.value.context.get("field") == field
    assert C.log_path(root).stat().st_size == 0


def test_export_round_trips_through_the_judged_row_loader(kg, tmp_path):
    root, wh, sid = kg
    curate(wh, sid, "does_not_state", curator="ann", note="risk\tfactor")
    curate(wh, sid, "states", curator="ann", pmid="1001")
    curate(wh, sid, "states", curator="bob", pmid="1001")  # a second judge of the same row
    out = tmp_path / "judged"
    assert export_judged(out, C.read_all(root)) == {"rows": 2, "judgments": 3}
    judged = {j.row.pmid: j for j in load(out)}
    no, yes = judged[PMID], judged["1001"]
    assert no.label["stated"] == "no" and not fact(no.label) and no.label["note"] == "risk factor"
    assert no.label["judge"] == "ann" and no.label["guideline"] == C.GUIDELINE
    assert fact(yes.label) and yes.label["relation"] == "associates"
    assert yes.second is not None and yes.second["judge"] == "bob"
    assert yes.row.source == "curation" and sid in yes.row.stratum
    assert (yes.row.a_id, yes.row.b_id) == ("NCBIGene:348", "MESH:D000544")
