"""A first run: every reader command, in a folder with no warehouse (or an empty one), says in
one line to build one first — exit status 2, no traceback, and no warehouse made on the way."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIXTURES

KGBUILD = Path(sys.executable).parent / "kgbuild"
SHEET = FIXTURES / "audit" / "dalk_blind_seed2401.tsv"
QUESTIONS = FIXTURES / "query" / "adqa" / "medqa_toy.json"
LLM = "http://127.0.0.1:9/v1"  # nothing listens: no command may get as far as calling it
#: Every command that reads a built KG, as a first-time user would type it.
READERS = [
    ["stats"],
    ["snapshots"],
    ["sql", "SELECT 1"],
    ["ask", "Which genes are linked to Alzheimer's disease?", "--no-llm"],
    ["ask", "Which genes are linked to Alzheimer's disease?", "--llm-base-url", LLM],
    ["export"],
    ["export", "latest", "--out", "out"],
    ["report"],
    ["report", "--out", "report"],
    ["quality"],
    ["serve"],
    ["diff", "alzheimers@2019", "alzheimers@2020"],
    ["check"],
    ["audit", "sample", "latest", "--out", "sheet.tsv"],
    ["audit", "fit", str(SHEET), "--out", "model.json"],
    ["eval", "adqa", str(QUESTIONS)],
    ["eval", "adqa", str(QUESTIONS), "--llm", "--llm-base-url", LLM],
]


def run_all(cwd: Path) -> list[tuple[list[str], Path, subprocess.CompletedProcess]]:
    """Every reader at once (one process each, in parallel: the test takes one start-up)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGBUILD_", "OPENAI_"))}
    procs = []
    for i, args in enumerate(READERS):
        here = cwd / str(i)  # a folder per command: one cannot see another's side effects
        here.mkdir()
        if (cwd / "warehouse").is_dir():
            (here / "warehouse").mkdir()
        procs.append((args, here, subprocess.Popen(
            [str(KGBUILD), *args], cwd=here, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )))  # fmt: skip
    done = []
    for args, here, p in procs:
        out, err = p.communicate(timeout=180)
        done.append((args, here, subprocess.CompletedProcess(p.args, p.returncode, out, err)))
    return done


def assert_one_line(args, proc, says):
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    assert len(lines) == 1, (args, proc.stderr)
    assert "kgbuild build" in lines[0] and says in lines[0], (args, lines[0])
    assert "Traceback" not in proc.stderr and proc.stdout == "", (args, proc.stdout)


@pytest.mark.slow  # CLI processes
def test_readers_with_no_warehouse_say_build_one_first(tmp_path):
    for args, here, proc in run_all(tmp_path):
        assert_one_line(args, proc, "no warehouse at ./warehouse yet")
        assert not (here / "warehouse").exists(), (args, sorted(here.iterdir()))


@pytest.mark.slow  # CLI processes
def test_readers_with_an_empty_warehouse_say_build_one_first(tmp_path):
    (tmp_path / "warehouse").mkdir()
    for args, here, proc in run_all(tmp_path):
        assert_one_line(args, proc, "nothing built in ./warehouse yet")
        assert list((here / "warehouse").iterdir()) == [], args  # nothing written into it


def test_a_named_warehouse_that_is_not_there(tmp_path):
    missing = tmp_path / "nowhere"
    proc = subprocess.run(
        [str(KGBUILD), "stats", "-w", str(missing)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert_one_line(["stats"], proc, f"no warehouse at {missing} yet")
    assert not missing.exists()
