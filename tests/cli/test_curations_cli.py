"""``kgbuild curations list|export`` and ``kgbuild ask`` over a curated toy KG
(tests/support/hostile_kg.py): the curation is listed, exported as judged rows, shown on the
fact ``ask`` returns, and its sentence no longer counts in the verdict."""

import json

import pytest
from typer.testing import CliRunner

from kgbuild.cli import app
from kgbuild.reader.judged import load
from tests.store.test_curations import PMID, TRIPLE, curate
from tests.support.hostile_kg import build_hostile_kg

pytestmark = pytest.mark.slow  # builds a KG and runs CLI commands


@pytest.fixture(scope="module")
def curated(tmp_path_factory):
    from kgbuild.store.snapshots import Warehouse

    root = tmp_path_factory.mktemp("curations-cli") / "wh"
    sid = build_hostile_kg(root)[-1].snapshot_id
    curate(Warehouse(root), sid, "does_not_state", curator="ann", note="a risk factor")
    return root


def _run(*args):
    res = CliRunner().invoke(app, list(args))
    assert res.exit_code == 0, res.output
    return res.output


def test_list_and_export(curated, tmp_path):
    out = _run("curations", "list", "-w", str(curated))
    assert f"ann  does_not_state  PMID {PMID}" in out and "note: a risk factor" in out
    assert "1 curation(s) (1 in the log)" in out
    line = json.loads(_run("curations", "list", "-w", str(curated), "--json").splitlines()[0])
    assert (line["triple_id"], line["label"]) == (TRIPLE, "does_not_state")
    got = json.loads(_run("curations", "export", "-w", str(curated), "--out", str(tmp_path / "j")))
    assert (got["rows"], got["judgments"]) == (1, 1)
    [judged] = load(tmp_path / "j")
    assert (judged.row.pmid, judged.label["stated"], judged.label["judge"]) == (PMID, "no", "ann")


def test_ask_shows_the_curation_and_the_verdict_leaves_the_sentence_out(curated):
    q = "Is APOE associated with Alzheimer disease?"
    data = json.loads(_run("ask", q, "--no-llm", "--json", "--embed", "off", "-w", str(curated)))
    fact = next(t for t in data["triples"] if t["triple_id"] == TRIPLE)
    assert [(c["pmid"], c["label"], c["demoted"]) for c in fact["curations"]] == [
        (PMID, "does_not_state", True)
    ]
    assert fact["support"] == 2 and PMID not in data["verdict"]["pmids"]
    text = _run("ask", q, "--no-llm", "--embed", "off", "-w", str(curated))
    assert f"curated: PMID {PMID} does not state it (ann, a risk factor): not counted" in text
