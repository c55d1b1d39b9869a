"""Benchmark: how often evidence of each epistemic status joins a pair the gold file relates.

For each gold file (the dev splits by default: the default extractor's verifier was trained
on the train splits, so its rows there are in-sample), its abstracts are built with the
relation lines hidden — exactly as ``kgbuild eval facts`` builds them
(:func:`kgbuild.evaluate.facts.build_hidden`) — and every evidence row of the snapshot is read
with its status (``evidence_status_at``). A row is *on gold* when the gold file holds a
relation (any type) between its two endpoints in the row's PMID (gold IDs mapped to the nodes
they were built as, :func:`kgbuild.evaluate.facts.node_map`); only rows joining two kinds the
gold file relates count (BC5CDR relates only chemicals to diseases). Per status: rows, the
share on gold (the status's precision as pair evidence) with a Wilson 95% interval; for BioRED
also the share of on-gold rows whose relation BioRED marks as background knowledge (novelty
``No``): what ``background`` should catch. Ends with one JSON line. Figures:
docs/querying.md ("rests on").

    .venv/bin/python bench/status_vs_gold.py [--file [NAME=]PATH ...] [--docs N]

A file given without a name is named after the split it holds (:func:`bench.common.split_name`:
``Test.PubTator`` → ``test``), so a run on a held-out split never names its figures ``*_dev``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.audit.score import wilson
from kgbuild.evaluate.facts import build_hidden, hide_relations, node_map
from kgbuild.evaluate.gold import NOVEL, read_gold_corpus
from kgbuild.evaluate.run_re import scratch_dir, slice_gold

#: The dev splits, each named after its dataset and the split its file holds.
DEFAULTS = {f"{name}_{common.split_name(path)}": path
            for name, path in (("biored", common.BIORED_DEV), ("cdr", common.CDR_DEV))}  # fmt: skip


def measure(path: Path, docs: int | None) -> dict[str, object]:
    gold = read_gold_corpus(path)
    with scratch_dir(None) as root:
        sliced = slice_gold(gold, docs, root / "input")
        if docs is not None:
            gold = read_gold_corpus(sliced)
        wh, sid, _ = build_hidden(hide_relations(sliced, gold.fmt, root / "bi"), root / "wh")
        nodes = node_map(wh, sid)
        related: dict[tuple[str, frozenset[str]], str] = {}
        for r in gold.relations:
            pair = frozenset((nodes.get(r.a, r.a), nodes.get(r.b, r.b)))
            old = related.get((r.pmid, pair))
            related[(r.pmid, pair)] = NOVEL if NOVEL in (old, r.novelty) else r.novelty
        kinds = {"-".join(sorted((r.kind_a or "?", r.kind_b or "?"))) for r in gold.relations}
        rows = wh.query(
            "SELECT e.epistemic, e.verified, e.pmid, t.head_id, t.tail_id, "
            "list_sort([h.type, tl.type]) FROM evidence_status_at(?) e "
            "JOIN triples_at(?) t USING (triple_id) JOIN entities_at(?) h ON h.id = t.head_id "
            "JOIN entities_at(?) tl ON tl.id = t.tail_id",
            [sid, sid, sid, sid],
        )
    n, on, novelty = Counter(), Counter(), defaultdict(Counter)
    for status, verified, pmid, h, t, pair_kinds in rows:
        if "-".join(k or "?" for k in pair_kinds) not in kinds:
            continue
        s = "refuted" if verified == "no" else status
        n[s] += 1
        got = related.get((str(pmid), frozenset((h, t))))
        if got is not None:
            on[s] += 1
            novelty[s][got or "?"] += 1
    out = {}
    for s in sorted(n, key=lambda s: -n[s]):
        out[s] = {
            "rows": n[s],
            "on_gold": on[s],
            "precision": round(on[s] / n[s], 4),
            "ci": wilson(on[s], n[s]),
            "novelty_of_on_gold": dict(novelty[s]),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", action="append", default=[], help="[NAME=]PATH (repeatable)")
    ap.add_argument("--docs", type=int, default=None, help="first N documents of each file")
    args = ap.parse_args(argv)
    files = dict(f.split("=", 1) if "=" in f else (common.split_name(f), f) for f in args.file)
    files = files or {k: str(v) for k, v in DEFAULTS.items()}
    t0 = time.perf_counter()
    line: dict[str, object] = {}
    for name, path in files.items():
        by_status = measure(Path(path), args.docs)
        print(f"## {name}: {path}")
        print(f"{'status':<16}{'rows':>7}{'on gold':>9}{'precision':>11}  95% CI     novelty")
        for s, v in by_status.items():
            print(f"{s:<16}{v['rows']:>7}{v['on_gold']:>9}{v['precision']:>11.3f}  "
                  f"{v['ci'][0]:.3f}-{v['ci'][1]:.3f}  {v['novelty_of_on_gold']}")  # fmt: skip
        line[name] = by_status
    line["seconds"] = round(time.perf_counter() - t0, 1)
    common.emit(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
