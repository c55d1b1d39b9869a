"""A snapshot reference no parser takes is one clear line, never a traceback.

``str.isdigit()`` is True for superscript digits (``²``, ``²⁰¹⁵``) that ``int()`` refuses, so
``KG@²`` used to pass the check and end in ``ValueError``. Every command that takes a reference
(``stats``, ``diff``, ``ask --snapshot``, ``eval adqa --years``) is run as a user would."""

import os
import subprocess
import sys

import pytest

from kgbuild.errors import StoreError
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, ROOT
from tests.support.query_kg import build_query_kg

MEDQA = FIXTURES / "query" / "adqa" / "medqa_toy.json"
BAD_YEARS = ("²", "²⁰¹⁵", "٢٠١٥", "9" * 5000, "2015.0", "-1")


def _kgbuild(wh, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh)}
    return subprocess.run([sys.executable, "-m", "kgbuild.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120)  # fmt: skip


def test_a_reference_with_a_year_no_parser_takes_is_an_error(tmp_path):
    wh = Warehouse(tmp_path / "wh")
    build_query_kg(wh.root, kg="base")
    for year in BAD_YEARS:
        with pytest.raises(StoreError, match="KG@YEAR"):
            wh.resolve(f"base@{year}")


@pytest.mark.parametrize(
    "args",
    [
        ("stats", "base@²"),
        ("diff", "latest", "base@²"),
        ("ask", "Which gene is linked to Alzheimer's disease?", "--no-llm", "-s", "base@²"),
        ("eval", "adqa", str(MEDQA), "--years", "²-³"),
        ("eval", "adqa", str(MEDQA), "--years", "1-999999999"),
    ],
    ids=["stats", "diff", "ask-snapshot", "adqa-years", "adqa-years-huge"],
)
def test_every_command_taking_a_reference_refuses_it_in_one_line(tmp_path, args):
    build_query_kg(tmp_path / "wh", kg="base")
    run = _kgbuild(tmp_path / "wh", *args)
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert run.returncode == 2, run.stderr
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert "KG@YEAR" in lines[0] or "--years" in lines[0], lines
