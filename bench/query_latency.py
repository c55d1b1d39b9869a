"""Query latency on a DALK-size snapshot: retrieval without an LLM for every ADQA question, the
index's first and cached open, memory, and the HTTP API under 8 concurrent clients.

    python bench/query_latency.py [--warehouse /work/scratch/dalk_gen_wh] [--snapshot latest]
        [--questions FILE ...] [--embed mentions|all|off] [--http-requests 1000] [--http-clients 8]

Build-free: it reads an existing warehouse (never writes to it: the query index, node vectors
and query-embedding cache go to a fresh temporary folder, so the first open is a cold one).

- ``open_s``: first open — six SQL reads, the alias dictionary, the graph, written to the index
  folder; ``reopen_s``: a fresh interpreter opening the same snapshot from its cached index
  (interpreter start excluded; node vectors read from their .npy);
- ``vectors_s``: node-name embeddings computed the first time (once per snapshot; the SQLite
  cache carries names across yearly snapshots); ``model_load_s``: the sentence model's load,
  paid once per process before the first question (``kgbuild serve`` pays it at start-up);
- ``p50_ms`` / ``p95_ms`` / ``max_ms``: one retrieval per question (question + choices: link +
  explore + rank + context), each question seen for the first time (its texts are not in any
  embedding cache); ``warm_p50_ms``: the same questions again;
- ``http_*``: ``kgbuild serve`` in its own process, ``--http-clients`` threads each with a
  keep-alive connection, POST /retrieve over the questions in turn, timed at the client
  (the query-embedding cache is warm by then: the same questions were retrieved above).

The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kgbuild.query.adqa import read_questions  # noqa: E402
from kgbuild.query.engine import QueryEngine  # noqa: E402

DEFAULT_QUESTIONS = [
    ROOT.parent / "shared" / "data" / "dalk" / "adqa" / "medqa_filter.json",
    ROOT.parent / "shared" / "data" / "dalk" / "adqa" / "medmcqa_filter.json",
]
if not DEFAULT_QUESTIONS[0].exists():  # a worktree beside the checkout: /work/shared
    DEFAULT_QUESTIONS = [Path("/work/shared/data/dalk/adqa") / p.name for p in DEFAULT_QUESTIONS]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))], 2)


REOPEN = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from kgbuild.query.engine import QueryEngine
t0 = time.perf_counter()
e = QueryEngine(sys.argv[2], sys.argv[3], sys.argv[4])
vec = e.state().linker.vectors
if vec is not None:
    vec.ready()
print(json.dumps({"reopen_s": round(time.perf_counter() - t0, 3),
                  "timings": e.state().index.timings}))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_load(wh: Path, snapshot: str, index_dir: Path, questions: list, n: int,
              clients: int) -> dict:  # fmt: skip
    import httpx

    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "kgbuild.cli", "serve", "-w", str(wh), "-s", snapshot, "--port",
         str(port), "--index-dir", str(index_dir)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    try:
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.perf_counter() - t0 > 300:
                raise RuntimeError(f"server did not start: {proc.stderr.read()[-2000:]}")
            time.sleep(0.2)
        startup = time.perf_counter() - t0
        lat: list[float] = []
        status: dict[str, int] = {}
        lock = threading.Lock()
        per_client = [n // clients + (i < n % clients) for i in range(clients)]

        def run(c: int) -> None:
            with httpx.Client(base_url=url, timeout=60) as h:
                for j in range(per_client[c]):
                    q = questions[(c * 97 + j) % len(questions)]
                    body = {"question": q.question, "choices": q.choices, "timings": False}
                    t = time.perf_counter()
                    try:
                        code = str(h.post("/retrieve", json=body).status_code)
                    except httpx.HTTPError as exc:
                        code = type(exc).__name__
                    dt = (time.perf_counter() - t) * 1000
                    with lock:
                        lat.append(dt)
                        status[code] = status.get(code, 0) + 1

        wall = time.perf_counter()
        threads = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - wall
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    errors = sum(v for k, v in status.items() if k != "200")
    return {
        "http_requests": len(lat), "http_errors": errors, "http_status": status,
        "http_p50_ms": pct(lat, 50), "http_p95_ms": pct(lat, 95), "http_max_ms": pct(lat, 100),
        "http_rps": round(len(lat) / wall, 1), "http_clients": clients,
        "server_startup_s": round(startup, 2),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", type=Path, default=Path("/work/scratch/dalk_gen_wh"))
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--questions", type=Path, nargs="+", default=DEFAULT_QUESTIONS)
    ap.add_argument("--embed", default="mentions", choices=["mentions", "all", "off"])
    ap.add_argument("--http-requests", type=int, default=1000)
    ap.add_argument("--http-clients", type=int, default=8)
    args = ap.parse_args()
    questions = [q for f in args.questions for q in read_questions(f)]
    with tempfile.TemporaryDirectory(prefix="kgbuild-query-bench-") as tmp:
        index_dir = Path(tmp) / "index"
        t0 = time.perf_counter()
        engine = QueryEngine(args.warehouse, args.snapshot, index_dir)
        open_s = time.perf_counter() - t0
        idx = engine.state().index
        print(f"snapshot {idx.snapshot_id} ({idx.kg}@{idx.as_of_year}): {idx.n_nodes:,} nodes, "
              f"{idx.n_edges:,} triples; first open {open_s:.2f}s")  # fmt: skip
        prep = engine.prepare() if args.embed != "off" else {}
        print(f"node vectors {prep.get('vectors_s', 0):.1f}s (first time), "
              f"model load {prep.get('model_load_s', 0):.1f}s")  # fmt: skip
        cold, parts, linked = [], {}, 0
        for q in questions:
            t = time.perf_counter()
            r = engine.retrieve(q.question, q.choices, embed=args.embed)
            cold.append((time.perf_counter() - t) * 1000)
            linked += bool(r.question_nodes())
            for k, v in r.timings.items():
                parts.setdefault(k, []).append(v)
        warm = []
        for q in questions:
            t = time.perf_counter()
            engine.retrieve(q.question, q.choices, embed=args.embed)
            warm.append((time.perf_counter() - t) * 1000)
        print(f"retrieval over {len(questions)} questions: p50 {pct(cold, 50)} ms, p95 "
              f"{pct(cold, 95)} ms, max {pct(cold, 100)} ms (again: p50 {pct(warm, 50)} ms); "
              "median parts " + ", ".join(f"{k} {statistics.median(v):.2f}"
                                          for k, v in parts.items()))  # fmt: skip
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        out = subprocess.run(
            [sys.executable, "-c", REOPEN, str(ROOT), str(args.warehouse), args.snapshot,
             str(index_dir)],
            capture_output=True, text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
        reopen = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"cached re-open (fresh interpreter) {reopen['reopen_s']:.2f}s; peak RSS {rss:.0f} MB")
        http = http_load(args.warehouse, args.snapshot, index_dir, questions, args.http_requests,
                         args.http_clients) if args.http_requests else {}  # fmt: skip
        if http:
            print(f"HTTP: {http['http_requests']} requests from {http['http_clients']} clients, "
                  f"{http['http_errors']} errors, p50 {http['http_p50_ms']} ms, p95 "
                  f"{http['http_p95_ms']} ms, {http['http_rps']} req/s")  # fmt: skip
    figures = {
        "questions": len(questions),
        "p50_ms": pct(cold, 50), "p95_ms": pct(cold, 95), "max_ms": pct(cold, 100),
        "warm_p50_ms": pct(warm, 50), "warm_p95_ms": pct(warm, 95),
        "open_s": round(open_s, 2), "reopen_s": reopen["reopen_s"],
        "vectors_s": prep.get("vectors_s"), "model_load_s": prep.get("model_load_s"),
        "peak_rss_mb": round(rss), "linked_question_share": round(linked / len(questions), 3),
        **{k: v for k, v in http.items() if k != "http_status"},
        "http_status": http.get("http_status"),
        "embed": args.embed, "snapshot": idx.snapshot_id, "nodes": idx.n_nodes,
        "triples": idx.n_edges,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }  # fmt: skip
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
