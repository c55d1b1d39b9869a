"""Blind judging sheet of listed conflicts (``kgbuild conflicts``), its score, filter counts.

The measure of :mod:`kgbuild.belief.conflicts`: of the conflicts it lists, how
many really disagree, as a judge reads the two sides' sentences? Target: >= 80% of 50.

    # draw: a seeded uniform sample of the snapshot's listed conflicts
    .venv/bin/python bench/conflicts_sample.py --warehouse DIR [--snapshot REF] --n 50 \\
        --seed 4203 --out sheet.csv --key key/conflicts_key.json
    # score the judged sheet (verdict column filled in)
    .venv/bin/python bench/conflicts_sample.py --score sheet.csv --key key/conflicts_key.json
    # how many conflicts of each kind each filter and each claim template contributes
    .venv/bin/python bench/conflicts_sample.py --warehouse DIR --measure
    # draw from the conflicts the LLM reader lists (kgbuild/belief/claims_llm.py; answers
    # cached in the warehouse's llm_cache.sqlite)
    .venv/bin/python bench/conflicts_sample.py --warehouse DIR --reader llm \\
        --llm-base-url URL --llm-model M --out sheet.csv --key key/conflicts_key.json

Blind: the sheet shows each conflict's pair (display names, subject first; a variant marker
such as "APOE [4]" when the claims are about an allele) and its two sides' cited sentences with
PMIDs, in a seeded random order of sides, and nothing else — no kind, relation, template, score
or count, which would tell the judge what was read. The kind, the pair's ids, what the claim
reader read, which side is which and the snapshot go to the key file, kept apart (``--key``,
another folder by default). Sampling is ``random.Random(seed).sample`` over the conflicts
sorted by (kind, subject, object), so a warehouse and a seed give the same sheet anywhere.
``sheet.md`` beside the CSV is the same sheet to read.

Verdicts: ``disagree`` (the two sides cannot both hold as written: one says the pair's relation
holds and the other denies it, or they say opposite directions), ``not_disagree`` (both can
hold: different things are measured, the cited sentence does not say what its side needs, the
same direction), ``unclear``. The share is disagree / judged, unclear counted as not
disagreeing (the list claims disagreement; unclear does not confirm it), with a Wilson 95%
interval (:func:`kgbuild.audit.score.wilson`). Each mode ends with one JSON line.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from kgbuild.audit.score import wilson
from kgbuild.belief.claims_llm import claims_of
from kgbuild.belief.claims_templates import TEMPLATES
from kgbuild.belief.conflict_report import CitedRow, Conflict, fetch_conflicts
from kgbuild.belief.conflicts import KINDS
from kgbuild.belief.snapshot_claims import DEFAULT_FILTERS, ConflictFilters
from kgbuild.reader.claims_snapshot import read_snapshot
from kgbuild.store import catalog
from kgbuild.store.snapshots import Warehouse

FORMAT = "kgbuild-conflicts-sheet/1"
KEY_FORMAT = "kgbuild-conflicts-key/1"
VERDICTS = ("disagree", "not_disagree", "unclear")
COLUMNS = ("item", "pair", "side_1", "side_2", "verdict", "note")
INSTRUCTIONS = (
    "Read the two sides' sentences about the pair. verdict = disagree if they cannot both hold "
    "as written (one states a relation between the two, the other denies it; or one says the "
    "first raises the second, the other that it lowers it); not_disagree if both can hold "
    "(different things measured, a sentence does not state what the pair needs, same "
    "direction); unclear if you cannot tell. Different species, doses or disease stages: "
    "disagree only if the sentences contradict each other as written."
)


def _side_text(rows: list[CitedRow]) -> str:
    """The cited sentences of a side, best first, one per line: ``[PMID n] sentence``."""
    return "\n".join(f"[PMID {r.pmid}] {' '.join(r.sentence.split())}" for r in rows)


def _pair(c: Conflict) -> str:
    """``subject — object`` by display names, a mention's variant marker after its name
    ("APOE [4]": the conflict is about that allele)."""
    head = f"{c.head_name or c.head_id}" + (f" [{c.head_variant}]" if c.head_variant else "")
    tail = f"{c.tail_name or c.tail_id}" + (f" [{c.tail_variant}]" if c.tail_variant else "")
    return f"{head} — {tail}"


def conflict_key(c: Conflict) -> str:
    """A conflict's identity across runs: kind and the oriented pair (subject, object, with
    their variant markers and measures)."""
    return (
        f"{c.kind}|{c.head_id}|{c.head_variant}|{c.head_measure}|{c.tail_id}|{c.tail_variant}"
        f"|{c.tail_measure}"
    )


def sample(conflicts: list[Conflict], n: int, seed: int) -> list[tuple[Conflict, bool]]:
    """``n`` conflicts drawn uniformly without replacement (sorted by key first), each with
    whether its sides are shown swapped (side B first), drawn from the same generator."""
    population = sorted(conflicts, key=conflict_key)
    rng = random.Random(seed)
    drawn = rng.sample(population, min(n, len(population)))
    return [(c, rng.random() < 0.5) for c in drawn]


def write_sheet(
    drawn: list[tuple[Conflict, bool]], meta: dict[str, Any], sheet: Path, key: Path
) -> None:
    """The blind sheet (``sheet`` CSV and ``.md`` beside it) and the key (``key`` JSON). The
    key must not be the sheet's folder's file a judge opens: it is written where told."""
    if key.resolve().parent == sheet.resolve().parent:
        raise SystemExit("--key must be in another folder than the sheet (the judge's folder)")
    sheet.parent.mkdir(parents=True, exist_ok=True)
    key.parent.mkdir(parents=True, exist_ok=True)
    items = []
    with sheet.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(COLUMNS)
        for i, (c, swapped) in enumerate(drawn, 1):
            sides = (c.evidence_b, c.evidence_a) if swapped else (c.evidence_a, c.evidence_b)
            w.writerow([i, _pair(c), _side_text(sides[0]), _side_text(sides[1]), "", ""])
            items.append({
                "item": i, "conflict": conflict_key(c), "kind": c.kind, "head_id": c.head_id,
                "tail_id": c.tail_id, "side_1": "b" if swapped else "a",
                "head_variant": c.head_variant, "tail_variant": c.tail_variant,
                "polarities_a": c.polarities_a, "polarities_b": c.polarities_b,
                "templates_a": c.templates_a, "templates_b": c.templates_b,
                "head_measure": c.head_measure, "tail_measure": c.tail_measure,
                "triples_a": c.triples_a, "triples_b": c.triples_b,
                "n_a": c.n_a, "n_b": c.n_b,
                "year_appeared": c.year_appeared,
            })  # fmt: skip
    md = [f"# Conflicts: blind judging sheet ({len(drawn)} items)", "", INSTRUCTIONS, ""]
    md += [f"Verdicts: {', '.join(VERDICTS)} (fill the `verdict` column of {sheet.name}).", ""]
    for i, (c, swapped) in enumerate(drawn, 1):
        sides = (c.evidence_b, c.evidence_a) if swapped else (c.evidence_a, c.evidence_b)
        md += [f"## {i}. {_pair(c)}", "", "**Side 1**", ""]
        md += [f"- {line}" for line in _side_text(sides[0]).splitlines()]
        md += ["", "**Side 2**", ""]
        md += [f"- {line}" for line in _side_text(sides[1]).splitlines()]
        md += ["", "verdict: ", ""]
    sheet.with_suffix(".md").write_text("\n".join(md), encoding="utf-8")
    key.write_text(
        json.dumps({"format": KEY_FORMAT, "sheet_format": FORMAT, **meta, "items": items},
                   indent=2) + "\n",
        encoding="utf-8",
    )  # fmt: skip


def score(sheet: Path, key: Path) -> dict[str, Any]:
    """The disagree share of a judged sheet, overall and per kind (from the key)."""
    kinds = {it["item"]: it["kind"] for it in json.loads(key.read_text("utf-8"))["items"]}
    with sheet.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    bad = sorted({r["verdict"] for r in rows if r["verdict"].strip() not in ("", *VERDICTS)})
    if bad:
        raise SystemExit(f"unknown verdicts {bad}: use {', '.join(VERDICTS)}")
    judged = [(kinds[int(r["item"])], r["verdict"].strip()) for r in rows if r["verdict"].strip()]

    def share(pairs: list[tuple[str, str]]) -> dict[str, Any]:
        k = sum(v == "disagree" for _, v in pairs)
        n = len(pairs)
        return {"disagree": k, "n_judged": n, "share": round(k / n, 4) if n else None,
                "wilson95": wilson(k, n),
                "unclear": sum(v == "unclear" for _, v in pairs)}  # fmt: skip

    overall = share(judged)
    return {
        "conflicts_disagree_share": overall["share"],
        "n_judged": overall["n_judged"],
        "n_disagree": overall["disagree"],
        "n_unclear": overall["unclear"],
        "wilson95": overall["wilson95"],
        "n_items": len(rows),
        "by_kind": {k: share([p for p in judged if p[0] == k]) for k in KINDS},
        "target": 0.8,
    }


def measure(con: Any, sid: str) -> list[dict[str, Any]]:
    """Conflicts per kind with the default filters, with each switch turned off, and with
    each claim template left out (what each template contributes to the list)."""
    names = tuple(t.name for t in TEMPLATES)
    variants: list[tuple[str, ConflictFilters]] = [
        ("default", DEFAULT_FILTERS),
        ("variant markers ignored", replace(DEFAULT_FILTERS, variants=False)),
        ("proposals read too", replace(DEFAULT_FILTERS, skip_hedged=False)),
        ("papers on both sides kept", replace(DEFAULT_FILTERS, cross_paper=False)),
    ]
    variants += [
        (f"without {n}", replace(DEFAULT_FILTERS, templates=tuple(x for x in names if x != n)))
        for n in names
    ]
    out = []
    for label, f in variants:
        counts, _ = fetch_conflicts(con, sid, limit=0, filters=f)
        out.append({"filters": label, **counts, **{"settings": f.to_dict()}})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--warehouse", type=Path)
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--seed", type=int, default=4203)
    ap.add_argument("--out", type=Path, help="sheet CSV to write (and .md beside it)")
    ap.add_argument("--key", type=Path, help="key JSON (another folder than the sheet)")
    ap.add_argument("--score", type=Path, metavar="SHEET", help="score a judged sheet")
    ap.add_argument("--measure", action="store_true", help="conflicts per kind per filter")
    ap.add_argument("--reader", choices=("regex", "llm"), default="regex",
                    help="claim reader of the conflicts drawn (--measure: regex only)")  # fmt: skip
    common.add_llm_options(ap)
    a = ap.parse_args(argv)
    if a.score:
        if not a.key:
            ap.error("--score needs --key")
        result = score(a.score, a.key)
        print(json.dumps(result["by_kind"], indent=2))
        print(json.dumps({k: v for k, v in result.items() if k != "by_kind"}))
        return 0
    if not a.warehouse:
        ap.error("--warehouse is required to draw or measure")
    if a.reader == "llm" and a.measure:
        ap.error("--measure counts the template reader's conflicts: drop --reader llm")
    wh = Warehouse(a.warehouse).require()
    sid = wh.resolve(a.snapshot)
    client = common.llm_client(ap, a, wh.root) if a.reader == "llm" else None
    reading, llm = None, None
    if client is not None and not a.measure:  # read first: no catalog connection held meanwhile
        try:
            llm = read_snapshot(wh.catalog_path, sid, DEFAULT_FILTERS, client)
        finally:
            client.close()
        reading = {"reader": "llm", "model": client.settings.model, **llm.stats.to_dict()}
        print(json.dumps({"reading": reading}))
    with catalog.connect(wh.catalog_path, read_only=True) as con:
        if a.measure:
            rows = measure(con, sid)
            for r in rows:
                print(f"{r['filters']:<36} negated {r['negated']:>5}  "
                      f"opposite_direction {r['opposite_direction']:>5}")  # fmt: skip
            print(json.dumps({"snapshot": sid, "measure": rows}))
            return 0
        if not a.out or not a.key:
            ap.error("drawing a sheet needs --out and --key")
        claims = None if llm is None else claims_of(con, llm, DEFAULT_FILTERS)
        counts, conflicts = fetch_conflicts(con, sid, claims=claims)
    drawn = sample(conflicts, a.n, a.seed)
    meta = {
        "snapshot": sid,
        "seed": a.seed,
        "n": len(drawn),
        "population": counts,
        "filters": DEFAULT_FILTERS.to_dict(),
        "reader": reading or {"reader": "regex"},
        "sampling": "random.Random(seed).sample over the listed conflicts sorted by "
        "kind|subject|variant|measure|object|variant|measure; side order by the same generator",
    }
    write_sheet(drawn, meta, a.out, a.key)
    drawn_kinds = {k: sum(c.kind == k for c, _ in drawn) for k in KINDS}
    print(json.dumps({"sheet": str(a.out), "key": str(a.key), "n": len(drawn),
                      "population": counts, "drawn": drawn_kinds}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
