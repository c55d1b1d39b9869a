"""Nearest-node search for the embedding linker: exact (FAISS flat) against HNSW, at KG sizes
past the DALK snapshot's.

    python bench/node_ann.py [--nodes 200000] [--queries 500] [--dim 384]

Vectors: a clustered synthetic set shaped like node-name embeddings (unit vectors around 2,000
topic centres: names of one kind sit near each other), queries are perturbed copies of random
nodes (a mention spelled differently from its node's name). Figures: build time of each index,
median / p95 per-query search time (one query at a time, one thread, as the linker searches),
and HNSW's recall@1 against the exact answer. The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.search import vectors


def unit(m: np.ndarray) -> np.ndarray:
    return (m / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--seed", type=int, default=26)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    centres = unit(rng.normal(size=(2000, args.dim)))
    nodes = unit(centres[rng.integers(0, 2000, args.nodes)] + 0.6 * unit(
        rng.normal(size=(args.nodes, args.dim))))  # fmt: skip
    pick = rng.integers(0, args.nodes, args.queries)
    queries = unit(nodes[pick] + 0.7 * unit(rng.normal(size=(args.queries, args.dim))))

    t0 = time.perf_counter()
    exact = vectors.build_ann(nodes[: vectors.ANN_MIN_NODES - 1])  # flat below the threshold
    exact.add(nodes[vectors.ANN_MIN_NODES - 1 :])
    flat_build = time.perf_counter() - t0
    hnsw_build, hnsw = common.timed(vectors.build_ann, nodes)
    assert type(hnsw).__name__ == "IndexHNSWFlat" and type(exact).__name__ == "ExactIP"

    def timed(index) -> tuple[list[float], np.ndarray]:
        ms, got = [], []
        for q in queries:
            s, (_, i) = common.timed(index.search, q[None, :], 1)
            ms.append(s * 1000)
            got.append(int(i[0, 0]))
        return ms, np.array(got)

    flat_ms, truth = timed(exact)
    hnsw_ms, found = timed(hnsw)
    recall = float(np.mean(found == truth))
    own = float(np.mean(truth == pick))  # how often the perturbed query's own node is nearest
    med = lambda v: round(statistics.median(v), 3)  # noqa: E731
    figures = {
        "nodes": args.nodes, "queries": args.queries, "dim": args.dim,
        "flat_build_s": round(flat_build, 2), "hnsw_build_s": round(hnsw_build, 2),
        "flat_query_p50_ms": med(flat_ms), "flat_query_p95_ms": common.p95(flat_ms),
        "hnsw_query_p50_ms": med(hnsw_ms), "hnsw_query_p95_ms": common.p95(hnsw_ms),
        "hnsw_recall_at_1": round(recall, 4), "queries_own_node_nearest": round(own, 4),
        "speedup_p50": round(med(flat_ms) / max(1e-9, med(hnsw_ms)), 1),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }  # fmt: skip
    print(f"{args.nodes:,} node vectors, {args.queries} queries, one thread: exact p50 "
          f"{figures['flat_query_p50_ms']} ms, HNSW p50 {figures['hnsw_query_p50_ms']} ms "
          f"(built in {figures['hnsw_build_s']} s), HNSW recall@1 {recall:.3f}")  # fmt: skip
    common.emit(figures, python=False)


if __name__ == "__main__":
    main()
