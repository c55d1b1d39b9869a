"""End to end on DALK's real corpus (9,764 records, 2011–2020); skipped without ../shared."""

import itertools
import os
import signal
import subprocess
import sys
import time

import pytest

from kgbuild.pipeline.build import build_kg
from kgbuild.store.snapshots import Warehouse
from tests.conftest import shared
from tests.support import doc_figures

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # the whole DALK corpus


@pytest.fixture(scope="module")
def dalk_build(tmp_path_factory):
    source = shared("dalk", "by_year")
    warehouse = tmp_path_factory.mktemp("dalk") / "warehouse"
    report = build_kg(source, kg="alzheimers", warehouse=warehouse)
    return source, warehouse, report


def test_the_docs_dalk_figures_are_this_builds(dalk_build):
    """docs/getting-started.md's DALK figures block is what this build gives (the docs give
    each figure once, there; tests/docs/test_dalk_figures.py keeps repeats out)."""
    fresh = doc_figures.render(doc_figures.figures(dalk_build[1]))
    assert doc_figures.page_block() == fresh, (
        "docs/getting-started.md's DALK figures differ from this build's; after checking the "
        "change, regenerate them: python -m tests.support.doc_figures --warehouse WAREHOUSE --write"
    )


def test_every_record_has_a_status(dalk_build):
    _, warehouse, _ = dalk_build
    wh = Warehouse(warehouse)
    counts = dict(wh.query("SELECT status, count(*) FROM doc_status GROUP BY 1"))
    # DALK's 9,764 abstracts, and one row for each of its 11 PMID lists (pmid-*.txt): every
    # entry of the folder ends with a status, a file that is no corpus included
    assert counts == {"built": 8519, "duplicate": 1245, "rejected": 11}
    assert wh.query("SELECT count(*) FROM doc_status")[0][0] == 9764 + 11
    lists = wh.query("SELECT source_file, reason FROM doc_status WHERE status = 'rejected'")
    assert all(f.startswith("pmid-") and "PMID list" in r for f, r in lists), lists
    assert wh.query("SELECT count(DISTINCT pmid) FROM documents")[0][0] == 8519
    # a duplicate points at the year file that built its PMID, always an earlier year
    bad = wh.query(
        "SELECT count(*) FROM doc_status s JOIN documents d USING (pmid) "
        "WHERE s.status = 'duplicate' AND d.year >= s.year"
    )
    assert bad == [(0,)]


def test_ten_growing_snapshots_agree_with_asof(dalk_build):
    _, warehouse, report = dalk_build
    assert [y.year for y in report.years] == list(range(2011, 2021))
    wh = Warehouse(warehouse)
    rows = wh.query(
        "SELECT as_of_year, n_documents, n_nodes, n_triples, n_evidence "
        "FROM snapshots ORDER BY as_of_year"
    )
    assert len(rows) == 10
    for prev, cur in itertools.pairwise(rows):
        assert all(c > p for p, c in zip(prev[1:], cur[1:], strict=True))
    for year, docs, _, triples, evidence in rows:
        got = wh.query(
            "SELECT (SELECT count(*) FROM triples_asof(?)), "
            "(SELECT count(*) FROM documents_asof(?)), "
            "(SELECT count(*) FROM evidence_asof(?))",
            [year, year, year],
        )[0]
        assert got == (triples, docs, evidence)
        assert wh.query("SELECT max(year) FROM documents_asof(?)", [year])[0][0] == year


def test_second_identical_build_changes_nothing(dalk_build):
    source, warehouse, report = dalk_build
    wh = Warehouse(warehouse)
    before = wh.query("SELECT snapshot_id, content_hash, created_at FROM snapshots ORDER BY 1")
    again = build_kg(source, kg="alzheimers", warehouse=warehouse)
    assert all(y.reused for y in again.years)
    assert [y.snapshot.content_hash for y in again.years] == [
        y.snapshot.content_hash for y in report.years
    ]
    assert (
        wh.query("SELECT snapshot_id, content_hash, created_at FROM snapshots ORDER BY 1") == before
    )


def test_killed_build_resumes_to_the_same_hashes_and_a_later_run_extends_it(dalk_build, tmp_path):
    """SIGKILL a real build process mid-run; readers see only whole snapshots; resume matches;
    then a third run, asked for one more year, restores its state from the published 2012
    snapshot and builds 2013 on it to the snapshot one go gives: same inputs → same snapshots,
    however the build was split into runs.

    The killed run covers 2011–2012, not the whole corpus: a year's snapshot is the same
    whichever run built it, the kill lands while 2012 is being built (2011 published), and the
    resume restores from that snapshot, whatever follows; three years stand for the ten (the
    restore happens once whatever follows) and keep most of a full build's CPU out of the
    suite's budget."""
    source, clean_warehouse, report = dalk_build
    years = "2011-2012"
    warehouse = tmp_path / "warehouse"
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "kgbuild.cli",
            "build",
            "--source",
            str(source),
            "--kg",
            "alzheimers",
            "--years",
            years,
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    manifests = warehouse / "snapshots"

    def published() -> list[str]:  # a manifest is published by its rename from .tmp-*
        return [p.name for p in manifests.glob("*.json") if not p.name.startswith(".tmp-")]

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if manifests.exists() and published():
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    wh = Warehouse(warehouse)
    visible = wh.query("SELECT snapshot_id, n_triples FROM snapshots")
    # 2011 published (registered, or only its manifest: the resume repairs that), 2012 not yet
    assert len(published()) == 1, "kill should land mid-build"
    assert len(visible) <= 1
    for sid, n in visible:  # every visible snapshot is whole
        assert wh.query("SELECT count(*) FROM triples_at(?)", [sid])[0][0] == n
    first = build_kg(source, kg="alzheimers", years=years, warehouse=warehouse)
    assert [y.year for y in first.years] == [2011, 2012]
    resumed = wh.query("SELECT as_of_year, content_hash FROM snapshots ORDER BY as_of_year")
    clean = Warehouse(clean_warehouse).query(
        "SELECT as_of_year, content_hash FROM snapshots WHERE as_of_year <= 2012 "
        "ORDER BY as_of_year"
    )
    assert len(clean) == 2
    assert resumed == clean
    rest = build_kg(source, kg="alzheimers", years="2011-2013", warehouse=warehouse)
    assert [y.reused for y in rest.years] == [True, True, False]
    assert [y.snapshot.snapshot_id for y in rest.years] == [
        y.snapshot.snapshot_id for y in report.years[:3]
    ]
    names = "SELECT id, name, type, aliases FROM entities_at(?) ORDER BY id"
    sid = report.years[2].snapshot.snapshot_id
    assert wh.query(names, [sid]) == Warehouse(clean_warehouse).query(names, [sid])


def test_dalk_exports_validate_load_and_report(dalk_build, kgx_python, tmp_path):
    """The real KG through every exporter: kgx validates it, LadybugDB loads the Neo4j CSVs
    with the snapshot's counts, and the report page has its charts."""
    from kgbuild.export import export_snapshot, ladybug
    from kgbuild.report.page import write_report
    from tests.support.kgx_venv import run_check

    wh = Warehouse(dalk_build[1])
    sid = wh.resolve("latest")
    # the exported graph is what kg_edges serves (asserted evidence only)
    edges, nodes = wh.query(
        "SELECT count(*), (SELECT count(*) FROM (SELECT head_id FROM kg_edges_at(?) UNION "
        "SELECT tail_id FROM kg_edges_at(?))) FROM kg_edges_at(?)",
        [sid, sid, sid],
    )[0]
    c = {"triples": edges, "nodes": nodes}
    assert 0 < edges < wh.manifest(sid)["counts"]["triples"]
    out = export_snapshot(wh, sid, tmp_path / "out", ["kgx", "neo4j", "ladybug"])
    kgx = out["kgx"]
    v = run_check(kgx_python, "--graph", str(kgx["nodes.tsv"][0]), str(kgx["edges.tsv"][0]))
    assert v["validation"][0]["errors"] == {}
    assert v["validation"][0]["edges"] + kgx["unlinked_edges.tsv"][1] == c["triples"]
    db = out["ladybug"]["kg.lbug"][0]
    assert ladybug.query(db, "MATCH (n) RETURN count(*)") == [[c["nodes"]]]
    assert ladybug.query(db, "MATCH ()-[r]->() RETURN count(*)") == [[c["triples"]]]
    page = write_report(wh, [sid], tmp_path / "report").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") >= 10
