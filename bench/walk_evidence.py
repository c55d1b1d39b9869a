"""Benchmark: does ``kgbuild ask`` show an abstract that answers the question? Scored against
the blind corpus-ceiling judgments of walks 8–11 (``data/walks/ceiling/judged.tsv``): for each
question whose gold answer the corpus states, a judge quoted the abstracts that state it (one to
five PMIDs) without seeing any tool's output. No judging happens here: the judged PMIDs are the
gold, and the tool's retrieval (``QueryEngine.retrieve``, as ``kgbuild ask --no-llm``) is asked
the walk's question with its choices.

Per question, where the first judged abstract that answers it stands:

- **shown**: a judged PMID is printed by the answer, as ``kgbuild ask --no-llm`` prints it
  (its own printer, captured: the verdict's sentences, same-sentence answers, the ranked facts'
  PMIDs and best sentences, the sentences read for each choice, the abstracts that best match
  the question);
- **in the retrieval, not printed**: the retrieval's JSON holds a judged PMID (a fact's further
  evidence, the context's sentences) that the printed answer leaves out;
- **in the KG, not retrieved**: the snapshot serves evidence from a judged PMID (the reading stated
  some fact there), but retrieval did not bring it to the answer — a ranking or linking miss;
- **not in the KG**: the snapshot serves no evidence from any judged PMID — what the abstract
  states never became a served fact (an extraction or reading miss), whatever retrieval does.

And where the abstracts block (each abstract shown by one sentence) puts a judged abstract:
first (``passage_hit@1``), among the first 3 or 5, and whether one of its five sentences is the
judge's quoted evidence (``quoted@5``, matched at 90% on its first 200 characters).
And whether the judge's quoted sentence is printed anywhere in the answer (``quote_printed``)
and before its answers table, among the verdict's own sentences (``quote_first``: what a reader
meets first), its first 100 characters matched at 90%.
``--code DIR`` runs another checkout's ``kgbuild`` (a before figure, from a ``git worktree``).

The judges cite some abstracts that state the answer, not every one, so "shown" is a lower
bound. These are diagnostics on walks that were already seen (the ceiling judged their
questions), to choose the next work, not a walk's score. Ends with one JSON line.

    .venv/bin/python bench/walk_evidence.py [--warehouse WH] [--embed off] [--out FILE] [--code DIR]
    .venv/bin/python bench/walk_evidence.py --judged data/walks/walk13/ceiling.tsv  # walk 13
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

CEILING = common.ROOT / "data" / "walks" / "ceiling" / "judged.tsv"
WALKS = common.ROOT / "data" / "walks"
PMID = re.compile(r"(?<!\d)\d{6,9}(?!\d)")


def stated_questions(judged: Path = CEILING, walks: Path = WALKS) -> list[dict[str, Any]]:
    """The primary judgments labelled ``stated``, each with its walk's question and choices."""
    with open(judged, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["round"] == "primary"]
    asked: dict[tuple[str, str], dict[str, Any]] = {}
    for walk in sorted({r["walk"] for r in rows}):
        for line in (walks / walk / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                asked[(walk, q["id"])] = q
    out = []
    for r in rows:
        if r["label"] != "stated":
            continue
        q = asked[(r["walk"], r["qid"])]
        out.append({
            "walk": r["walk"], "qid": r["qid"], "kind": r["kind"], "question": q["question"],
            "choices": [c.strip() for c in (q.get("choices") or "").split(";") if c.strip()],
            "pmids": [p.strip() for p in r["pmids"].split(",") if p.strip()],
            "evidence": r["evidence"],
        })  # fmt: skip
    return out


def json_pmids(node: Any) -> set[str]:
    """Every PMID anywhere in a retrieval's dict (``pmid`` values and ``pmids`` lists)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pmid" and value:
                found.add(str(value))
            elif key == "pmids" and isinstance(value, list):
                found.update(str(p) for p in value if p)
            else:
                found |= json_pmids(value)
    elif isinstance(node, list):
        for item in node:
            found |= json_pmids(item)
    return found


def printed_pmids(engine: Any, r: Any, choices: list[str]) -> tuple[set[str], set[str], str]:
    """(PMIDs ``kgbuild ask --no-llm`` prints, PMIDs in its JSON, the printed text): the
    command's own dressing of the retrieval (:func:`kgbuild.query.cli.dress_shown`) and its
    printer, captured."""
    from kgbuild.query import cli

    rdict = r.to_dict()
    if not r.found:
        return set(), json_pmids(rdict), ""
    cli.dress_shown(engine, r, rdict)
    line = cli.answer_line(rdict, choices, None, False)
    with cli.out.capture() as captured:
        cli._print_retrieval(r, rdict, line)
    text = captured.get()
    return set(PMID.findall(text)), json_pmids(rdict), text


#: Characters of the judge's quote looked for in the printed answer (shown sentences are cut
#: around their marks, so the quote's opening, not all of it).
QUOTE_OPENING = 100


def quote_printed(text: str, evidence: str) -> tuple[int, int]:
    """(is the judge's quoted sentence printed anywhere in the answer, is it printed before the
    answers table — in the verdict's own sentences, what a reader meets first)? Its opening
    :data:`QUOTE_OPENING` characters, marks and line wrapping aside, matched at 90%."""
    from rapidfuzz import fuzz

    def flat(t: str) -> str:
        return " ".join(t.lower().replace("«", "").replace("»", "").split())

    ev = flat(evidence)[:QUOTE_OPENING]
    if len(ev) < 20 or not text:
        return 0, 0

    head = text.split("answers (", 1)[0] if "answers (" in text else ""
    anywhere = fuzz.partial_ratio(ev, flat(text)) >= 90
    first = bool(head) and fuzz.partial_ratio(ev, flat(head)) >= 90
    return int(anywhere), int(first)


def quotes(sentence: str, evidence: str) -> bool:
    """Is ``sentence`` the judge's quoted evidence (its first 200 characters, whitespace and
    case aside, matched at 90% or more; quotes were copied by hand and sometimes cut)?"""
    from rapidfuzz import fuzz

    ev, s = " ".join(evidence.lower().split())[:200], " ".join(sentence.lower().split())
    return bool(ev) and len(s) >= len(ev) / 2 and fuzz.partial_ratio(ev, s) >= 90


def passage_hits(passages: list[dict[str, Any]], gold: set[str], evidence: str) -> dict[str, int]:
    """Where the abstracts block (each abstract by one sentence) shows a judged abstract: the
    first shown (hit@1), among the first 3 and 5, and whether one of the five sentences is the
    judge's quoted one."""
    shown = [p["pmid"] for p in passages]
    return {
        **{f"passage_hit@{k}": int(bool(set(shown[:k]) & gold)) for k in (1, 3, 5)},
        "quoted@5": int(any(quotes(p["sentence"], evidence) for p in passages[:5])),
    }


def served_pmids(engine: Any, sid: str, pmids: set[str]) -> set[str]:
    """Those of ``pmids`` the snapshot serves any evidence from (one query for all)."""
    rows = engine.wh.query(
        "SELECT DISTINCT pmid FROM served_evidence_at(?) WHERE pmid IN (SELECT unnest(?))",
        [sid, sorted(pmids)],
    )
    return {str(r[0]) for r in rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", "-w", type=Path, default=common.ROOT / "warehouse")
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--embed", default="mentions", help="as `kgbuild ask --embed` (default)")
    ap.add_argument("--judged", type=Path, default=CEILING)
    ap.add_argument("--out", type=Path, help="one JSON row per question")
    ap.add_argument("--code", type=Path, default=common.ROOT,
                    help="checkout whose kgbuild is run (a before figure)")  # fmt: skip
    a = ap.parse_args()
    common.require_warehouse(a.warehouse)
    sys.path.insert(0, str(a.code.resolve()))
    from kgbuild.errors import KgbuildError
    from kgbuild.query.engine import QueryEngine

    engine = QueryEngine(a.warehouse, a.snapshot, embeddings=a.embed != "off")
    questions = stated_questions(a.judged)
    sid = engine.wh.resolve(a.snapshot)
    served_all = served_pmids(engine, sid, {p for q in questions for p in q["pmids"]})
    rows, took = [], []
    for q in questions:
        t0 = time.perf_counter()
        try:
            r = engine.retrieve(q["question"], q["choices"] or None, embed=a.embed)
            printed, in_json, text = printed_pmids(engine, r, q["choices"])
            hits = passage_hits(r.passages or [], set(q["pmids"]), q["evidence"])
        except KgbuildError as exc:  # a question the tool refuses shows nothing
            printed, in_json, text = set(), set(), ""
            hits = passage_hits([], set(), "")
            print(f"{q['walk']} {q['qid']}: {type(exc).__name__}: {exc}", file=sys.stderr)
        took.append(time.perf_counter() - t0)
        gold = set(q["pmids"])
        served = served_all & gold
        where = ("shown" if printed & gold
                 else "retrieved_not_printed" if in_json & gold
                 else "in_kg_not_retrieved" if served else "not_in_kg")  # fmt: skip
        quoted, first = quote_printed(text, q["evidence"])
        rows.append({**q, "where": where, "served": sorted(served), "printed": len(printed),
                     **hits, "quote_printed": quoted, "quote_first": first})  # fmt: skip
    if a.out:
        a.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_kind[r["kind"]][r["where"]] += 1
    total = Counter(r["where"] for r in rows)
    cols = ("shown", "retrieved_not_printed", "in_kg_not_retrieved", "not_in_kg")
    print(f"{'kind':16} {'n':>3} " + " ".join(f"{c:>21}" for c in cols))
    for kind, c in sorted(by_kind.items()):
        print(f"{kind:16} {sum(c.values()):3} " + " ".join(f"{c[k]:21}" for k in cols))
    common.emit({
        "questions": len(rows), **{k: total[k] for k in cols},
        "shown_share": round(total["shown"] / max(len(rows), 1), 3),
        "by_kind": {k: dict(c) for k, c in sorted(by_kind.items())},
        **{k: sum(r[k] for r in rows) for k in ("passage_hit@1", "passage_hit@3",
                                                 "passage_hit@5", "quoted@5",
                                                 "quote_printed", "quote_first")},
        "median_s": round(sorted(took)[len(took) // 2], 2) if took else None,
        "embed": a.embed, "code": str(a.code),
    }, load=True)  # fmt: skip


if __name__ == "__main__":
    main()
