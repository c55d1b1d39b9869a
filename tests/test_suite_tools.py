"""The suite's own machinery: artifacts built once per run (tests/support/built_once.py), the
timed phases of `make test` (tests/support/phase.sh) and the report that ends it
(tests/support/suite_report.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from tests.conftest import ROOT
from tests.support.built_once import built_once, private_copy


def test_an_artifact_is_built_once_per_inputs_even_when_asked_at_the_same_time(tmp_path):
    calls = []

    def build(folder):
        calls.append(folder.name)
        folder.mkdir()
        (folder / "made").write_text("x")

    got = []
    threads = [
        threading.Thread(target=lambda: got.append(built_once(tmp_path, "kg", ["a"], build)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(got)) == 1
    other = built_once(tmp_path, "kg", ["b"], build)  # another input: another artifact
    assert len(calls) == 2 and other != got[0]
    copy = private_copy(got[0], tmp_path / "mine")
    (copy / "made").write_text("changed")
    assert (got[0] / "made").read_text() == "x"  # the shared one is never written


def test_a_failed_build_leaves_nothing_and_the_next_asker_builds_again(tmp_path):
    def broken(folder):
        folder.mkdir()
        raise RuntimeError("half-way")

    with pytest.raises(RuntimeError, match="half-way"):
        built_once(tmp_path, "kg", ["a"], broken)
    assert not any(p.is_dir() for p in tmp_path.iterdir())
    made = built_once(tmp_path, "kg", ["a"], lambda f: f.mkdir())
    assert made.is_dir()


def test_phases_and_the_report_say_where_the_time_went_and_a_failing_phase_keeps_its_status(
    tmp_path,
):
    phases = tmp_path / "phases.tsv"
    ok = subprocess.run(
        ["bash", ROOT / "tests/support/phase.sh", phases, "lint", "true"],
        capture_output=True,
        text=True,
    )
    bad = subprocess.run(
        ["bash", ROOT / "tests/support/phase.sh", phases, "tests", "bash", "-c", "exit 3"],
        capture_output=True,
        text=True,
    )
    assert ok.returncode == 0 and "phase lint took" in ok.stdout
    assert bad.returncode == 3 and "(exit 3)" in bad.stdout
    (tmp_path / "run.xml").write_text(
        "<testsuites><testsuite>"
        '<testcase classname="a" name="ok"/>'
        '<testcase classname="a" name="bad"><failure message="x"/></testcase>'
        '<testcase classname="a" name="skip"><skipped message="y"/></testcase>'
        "</testsuite></testsuites>"
    )
    timings = tmp_path / "timings"
    timings.mkdir()
    rows = [
        {"test": f"tests/m{i % 2}.py::t{i}", "wall_s": i, "cpu_s": i / 2, "worker": "gw0"}
        for i in range(20)
    ]
    (timings / "gw0-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    costs = tmp_path / "durations.json"
    out = subprocess.run(
        [sys.executable, ROOT / "tests/support/suite_report.py", tmp_path, "--top", "3",
         "--durations", costs],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "lint" in out and "(exit 3)" in out
    assert "3 (1 failed, 1 passed, 1 skipped)" in out
    figures = json.loads(out.strip().splitlines()[-1])
    assert [s[0] for s in figures["slowest"]] == ["tests/m1.py::t19", "tests/m0.py::t18",
                                                  "tests/m1.py::t17"]  # fmt: skip
    written = json.loads(costs.read_text())
    assert list(written["modules"]) == ["tests/m1.py", "tests/m0.py"]  # the longer first
    assert "tests/m0.py::t0" not in written["tests_cpu"] and written["tests_cpu"][
        "tests/m1.py::t19"] == 9.5  # fmt: skip


class _MarkExpr:
    def __init__(self, expr: str) -> None:
        self.expr = expr

    def getoption(self, name: str, default: str = "") -> str:
        return self.expr if name == "markexpr" else default


@pytest.mark.parametrize(
    ("expr", "source", "ignored"),
    [
        ("serial", "import pytest\n\ndef test_x():\n    pass\n", True),
        ("serial", "@pytest.mark.serial\ndef test_x():\n    pass\n", None),
        ("serial", "pytestmark = [pytest.mark.slow, pytest.mark.serial]\n", None),
        ("not slow", "pytestmark = pytest.mark.slow  # whole module\n", True),
        ("not slow", "@pytest.mark.slow\ndef test_x():\n    pass\n", None),
        ("", "import pytest\n", None),
    ],
)
def test_a_module_that_cannot_hold_a_selected_test_is_not_imported(tmp_path, expr, source,
                                                                    ignored):  # fmt: skip
    from tests.conftest import pytest_ignore_collect

    module = tmp_path / "test_m.py"
    module.write_text(source, encoding="utf-8")
    assert pytest_ignore_collect(module, _MarkExpr(expr)) is ignored  # type: ignore[arg-type]
    helper = tmp_path / "helper.py"  # not a test module: always collected as pytest would
    helper.write_text(source, encoding="utf-8")
    assert pytest_ignore_collect(helper, _MarkExpr(expr)) is None  # type: ignore[arg-type]
