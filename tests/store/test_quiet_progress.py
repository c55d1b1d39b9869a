"""No DuckDB progress bar from our connections: output carries our lines only, however long a
query runs. DuckDB's Python client turns its bar on by default wherever it takes the process
for interactive (a notebook, IPython, ``python -c``) and draws it for any query past 2 s."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.pipeline.seen import SeenIndex
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse
from kgbuild.store.sql import confined
from tests.support.hostile_kg import build_hostile_kg

ROOT = Path(__file__).resolve().parents[2]
#: About 7e8 joined rows: past DuckDB's 2 s progress-bar threshold on 2 shared cores.
SLOW_SQL = (
    "SELECT count(*) AS n FROM range(26000) a, range(26000) b "
    "WHERE (a.range * 7 + b.range) % 1000003 = 5"
)
BAR_CHARS = ("▕", "█", "▏", "remaining)", "elapsed)")
SETTING = "SELECT current_setting('enable_progress_bar')"


@pytest.fixture(scope="module")
def wh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quiet") / "wh"
    build_hostile_kg(root)
    return root


def test_every_connection_we_open_has_no_progress_bar(wh: Path, tmp_path: Path) -> None:
    for read_only in (True, False):
        with catalog.connect(Warehouse(wh).catalog_path, read_only=read_only) as con:
            assert con.execute(SETTING).fetchone() == (False,)
    with confined(wh) as con:  # the confined connection of ``kgbuild sql``
        assert con.execute(SETTING).fetchone() == (False,)
    seen = SeenIndex(tmp_path / "seen.duckdb")  # a build's scratch index
    try:
        assert seen.con.execute(SETTING).fetchone() == (False,)
    finally:
        seen.close()


@pytest.mark.slow
def test_a_slow_query_in_an_interactive_process_draws_no_bar(wh: Path) -> None:
    """``python -c`` is what DuckDB takes for interactive (bar on by default): the warehouse's
    own reads, which every command and the server go through, stay quiet there too."""
    code = (
        "import sys; from kgbuild.store.snapshots import Warehouse; "
        "print(Warehouse(sys.argv[1]).query(sys.argv[2]))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", code, str(wh), SLOW_SQL], env=env,
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "(1,)" in r.stdout
    for ch in BAR_CHARS:
        assert ch not in r.stderr, r.stderr[:400]
        assert ch not in r.stdout, r.stdout[:400]
