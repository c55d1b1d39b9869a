"""The SQL macros refuse a bad argument at once, naming what is valid.

A small warehouse is built from the test corpus (offline co-occurrence extractor, two or more
yearly snapshots); then the real ``kgbuild sql`` CLI calls ``belief_at`` and
``belief_history`` with each argument a user gets wrong: a NULL year, a year as text or a
fraction, an unknown or wrong-typed ``kg_name``, a number or NULL for a triple ID, a subquery
returning many rows. Counted from outside (exit status, stderr, wall time):

* ``silent_empty``: calls that ended with status 0 (an answer of 0 rows says nothing);
* ``unnamed``: errors whose line does not name what is valid (the years, the KGs, a whole
  year, a triple_id from kg_edges; DuckDB's own "More than one row" for the subquery);
* ``slow_failures``: calls that took more than 3 s beyond ``kgbuild sql "SELECT 1"``.

Each must be 0. Run: ``python bench/trust_macros.py`` (one JSON line; about 30 s).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

#: (call, what its error must say)
CASES = [
    ("belief_at(NULL)", "give a whole year"),
    ("belief_at('2015')", "whole number such as 2015"),
    ("belief_at(2015.5)", "whole number such as 2015"),
    ("belief_at(1700)", "the years there are"),
    ("belief_at(2015, kg_name := 'nope')", "the KGs there are"),
    ("belief_at(2015, kg_name := 42)", "the KGs there are"),
    ("belief_history('x', kg_name := 'nope')", "the KGs there are"),
    ("belief_history(42)", "kg_edges.triple_id"),
    ("belief_history(NULL)", "kg_edges.triple_id"),
    ("belief_history((SELECT triple_id FROM kg_edges))", "More than one row"),
]


def _sql(wh: Path, query: str) -> tuple[int, str, float]:
    env = common.cli_env(common.NO_LLM, KGBUILD_WAREHOUSE=str(wh), HF_HUB_OFFLINE="1")
    t0 = time.monotonic()
    run = subprocess.run([*common.CLI, "sql", query, "--format", "csv"], env=env,
                         capture_output=True, text=True, timeout=300)  # fmt: skip
    return run.returncode, run.stderr.strip(), time.monotonic() - t0


def drill(workdir: Path) -> dict[str, object]:
    wh = common.small_warehouse(workdir)
    _, _, startup = _sql(wh, "SELECT 1")
    silent, unnamed, slow, worst = 0, 0, 0, 0.0
    for call, says in CASES:
        status, err, wall = _sql(wh, f"SELECT count(*) FROM {call}")
        silent += status == 0
        unnamed += status != 0 and (says not in err or len(err.splitlines()) != 1)
        slow += wall > startup + 3
        worst = max(worst, wall - startup)
        if status == 0 or says not in err:
            print(f"{call}: status {status}: {err[:300]}", file=sys.stderr)
    return {"calls": len(CASES), "silent_empty": silent, "unnamed": unnamed,
            "slow_failures": slow, "worst_past_select1_s": round(worst, 2),
            "select1_s": round(startup, 2)}  # fmt: skip


if __name__ == "__main__":
    common.run_drill(drill, __doc__, "trust-macros-")
