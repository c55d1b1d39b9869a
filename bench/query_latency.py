"""Query latency on a DALK-size snapshot: retrieval without an LLM for every ADQA question, the
index's first and cached open, memory, and the HTTP API under 8 concurrent clients.

    python bench/query_latency.py [--warehouse ./warehouse] [--snapshot latest]
        [--questions FILE ...] [--embed mentions|all|off] [--http-requests 1000] [--http-clients 8]

Build-free: it reads an existing warehouse (default ``./warehouse``: run ``make build``
first) and never writes to it (the query index, node vectors
and query-embedding cache go to a fresh temporary folder, so the first open is a cold one).

- ``open_s``: first open — seven SQL reads, the alias dictionary, the graph, the sentences'
  BM25, written to the index folder; ``reopen_s``: a fresh interpreter opening the same
  snapshot from its cached index (interpreter start excluded; node vectors read from .npy);
- ``vectors_s``: node-name embeddings computed the first time (once per snapshot; the SQLite
  cache carries names across yearly snapshots); ``model_load_s``: the sentence model's load,
  paid once per process before the first question (``kgbuild serve`` pays it at start-up);
- ``p50_ms`` / ``p95_ms`` / ``max_ms``: one retrieval per question (question + choices: link +
  explore + choice scores with their sentences + rank + context), each question seen for the
  first time (its texts are not in any
  embedding cache; the model is loaded first); ``warm_p50_ms``: the same questions again;
  ``embed_off_*``: no embedding fallback at all (dictionary linking only);
- ``http_*``: ``kgbuild serve`` in its own process, ``--http-clients`` threads each with a
  keep-alive connection, POST /retrieve over the questions in turn, timed at the client
  (the query-embedding cache is warm by then: the same questions were retrieved above).

The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.evaluate.adqa import read_questions
from kgbuild.query.engine import QueryEngine
from kgbuild.query.limits import NO_ENTITY
from tests.support.serve_process import stop_server


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return round(s[min(len(s) - 1, round(q / 100 * (len(s) - 1)))], 2)


def query_process(wh: str, snapshot: str, index_dir: str, files: list[str], embed: str) -> dict:
    """A fresh interpreter's view: re-open from the cached index, warm up, answer every question
    once (cold) and again (warm); its peak RSS is the query process's."""
    t0 = time.perf_counter()
    engine = QueryEngine(wh, snapshot, Path(index_dir))
    vec = engine.state().linker.vectors
    if vec is not None and embed != "off":
        vec.ready()
    reopen_s = time.perf_counter() - t0
    prep = engine.prepare() if embed != "off" else {}
    questions = [q for f in files for q in read_questions(Path(f))]
    cold, parts, linked = [], {}, 0
    for q in questions:
        s, r = common.timed(engine.retrieve, q.question, q.choices, embed=embed)
        cold.append(s * 1000)
        linked += bool(r.question_nodes())
        for k, v in r.timings.items():
            parts.setdefault(k, []).append(v)
    warm, off = [], []
    for q in questions:
        warm.append(common.timed(engine.retrieve, q.question, q.choices, embed=embed)[0] * 1000)
    engine = QueryEngine(wh, snapshot, Path(index_dir), embeddings=False)  # no encoding at all
    for q in questions:
        off.append(common.timed(engine.retrieve, q.question, q.choices, embed="off")[0] * 1000)
    return {
        "reopen_s": round(reopen_s, 3), "model_load_s": prep.get("model_load_s"),
        "cold": cold, "warm": warm, "off": off, "linked": linked,
        "parts": {k: round(statistics.median(v), 3) for k, v in parts.items()},
        "peak_rss_mb": round(common.peak_rss_mb()),
    }  # fmt: skip


def http_load(wh: Path, snapshot: str, index_dir: Path, questions: list, n: int,
              clients: int, workers: int = 1) -> dict:  # fmt: skip
    import httpx

    env = common.cli_env(HF_HUB_OFFLINE="1")
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    t0 = time.perf_counter()
    proc, url = common.start_serve(wh, "-s", snapshot, "--index-dir", str(index_dir), "--workers",
                                   str(workers), env=env, timeout_s=300, poll_s=0.2)  # fmt: skip
    try:
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
                        resp = h.post("/retrieve", json=body)
                        code = str(resp.status_code)
                        if code == "422" and resp.json().get("error") == NO_ENTITY:
                            code = "422 no entity"  # the designed answer, not a failure
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
        stop_server(proc)
    errors = sum(v for k, v in status.items() if k not in ("200", "422 no entity"))
    return {
        "http_requests": len(lat), "http_errors": errors, "http_status": status,
        "http_p50_ms": pct(lat, 50), "http_p95_ms": pct(lat, 95), "http_max_ms": pct(lat, 100),
        "http_rps": round(len(lat) / wall, 1), "http_clients": clients, "http_workers": workers,
        "server_startup_s": round(startup, 2),
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_query_options(
        ap, "reuse an index folder (default: a fresh one, so the first open is cold)"
    )
    ap.add_argument("--embed", default="mentions", choices=["mentions", "all", "off"])
    ap.add_argument("--http-requests", type=int, default=1000)
    ap.add_argument("--http-clients", type=int, default=8)
    ap.add_argument("--http-workers", type=int, default=1, help="kgbuild serve --workers")
    ap.add_argument("--query-process", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.query_process:
        print(json.dumps(query_process(str(args.warehouse), args.snapshot, str(args.index_dir),
                                       [str(f) for f in args.questions], args.embed)))  # fmt: skip
        return
    questions = [q for f in args.questions for q in read_questions(f)]
    common.require_warehouse(args.warehouse)
    with tempfile.TemporaryDirectory(prefix="kgbuild-query-bench-") as tmp:
        index_dir = args.index_dir or Path(tmp) / "index"
        open_s, engine = common.timed(QueryEngine, args.warehouse, args.snapshot, index_dir)
        idx = engine.state().index
        print(f"snapshot {idx.snapshot_id} ({idx.kg}@{idx.as_of_year}): {idx.n_nodes:,} nodes, "
              f"{idx.n_edges:,} triples; first open {open_s:.2f}s")  # fmt: skip
        t0 = time.perf_counter()
        vec = engine.state().linker.vectors
        if vec is not None and args.embed != "off":
            vec.ready()
        vectors_s = time.perf_counter() - t0
        build_rss = round(common.peak_rss_mb())
        print(f"node vectors {vectors_s:.1f}s (computed once per snapshot; peak RSS while "
              f"building {build_rss:.0f} MB)")  # fmt: skip
        del engine, vec
        out = subprocess.run(
            [sys.executable, __file__, "--query-process", "--warehouse", str(args.warehouse),
             "--snapshot", args.snapshot, "--index-dir", str(index_dir), "--embed", args.embed,
             "--questions", *map(str, args.questions)],
            capture_output=True, text=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
        if out.returncode:
            raise SystemExit(f"query process failed: {out.stderr[-3000:]}")
        qp = common.last_json(out.stdout)
        cold, warm = qp["cold"], qp["warm"]
        print(f"query process (fresh interpreter): cached re-open {qp['reopen_s']:.2f}s, model "
              f"load {qp['model_load_s']}s; {len(cold)} questions: p50 {pct(cold, 50)} ms, p95 "
              f"{pct(cold, 95)} ms, max {pct(cold, 100)} ms (again: p50 {pct(warm, 50)} ms; "
              f"--embed off: p50 {pct(qp['off'], 50)} ms, p95 {pct(qp['off'], 95)} ms); "
              f"median parts {qp['parts']}; peak RSS {qp['peak_rss_mb']} MB")  # fmt: skip
        http = {}
        if args.http_requests:
            http = http_load(
                args.warehouse,
                args.snapshot,
                index_dir,
                questions,
                args.http_requests,
                args.http_clients,
                args.http_workers,
            )
        if http:
            print(
                f"HTTP: {http['http_requests']} requests from {http['http_clients']} clients, "
                f"{http['http_errors']} errors, p50 {http['http_p50_ms']} ms, p95 "
                f"{http['http_p95_ms']} ms, {http['http_rps']} req/s "
                f"({http['http_status']})"
            )
    figures = {
        "questions": len(questions),
        "p50_ms": pct(cold, 50), "p95_ms": pct(cold, 95), "max_ms": pct(cold, 100),
        "warm_p50_ms": pct(warm, 50), "warm_p95_ms": pct(warm, 95),
        "embed_off_p50_ms": pct(qp["off"], 50), "embed_off_p95_ms": pct(qp["off"], 95),
        "open_s": round(open_s, 2), "reopen_s": qp["reopen_s"],
        "vectors_s": round(vectors_s, 1), "model_load_s": qp["model_load_s"],
        "peak_rss_mb": qp["peak_rss_mb"], "vectors_build_rss_mb": round(build_rss),
        "linked_question_share": round(qp["linked"] / len(questions), 3),
        **{k: v for k, v in http.items() if k != "http_status"},
        "http_status": http.get("http_status"),
        "embed": args.embed, "snapshot": idx.snapshot_id, "nodes": idx.n_nodes,
        "triples": idx.n_edges, "load_avg_1m": round(os.getloadavg()[0], 2),
    }  # fmt: skip
    common.emit(figures, python=False)


if __name__ == "__main__":
    main()
