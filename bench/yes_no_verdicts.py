"""Benchmark: the verdicts of yes/no questions, against gold, on two question sets:

- **dalk**: hand-written questions about the DALK build with gold yes/no from biomedical
  knowledge (``data/questions/yes_no_dalk.tsv``; each row says where its answer comes from),
  asked of a DALK warehouse (``--dalk``: a copy, as the query index is written into it);
- **walks_5_13** and **walks_14_up**: the blind newcomer walks' yes/no questions (no choices)
  whose writer's gold answer starts with yes or no ("Generally no", "Probably not" read as no),
  asked of the DALK warehouse: the first for tuning, the later walks held out from it;
- **biored_dev**: BioRED Dev's relations as questions (positive: a related pair, asked with the
  predicate of its relation type — "Does {chemical} cause {disease}?" for a chemical–disease
  Positive_Correlation; negative: a pair both named in one document without a relation, asked
  "Is {a} associated with {b}?"), at most one of each per document, asked of the dev file's
  build with its relation lines hidden (:func:`kgbuild.evaluate.facts.build_hidden`, made once
  into ``--work``).

Per set: questions, the median in-process retrieval time of those with a verdict, how many
get a verdict (yes, no or mixed), accuracy over the decisive ones (yes/no), accuracy over all
(a question without a decisive verdict counts wrong), and
yes-accuracy (gold yes answered "yes", gold no answered anything else: a co-mention is not a
yes). ``--code DIR`` runs another checkout's ``kgbuild`` (the before figures: ``git archive
<commit> kgbuild data | tar -x -C DIR``). Ends with one JSON line.

    .venv/bin/python bench/yes_no_verdicts.py --dalk WH [--code DIR] [--work DIR] [--out FILE]
        [--only dalk biored_dev walks]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

DALK_QUESTIONS = common.ROOT / "data" / "questions" / "yes_no_dalk.tsv"
WALKS = common.ROOT / "data" / "walks"
#: A gold answer's verdict: its first words ("Generally no:", "Yes, in observational studies").
GOLD_VERDICT = re.compile(r"\W*(?:(?:generally|mostly|probably|largely|partly|overall)\W+)?"
                          r"(yes|no|not)\b", re.IGNORECASE)  # fmt: skip
#: The walks tuned on; the later ones are held out.
TUNED_WALKS = range(5, 14)
#: (gold relation type, kind a, kind b) → question template (a, b): the predicate each
#: relation type states (BioRED guidelines; Positive_Correlation chemical→disease is BC5CDR's
#: chemical-induced disease, Negative_Correlation chemical→disease a treatment).
TEMPLATES = {
    ("Positive_Correlation", "Compound", "Disease"): "Does {} cause {}?",
    ("Negative_Correlation", "Compound", "Disease"): "Does {} treat {}?",
    ("Positive_Correlation", "*", "*"): "Does {} increase {}?",
    ("Negative_Correlation", "*", "*"): "Does {} decrease {}?",
    ("Bind", "*", "*"): "Does {} bind {}?",
    ("Drug_Interaction", "*", "*"): "Does {} interact with {}?",
    ("Cotreatment", "*", "*"): "Does {} interact with {}?",
    ("*", "*", "*"): "Is {} associated with {}?",
}
KINDS = ("Compound", "Disease", "Gene")
DECISIVE = ("yes", "no")
#: Old answers that read as a decisive "no" (before: negated PMIDs outnumbering asserted ones).
AS_NO = ("disputed",)


def template(rel: str, ka: str, kb: str) -> tuple[str, bool]:
    """The question template of a relation and whether its endpoints are swapped."""
    for key, swap in (((rel, ka, kb), False), ((rel, kb, ka), True), ((rel, "*", "*"), False),
                      (("*", "*", "*"), False)):  # fmt: skip
        if key in TEMPLATES:
            return TEMPLATES[key], swap
    raise KeyError(rel)


def biored_questions(gold) -> list[dict]:
    """One positive and one negative question per document (first in sorted order)."""
    from kgbuild.evaluate.facts_questions import mention_names

    names = mention_names(gold)
    related: dict[str, set[tuple[str, str]]] = {}
    out = []
    for r in sorted(gold.relations, key=lambda r: (r.pmid, r.a, r.b)):
        related.setdefault(r.pmid, set()).add((r.a, r.b))
    seen: set[str] = set()
    for r in sorted(gold.relations, key=lambda r: (r.pmid, r.a, r.b)):
        if r.pmid in seen or r.kind_a not in KINDS or r.kind_b not in KINDS or r.a == r.b:
            continue
        seen.add(r.pmid)
        t, swap = template(r.rel_type, r.kind_a, r.kind_b)
        a, b = (r.b, r.a) if swap else (r.a, r.b)
        out.append({"set": "biored_dev", "question": t.format(names[a], names[b]),
                    "gold": "yes", "source": f"{r.pmid} {r.rel_type}"})  # fmt: skip
    for pmid, ents in sorted(gold.entities.items()):
        ids = sorted(c for c, k in ents.items() if k in KINDS and c in names)
        rel = related.get(pmid, set())
        pairs = [(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]
                 if (a, b) not in rel and (b, a) not in rel
                 and not (ents[a] == ents[b] == "Disease")
                 and names[a].lower() != names[b].lower()]  # fmt: skip
        if pairs:
            a, b = pairs[0]
            out.append({"set": "biored_dev", "question": f"Is {names[a]} associated with "
                        f"{names[b]}?", "gold": "no", "source": f"{pmid} no relation"})  # fmt: skip
    return out


def dalk_questions() -> list[dict]:
    with open(DALK_QUESTIONS, encoding="utf-8", newline="") as fh:
        lines = [x for x in fh if x.strip() and not x.startswith("#")]
    return [{"set": "dalk", **r} for r in csv.DictReader(lines, delimiter="\t")]


def walk_questions() -> list[dict]:
    """The walks' yes/no questions with a yes or no gold (see the module docstring)."""
    out = []
    for path in sorted(WALKS.glob("walk*/questions.jsonl")):
        n = int(path.parent.name.removeprefix("walk"))
        for line in path.read_text(encoding="utf-8").splitlines():
            q = json.loads(line) if line.strip() else None
            m = GOLD_VERDICT.match(str(q.get("gold") or "")) if q and not q.get("choices") else None
            if m:
                gold = "yes" if m.group(1).lower() == "yes" else "no"
                out.append({"set": "walks_5_13" if n in TUNED_WALKS else "walks_14_up",
                            "question": q["question"], "gold": gold,
                            "source": f"walk{n} {q['id']}"})  # fmt: skip
    return out


def verdict_of(engine, question: str) -> dict | None:
    """The verdict ``kgbuild ask`` prints (the engine's, with the catalog's statuses)."""
    from kgbuild.query import verdict as vmod

    r = engine.retrieve(question, embed="off")
    v = r.verdict
    if v is not None:  # the retrieval's own time (the engine's timer, in-process)
        v = {**v, "retrieval_ms": r.timings.get("total_ms")}
    if v and v.get("pair") and len(v["pair"]) == 2:
        if hasattr(vmod, "status_rows"):
            vmod.add_statuses(v, vmod.status_rows(engine.wh, r.snapshot_id, *v["pair"]))
        else:  # the code before: statuses per status only
            vmod.add_statuses(v, vmod.pair_statuses(engine.wh, r.snapshot_id, *v["pair"]))
    return v


def _p50(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def score(rows: list[dict]) -> dict:
    n = len(rows)
    decisive = [r for r in rows if r["said"] in DECISIVE]
    right = [r for r in decisive if r["said"] == r["gold"]]
    yes_right = sum((r["said"] == "yes") == (r["gold"] == "yes") for r in rows)
    return {
        "questions": n,
        "gold_yes": sum(r["gold"] == "yes" for r in rows),
        "with_verdict": sum(r["said"] in (*DECISIVE, "mixed") for r in rows),
        "decisive": len(decisive),
        "accuracy_decisive": round(len(right) / len(decisive), 3) if decisive else None,
        "accuracy_all": round(len(right) / n, 3) if n else None,
        "yes_accuracy": round(yes_right / n, 3) if n else None,
        "answers": dict(Counter(r["answer"] for r in rows).most_common()),
        "retrieval_p50_ms": _p50([r["ms"] for r in rows if r.get("ms") is not None]),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--code", type=Path, default=common.ROOT, help="checkout whose kgbuild is run")
    p.add_argument("--dalk", type=Path, required=True, help="a copy of a DALK warehouse")
    p.add_argument("--work", type=Path, default=Path("/tmp/yes_no_verdicts"))
    p.add_argument("--out", type=Path, help="write every question's verdict here (JSONL)")
    p.add_argument("--only", nargs="*", help="only these sets (dalk, biored_dev, walks)")
    a = p.parse_args()
    sys.path.insert(0, str(a.code.resolve()))
    from kgbuild.query.engine import QueryEngine

    only = set(a.only or ("dalk", "biored_dev", "walks"))
    sets = {"dalk": (a.dalk, dalk_questions())} if "dalk" in only else {}
    if "biored_dev" in only:
        gold, wh_dir = common.hidden_build(common.BIORED_DEV, a.work / "biored_dev")
        sets["biored_dev"] = (wh_dir, biored_questions(gold))
    walks = walk_questions() if "walks" in only else []
    rows: list[dict] = []
    for wh, questions in [*sets.values(), (a.dalk, walks)]:
        engine = QueryEngine(wh, "latest", embeddings=False)
        for q in questions:
            v = verdict_of(engine, q["question"])
            answer = v["answer"] if v else None
            said = "no" if answer in AS_NO else answer
            rows.append({**q, "answer": answer, "said": said, "line": v["line"] if v else None,
                         "ms": v.get("retrieval_ms") if v else None})  # fmt: skip
    if a.out:
        a.out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    names = [*sets, *sorted({q["set"] for q in walks})]
    figures = {s: score([r for r in rows if r["set"] == s]) for s in names}
    figures["code"] = str(a.code)
    common.emit(figures)


if __name__ == "__main__":
    main()
