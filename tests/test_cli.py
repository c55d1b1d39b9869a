"""The CLI as a user runs it: a real process, real files, exit codes and one-line errors."""

import json
import os
import subprocess
import sys


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
    out = kgbuild("export", "demo@2019", str(tmp_path / "x"), warehouse=warehouse).stdout
    assert "triples" in out and (tmp_path / "x" / "evidence.parquet").exists()


def test_user_errors_are_one_clear_line(corpus, warehouse):
    kgbuild("build", "--source", str(corpus), warehouse=warehouse)
    cases = [
        (["sql", "DELETE FROM snapshots"], "read-only"),
        (["sql", "COPY (SELECT 1) TO 'x.csv'"], "read-only"),
        (["sql", "SELEC 1"], "SQL error"),
        (["sql", "SELECT * FROM no_such_table"], "SQL error"),
        (["build", "--source", "/no/such/folder"], "does not exist"),
        (["build", "--source", str(corpus), "--years", "2030"], "no input files"),
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
    assert proc.returncode == 2 and "no catalog yet" in proc.stderr
