"""Shared fixtures: every test points its state at a temp folder; ../shared is optional."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: ../shared/data beside the project; KGBUILD_SHARED_DATA points a worktree elsewhere at it.
SHARED = Path(os.environ.get("KGBUILD_SHARED_DATA") or ROOT.parent / "shared" / "data")


def shared(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test saying what is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (clone has no ../shared)")
    return path


_SLOW_MODULE = re.compile(r"^pytestmark = .*pytest\.mark\.slow", re.M)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m "not slow"`` (`make test-fast`), a module marked slow as a whole is not even
    imported: Prefect's test server, llama.cpp and the flows cost seconds to import."""
    if config.getoption("markexpr", "") != "not slow" or collection_path.suffix != ".py":
        return None
    if collection_path.name.startswith("test_") and _SLOW_MODULE.search(
        collection_path.read_text(encoding="utf-8")
    ):
        return True
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Integration runs (the DALK corpus) are slow too: `make test-fast` leaves them out."""
    for item in items:
        if item.get_closest_marker("integration") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)


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
