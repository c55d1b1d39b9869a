"""What curations cost a reader: the catalog's served-evidence SQL with the curation log joined,
and the query index rebuilt after a curation, on a copy of a real warehouse.

    python bench/curations.py --warehouse /tmp/s58/wh [--curations 1000] [--repeats 5]

The warehouse is copied to a temporary folder first (the copy's catalog gets this version's
views; the original is only read). Timed, each ``--repeats`` times, medians:

- ``kg_edges_s`` / ``belief_s``: ``SELECT count(*) FROM kg_edges_at(sid)`` and
  ``belief_of(sid)`` of the newest snapshot, with an empty log (``*_empty``) and with
  ``--curations`` curations of served sentences, a third of each label (``*_curated``);
- ``append_ms``: one curation appended to the log (lock, write, fsync);
- ``index_rebuild_s``: the query index built again after a curation (what ``kgbuild serve``
  does in the background before it serves the curated snapshot).

The last line is one JSON object with those figures, the served-triple counts before and
after, ``machine`` and ``load`` (1-minute load average before and after: the machine may be
shared).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import timed
from kgbuild.search.index import open_index
from kgbuild.store import curations as C
from kgbuild.store.snapshots import Warehouse

ROWS = """
    SELECT e.pmid, e.triple_id, t.head_id, t.relation, t.tail_id, e.sentence, e.sent_start,
           e.head_start, e.head_end, e.tail_start, e.tail_end
    FROM served_evidence_at(?) e JOIN triples_at(?) t USING (triple_id)
    ORDER BY hash(e.evidence_id) LIMIT ?"""
COLS = ("pmid", "triple_id", "head_id", "relation", "tail_id", "sentence", "sent_start",
        "head_start", "head_end", "tail_start", "tail_end")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--warehouse", type=Path, required=True)
    ap.add_argument("--curations", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="bench-curations-"))
    try:
        root = tmp / "wh"
        shutil.copytree(args.warehouse, root, ignore=shutil.ignore_patterns("index"))
        wh = Warehouse(root)
        wh.init()  # this version's views, and an empty curation log
        sid = wh.resolve("latest")
        kg = wh.manifest(sid)["kg"]

        def edges() -> int:
            return wh.query("SELECT count(*) FROM kg_edges_at(?)", [sid])[0][0]

        def belief() -> int:
            return wh.query("SELECT count(*) FROM belief_of(?)", [sid])[0][0]

        fig: dict[str, object] = {"snapshot": sid, "curations": args.curations}
        fig["kg_edges_s_empty"], n_before = timed(edges, repeats=args.repeats)
        fig["belief_s_empty"], _ = timed(belief, repeats=args.repeats)
        rows = wh.query(ROWS, [sid, sid, args.curations])
        appends = []
        for i, r in enumerate(rows):
            c = C.make(curator="bench", label=C.LABELS[i % 3], note="", snapshot_id=sid, kg=kg,
                       row=dict(zip(COLS, r, strict=True)))  # fmt: skip
            appends.append(timed(C.append, root, c)[0])
        fig["append_ms"] = round(statistics.median(appends) * 1000, 3)
        fig["kg_edges_s_curated"], n_after = timed(edges, repeats=args.repeats)
        fig["belief_s_curated"], _ = timed(belief, repeats=args.repeats)
        fig["served_triples_before"], fig["served_triples_after"] = n_before, n_after
        fig["demoted_rows"] = wh.query(
            "SELECT count(*) FROM evidence_status_at(?) WHERE epistemic = ?", [sid, C.CURATED_OUT]
        )[0][0]

        def rebuild() -> None:
            shutil.rmtree(root / "index", ignore_errors=True)
            open_index(wh, sid, root / "index")

        fig["index_rebuild_s"], _ = timed(rebuild, repeats=max(1, args.repeats // 2))
        for k, v in list(fig.items()):
            if k.endswith(("_s", "_empty", "_curated")) and isinstance(v, float):
                fig[k] = round(v, 4)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fig["load"] = [round(load0, 2), round(os.getloadavg()[0], 2)]
    common.emit(fig, python=False)


if __name__ == "__main__":
    main()
