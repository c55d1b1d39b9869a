"""Benchmark: LLM extraction of the full DALK corpus through the replay server.

The replay server (tests/support/replay_llm_server.py, a separate process) answers with DALK's
recorded real LLM outputs in milliseconds, so the wall time measures the pipeline's own overhead and
concurrency. Each build runs in a fresh interpreter:

1. generative, full corpus, fresh warehouse: wall time, calls and tokens per abstract, token
   amplification (prompt + completion tokens / abstract tokens, both ≈ characters/4);
2. the same build again (same warehouse): LLM calls sent (reuse) — and a rebuild into a fresh
   warehouse that shares only the response cache: LLM calls sent, same content hash;
3. generative through a server injecting 5% faults (429 + Retry-After, 500, slow past the
   timeout, malformed JSON, truncated output): every document accounted for, same triples;
4. pair-wise on one year, ``per-pair`` vs ``batched``: calls and tokens per abstract;
5. for the record, the same full build with entity resolution's embedding steps on and a cold
   embedding cache (every name embedded once by MiniLM on the CPU).

Builds 1–4 skip the embedding steps of resolution (``embed_model="none"``; IDs, aliases,
abbreviations and fuzzy matching still run) so the wall time measures extraction's overhead.

Ends with one JSON line (docs, docs_with_status, calls_per_abstract, token_amplification,
rerun_calls, faulty_run_same_triples, pairwise_*_calls_per_abstract, wall_s, …).

    .venv/bin/python bench/extract_dalk.py [--pairwise-year 2020] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

DATA = common.DALK

CHILD = r"""
import json, resource, sys, time
from pathlib import Path
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.llm.client import LLMSettings
from kgbuild.llm.tokens import estimate_tokens
from kgbuild.store.snapshots import Warehouse
a = json.loads(sys.argv[1])
settings = LLMSettings(model="dalk-replay", base_url=a["url"], api_key="bench-key",
                       concurrency=a["concurrency"], timeout_s=a["timeout"], backoff_s=0.2,
                       max_retries=8, prices={"dalk-replay": (0.15, 0.60)})
opts = ExtractionOptions(a["extractor"], settings, a.get("mode", "batched"),
                         embed_model=a.get("embed_model", "none"))
t = time.perf_counter()
report = build_kg(Path(a["source"]), kg="alzheimers", years=a.get("years"), extractor=opts,
                  warehouse=Path(a["warehouse"]))
wall = time.perf_counter() - t
wh = Warehouse(Path(a["warehouse"]))
q = lambda sql: wh.query(sql)[0][0]
head = report.years[-1].snapshot
abstract_tokens = sum(estimate_tokens(f"{t} {b}") for t, b in wh.query(
    "SELECT title, abstract FROM documents"))
print(json.dumps({
    "wall_s": wall, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "snapshots": len(report.years), "reused": sum(y.reused for y in report.years),
    "docs": q("SELECT count(*) FROM doc_status"),
    "built": q("SELECT count(*) FROM doc_status WHERE status = 'built'"),
    "with_extraction_status": q("SELECT count(DISTINCT pmid) FROM extraction_status"),
    "extraction": dict(wh.query("SELECT status, count(*) FROM extraction_status GROUP BY 1")),
    "requests": q("SELECT count(*) FROM llm_calls"),
    "prompt_tokens": q("SELECT coalesce(sum(prompt_tokens), 0) FROM llm_calls"),
    "completion_tokens": q("SELECT coalesce(sum(completion_tokens), 0) FROM llm_calls"),
    "cost_usd": q("SELECT coalesce(sum(cost_usd), 0) FROM llm_calls"),
    "abstract_tokens": abstract_tokens,
    "triples": head.counts.triples, "rejections": head.counts.rejections,
    "triples_hash": head.content_hash and wh.manifest(head.snapshot_id)["tables"]["triples"],
    "content_hash": head.content_hash, "usage": report.llm_usage,
    "resolution": report.resolution,
}))
"""


@contextmanager
def replay_server(**faults: object):
    args = [sys.executable, "-m", "tests.support.replay_llm_server", "--recordings",
            str(DATA / "extracted")]  # fmt: skip
    for k, v in faults.items():
        args += [f"--{k.replace('_', '-')}", str(v)]
    proc = subprocess.Popen(args, cwd=common.ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = proc.stdout.readline()
        if not line.startswith("READY "):
            raise SystemExit(f"replay server did not start: {line!r} {proc.stderr.read()}")
        yield line.split()[1]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def build(url: str, warehouse: Path, **kw: object) -> dict:
    a = {"url": url, "warehouse": str(warehouse), "source": str(DATA / "by_year"),
         "extractor": "generative", "concurrency": 16, "timeout": 30.0, **kw}  # fmt: skip
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(a)], capture_output=True,
                         text=True, env=common.cli_env(OPENAI_API_KEY=""), check=False)  # fmt: skip
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return common.last_json(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairwise-year", default="2020")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--fault-rate", type=float, default=0.05)
    ap.add_argument("--runs", type=int, default=1, help="full generative builds (median wall)")
    args = ap.parse_args()
    if not DATA.exists():
        raise SystemExit(f"needs the shared DALK data at {DATA}")
    tmp = Path(tempfile.mkdtemp(prefix="kgbuild-bench-extract-"))
    c = args.concurrency
    try:
        with replay_server() as url:
            runs = []
            for i in range(args.runs):
                runs.append(build(url, tmp / ("a" if i == 0 else f"a{i}"), concurrency=c))
                print(f"generative, full corpus: {runs[-1]['wall_s']:.1f}s, "
                      f"{runs[-1]['requests']:,} calls")  # fmt: skip
            walls = [r["wall_s"] for r in runs]
            first = {**runs[0], "wall_s": statistics.median(walls)}
            again = build(url, tmp / "a", concurrency=c)
            (tmp / "b").mkdir()
            shutil.copy(tmp / "a" / "llm_cache.sqlite", tmp / "b" / "llm_cache.sqlite")
            recomputed = build(url, tmp / "b", concurrency=c)
            print(
                f"re-run: {again['wall_s']:.1f}s; rebuild from cache: {recomputed['wall_s']:.1f}s"
            )
            pair = {}
            for mode in ("per-pair", "batched"):
                pair[mode] = build(url, tmp / mode, extractor="pairwise", mode=mode,
                                   years=args.pairwise_year, concurrency=c)  # fmt: skip
                print(f"pairwise {mode} {args.pairwise_year}: {pair[mode]['wall_s']:.1f}s, "
                      f"{pair[mode]['requests']:,} calls")  # fmt: skip
            full = build(url, tmp / "full", concurrency=c, embed_model="default")
            print(f"full build with resolution embeddings (cold cache): {full['wall_s']:.1f}s")
        with replay_server(fault_rate=args.fault_rate, seed=11, retry_after=1, slow=4) as url:
            faulty = build(url, tmp / "f", concurrency=c, timeout=2.0)
            print(f"faulty run: {faulty['wall_s']:.1f}s, usage {faulty['usage']}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    built = first["built"]
    per_abs = lambda r, k: round(r[k] / r["built"], 3)  # noqa: E731
    tokens = lambda r: round((r["prompt_tokens"] + r["completion_tokens"]) / r["built"], 1)  # noqa: E731
    figures = {
        "docs": first["docs"],
        "built_docs": built,
        "docs_with_status": first["docs"],
        "docs_with_extraction_status": first["with_extraction_status"],
        "extraction_status": first["extraction"],
        "calls_per_abstract": per_abs(first, "requests"),
        "prompt_tokens_per_abstract": per_abs(first, "prompt_tokens"),
        "completion_tokens_per_abstract": per_abs(first, "completion_tokens"),
        "abstract_tokens_per_abstract": per_abs(first, "abstract_tokens"),
        "token_amplification": round(
            (first["prompt_tokens"] + first["completion_tokens"]) / first["abstract_tokens"], 3
        ),
        "cost_usd_at_gpt4o_mini_prices": round(first["cost_usd"], 4),
        "triples": first["triples"],
        "rejections": first["rejections"],
        "rerun_calls": int(again["usage"].get("calls", 0)),
        "rerun_wall_s": round(again["wall_s"], 3),
        "rebuild_from_cache_calls": int(recomputed["usage"].get("calls", 0)),
        "rebuild_from_cache_same_hash": recomputed["content_hash"] == first["content_hash"],
        "faulty_run_docs_with_status": faulty["docs"],
        "faulty_run_extraction_status": faulty["extraction"],
        "faulty_run_retries": int(faulty["usage"].get("retries", 0)),
        "faulty_run_truncated": int(faulty["usage"].get("truncated", 0)),
        "faulty_run_wall_s": round(faulty["wall_s"], 3),
        "faulty_run_same_triples": faulty["triples_hash"] == first["triples_hash"],
        "faulty_run_same_hash": faulty["content_hash"] == first["content_hash"],
        "pairwise_year": int(args.pairwise_year),
        "pairwise_per_pair_calls_per_abstract": per_abs(pair["per-pair"], "requests"),
        "pairwise_batched_calls_per_abstract": per_abs(pair["batched"], "requests"),
        "pairwise_per_pair_tokens_per_abstract": tokens(pair["per-pair"]),
        "pairwise_batched_tokens_per_abstract": tokens(pair["batched"]),
        "pairwise_per_pair_triples": pair["per-pair"]["triples"],
        "pairwise_batched_triples": pair["batched"]["triples"],
        "full_build_with_embeddings_wall_s": round(full["wall_s"], 3),
        "full_build_names_embedded": int(full["resolution"].get("names_embedded", 0)),
        "wall_s": round(first["wall_s"], 3),
        "wall_s_runs": [round(w, 3) for w in walls],
        "peak_rss_mb": round(first["peak_rss_mb"], 1),
        "concurrency": c,
    }  # fmt: skip
    common.emit(figures)


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"(bench took {time.perf_counter() - t0:.0f}s)", file=sys.stderr)
