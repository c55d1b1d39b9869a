"""Draw a blind sheet of evidence rows with one epistemic status, for a person to judge.

The measure of :mod:`kgbuild.extract.epistemics`: of the rows it marks ``negated``
(or ``hypothesis``), how many does the sentence really deny (hedge) the relation between the two
concepts? Rows are drawn uniformly without replacement among the snapshot's evidence rows with
that status — ``random.Random(seed).sample`` over their sorted ids, as ``kgbuild audit sample``
draws — so a warehouse and a seed give the same sheet anywhere. The sheet shows what a judge
needs and nothing of the classifier's reasoning (no cue, no rule, no confidence): the sentence
and the two concepts' names. Score it with ``bench/epistemic_score.py``.

    .venv/bin/python bench/epistemic_sample.py --warehouse DIR --status negated --n 100 \\
        --seed 3901 --out negated.tsv [--snapshot latest]

Sheet: UTF-8 TSV, ``# key: value`` metadata lines (format, snapshot, status, seed, population,
sampling, the instructions), then the columns ``item, evidence_id, sentence, head, tail`` and
the judge's ``really_<status>`` (yes|no), ``relation_stated_positive`` (yes|no: the sentence
states a positive relation between the two) and ``note``. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import read_tsv_sheet
from kgbuild.store.snapshots import Warehouse

FORMAT = "kgbuild-epistemic-sheet/1"
STATUSES = ("negated", "hypothesis")
QUESTIONS = {
    "negated": "yes if the sentence states that the relation between head and tail does not "
    "hold (X did not increase Y; no association between X and Y); no if it states a relation, "
    "or denies something else (a group, a third concept, another clause)",
    "hypothesis": "yes if the sentence presents the relation between head and tail as a "
    "hypothesis, question, aim or speculation (X may increase Y; whether X affects Y; we "
    "hypothesize that X…); no if it asserts it, denies it, or hedges something else",
}


def columns(status: str) -> tuple[str, ...]:
    return ("item", "evidence_id", "sentence", "head", "tail", f"really_{status}",
            "relation_stated_positive", "note")  # fmt: skip


def _named(name: str | None, written: str | None) -> str:
    """The concept's name, and how the sentence writes it when that differs ("APP (written:
    Abeta)"), so the judge finds it in the sentence."""
    name, written = name or written or "", written or ""
    return name if written.lower() in ("", name.lower()) else f"{name} (written: {written})"


def judged_sentences(sheets: list[Path]) -> set[str]:
    """The sentences of earlier sheets (whitespace-normalized): a fresh sample leaves them out,
    so a judge never sees a row a fix was tuned on (the rows of another build have other ids)."""
    rows = [row for path in sheets for row in read_tsv_sheet(path)[1]]
    return {" ".join((row.get("sentence") or "").split()) for row in rows}


def draw(
    wh: Warehouse, snapshot: str, status: str, n: int, seed: int, exclude: set[str] = frozenset()
) -> tuple[dict, list]:
    """(metadata, rows) of ``n`` rows with ``status`` in the snapshot, seeded; rows whose
    sentence is in ``exclude`` are not in the population."""
    ids = [r[0] for r in wh.query(
        "SELECT evidence_id, sentence FROM evidence_at(?) WHERE epistemic = ? "
        "ORDER BY evidence_id",
        [snapshot, status],
    ) if " ".join(r[1].split()) not in exclude]  # fmt: skip
    picked = random.Random(seed).sample(ids, min(n, len(ids)))
    found = {
        r[0]: (r[1], _named(r[2], r[4]), _named(r[3], r[5]))
        for r in wh.query(
            "SELECT e.evidence_id, e.sentence, h.name, t.name, e.head_text, e.tail_text "
            "FROM evidence_at(?) e "
            "JOIN triples_at(?) x USING (triple_id) "
            "LEFT JOIN entities_at(?) h ON h.id = x.head_id "
            "LEFT JOIN entities_at(?) t ON t.id = x.tail_id "
            "WHERE list_contains(?, e.evidence_id)",
            [snapshot, snapshot, snapshot, snapshot, picked],
        )
    }
    rows = [(item, eid, *found[eid]) for item, eid in enumerate(picked, start=1)]
    meta = {
        "format": FORMAT, "snapshot": snapshot, "status": status, "seed": seed, "n": len(rows),
        "population": f"{len(ids)} evidence rows with epistemic = {status}"
        + (f", {len(exclude)} sentences of earlier sheets left out" if exclude else ""),
        "sampling": "uniform without replacement: random.Random(seed).sample(sorted ids)",
        f"really_{status}": QUESTIONS[status],
        "relation_stated_positive": "yes if the sentence states a positive relation between "
        "head and tail (whatever else it says)",
    }  # fmt: skip
    return meta, rows


def write(out: Path, meta: dict, rows: list, status: str) -> None:
    buf = io.StringIO()
    for k, v in meta.items():
        buf.write(f"# {k}: {v}\n")
    w = csv.writer(buf, delimiter="\t", lineterminator="\n")
    w.writerow(columns(status))
    for r in rows:
        w.writerow([" ".join(str(x).split()) for x in r] + ["", "", ""])
    out.write_text(buf.getvalue(), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warehouse", type=Path, required=True)
    ap.add_argument("--status", choices=STATUSES, default="negated")
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--snapshot", default="latest", help="id, KG@YEAR, KG@latest or latest")
    ap.add_argument("--force", action="store_true", help="overwrite --out (it may be judged)")
    ap.add_argument("--exclude", type=Path, action="append", default=[],
                    help="an earlier sheet whose sentences a fresh sample leaves out")  # fmt: skip
    args = ap.parse_args(argv)
    if args.out.exists() and not args.force:
        print(f"{args.out} exists (it may hold judgments); use --force", file=sys.stderr)
        return 2
    wh = Warehouse(args.warehouse).require()
    snapshot = wh.resolve(args.snapshot)
    exclude = judged_sentences(args.exclude)
    meta, rows = draw(wh, snapshot, args.status, args.n, args.seed, exclude)
    write(args.out, meta, rows, args.status)
    print(f"{len(rows)} rows of {meta['population']} -> {args.out}")
    print(json.dumps({k: meta[k] for k in ("snapshot", "status", "seed", "n", "population")}
                     | {"out": str(args.out)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
