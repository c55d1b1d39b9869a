"""The CLI as a user runs it: a real process, real files, exit codes and one-line errors."""

import json
import os
import subprocess
import sys

import pytest


def kgbuild(*args, warehouse, check=True):
    env = {**os.environ, "KGBUILD_WAREHOUSE": str(warehouse)}
    proc = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow  # CLI processes
def test_build_stats_snapshots_diff_sql(corpus, warehouse, tmp_path):
    kgbuild("build", "--source", str(corpus), "--kg", "demo", warehouse=warehouse)
    stats = json.loads(kgbuild("stats", "--json", warehouse=warehouse).stdout)
    assert [s["as_of_year"] for s in stats] == [2019, 2020]
    assert stats[-1]["n_documents"] == 4 and stats[-1]["n_duplicates"] == 2
    snaps = json.loads(kgbuild("snapshots", "--json", warehouse=warehouse).stdout)
    assert len(snaps) == 2 and snaps[1]["parent_id"] == snaps[0]["snapshot_id"]
    diff = json.loads(
        kgbuild("diff", "demo@2019", "demo@2020", "--json", warehouse=warehouse).stdout
    )
    assert diff["added"] == stats[1]["n_triples"] - stats[0]["n_triples"]
    rows = json.loads(
        kgbuild(
            "sql",
            "SELECT status, count(*) AS n FROM doc_status GROUP BY 1 ORDER BY 1",
            "--format",
            "json",
            warehouse=warehouse,
        ).stdout
    )
    assert rows == [
        {"status": "built", "n": 4},
        {"status": "duplicate", "n": 2},
        {"status": "rejected", "n": 2},
    ]
    # the problems column is explained where it is printed: its rows by kind, and how to see them
    kinds = json.loads(
        kgbuild(
            "sql",
            "SELECT kind, count(*) AS n FROM problems GROUP BY 1 ORDER BY n DESC, kind",
            "--format",
            "json",
            warehouse=warehouse,
        ).stdout
    )
    assert sum(k["n"] for k in kinds) == stats[-1]["n_problems"] > 0
    listed = ", ".join(f"{k['kind']} {k['n']}" for k in kinds)
    table = kgbuild("stats", warehouse=warehouse).stdout
    head = snaps[1]["snapshot_id"][:10]
    assert f"problems of {head} by kind: {listed} (" in table
    assert 'kgbuild sql "SELECT * FROM problems"' in table
    out = kgbuild("export", "demo@2019", str(tmp_path / "x"), warehouse=warehouse).stdout
    assert "triples" in out and (tmp_path / "x" / "parquet" / "evidence.parquet").exists()


@pytest.mark.slow  # CLI processes
def test_user_errors_are_one_clear_line(corpus, warehouse, tmp_path):
    kgbuild("build", "--source", str(corpus), warehouse=warehouse)
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    binary = tmp_path / "kg.tsv"
    binary.write_bytes(bytes(range(256)) * 4)
    llm = ["--extractor", "generative", "--llm-base-url", "http://127.0.0.1:9/v1"]
    cases = [
        (["stats", "-w", str(a_file)], "is a file"),
        (["build", "--source", str(corpus), "-w", str(a_file)], "is a file"),
        (["quality", "--tsv", str(binary)], "UTF-8"),
        (["build", "--source", str(corpus), "--chunk-size", "0", *llm], "chunk_size"),
        (["build", "--source", str(corpus), "--llm-concurrency", "-1", *llm], "concurrency"),
        (["build", "--source", str(corpus), "--llm-concurrency", "0", *llm], "concurrency"),
        (["build", "--source", str(corpus), "--llm-timeout", "0", *llm], "timeout_s"),
        (["build", "--source", str(corpus), "--llm-max-tokens", "0", *llm], "max_tokens"),
        (["build", "--source", str(corpus), "--kg", ""], "KG name"),
        (["build", "--source", str(corpus), "--kg", "../../etc"], "KG name"),
        (["build", "--source", str(corpus), "--max-doc-chars", "0"], "max_doc_chars"),
        (["stats", "--kg", ""], "KG name"),
        (["sql", "SELECT 1", "--timeout", "0"], "--timeout"),
        (["sql", "SELECT * FROM read_text('/etc/passwd')"], "SQL error"),
        (["sql", "EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'"], "read-only"),
        (["sql", "DELETE FROM snapshots"], "read-only"),
        (["sql", "COPY (SELECT 1) TO 'x.csv'"], "read-only"),
        (["sql", "SELEC 1"], "SQL error"),
        (["sql", "SELECT * FROM no_such_table"], "SQL error"),
        (["build", "--source", "/no/such/folder"], "does not exist"),
        (["build", "--source", str(corpus), "--years", "2011"], "no input files"),
        (["build", "--source", str(corpus), "--years", "2030"], "outside 1800-"),  # no such year
        (["build", "--source", str(corpus), "--years", "20x"], "years must look like"),
        (["stats", "nope"], "unknown snapshot"),
        (["build", "--source", str(corpus), "--extractor", "magic"], "unknown extractor"),
    ]
    for args, message in cases:
        proc = kgbuild(*args, warehouse=warehouse, check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and message in lines[0], (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_no_catalog_yet(tmp_path):
    proc = kgbuild("sql", "SELECT 1", warehouse=tmp_path / "empty", check=False)
    assert proc.returncode == 2 and "no warehouse at" in proc.stderr
    assert "kgbuild build" in proc.stderr and not (tmp_path / "empty").exists()


@pytest.mark.slow  # CLI processes
def test_llm_build_estimate_and_stats_from_the_command_line(warehouse):
    from tests.conftest import FIXTURES
    from tests.support.replay_llm_server import ReplayLLM, serve_llm

    corpus = FIXTURES / "llm" / "corpus"
    llm = ReplayLLM(FIXTURES / "llm" / "recordings")
    with serve_llm(llm) as url:
        common = ["--source", str(corpus), "--kg", "demo", "--extractor", "generative",
                  "--llm-base-url", url, "--llm-model", "gpt-4o-mini"]  # fmt: skip
        est = kgbuild("build", *common, "--estimate", warehouse=warehouse).stdout
        assert llm.stats()["requests"] == 0 and "estimate: generative with gpt-4o-mini" in est
        assert "total" in est and "0.15" in est
        done = kgbuild("build", *common, warehouse=warehouse).stdout
        assert "LLM: 3 calls sent, 0 answered from cache" in done
        again = kgbuild("build", *common, "--estimate", warehouse=warehouse).stdout
    total = next(line for line in again.splitlines() if "total" in line)
    assert [c.strip() for c in total.split("│")[1:5]] == ["total", "3", "0", "3"]  # all cached
    stats = json.loads(kgbuild("stats", "--json", warehouse=warehouse).stdout)
    assert stats[-1]["llm_calls"] == 3 and stats[-1]["extraction_done"] == 3
    assert stats[-1]["rejections"] == 3 and stats[-1]["llm_cost_usd"] > 0
    table = kgbuild("stats", warehouse=warehouse).stdout
    assert "Extraction status and LLM accounting" in table and "Recent builds" in table
    llm_table = table.split("Extraction status and LLM accounting")[1].split("Recent builds")[0]
    assert "│ 2020 │" in llm_table and "2,020" not in llm_table  # a year, not a count
    bad = kgbuild("build", *common, "--pairwise-mode", "sideways", "--extractor", "pairwise",
                  warehouse=warehouse, check=False)  # fmt: skip
    assert bad.returncode == 2 and "unknown pair-wise mode" in bad.stderr


@pytest.mark.slow  # CLI processes
def test_quality_of_a_snapshot_and_of_a_dalk_style_tsv(warehouse, tmp_path):
    from tests.conftest import FIXTURES
    from tests.support.replay_llm_server import ReplayLLM, serve_llm

    with serve_llm(ReplayLLM(FIXTURES / "llm" / "recordings")) as url:
        source = str(FIXTURES / "llm" / "corpus")
        kgbuild("build", "--source", source, "--kg", "demo", "--extractor", "generative",
                "--llm-base-url", url, warehouse=warehouse)  # fmt: skip
    q = json.loads(kgbuild("quality", "--json", warehouse=warehouse).stdout)
    # the LLM's 7 triples and the sentence reader's 4 readings of their sentences
    assert q["triples"] == 11 and q["relation_strings"] == 7
    # "is a risk factor for" → associates; the reader's `associates` between a compound and a
    # disease or gene has no Hetionet metaedge
    assert q["hetionet_relation_share"] == round(7 / 11, 4)
    assert q["endpoint_id_share"] == round(21 / 22, 4)  # one free node: "cognitive decline"
    assert q["ad_surface_form_nodes"] == 1 and q["ad_nodes"] == ["MESH:D000544"]
    edges = json.loads(kgbuild("sql", "SELECT relation, tail_id, support, confidence, methods "
                               "FROM kg_edges ORDER BY relation", "--format", "json",
                               warehouse=warehouse).stdout)  # fmt: skip
    free = next(e for e in edges if e["tail_id"] == "free:cognitive decline")
    assert free["support"] == 1 and free["methods"] == ["reader"]
    # the edge's confidence is its served row's: the reader's calibrated probability
    from kgbuild.audit.calibrate import feature_rows
    from kgbuild.belief.confidence import load_model, predict
    from kgbuild.store.snapshots import Warehouse

    wh = Warehouse(warehouse)
    sid = wh.resolve("latest")
    ids = [r[0] for r in wh.query("SELECT e.evidence_id FROM evidence_at(?) e JOIN "
                                  "triples_at(?) t USING (triple_id) WHERE t.tail_id = "
                                  "'free:cognitive decline' AND e.epistemic = 'asserted'",
                                  [sid, sid])]  # fmt: skip
    rows = list(feature_rows(wh, sid, ids).values())
    assert len(rows) == 1 and rows[0]["free_endpoints"] == 1.0
    assert free["confidence"] == round(float(predict(load_model(), rows)[0]), 4)
    assert 0.0 < free["confidence"] < 1.0 and free["confidence"] == round(rows[0]["prior"], 4)
    tsv = tmp_path / "kg.tsv"
    tsv.write_text("AD\tassociates\tAPOE\nAlzheimer's disease\tcauses\ttau\nAD \tAssociates\tAPP\n")
    d = json.loads(kgbuild("quality", "--tsv", str(tsv), "--json", warehouse=warehouse).stdout)
    assert (d["triples"], d["relation_strings"], d["ad_surface_form_nodes"]) == (3, 3, 3)
    assert d["hetionet_relation_share"] == 1.0  # causes is Hetionet's CcSE relation
    assert d["dalk_relation_share"] == round(2 / 3, 4) and d["endpoint_id_share"] == 0.0
    missing = kgbuild("quality", "--tsv", str(tmp_path / "nope.tsv"), warehouse=warehouse,
                      check=False)  # fmt: skip
    assert missing.returncode == 2 and "no such TSV file" in missing.stderr
