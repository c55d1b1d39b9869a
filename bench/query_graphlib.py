"""Which graph library for the query stage: the same retrieval graph work on a DALK-size
snapshot with igraph, rustworkx, networkx and kgbuild's scipy.sparse CSR (kgbuild/search/graph.py).

    python bench/query_graphlib.py [--warehouse ./warehouse] [--questions FILE ...]

Reads an existing warehouse (default ``./warehouse``: run ``make build`` first). A library that
is not installed (igraph and networkx are not kgbuild dependencies) gets a "not installed" line
instead of figures.

Workload, from the ADQA questions' dictionary-linked nodes (what retrieval really asks):

- ``build_ms``: the graph from the index's edge arrays;
- ``paths_ms``: per question, every question–question and question–choice pair's shortest
  paths of ≤ 3 hops with hubs (> 200 neighbours) barred as intermediates. A library gets the
  hub-free view its API offers (an induced subgraph of the non-hubs plus the question's own
  nodes, built once per question) and its all-shortest-paths call per pair, after a distance
  check so that no pair is searched past 3 hops;
- ``pagerank_ms``: per question, personalized PageRank over the question's candidate subgraph
  (as :func:`kgbuild.query.explore.explore` samples it), restarting at the linked nodes
  (kgbuild's row: rustworkx, which it uses; ``pagerank_numpy_ms``: a numpy power iteration).

Means per question; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.evaluate.adqa import read_questions
from kgbuild.query.engine import QueryEngine
from kgbuild.query.explore import HUB_DEGREE, explore
from kgbuild.search.graph import Graph, _pagerank_numpy, personalized_pagerank


def workload(engine: QueryEngine, files: list[Path]) -> list[dict]:
    st = engine.state()
    out = []
    for q in [q for f in files for q in read_questions(f)]:
        r = engine.retrieve(q.question, q.choices, embed="off")
        qn, cn = r.question_nodes()[:8], [c[:3] for c in r.choice_nodes()]
        pairs = list(combinations(qn, 2)) + [(a, b) for c in cn for a in qn for b in c if a != b]
        cand = explore(st.index, st.index.graph, None, qn, cn, q.question)
        edges = sorted(cand.edges)
        seeds = {n: 1.0 for n in qn} | {n: 0.5 for c in cn for n in c if n not in qn}
        out.append({"linked": sorted({*qn, *(n for c in cn for n in c)}), "pairs": pairs,
                    "edges": edges, "seeds": seeds})  # fmt: skip
    return out


def per_question(work: list[dict], **runs: Callable[[dict], None]) -> dict[str, float]:
    """``{name}_ms``: the mean milliseconds of each run over the questions ``work``."""
    return {
        f"{k}_ms": np.mean([common.timed(r, w)[0] * 1000 for w in work]) for k, r in runs.items()
    }


def seeded_subgraph(head, tail, w) -> tuple[int, list[tuple[int, int]], dict[int, float]]:
    """A question's candidate subgraph, its nodes numbered from 0: (node count, its edges, the
    restart weight of each seed in it; a seed outside it restarts nowhere, as in
    :func:`~kgbuild.search.graph.personalized_pagerank`)."""
    e = w["edges"]
    nodes = np.unique(np.r_[head[e], tail[e]]).tolist()
    at = {v: i for i, v in enumerate(nodes)}
    edges = [(at[a], at[b]) for a, b in zip(head[e].tolist(), tail[e].tolist(), strict=True)]
    return len(nodes), edges, {at[v]: x for v, x in w["seeds"].items() if v in at}


def run_ours(g: Graph, head, tail, work, barred) -> dict:
    def paths(w):
        for s, t in w["pairs"]:
            g.shortest_paths(s, t, 3, barred, 20)

    def pr(w):
        if w["edges"]:
            personalized_pagerank(np.unique(np.r_[head[w["edges"]], tail[w["edges"]]]),
                                  head[w["edges"]], tail[w["edges"]], w["seeds"])  # fmt: skip

    def pr_numpy(w):
        if w["edges"]:
            n, edges, pers = seeded_subgraph(head, tail, w)
            pairs = {(min(a, b), max(a, b)) for a, b in edges if a != b}
            _pagerank_numpy(n, pairs, pers, 0.85, 1e-6, 100)

    return per_question(work, paths=paths, pagerank=pr, pagerank_numpy=pr_numpy)


def run_igraph(n, head, tail, work, barred) -> dict:
    import igraph as ig

    t = time.perf_counter()
    g = ig.Graph(n=n, edges=list(zip(head.tolist(), tail.tolist(), strict=True)))
    g.simplify()
    build = (time.perf_counter() - t) * 1000
    keep_base = np.flatnonzero(~barred)

    def paths(w):
        keep = [int(v) for v in np.union1d(keep_base, w["linked"])]
        sub = g.induced_subgraph(keep)
        pos = {v: i for i, v in enumerate(keep)}
        for s, t in w["pairs"]:
            d = sub.distances(pos[s], pos[t])[0][0]
            if d <= 3:
                sub.get_all_shortest_paths(pos[s], to=pos[t])

    def pr(w):
        if w["edges"]:
            n, edges, pers = seeded_subgraph(head, tail, w)
            sg = ig.Graph(n=n, edges=edges)
            sg.simplify()
            sg.personalized_pagerank(damping=0.85, reset=[pers.get(i, 0.0) for i in range(n)])

    return {"build_ms": build, **per_question(work, paths=paths, pagerank=pr)}


def run_rustworkx(n, head, tail, work, barred) -> dict:
    import rustworkx as rx

    t = time.perf_counter()
    g = rx.PyGraph(multigraph=False)
    g.add_nodes_from(range(n))
    g.add_edges_from_no_data(list(zip(head.tolist(), tail.tolist(), strict=True)))
    build = (time.perf_counter() - t) * 1000
    keep_base = np.flatnonzero(~barred)

    def paths(w):
        keep = [int(v) for v in np.union1d(keep_base, w["linked"])]
        sub = g.subgraph(keep)
        pos = {v: i for i, v in enumerate(keep)}
        for s, t in w["pairs"]:
            d = rx.dijkstra_shortest_path_lengths(sub, pos[s], lambda _: 1.0, goal=pos[t])
            if pos[t] in d and d[pos[t]] <= 3:
                rx.all_shortest_paths(sub, pos[s], pos[t])

    def pr(w):
        if w["edges"]:
            n, edges, pers = seeded_subgraph(head, tail, w)
            dg = rx.PyDiGraph(multigraph=False)
            dg.add_nodes_from(range(n))
            dg.add_edges_from_no_data(list({*edges, *((b, a) for a, b in edges)}))
            rx.pagerank(dg, alpha=0.85, personalization=pers or None)

    return {"build_ms": build, **per_question(work, paths=paths, pagerank=pr)}


def run_networkx(n, head, tail, work, barred, sample: int) -> dict:
    import networkx as nx

    t = time.perf_counter()
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(zip(head.tolist(), tail.tolist(), strict=True))
    build = (time.perf_counter() - t) * 1000

    def paths(w):
        allowed = set(w["linked"])
        view = nx.subgraph_view(g, filter_node=lambda v: not barred[v] or v in allowed)
        for s, t in w["pairs"]:
            try:
                if nx.shortest_path_length(view, s, t) <= 3:
                    list(nx.all_shortest_paths(view, s, t))
            except nx.NetworkXNoPath:
                pass

    def pr(w):
        if w["edges"]:
            _, edges, pers = seeded_subgraph(head, tail, w)
            nx.pagerank(nx.Graph(edges), alpha=0.85, personalization=pers or None)

    few = work[:sample]  # networkx is slow: a sample of the questions
    return {"build_ms": build, **per_question(few, paths=paths, pagerank=pr),
            "questions_sampled": len(few)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common.add_query_options(ap)
    ap.add_argument("--networkx-sample", type=int, default=40)
    args = ap.parse_args()
    common.require_warehouse(args.warehouse)
    engine = QueryEngine(args.warehouse, args.snapshot, args.index_dir, embeddings=False)
    idx = engine.state().index
    head, tail = idx.edges["head"], idx.edges["tail"]
    ours_build, g = common.timed(Graph.from_edges, idx.n_nodes, head, tail, idx.edges["support"],
                                 idx.edges["confidence"])  # fmt: skip
    ours_build *= 1000
    barred = g.degree > HUB_DEGREE
    work = workload(engine, args.questions)
    print(f"{idx.n_nodes:,} nodes, {idx.n_edges:,} edges, {int(barred.sum())} hubs; "
          f"{len(work)} questions, {sum(len(w['pairs']) for w in work):,} pairs")  # fmt: skip
    ours = {"build_ms": ours_build, **run_ours(g, head, tail, work, barred)}
    runs = {
        "igraph": lambda: run_igraph(idx.n_nodes, head, tail, work, barred),
        "rustworkx": lambda: run_rustworkx(idx.n_nodes, head, tail, work, barred),
        "networkx": lambda: run_networkx(idx.n_nodes, head, tail, work, barred,
                                         args.networkx_sample),
    }  # fmt: skip
    results = {"scipy_csr (kgbuild)": ours}
    for name, run in runs.items():
        try:
            results[name] = run()
        except ModuleNotFoundError as exc:
            print(f"{name:22s} not installed ({exc.name}): no figures")
    for name, r in results.items():
        print(f"{name:22s} build {r['build_ms']:8.1f} ms | paths {r['paths_ms']:8.2f} ms/question"
              f" | pagerank {r['pagerank_ms']:6.2f} ms/question")  # fmt: skip
    print(
        json.dumps({k: {m: round(float(v), 3) for m, v in r.items()} for k, r in results.items()})
    )


if __name__ == "__main__":
    main()
