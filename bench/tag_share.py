"""What the short-key tag-share rule (:mod:`kgbuild.search.tag_share`) changes on a snapshot.

    python bench/tag_share.py [--warehouse ./warehouse] [--snapshot latest]

Reads an existing warehouse and never writes to it (the query index goes to a temporary
folder). Prints every short gene key that loses its question link (key, gene, share, abstracts
tagged / abstracts writing it), then one JSON line: keys judged, keys blocked, the blocked keys
that are queries of bench/search_names.tsv (must be none), and the median time of the two
queries and the count over three runs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.search_names import CASES, read_cases
from kgbuild.search.index import _tag_shares, open_index
from kgbuild.search.tag_share import MIN_TAG_SHARE, judged_forms
from kgbuild.search.text import key
from kgbuild.store.snapshots import Warehouse


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", default="warehouse")
    ap.add_argument("--snapshot", default="latest")
    a = ap.parse_args()
    wh = Warehouse(Path(a.warehouse))
    sid = wh.resolve(a.snapshot)
    with tempfile.TemporaryDirectory(prefix="tag-share-") as tmp:
        idx = open_index(wh, sid, Path(tmp))
    al, ids = idx.aliases, idx.nodes["id"]
    p50, shares = common.timed(_tag_shares, wh, sid, al, ids, repeats=3)
    judged = judged_forms(al, ids)
    blocked = sorted((float(shares[r]), al["key"][r], idx.nodes["display"][int(al["node"][r])])
                     for r in judged if shares[r] < MIN_TAG_SHARE)  # fmt: skip
    for share, k, name in blocked:
        print(f"blocked {k!r}: {name} share {share:.3f}")
    queries = {key(q) for q, _, _ in read_cases(CASES)}
    figures = {
        "judged_keys": len(judged),
        "measured_keys": int(sum(shares[r] < 1.0 for r in judged)),
        "blocked_keys": len(blocked),
        "blocked_in_search_names": sorted(k for _, k, _ in blocked if k in queries),
        "tag_share_p50_s": round(p50, 3),
        "snapshot": sid,
    }
    common.emit(figures, sort_keys=True, python=False)


if __name__ == "__main__":
    main()
