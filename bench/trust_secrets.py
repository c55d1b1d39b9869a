"""Trust drill, secrets and leftovers: an endpoint that echoes the key, a flood answer, and
snapshot references with superscript digits, through the user's own commands.

Counts (each must be 0), read off what landed on disk or was printed, never off kgbuild's own
report of itself:

* ``keys_stored``: places holding the API key after a build against an endpoint that copies the
  request's ``Authorization`` header into its triples: tables of the warehouse (every value, via
  DuckDB), rows of the LLM cache (via SQLite), files under the warehouse (raw bytes), and the
  output of ``build``, ``sql "SELECT * FROM rejections"`` and ``report``.
* ``oversized_answers_stored``: cached answers longer than the answer cap, or ``rejections``
  values longer than their cap, after an endpoint answered with 5 MB.
* ``reference_tracebacks``: ``stats``/``diff``/``ask`` with ``KG@²`` that printed a traceback or
  did not exit 2.

    .venv/bin/python bench/trust_secrets.py     # one JSON line
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.hostile_scenario import BASE_ENV, CLI, build, good_corpus, run

KEY = "sk-proj-drill-echoed-0123456789abcdefXYZ"


def _echo_model(llm: Any) -> Any:
    def answer(body: dict[str, Any]) -> str:
        with llm.lock:
            auth = llm.requests[-1]["headers"].get("authorization", "")
        return json.dumps({"triples": [
            {"head": "APOE", "relation": f"binds ({auth})", "tail": "amyloid beta"},
            {"head": "APOE", "relation": "binds", "tail": f"key {auth}"},
            {"head": auth, "relation": "treats", "tail": "Alzheimer's disease"},
        ]})  # fmt: skip

    return answer


def _places_with_key(wh: Path) -> int:
    from kgbuild.store.catalog import TABLES
    from kgbuild.store.snapshots import Warehouse

    found = 0
    w = Warehouse(wh)
    for table in TABLES:
        found += KEY in repr(w.query(f"SELECT * FROM {table}"))
    for cache in wh.rglob("*.sqlite"):
        with sqlite3.connect(cache) as db:
            names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
            found += sum(KEY in repr(db.execute(f"SELECT * FROM {n}").fetchall()) for n in names)
    found += sum(KEY.encode() in p.read_bytes() for p in wh.rglob("*") if p.is_file())
    return found


def drill(workdir: Path) -> dict[str, int]:
    from kgbuild.llm.client import LLMSettings, answer_cap
    from tests.support.scripted_llm_server import ScriptedLLM, serve

    out = {"keys_stored": 0, "oversized_answers_stored": 0, "reference_tracebacks": 0}
    env = {**BASE_ENV, "OPENAI_API_KEY": KEY, "KGBUILD_LLM_MAX_RETRIES": "0"}
    llm_args = ["--extractor", "generative", "--llm-model", "m"]
    # 1. an endpoint that echoes the key inside its triples
    echo = ScriptedLLM()
    echo.default = ("answer", _echo_model(echo))
    wh = workdir / "wh-echo"
    with serve(echo) as url:
        b = build(good_corpus(workdir / "src-echo"), wh, workdir, env, *llm_args,
                  "--llm-base-url", url, kg="echo")  # fmt: skip
    echoed = sum(KEY in r["headers"].get("authorization", "") for r in echo.requests)
    if not echoed:
        raise SystemExit("the echo endpoint never received the key: the drill proves nothing")
    printed = [b.stdout + b.stderr]
    for args in (["sql", "SELECT * FROM rejections"], ["report"], ["stats"]):
        r = run([*CLI, *args, "-w", str(wh)], cwd=workdir, env=env)
        printed.append(r.stdout + r.stderr)
    out["keys_stored"] = _places_with_key(wh) + sum(KEY in p for p in printed)
    # 2. a 5 MB answer
    claim = {"head": "APOE", "relation": "binds", "tail": "x" * 5_000_000}
    flood = json.dumps({"triples": [claim]})
    wh_flood = workdir / "wh-flood"
    with serve(ScriptedLLM(default=("ok", flood))) as url:
        build(good_corpus(workdir / "src-flood", first=73001), wh_flood, workdir, env,
              *llm_args, "--llm-base-url", url, kg="flood")  # fmt: skip
    cap = answer_cap(LLMSettings().max_tokens)
    for cache in wh_flood.rglob("llm_cache.sqlite"):
        with sqlite3.connect(cache) as db:
            out["oversized_answers_stored"] += db.execute(
                "SELECT count(*) FROM responses WHERE length(content) > ?", [cap]
            ).fetchone()[0]
    from kgbuild.extract.claims import MAX_REJECTED_CHARS
    from kgbuild.store.snapshots import Warehouse

    (wide,) = Warehouse(wh_flood).query(
        "SELECT count(*) FROM rejections WHERE greatest(length(head), length(relation), "
        "length(tail)) > ?",
        [MAX_REJECTED_CHARS],
    )[0]
    out["oversized_answers_stored"] += wide
    # 3. references with superscript digits
    question = "Which gene binds amyloid beta?"
    for args in (["stats", "echo@²"], ["diff", "latest", "echo@²"],
                 ["ask", question, "--no-llm", "-s", "echo@²⁰¹⁵"]):  # fmt: skip
        r = run([*CLI, *args, "-w", str(wh)], cwd=workdir, env=env)
        out["reference_tracebacks"] += int("Traceback" in r.stderr or r.returncode != 2)
    return out


if __name__ == "__main__":
    common.run_drill(drill, __doc__, "trust-secrets-")
