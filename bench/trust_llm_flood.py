"""A flood from the LLM endpoint costs seconds: ``kgbuild ask`` against a loopback endpoint that
answers 8 MB to every step.

Each answer is cut to the question pipeline's budget (:data:`kgbuild.query.llm.MAX_ANSWER_CHARS`)
before anything parses, embeds or prints it (before: 332 s, ~205 s embedding the answer's
"entities" and ~211 s printing it). Three questions (each a cache miss), one CLI run each, on
the small KG of the query tests:

* ``over_10s``: runs that took more than 10 s; ``unbounded_prints``: runs that printed more
  than 24,000 characters; ``uncounted_cuts``: runs whose ``--json`` answer is not marked
  ``truncated`` with every call counted in ``answers_cut``. Each must be 0.
* ``median_s`` / ``max_s``: wall time per run; ``max_printed``: characters printed.

    .venv/bin/python bench/trust_llm_flood.py

Ends with one JSON line. About 30 s.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from tests.support.query_kg import build_query_kg
from tests.support.scripted_llm_server import ScriptedLLM, serve

QUESTIONS = [
    "Which gene is the main genetic risk factor of Alzheimer's disease?",
    "Does APOE interact with APP in Alzheimer's disease?",
    "Which drugs treat Alzheimer's disease?",
]
FLOOD_BYTES = 8_000_000
PRINT_LIMIT = 24_000


def flood() -> str:
    lines = "".join(
        f"{i}. APOE variant {i}\nanswer is A. PMID 1001 {'x' * 300}\n" for i in range(9)
    )
    return (lines * (FLOOD_BYTES // len(lines) + 1))[:FLOOD_BYTES]


def drill(work: Path) -> dict[str, object]:
    build_query_kg(work / "wh")
    env = common.cli_env(common.NO_LLM, HF_HUB_OFFLINE="1", OPENAI_API_KEY="sk-bench")
    times, printed, uncounted = [], [], 0
    with serve(ScriptedLLM(default=("ok", flood()))) as url:
        env["OPENAI_BASE_URL"] = url
        for q in QUESTIONS:
            base = [*common.CLI, "ask", q, "-w", str(work / "wh"),
                    "--index-dir", str(work / "i"), "--embed", "off"]  # fmt: skip
            s, run = common.timed(subprocess.run, base, capture_output=True, text=True, env=env,
                                  timeout=900)  # fmt: skip
            times.append(s)
            printed.append(len(run.stdout) + len(run.stderr))
            data = json.loads(subprocess.run([*base, "--json"], capture_output=True, text=True,
                                             env=env, timeout=900).stdout)  # fmt: skip
            llm = data.get("llm") or {}
            uncounted += not (data.get("truncated") and llm.get("answers_cut") == llm.get("calls"))
    return {
        "runs": len(times),
        "over_10s": sum(t > 10 for t in times),
        "unbounded_prints": sum(n > PRINT_LIMIT for n in printed),
        "uncounted_cuts": uncounted,
        "median_s": round(statistics.median(times), 2),
        "max_s": round(max(times), 2),
        "max_printed": max(printed),
    }


def main() -> None:
    common.run_drill(drill, __doc__, "flood-")


if __name__ == "__main__":
    main()
