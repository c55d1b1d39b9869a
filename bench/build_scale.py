"""Benchmark: does a build's time and memory follow the corpus, k = 1, 10, 30 × DALK?

For each k the DALK by-year PubTator files are replicated k times into a temporary folder:

* **shifted** — copy c of every record gets PMID ``c × 10⁹ + PMID``: same text, same
  annotations, so the KG (nodes, triples) stays the size of 1× and only documents, mentions,
  statuses and evidence grow k×;
* **renamed** — as shifted, and copy c's concept IDs are renamed to well-formed IDs no
  vocabulary has (a number + c·10¹⁰; else four digits of c appended, "MESH:D000544" →
  "MESH:D0005440003"), so every copy is a new set of concepts and the KG's node and edge tables
  grow k× too. (A suffix like ``.k<c>`` breaks the IDs' patterns: resolution's ID check drops
  such IDs, the mentions fall back to their text and the KG stops growing.)

Each corpus is built by ``kgbuild build --extractor cooccurrence --embed-model none`` as a
process (what a user runs) into a fresh warehouse; wall time and the child's peak RSS
(``ru_maxrss`` from ``wait4``) are taken per run. For k = 1 the library call (``build_kg`` in a
fresh interpreter, its own wall time without imports) is timed beside the process. Targets:
wall(10×) ≤ 10 × wall(1×); peak RSS(30×) ≤ 1.5 × peak RSS(1×) and ≤ 1 GB. The last line is one
JSON object of the figures.

The base corpus by default is the first :data:`QUICK_PER_YEAR` records of each year (every
year's slice is still built, in order), so the whole default run — 1×, 10× and 30× of both
variants — fits in 15 minutes on a 2-core machine; ``--per-year 0`` takes every
record (1× = DALK's 9,764 abstracts: the full measurement, ~1 hour here). Each
replicated corpus is written once per (variant, k) and reused by every run.

    .venv/bin/python bench/build_scale.py [--ks 1,10,30] [--variants shifted,renamed]
        [--runs 1] [--per-year 40] [--source ../shared/data/dalk/by_year]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

#: PMIDs are below 10⁹ (PubMed is at ~4·10⁷): copy c's PMIDs never collide with the originals.
PMID_SHIFT = 10**9
_ID_SPLIT = re.compile(r"([;,|])")
#: The targets on this machine: time follows the corpus, memory does not.
WALL_RATIO_MAX_10 = 10.0
RSS_RATIO_MAX_30 = 1.5
RSS_MAX_MB = 1024.0
#: Records per year of the default base corpus (``--per-year``; 0: all).
QUICK_PER_YEAR = 40

LIB_CHILD = r"""
import json, sys, time
from pathlib import Path
t0 = time.perf_counter()
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
t_import = time.perf_counter() - t0
t = time.perf_counter()
report = build_kg(Path(sys.argv[1]), kg="scale", warehouse=Path(sys.argv[2]),
                  extractor=ExtractionOptions("cooccurrence", embed_model="none"))
print(json.dumps({"lib_wall_s": time.perf_counter() - t, "import_s": t_import,
                  "content_hash": report.head.content_hash}))
"""


def _shift(pmid: str, copy: int) -> str:
    return str(copy * PMID_SHIFT + int(pmid)) if pmid.isdigit() else f"{pmid}k{copy}"


#: Renamed numeric IDs move past every real one (NCBI Gene and Taxonomy are below 10⁹).
RENAME_SHIFT = 10**10


def _rename_id(cid: str, copy: int) -> str:
    """Copy ``copy``'s name for one concept ID: well-formed for its prefix, in no vocabulary."""
    prefix, sep, local = cid.rpartition(":")
    if local.isdigit():
        local = str(int(local) + copy * RENAME_SHIFT)
    elif local[-1:].isdigit():
        local = f"{local}{copy:04d}"
    else:
        local = f"{local}.k{copy}"
    return f"{prefix}{sep}{local}"


def _rename(ids: str, copy: int) -> str:
    return "".join(
        p if _ID_SPLIT.fullmatch(p) or p in ("", "-") else _rename_id(p, copy)
        for p in _ID_SPLIT.split(ids)
    )


def copy_line(line: str, copy: int, renamed: bool) -> str:
    """One PubTator line of copy ``copy``: PMID shifted; IDs suffixed when ``renamed``."""
    if copy == 0:
        return line
    m = re.match(r"^([^|\t]+)(\|[ta]\|.*)$", line, re.S)
    if m:
        return _shift(m.group(1), copy) + m.group(2)
    cols = line.rstrip("\n").split("\t")
    if len(cols) < 2:
        return line
    cols[0] = _shift(cols[0], copy)
    if renamed and len(cols) >= 6 and cols[1].isdigit():  # mention: pmid start end text type id
        cols[5] = _rename(cols[5], copy)
    elif renamed and len(cols) >= 4:  # relation: pmid type id1 id2
        cols[2], cols[3] = _rename(cols[2], copy), _rename(cols[3], copy)
    return "\t".join(cols) + ("\n" if line.endswith("\n") else "")


def first_records(lines: Iterator[str], limit: int) -> Iterator[str]:
    """The lines of the first ``limit`` records (0: all); a record ends at a blank line."""
    seen = 0
    for line in lines:
        if limit and "|t|" in line[:40]:
            seen += 1
            if seen > limit:
                return
        yield line


def make_corpus(source: Path, dest: Path, k: int, renamed: bool, per_year: int = 0) -> int:
    """Write k copies of (the first ``per_year`` records of) every ``<year>.pubtator`` file of
    ``source`` into ``dest``; return the number of records written. Streams line by line: the
    corpus is never held in memory."""
    dest.mkdir(parents=True, exist_ok=True)
    records = 0
    for src in sorted(source.glob("*.pubtator")):
        with open(dest / src.name, "w", encoding="utf-8") as out:
            for copy in range(k):
                with open(src, encoding="utf-8") as fh:
                    for line in first_records(fh, per_year):
                        out.write(copy_line(line, copy, renamed))
                        records += "|t|" in line[:40]
                out.write("\n")
    return records


def run_measured(cmd: list[str], log: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Run ``cmd``; return (wall seconds, the child's peak RSS in MB, exit status)."""
    with open(log, "w") as fh:
        return common.run_measured(cmd, env, fh)[:3]


def head_figures(warehouse: Path) -> dict[str, object]:
    """The head snapshot's counts and content hash, read from its manifest."""
    newest = max(
        (json.loads(p.read_text()) for p in (warehouse / "snapshots").glob("*.json")),
        key=lambda m: m["depth"],
    )
    c = newest["counts"]
    return {
        "content_hash": newest["content_hash"],
        "records": c["records"],
        "nodes": c["nodes"],
        "triples": c["triples"],
        "evidence": c["evidence"],
    }


def build_cli(corpus: Path, work: Path, env: dict[str, str], tag: str) -> dict[str, object]:
    wh = work / f"wh-{tag}"
    cmd = [str(common.KGBUILD), "build", "--source", str(corpus), "--kg", "scale"]
    cmd += ["--extractor", "cooccurrence", "--embed-model", "none", "-w", str(wh)]
    wall, rss, code = run_measured(cmd, work / f"{tag}.log", env)
    if code != 0:
        sys.exit(f"kgbuild build failed ({tag}):\n{(work / f'{tag}.log').read_text()[-2000:]}")
    return {"wall_s": wall, "peak_rss_mb": rss, **head_figures(wh)}


def build_lib(corpus: Path, work: Path, env: dict[str, str]) -> dict[str, object]:
    wh = work / "wh-lib"
    cmd = [sys.executable, "-c", LIB_CHILD, str(corpus), str(wh)]
    wall, rss, code = run_measured(cmd, work / "lib.log", env)
    lines = (work / "lib.log").read_text().strip().splitlines()
    if code != 0:
        sys.exit(f"library build failed:\n{chr(10).join(lines[-20:])}")
    return {"process_wall_s": wall, "peak_rss_mb": rss, **json.loads(lines[-1])}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ks", default="1,10,30", help="comma-separated replication factors")
    ap.add_argument("--variants", default="shifted,renamed")
    ap.add_argument("--runs", type=int, default=1, help="runs per (variant, k); medians")
    ap.add_argument("--source", type=Path, default=common.DALK_YEARS)
    ap.add_argument("--per-year", type=int, default=QUICK_PER_YEAR,
                    help="records per year of the base corpus (0: all of it)")  # fmt: skip
    args = ap.parse_args()
    if not args.source.exists():
        sys.exit(f"corpus not found: {args.source}")
    ks = sorted({int(k) for k in args.ks.split(",")})
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    env = common.cli_env(
        HF_HUB_OFFLINE="1", DO_NOT_TRACK="1", PREFECT_SERVER_ANALYTICS_ENABLED="false"
    )
    figures: dict[str, object] = {"k": ks, "variants": variants, "per_year": args.per_year}
    started = time.perf_counter()
    for variant in variants:
        prefix = "" if variant == "shifted" else f"{variant}_"
        for k in ks:
            walls, rsss, head = [], [], {}
            t_size = time.perf_counter()
            with tempfile.TemporaryDirectory(prefix=f"kgscale-{variant}{k}-") as tmp:
                corpus = Path(tmp) / "corpus"
                n = make_corpus(args.source, corpus, k, variant == "renamed", args.per_year)
                for run in range(args.runs):
                    work = Path(tmp) / f"run{run}"
                    work.mkdir()
                    head = build_cli(corpus, work, env, "cli")
                    walls.append(head["wall_s"])
                    rsss.append(head["peak_rss_mb"])
                    if k == 1 and variant == "shifted":
                        lib = build_lib(corpus, work, env)
                        assert lib["content_hash"] == head["content_hash"], "CLI ≠ library"
                        figures.setdefault("lib_runs", []).append(lib)  # type: ignore[union-attr]
                    print(
                        f"{variant} {k:>2}x run {run + 1}: {n:,} records, build "
                        f"{walls[-1]:.1f}s, peak {rsss[-1]:.0f} MB; head {head['nodes']:,} nodes "
                        f"{head['triples']:,} triples {head['evidence']:,} evidence",
                        flush=True,
                    )
            size_s = time.perf_counter() - t_size
            figures[f"{prefix}size_s_{k}"] = round(size_s, 1)
            print(f"{variant} {k:>2}x took {size_s:.1f}s in all (corpus + {args.runs} run(s))",
                  flush=True)  # fmt: skip
            figures[f"{prefix}wall_s_{k}"] = round(statistics.median(walls), 2)
            figures[f"{prefix}peak_rss_mb_{k}"] = round(max(rsss), 1)
            figures[f"{prefix}records_{k}"] = n
            figures[f"{prefix}triples_{k}"] = head["triples"]
            figures[f"{prefix}evidence_{k}"] = head["evidence"]
            if k == 1:
                figures[f"{prefix}content_hash_1"] = head["content_hash"]
        for k in [k for k in ks if 1 in ks and k != 1]:
            for ratio, of in (("wall_ratio", "wall_s"), ("rss_ratio", "peak_rss_mb")):
                got, one = figures[f"{prefix}{of}_{k}"], figures[f"{prefix}{of}_1"]
                figures[f"{prefix}{ratio}_{k}"] = round(got / one, 2)  # type: ignore[operator]
    libs: list[dict] = figures.pop("lib_runs", None)  # type: ignore[assignment]
    if libs:
        figures["cli_wall_s_1"] = figures["wall_s_1"]
        for key, of in (("lib_wall_s_1", "lib_wall_s"), ("lib_process_wall_s_1", "process_wall_s"),
                        ("lib_import_s_1", "import_s")):  # fmt: skip
            figures[key] = round(statistics.median(r[of] for r in libs), 2)
    print("\nvariant   k   wall_s  peak_MB  wall/1x  rss/1x")
    for variant in variants:
        prefix = "" if variant == "shifted" else f"{variant}_"
        for k in ks:
            print(
                f"{variant:<8} {k:>2}  {figures[f'{prefix}wall_s_{k}']:>7}  "
                f"{figures[f'{prefix}peak_rss_mb_{k}']:>7}  "
                f"{figures.get(f'{prefix}wall_ratio_{k}', '-'):>7}  "
                f"{figures.get(f'{prefix}rss_ratio_{k}', '-'):>6}"
            )
    if "wall_ratio_10" in figures:
        ok = figures["wall_ratio_10"] <= WALL_RATIO_MAX_10  # type: ignore[operator]
        print(f"target wall(10x) <= {WALL_RATIO_MAX_10:g} x wall(1x): {'met' if ok else 'MISSED'}")
    if "rss_ratio_30" in figures:
        ok = figures["rss_ratio_30"] <= RSS_RATIO_MAX_30 and figures["peak_rss_mb_30"] <= RSS_MAX_MB  # type: ignore[operator]
        verdict = "met" if ok else "MISSED"
        print(f"target rss(30x) <= {RSS_RATIO_MAX_30:g} x rss(1x) and <= 1 GB: {verdict}")
    figures["total_s"] = round(time.perf_counter() - started, 1)
    print(f"whole run: {figures['total_s']:.0f}s")
    common.emit(figures)


if __name__ == "__main__":
    main()
