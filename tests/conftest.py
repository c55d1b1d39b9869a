"""Shared fixtures: every test points its state at a temp folder; ../shared is optional."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

# kgbuild first: its import keeps thinc from importing torch (kgbuild/thinc_torch.py), which a
# test module importing spaCy at its top would otherwise do in every worker while collecting.
import kgbuild  # noqa: F401  isort: skip

#: Wall time and CPU per test, when $KGBUILD_TEST_TIMINGS names a folder (`make test` does).
pytest_plugins = ["tests.support.timings"]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: ../shared/data beside the project; KGBUILD_SHARED_DATA points a worktree elsewhere at it.
SHARED = Path(os.environ.get("KGBUILD_SHARED_DATA") or ROOT.parent / "shared" / "data")

#: OpenMP threads (llama.cpp's server, torch) sleep when idle instead of spinning: the suite runs
#: two workers per core, and a spinning thread burns a core another process waits for. Set
#: before any test imports torch or starts a server, so every worker and child inherits it.
#: Measured on 2 cores, 4 workers (the local-LLM, search, resolve and query modules): 356 ->
#: 323 CPU s, 186 -> 168 s wall (one paired run each).
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test saying what is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (clone has no ../shared)")
    return path


_SLOW_MODULE = re.compile(r"^pytestmark = .*pytest\.mark\.slow", re.M)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Modules that cannot hold a selected test are not even imported (Prefect's test server,
    spaCy, llama.cpp cost seconds to import, in every process that collects them):

    - under ``-m "not slow"`` (`make test-fast`), a module marked slow as a whole;
    - under ``-m serial`` (`make test`'s second run, alone on the machine, where collecting
      every module cost ~25 s of wall time), a module that never writes ``mark.serial``."""
    markexpr = config.getoption("markexpr", "")
    if markexpr not in ("not slow", "serial") or collection_path.suffix != ".py":
        return None
    if not collection_path.name.startswith("test_"):
        return None
    source = collection_path.read_text(encoding="utf-8")
    if markexpr == "not slow":
        return True if _SLOW_MODULE.search(source) else None
    return None if "mark.serial" in source else True


#: The last full run's costs (`python3 tests/support/suite_report.py REPORTS --durations FILE`
#: rewrites it): seconds of wall time per test module, and the CPU seconds of every test that
#: took at least a quarter of a second. They order the modules and pick `make test-fast`'s
#: tests; never a verdict.
DURATIONS = Path(__file__).resolve().parent / "durations.json"
#: A test that cost this much CPU (set-up, call, tear-down, the processes it ran) in the last
#: full run is not a unit test for the edit loop: `make test-fast` leaves it out.
FAST_CPU_S = 0.3


def recorded_costs() -> dict[str, dict[str, float]]:
    try:
        costs = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"modules": {}, "tests_cpu": {}}
    return {"modules": costs.get("modules", {}), "tests_cpu": costs.get("tests_cpu", {})}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Integration runs (the DALK corpus) are slow too, and so is every test whose last full run
    cost ``FAST_CPU_S`` or more: `make test-fast` leaves them out (`make test` runs them all).

    The longest modules go first (Graham's longest-processing-time-first rule): pytest-xdist's
    ``--dist loadfile`` hands modules to the workers in collection order, so a long module
    collected last would keep one core busy while the others sit idle at the end. The order
    of the tests inside a module is kept; every worker sorts the same way (xdist checks)."""
    costs = recorded_costs()
    for item in items:
        if item.get_closest_marker("slow"):
            continue
        if item.get_closest_marker("integration") or (
            costs["tests_cpu"].get(item.nodeid, 0.0) >= FAST_CPU_S
        ):
            item.add_marker(pytest.mark.slow)
    weights = costs["modules"]
    first_seen: dict[str, int] = {}
    for k, item in enumerate(items):
        first_seen.setdefault(item.nodeid.split("::", 1)[0], k)

    def key(pair: tuple[int, pytest.Item]) -> tuple[float, int, int]:
        k, item = pair
        module = item.nodeid.split("::", 1)[0]
        return (-weights.get(module, 0.0), first_seen[module], k)

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]


def shared_tmp(factory: pytest.TempPathFactory) -> Path:
    """The temp folder of the whole test run: under pytest-xdist, the folder that holds every
    worker's own (``…/pytest-N/popen-gw0``, ``…/popen-gw1``…), so what one worker builds there
    (under a file lock) the others find; without xdist, the session's own temp folder."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture
def corpus() -> Path:
    return FIXTURES / "corpus"


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "warehouse"


@pytest.fixture(scope="session")
def kgx_python() -> Path:
    """The python of the isolated venv with the real kgx (tests/support/kgx_venv.py), made on
    first use."""
    import subprocess

    from tests.support.kgx_venv import ensure_kgx_venv

    try:
        return ensure_kgx_venv()
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"cannot create the kgx venv from PyPI (tests/kgx-requirements.txt): {exc}")
