"""``kgbuild ask`` and ``kgbuild serve`` as a user meets them: whole processes, wall clock.

    python bench/ask_latency.py [--warehouse ./warehouse] [--snapshot latest]
        [--questions FILE ...] [--n-dictionary 10] [--n-embedding 20] [--repeats 3]
        [--serve-repeats 3] [--index-dir DIR]

The targets: ``kgbuild ask`` ≤ 1.5 s p50 as a process once the index exists, also on
held-out-style questions whose choices the alias dictionary cannot link (the embedding model is
needed), and ``kgbuild serve`` ready in ≤ 15 s. In-process retrieval latency is
``bench/query_latency.py``'s; this one counts what a process pays on top: interpreter start,
imports, opening the cached index, the encoder's load.

- Questions: ADQA items with choices (the MedQA and MedMCQA subsets in ../shared, train/dev-like),
  split by whether the dictionary links every choice (``dictionary``) or at least one text goes
  to the embedding model (``embedding``), as the engine reports it (``embedded_texts``); the
  first ``--n-*`` of each group in file order, evenly spread.
- Index: ``--index-dir`` (default: a fresh temporary folder, built by one untimed ``ask`` first,
  node vectors included) — so every timed run finds the index, as the target says.
- ``ask``: ``kgbuild ask Q --choices "A;B;…" --no-llm --json``, each question ``--repeats``
  times, interleaved; p50 over all runs, per group. No run can reuse another's query texts:
  they are remembered in memory only.
- ``serve``: ``kgbuild serve`` started ``--serve-repeats`` times; seconds until ``GET /health``
  answers 200, and the progress lines it printed meanwhile.

The warehouse is only read. The last line is one JSON object: ``ask_process_p50_s`` (dictionary
questions), ``ask_process_p50_embedding_s``, ``serve_ready_s``, ``machine`` and ``load`` (the
1-minute load average before and after: the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.evaluate.adqa import Question, read_questions
from tests.support.serve_process import stop_server


def kgbuild_cmd() -> list[str]:
    """The installed ``kgbuild`` script beside this interpreter (what a user runs), else the
    module."""
    return [str(common.KGBUILD)] if common.KGBUILD.exists() else common.CLI


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    e = {**os.environ, "HF_HUB_OFFLINE": "1", **(extra or {})}
    for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "KGBUILD_LLM_BASE_URL"):
        e.pop(k, None)
    return e


def ask(wh: Path, snapshot: str, index_dir: Path, q: Question,
        extra: dict[str, str] | None = None) -> tuple[float, dict]:  # fmt: skip
    """One ``kgbuild ask`` process: (wall seconds, its JSON output)."""
    cmd = [*kgbuild_cmd(), "ask", q.question, "--choices", ";".join(q.choices), "--no-llm",
           "--json", "-w", str(wh), "-s", snapshot, "--index-dir", str(index_dir)]  # fmt: skip
    dt, p = common.timed(subprocess.run, cmd, env=env(extra), capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    try:
        data = json.loads(p.stdout) if p.returncode == 0 else {}
    except json.JSONDecodeError:
        data = {}
    return dt, data


def usable(q: Question) -> bool:
    """A question ``--choices`` can carry (";" separates choices on the command line)."""
    return bool(q.choices) and all(c.strip() and ";" not in c for c in q.choices)


def classify(wh: Path, snapshot: str, index_dir: Path, questions: list[Question]
             ) -> dict[str, list[Question]]:  # fmt: skip
    """Questions by whether retrieval embeds any text (in this process: query texts are never
    written anywhere, so the timed processes start as cold as a user's)."""
    from kgbuild.query.engine import QueryEngine

    engine = QueryEngine(wh, snapshot, index_dir)
    groups: dict[str, list[Question]] = {"dictionary": [], "embedding": []}
    for q in questions:
        r = engine.retrieve(q.question, q.choices)
        if not r.found:
            continue
        groups["embedding" if r.diagnostics.get("embedded_texts") else "dictionary"].append(q)
    return groups


def spread(items: list[Question], n: int) -> list[Question]:
    """``n`` items evenly spaced over the list (all of them if fewer)."""
    if n <= 0:
        return []
    if len(items) <= n:
        return items
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)] if n > 1 else items[:1]


def serve_ready(wh: Path, snapshot: str, index_dir: Path, extra: dict[str, str] | None = None
                ) -> tuple[float, list[str]]:  # fmt: skip
    """Seconds from ``kgbuild serve``'s start until ``/health`` answers 200, and what it printed
    on stderr until then."""
    with tempfile.TemporaryDirectory(prefix="ask-latency-serve-") as tmp:
        log = Path(tmp) / "serve.log"
        t0 = time.perf_counter()
        proc, _ = common.start_serve(wh, "-s", snapshot, "--index-dir", str(index_dir), log=log,
                                     cmd=kgbuild_cmd(), env=env(extra), text=True)  # fmt: skip
        ready = time.perf_counter() - t0
        stop_server(proc)
        return ready, log.read_text().splitlines()


def p50(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_query_options(
        ap, "an index folder to use (default: a fresh one, built untimed first)"
    )
    ap.add_argument("--n-dictionary", type=int, default=10)
    ap.add_argument("--n-embedding", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--serve-repeats", type=int, default=3)
    ap.add_argument(
        "--baseline-env",
        default=None,
        metavar="NAME=VALUE",
        help="also time every run with this environment variable set, interleaved "
        "(e.g. KGBUILD_QUERY_ENCODER=torch: the encoder the numpy one replaced)",
    )
    a = ap.parse_args()
    base = dict([a.baseline_env.split("=", 1)]) if a.baseline_env else None
    variants = {"": None, **({"baseline": base} if base else {})}
    common.require_warehouse(a.warehouse)
    load_before = os.getloadavg()
    tmp = None
    index_dir = a.index_dir
    if index_dir is None:
        tmp = Path(tempfile.mkdtemp(prefix="ask-latency-"))
        index_dir = tmp / "index"
    try:
        questions = [q for f in a.questions for q in read_questions(f) if usable(q)]
        t = time.perf_counter()
        ask(a.warehouse, a.snapshot, index_dir, questions[0])  # the index and node vectors
        print(f"index ready in {time.perf_counter() - t:.1f}s (untimed)", file=sys.stderr)
        groups = classify(a.warehouse, a.snapshot, index_dir, questions)
        picked = {"dictionary": spread(groups["dictionary"], a.n_dictionary),
                  "embedding": spread(groups["embedding"], a.n_embedding)}  # fmt: skip
        times = {f"{v}{g}": [] for v in variants for g in picked}
        engine_ms = {f"{v}{g}": [] for v in variants for g in picked}
        answers: dict[str, dict[str, str]] = {v: {} for v in variants}
        for rep in range(a.repeats):
            for group, qs in picked.items():
                for q in qs:
                    for v, extra in variants.items():
                        dt, data = ask(a.warehouse, a.snapshot, index_dir, q, extra)
                        times[f"{v}{group}"].append(dt)
                        engine_ms[f"{v}{group}"].append(
                            data.get("timings_ms", {}).get("total_ms", 0.0))  # fmt: skip
                        answers[v][f"{q.subset}:{q.qid}"] = json.dumps(
                            [data.get("links"), data.get("triples")], sort_keys=True)  # fmt: skip
            print(f"repeat {rep + 1}: " + ", ".join(f"{k} p50 {p50(t)}s"
                                                     for k, t in times.items()),
                  file=sys.stderr)  # fmt: skip
        serve_s: dict[str, list[float]] = {v: [] for v in variants}
        lines: list[str] = []
        for _ in range(a.serve_repeats):
            for v, extra in variants.items():
                s, printed = serve_ready(a.warehouse, a.snapshot, index_dir, extra)
                serve_s[v].append(s)
                lines = lines if v else printed
        print("serve printed:\n  " + "\n  ".join(lines), file=sys.stderr)
        detail = {
            "questions": {g: len(v) for g, v in picked.items()},
            "ask_p50_s": {k: p50(t) for k, t in times.items()},
            "ask_p95_s": {k: common.p95(t) for k, t in times.items() if t},
            "retrieve_p50_ms": {k: p50(t) for k, t in engine_ms.items()},
            "serve_runs_s": {v: [round(s, 2) for s in t] for v, t in serve_s.items()},
        }
        if base:  # the same links and facts either way?
            same = sum(answers[""][k] == answers["baseline"].get(k) for k in answers[""])
            detail["same_links_and_triples_as_baseline"] = f"{same}/{len(answers[''])}"
        print(json.dumps(detail), file=sys.stderr)
        common.emit({
            "ask_process_p50_s": p50(times["dictionary"]),
            "ask_process_p50_embedding_s": p50(times["embedding"]),
            "serve_ready_s": p50(serve_s[""]),
            "load": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        })  # fmt: skip
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
