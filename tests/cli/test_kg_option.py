"""``--kg`` on every command that reads a snapshot.

A warehouse holding two KGs (``toy`` and ``other``, real snapshots): without ``--kg`` a reader
refuses in one line naming both KGs and saying ``--kg``; with ``--kg toy`` it reads toy's
latest snapshot, and ``--kg toy`` with a bare year reads toy's year; ``--kg toy`` with a
reference to ``other`` is one line, never one KG or the other silently. Commands run in-process
(typer's runner: the error a command raises is the one ``main`` prints as one line, exit 2), the
exit status and ``serve`` as real processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from kgbuild.cli import app
from kgbuild.errors import KgbuildError, StoreError
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, ROOT
from tests.support.query_kg import EDGES_2019, EDGES_2020, build_query_kg
from tests.support.serve_process import start_serve

MEDQA = FIXTURES / "query" / "adqa" / "medqa_toy.json"
QUESTION = "Which gene is the main genetic risk factor of Alzheimer's disease?"


@pytest.fixture(scope="module")
def two_kgs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list, list]:
    """A warehouse with KG toy (2019, 2020) and KG other (2019, 2020), other built last."""
    root = tmp_path_factory.mktemp("two-kgs") / "wh"
    toy = build_query_kg(root, kg="toy")
    other = build_query_kg(root, kg="other")
    return root, toy, other


def _run(wh: Path, *args: str):
    return CliRunner().invoke(app, [*args, "-w", str(wh)], catch_exceptions=True)


def _refused(result) -> str:
    """The user error a command raised (``main`` prints it as one line, exit 2)."""
    assert isinstance(result.exception, KgbuildError), (result.output, result.exception)
    return str(result.exception)


#: Every reader run in-process, as a user would type it; each reads "the latest snapshot" when
#: given no reference. ``{out}`` is a fresh output folder. (``sql`` bounds the whole process's
#: time from its start, so it runs as a process: below.)
READERS = {
    "stats": ["stats", "--json"],
    "quality": ["quality", "--json"],
    "ask": ["ask", QUESTION, "--no-llm", "--embed", "off", "--json"],
    "export": ["export", "--out", "{out}"],
    "report": ["report", "--out", "{out}"],
    "eval-adqa": ["eval", "adqa", str(MEDQA), "--embed", "off", "--json"],
}


def _args(args: list[str], out: Path) -> list[str]:
    return [a.replace("{out}", str(out)) for a in args]


@pytest.mark.parametrize("name", list(READERS))
def test_every_reader_needs_kg_with_two_kgs_and_reads_that_kg_with_it(two_kgs, tmp_path, name):
    wh, toy, _ = two_kgs
    args = _args(READERS[name], tmp_path / "out")
    if name == "export":  # export has always asked for a snapshot, and says so
        assert "give a snapshot" in _refused(_run(wh, *args))
    elif name == "report":  # a report of every KG's newest snapshot (a page per KG is fine)
        assert _run(wh, *args).exit_code == 0
    else:
        message = _refused(_run(wh, *args))
        assert "several KGs (other, toy)" in message and "--kg" in message, message
    got = _run(wh, *args, "--kg", "toy")
    assert got.exit_code == 0, (got.output, got.exception)
    if name == "stats":
        assert [r["snapshot_id"] for r in json.loads(got.stdout)] == [i.snapshot_id for i in toy]
    if name == "ask":
        assert json.loads(got.stdout)["snapshot"]["id"] == toy[1].snapshot_id
    if name == "eval-adqa":
        assert json.loads(got.stdout)["snapshot"] == toy[1].snapshot_id
    if name == "export":
        assert f"snapshot {toy[1].snapshot_id}" in got.stdout


def test_kg_with_a_bare_year_reads_that_kgs_year(two_kgs, tmp_path):
    wh, toy, _ = two_kgs
    stats = _run(wh, "stats", "2019", "--kg", "toy", "--json")
    assert [r["snapshot_id"] for r in json.loads(stats.stdout)] == [toy[0].snapshot_id]
    ask = _run(wh, "ask", QUESTION, "--no-llm", "--embed", "off", "--json", "--kg", "toy",
               "-s", "2019")  # fmt: skip
    assert json.loads(ask.stdout)["snapshot"]["id"] == toy[0].snapshot_id
    report = _run(wh, "report", "2019", "--kg", "toy", "--out", str(tmp_path / "r"))
    assert report.exit_code == 0, report.output


@pytest.mark.parametrize(
    "args",
    [
        ["stats", "other@2019"],
        ["sql", "SELECT 1", "--snapshot", "other@latest"],
        ["quality", "other@2020"],
        ["ask", QUESTION, "--no-llm", "-s", "other@2019"],
        ["diff", "2019", "other@2020"],
        ["report", "other@2019", "--out", "unused"],
    ],
    ids=["stats", "sql", "quality", "ask", "diff", "report"],
)
def test_kg_and_a_reference_to_another_kg_are_refused(two_kgs, args):
    wh, _, _ = two_kgs
    message = _refused(_run(wh, *args, "--kg", "toy"))
    assert "belongs to KG 'other', not --kg toy" in message, message


def test_kg_and_an_id_of_another_kgs_snapshot_are_refused(two_kgs):
    wh, toy, other = two_kgs
    message = _refused(_run(wh, "stats", other[0].snapshot_id[:8], "--kg", "toy"))
    assert "belongs to KG 'other', not --kg toy" in message, message
    ok = _run(wh, "stats", toy[0].snapshot_id[:8], "--kg", "toy", "--json")
    assert [r["snapshot_id"] for r in json.loads(ok.stdout)] == [toy[0].snapshot_id]


def test_check_with_kg_verifies_that_kgs_snapshots_only(two_kgs):
    wh, _, _ = two_kgs
    every = json.loads(_run(wh, "check", "--quick", "--json").stdout)
    mine = json.loads(_run(wh, "check", "--quick", "--json", "--kg", "toy").stdout)
    assert (every["snapshots"], mine["snapshots"]) == (4, 2)
    assert mine["leftovers"] == every["leftovers"] == []  # other's parts are not leftovers
    assert "no KG named 'nope' here (KGs: other, toy)" in _refused(
        _run(wh, "check", "--kg", "nope")
    )


def test_references_to_nothing_name_what_there_is(two_kgs):
    wh = Warehouse(two_kgs[0])
    cases = {
        "toy@2005": "no snapshot of that KG at or before that year: 'toy@2005' (toy has 2019–2020)",
        "toy@2030": "no snapshot of that KG as of that year: 'toy@2030' (toy has 2019–2020; "
        "toy@latest is its newest)",
        "nope@2019": "(KGs here: other, toy)",
        "nope@latest": "(KGs here: other, toy)",
        "zzz": "unknown snapshot 'zzz': snapshots here are other@2019–2020; toy@2019–2020",
        "2019": "a year alone names no KG here (other, toy): add --kg NAME or write KG@2019",
    }
    for ref, want in cases.items():
        with pytest.raises(StoreError) as exc:
            wh.resolve(ref)
        assert want in str(exc.value), (ref, str(exc.value))
    with pytest.raises(StoreError, match=r"x{60}…'"):  # a huge reference is cut in the message
        wh.resolve("x" * 5000)


def test_a_bare_year_names_the_only_kgs_year(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    toy = build_query_kg(wh.root, kg="toy")
    assert wh.resolve("2019") == toy[0].snapshot_id
    assert wh.resolve("2020") == toy[1].snapshot_id
    # a year after the newest is not "the newest": the KG was never built as of 2030
    with pytest.raises(StoreError, match=r"as of that year: 'toy@2030' \(toy has 2019–2020"):
        wh.resolve("2030")


def _kgbuild(wh: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=180)  # fmt: skip


@pytest.mark.slow  # processes
@pytest.mark.parametrize(
    "args",
    [
        ["stats"],
        ["sql", "SELECT count(*) FROM triples"],
        ["ask", QUESTION, "--no-llm"],
        ["serve", "--no-embed"],
    ],
    ids=["stats", "sql", "ask", "serve"],
)
def test_without_kg_two_kgs_are_one_line_and_exit_2(two_kgs, args):
    run = _kgbuild(two_kgs[0], *args)
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert run.returncode == 2 and len(lines) == 1, run.stderr
    assert "other, toy" in lines[0] and "--kg" in lines[0], lines


@pytest.mark.slow  # processes
def test_sql_with_kg_reads_that_kgs_views(two_kgs):
    wh = two_kgs[0]
    query = "SELECT count(*) AS n FROM triples"
    latest = _kgbuild(wh, "sql", query, "--format", "json", "--kg", "toy")
    year = _kgbuild(wh, "sql", query, "--format", "json", "--kg", "toy", "--snapshot", "2019")
    assert latest.returncode == year.returncode == 0, latest.stderr + year.stderr
    assert json.loads(latest.stdout) == [{"n": len(EDGES_2019) + len(EDGES_2020)}]
    assert json.loads(year.stdout) == [{"n": len(EDGES_2019)}]


@pytest.mark.slow  # a kgbuild serve process
def test_serve_with_kg_serves_that_kg(two_kgs):
    wh, toy, _ = two_kgs
    proc, url = start_serve(wh, "--no-embed", "--kg", "toy", "--snapshot", "2019")
    try:
        health = httpx.get(f"{url}/health", timeout=10).json()
        assert (health["kg"], health["snapshot"]) == ("toy", toy[0].snapshot_id)
        assert health["reference"] == "toy@2019"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
