"""Development check of the epistemic classifier against the self-judged DALK audit rows.

Applies :func:`kgbuild.extract.epistemics.classify` to each row of
``tests/fixtures/audit/dalk_fixed_seed160[2-9].tsv`` — with the evidence spans and document of
the baseline warehouse when the row's evidence_id is there, else the sheet's sentence and raw
claim — and prints, per status, the rows and the share the judge found supported end to end
(``triple_supported``), then the precision of "asserted" (supported among asserted) and its
recall (asserted ∧ supported / supported), for the training sheets and the held-out ones.
Ends with one JSON line.

    .venv/bin/python bench/epistemic_dev.py [--warehouse DIR] [--holdout 1608,1609]
    .venv/bin/python bench/epistemic_dev.py --warehouse /tmp/i24/wh-final /tmp/blind/judged_*.tsv

Sheet paths given: those sheets only, all counted as held out (a blind final check). Without
``--warehouse`` (the baseline warehouse the sheets were drawn from is not shipped) every row is
classified from its sheet's sentence and raw claim; the output says how many rows came from a
warehouse.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT
from kgbuild.audit.sheet import read_sheet
from kgbuild.extract.epistemics import STATUSES, classify
from kgbuild.store import catalog


def _warehouse_rows(wh: Path, ids: list[str]) -> dict[str, tuple]:
    if not (wh / "kg.duckdb").exists():
        return {}
    # catalog.connect: part paths resolve in the warehouse, set at connect time (not a path
    # pasted into SQL text, where a quote in a folder name breaks it)
    with catalog.connect(wh / "kg.duckdb", read_only=True) as con:
        rows = con.execute(
            "SELECT e.evidence_id, d.title, d.abstract, e.sent_start, e.sent_end, e.head_start, "
            "e.head_end, e.tail_start, e.tail_end, e.relation_raw, e.head_text, e.tail_text, "
            "e.claim_reversed "
            "FROM evidence e JOIN documents d USING (pmid) WHERE list_contains(?, e.evidence_id)",
            [ids],
        ).fetchall()
    return {r[0]: r[1:] for r in rows}


def _key(path: Path, given: list[Path]) -> str:
    """The split key of a sheet: its name when sheets were given, else its seed."""
    return path.name if given else re.search(r"seed(\d+)", path.name).group(1)  # type: ignore[union-attr]


def classify_row(row: dict[str, str], found: tuple | None) -> tuple[str, str]:
    if found:
        title, abstract, s0, s1, h0, h1, t0, t1, rel, ht, tt, rev = found
        text = f"{title} {abstract}"
        if rev:  # the claim's own order (the direction check reads the raw predicate)
            h0, h1, t0, t1, ht, tt = t0, t1, h0, h1, tt, ht
        return classify(text, (s0, s1), (h0, h1), (t0, t1), rel, s1 <= len(title), (ht, tt))
    text = row["sentence"]
    names = (row["claim_head"], row["claim_tail"])
    return classify(text, (0, len(text)), None, None, row["claim_relation"], False, names)


def figures(rows: list[tuple[str, bool]]) -> dict[str, object]:
    per = Counter(s for s, _ in rows)
    sup = Counter(s for s, ok in rows if ok)
    asserted = per["asserted"]
    supported = sum(sup.values())
    return {
        "rows": len(rows),
        "supported_share": round(supported / max(1, len(rows)), 3),
        "per_status": {
            s: {"rows": per[s], "supported": round(sup[s] / per[s], 3) if per[s] else None}
            for s in STATUSES
        },
        "asserted_precision": round(sup["asserted"] / max(1, asserted), 3),
        "asserted_recall": round(sup["asserted"] / max(1, supported), 3),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", type=Path, default=None)
    ap.add_argument("--holdout", default="1608,1609")
    ap.add_argument("sheets", nargs="*", type=Path, help="judged sheets (default: the dev set)")
    ap.add_argument("--show", default="", help="print the rows of this status (or 'fp')")
    args = ap.parse_args(argv)
    held = set(args.holdout.split(","))
    sheets = args.sheets or sorted(
        (ROOT / "tests/fixtures/audit").glob("dalk_fixed_seed160[2-9].tsv")
    )
    if args.sheets:
        held = {p.name for p in sheets}
    if not sheets:
        print("no audit sheets", file=sys.stderr)
        return 1
    loaded = [(_key(p, args.sheets), read_sheet(p).rows) for p in sheets]
    ids = [r["evidence_id"] for _, rs in loaded for r in rs]
    found = _warehouse_rows(args.warehouse, ids) if args.warehouse else {}
    print(f"{len(found)} of {len(ids)} rows read from a warehouse; the rest from their sheets")
    split: dict[str, list[tuple[str, bool]]] = {"train": [], "holdout": [], "all": []}
    cue_counts: Counter[tuple[str, str, bool]] = Counter()
    for seed, rows in loaded:
        for r in rows:
            status, cue = classify_row(r, found.get(r["evidence_id"]))
            ok = r["triple_supported"].strip().lower() == "yes"
            split["holdout" if seed in held else "train"].append((status, ok))
            split["all"].append((status, ok))
            cue_counts[(status, cue.split(":")[0] if status == "not_in_sentence" else cue, ok)] += 1
            if args.show and (status == args.show or (args.show == "fp" and
                                                     status == "asserted" and not ok)):  # fmt: skip
                claim = f"{r['claim_head']} | {r['claim_relation']} | {r['claim_tail']}"
                print(
                    f"[{status}:{cue}] ok={ok} {claim} :: {r['sentence'][:300]} // {r['note'][:80]}"
                )
    out = {name: figures(rows) for name, rows in split.items()}
    out["in_warehouse"] = sum(1 for _, rs in loaded for r in rs if r["evidence_id"] in found)
    for name in ("train", "holdout", "all"):
        f = out[name]
        print(f"== {name}: {f['rows']} rows, supported {f['supported_share']}")
        for s, v in f["per_status"].items():  # type: ignore[union-attr]
            print(f"   {s:16s} {v['rows']:4d}  supported {v['supported']}")
        print(f"   asserted precision {f['asserted_precision']}  recall {f['asserted_recall']}")
    print("== cues (status, cue): rows, supported")
    for s, c in sorted({(s, c) for s, c, _ in cue_counts if s != "asserted"}):
        yes, no = cue_counts[(s, c, True)], cue_counts[(s, c, False)]
        print(f"   {s:15s} {c[:30]:30s} {yes + no:4d} {yes}")
    print(json.dumps(out, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
