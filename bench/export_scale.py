"""Benchmark: a 1M-triple snapshot exported to every format — wall time and peak RSS per format.

The snapshot is synthetic (tests/support/synthetic_kg.py): 1M triples over 200k nodes (20% unlinked
``free:`` nodes), ~1.6M evidence rows from generative and co-occurrence extraction, published as
one snapshot through ``Warehouse.writer(kg).add(…)`` / ``.commit(…)`` like a build, so the bench
needs no pipeline run. Each format is exported in a fresh interpreter (peak RSS is that
process's ``ru_maxrss``: DuckDB, Arrow, LadybugDB and Python together), ``--runs`` times; the
figures are medians. Every run's files are hashed: runs of a format must be byte-identical (the
LadybugDB file is compared by its content: every node and relationship, sorted).

    .venv/bin/python bench/export_scale.py [--triples 1000000] [--nodes 200000] [--runs 2]
        [--memory-limit 384MB]

``--memory-limit`` replaces the export connection's DuckDB limit in the bench's own child
processes only. The suite runs this bench at 200k triples under 256 MB
(tests/bench/test_bench_paths.py): at that size an export that stops streaming fails, as
``kg_edges`` did at 20d0070 (0 runs of 3 there; 20k triples under 160 MB had not caught it).

Ends with one JSON line: triples, and <format>_s, <format>_rss_mb per format (+ identical).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import peak_rss_mb

FORMATS = ("parquet", "tsv", "kgx", "neo4j", "ladybug")


def unordered_digest(db: Path, query: str) -> bytes:
    """XOR of the rows' hashes: order-independent, and no ORDER BY (which needs the whole
    result in LadybugDB's buffer pool)."""
    import ladybug as lb

    database = lb.Database(str(db), read_only=True, buffer_pool_size=256 << 20)
    con = lb.Connection(database)
    acc, n = 0, 0
    try:
        result = con.execute(query)
        while result.has_next():
            row = json.dumps(result.get_next(), default=str).encode()
            acc ^= int.from_bytes(hashlib.sha256(row).digest(), "big")
            n += 1
    finally:
        con.close()
        database.close()
    return acc.to_bytes(32, "big") + n.to_bytes(8, "big")


def one(warehouse: str, fmt: str, out: str, memory_limit: str = "") -> None:
    """Child process: export one format, print a JSON line of time, RSS and a content digest."""
    from kgbuild.export import LADYBUG_FILE, export_snapshot, source
    from kgbuild.store.snapshots import Warehouse

    if memory_limit:
        source.MEMORY_LIMIT = memory_limit

    wh = Warehouse(Path(warehouse))
    sid = wh.resolve("latest")
    seconds, written = common.timed(export_snapshot, wh, sid, Path(out), [fmt])
    written = written[fmt]
    rss_mb = peak_rss_mb()
    h = hashlib.sha256()
    if fmt == "ladybug":  # the file has a random database id: digest its content instead
        db = written[LADYBUG_FILE][0]
        for query in ("MATCH (n) RETURN n.id, n.name, n.aliases",
                      "MATCH (a)-[r]->(b) RETURN r.triple_id, a.id, b.id, r.support, "
                      "r.confidence, r.pmids"):  # fmt: skip
            h.update(unordered_digest(db, query))
    else:
        for name in sorted(written):
            h.update(name.encode() + written[name][0].read_bytes())
    size = sum(p.stat().st_size for p, _ in written.values() if p.exists())
    rows = {k: v for k, (_, v) in written.items() if v is not None}
    print(json.dumps({"s": seconds, "rss_mb": rss_mb, "digest": h.hexdigest(), "bytes": size,
                      "rows": rows}))  # fmt: skip


def publish(warehouse: Path, triples: int, nodes: int) -> tuple[float, float]:
    from tests.support.synthetic_kg import publish_synthetic

    s, _ = common.timed(publish_synthetic, warehouse, triples, nodes, kg="scale", years=(2020,),
                        seed=11)  # fmt: skip
    return s, peak_rss_mb()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triples", type=int, default=1_000_000)
    ap.add_argument("--nodes", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--warehouse", help="reuse (or keep) the synthetic warehouse here")
    ap.add_argument("--memory-limit", default="", help="DuckDB limit of the export connection")
    ap.add_argument(
        "--one", nargs=3, metavar=("WAREHOUSE", "FORMAT", "OUT"), help=argparse.SUPPRESS
    )
    args = ap.parse_args()
    if args.one:
        one(*args.one, memory_limit=args.memory_limit)
        return
    tmp = Path(tempfile.mkdtemp(prefix="kgbuild-export-bench-"))
    wh = Path(args.warehouse) if args.warehouse else tmp / "wh"
    try:
        if not (wh / "kg.duckdb").exists():
            gen_s, gen_rss = publish(wh, args.triples, args.nodes)
            print(f"published {args.triples:,} synthetic triples in {gen_s:.1f}s "
                  f"(generator peak RSS {gen_rss:.0f} MB)")  # fmt: skip
        from kgbuild.store.snapshots import Warehouse

        w = Warehouse(wh)
        counts = w.manifest(w.resolve("latest"))["counts"]
        print(f"snapshot: {counts['triples']:,} triples, {counts['nodes']:,} nodes, "
              f"{counts['evidence']:,} evidence; machine {platform.machine()}, "
              f"{os.cpu_count()} cores (shared)")  # fmt: skip
        figures: dict[str, object] = {"triples": counts["triples"]}
        identical = True
        for fmt in args.formats.split(","):
            runs = []
            for r in range(args.runs):
                out = tmp / f"out-{fmt}-{r}"
                proc = subprocess.run(
                    [sys.executable, __file__, "--one", str(wh), fmt, str(out),
                     "--memory-limit", args.memory_limit],
                    capture_output=True, text=True, check=False,
                )  # fmt: skip
                if proc.returncode:
                    sys.exit(f"{fmt} export failed:\n{proc.stderr[-3000:]}")
                runs.append(common.last_json(proc.stdout))
                shutil.rmtree(out, ignore_errors=True)
            same = len({r["digest"] for r in runs}) == 1
            identical &= same
            s = statistics.median(r["s"] for r in runs)
            rss = statistics.median(r["rss_mb"] for r in runs)
            figures[f"{fmt}_s"], figures[f"{fmt}_rss_mb"] = round(s, 2), round(rss, 1)
            print(f"{fmt:8} {s:7.1f} s  peak RSS {rss:6.0f} MB  {runs[0]['bytes'] / 1e6:8.1f} MB "
                  f"on disk  runs {[round(r['s'], 1) for r in runs]}  identical={same}  "
                  f"rows {runs[0]['rows']}")  # fmt: skip
        figures["identical"] = identical
        print(json.dumps(figures))
    finally:
        if not args.warehouse:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            for p in tmp.glob("out-*"):
                shutil.rmtree(p, ignore_errors=True)


if __name__ == "__main__":
    main()
