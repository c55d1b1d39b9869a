"""Benchmark: answers of the kind asked ("Which microRNAs …", "the side effects of …", "How does
X work?"), per kind, on three question sets:

- **dalk**: hand-written questions about the DALK build with hand-written gold answers
  (``data/questions/answer_kinds_dalk.jsonl``; each row says where its gold comes from), asked
  of a DALK warehouse (``--dalk``: a copy of a build of ``../shared/data/dalk/by_year``, as
  the query index is written into it); a question whose gold is empty asks for a kind the
  build lacks, and is right only when no answer comes back;
- **cdr_dev**: BC5CDR Development's chemical-induced-disease relations as "What are the side
  effects of {chemical}?" (gold: the diseases the file says it induces);
- **biored_dev**: BioRED Dev's relations as "Which microRNAs are associated with {disease}?"
  (gold: related genes named as microRNAs), "What are the side effects of {chemical}?"
  (Positive_Correlation chemical → disease), "What are the targets of {chemical}?" (Bind,
  Positive/Negative_Correlation chemical → gene) and "Which drugs treat {disease}?"
  (Negative_Correlation chemical → disease: the chemicals the file says lower it).

The ``*_setting`` sets ask the same gold in the words people use, naming a disease of the
same abstract as the setting: "What does {chemical} act on in {disease}?" (target) and "What
side effects does {chemical} have for people with {disease}?" (side effect), the disease being
one the chemical lowers in the file (Negative_Correlation: the disease it treats), else the
document's most-mentioned disease outside the gold; a question whose abstracts name no such
disease is not asked. The setting must narrow the chemical's answers, never supply them.

The dev files are built with their relation lines hidden, as ``kgbuild eval facts`` does
(:func:`kgbuild.evaluate.facts.build_hidden`), once into ``--work`` (kept between runs). Per
kind: questions, answered (≥ 1 answer), hit@5 (a gold answer in the top five), P@5 (gold
answers among the top five, over the answers there), and for empty-gold questions how many were
answered with nothing. ``--code DIR`` runs another checkout's ``kgbuild`` (the before figures:
``git archive HEAD kgbuild data | tar -x -C DIR``). Ends with one JSON line.

    .venv/bin/python bench/answer_kinds.py [--code DIR] [--dalk WH] [--work DIR] [--sets …]
        [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

DALK_QUESTIONS = common.ROOT / "data" / "questions" / "answer_kinds_dalk.jsonl"
GOLD = {"cdr_dev": common.CDR_DEV, "biored_dev": common.BIORED_DEV}
TOP = 5
#: A gold gene is a microRNA when its most frequent gold mention says so (HGNC MIR*, miR-146a).
MIRNA = re.compile(r"^(?:mi[Rr]-?\d|MIR\d|microRNA|hsa-mi[Rr]|let-7)", re.IGNORECASE)
#: (kind, gold relation types, asked kind, answer kind, template, answer filter): the gold
#: relations each kind's questions are drawn from (data, not if-chains).
FORMS = {
    "cdr_dev": [("side_effect", {"CID"}, "Compound", "Disease",
                 "What are the side effects of {}?", None)],
    "biored_dev": [
        ("microrna", {"Association", "Positive_Correlation", "Negative_Correlation"}, "Disease",
         "Gene", "Which microRNAs are associated with {}?", MIRNA),
        ("side_effect", {"Positive_Correlation"}, "Compound", "Disease",
         "What are the side effects of {}?", None),
        ("target", {"Bind", "Positive_Correlation", "Negative_Correlation"}, "Compound", "Gene",
         "What are the targets of {}?", None),
        ("drug", {"Negative_Correlation"}, "Disease", "Compound", "Which drugs treat {}?", None),
    ],
}  # fmt: skip
#: The same gold asked with the chemical's disease as the setting (module docstring):
#: (kind, gold relation types, answer kind, template with {0} the chemical and {1} the disease).
SETTING_FORMS = {
    "cdr_dev_setting": [("side_effect", {"CID"}, "Disease",
                         "What side effects does {0} have for people with {1}?")],
    "biored_dev_setting": [
        ("side_effect", {"Positive_Correlation"}, "Disease",
         "What side effects does {0} have for people with {1}?"),
        ("target", {"Bind", "Positive_Correlation", "Negative_Correlation"}, "Gene",
         "What does {0} act on in {1}?"),
    ],
}  # fmt: skip
SETTING_GOLD = {"cdr_dev_setting": "cdr_dev", "biored_dev_setting": "biored_dev"}


def related_pairs(gold, types, asked_kind: str, answer_kind: str):
    """(asked entity, answer entity, PMID) of every gold relation of ``types`` between the two
    kinds, read in either direction."""
    for r in gold.relations:
        if r.rel_type not in types:
            continue
        for a, ka, b, kb in ((r.a, r.kind_a, r.b, r.kind_b), (r.b, r.kind_b, r.a, r.kind_a)):
            if ka == asked_kind and kb == answer_kind and a != b:
                yield a, b, r.pmid


def setting_questions(gold, forms) -> list[dict]:
    """Questions asking a chemical's gold answers with a disease of its abstracts as setting
    (module docstring), one per (kind, chemical)."""
    from collections import Counter

    from kgbuild.evaluate.facts_questions import mention_names

    names = mention_names(gold)
    treats: dict[str, list[str]] = defaultdict(list)  # chemical → diseases it lowers, in order
    for r in gold.relations:
        if r.rel_type == "Negative_Correlation" and {r.kind_a, r.kind_b} == {"Compound", "Disease"}:
            c, d = (r.a, r.b) if r.kind_a == "Compound" else (r.b, r.a)
            treats[c].append(d)
    found: dict[tuple[str, str], dict] = {}
    for kind, types, answer_kind, _ in forms:
        for a, b, pmid in related_pairs(gold, types, "Compound", answer_kind):
            q = found.setdefault((kind, a), {"kind": kind, "entity": a, "pmids": []})
            q.setdefault("gold", set()).add(b)
            if pmid not in q["pmids"]:
                q["pmids"].append(pmid)
    out = []
    for (kind, a), q in found.items():
        said = Counter(
            cid for p in q["pmids"] for m in gold.mentions.get(p, [])
            if m.hetionet_type == "Disease" for cid in m.concept_ids[:1]
        )  # fmt: skip
        usable = [d for d in treats.get(a, []) if d not in q["gold"] and said[d]]
        usable += [d for d, _ in said.most_common() if d not in q["gold"]]
        if not usable:
            continue
        template = next(t for k, _, _, t in forms if k == kind)
        q["question"] = template.format(names.get(a, a), names.get(usable[0], usable[0]))
        q["setting"] = usable[0]
        del q["pmids"]
        out.append(q)
    return sorted(out, key=lambda q: (q["kind"], q["entity"]))


def gold_questions(gold, forms) -> list[dict]:
    """Questions from a gold file's relations, one per (kind, asked entity)."""
    from kgbuild.evaluate.facts_questions import mention_names

    names = mention_names(gold)
    found: dict[tuple[str, str], dict] = {}
    for kind, types, asked_kind, answer_kind, template, keep in forms:
        for a, b, _ in related_pairs(gold, types, asked_kind, answer_kind):
            if keep is not None and not keep.search(names.get(b, "")):
                continue
            text = template.format(names.get(a, a))
            q = found.setdefault((kind, a), {"kind": kind, "entity": a, "question": text})
            q.setdefault("gold", set()).add(b)
    return sorted(found.values(), key=lambda q: (q["kind"], q["entity"]))


def ask_all(engine, questions: list[dict], mapping: dict[str, str] | None) -> list[dict]:
    """Each question asked once: its ranked answer ids, and whether they hit the gold."""
    rows = []
    for q in questions:
        gold = {mapping.get(g, g) for g in q["gold"]} if mapping else set(q["gold"])
        s, r = common.timed(engine.retrieve, q["question"])
        ms = 1000 * s
        ids = [a["id"] for a in r.answers]
        top = ids[:TOP]
        hits = [i for i in top if i in gold]
        rows.append({
            "kind": q["kind"], "question": q["question"], "gold": sorted(gold), "answers": top,
            "answered": bool(ids), "hit": bool(hits) if gold else not ids,
            "p": len(hits) / len(top) if top and gold else None, "empty_gold": not gold,
            "note": (getattr(r, "intent", {}) or {}).get("answer_note"), "ms": round(ms, 2),
        })  # fmt: skip
    return rows


def per_kind(rows: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["kind"]].append(r)
    for kind, rs in sorted(by.items()):
        ps = [r["p"] for r in rs if r["p"] is not None]
        out[kind] = {
            "questions": len(rs),
            "answered": sum(r["answered"] for r in rs),
            "hit_at_5": round(sum(r["hit"] for r in rs) / len(rs), 3),
            "p_at_5": round(statistics.mean(ps), 3) if ps else None,
            "empty_gold_left_empty": sum(r["empty_gold"] and not r["answered"] for r in rs),
            "empty_gold": sum(r["empty_gold"] for r in rs),
        }
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--code", type=Path, default=common.ROOT, help="checkout whose kgbuild is run")
    p.add_argument("--dalk", type=Path, help="a DALK warehouse (a copy: its index is written)")
    p.add_argument("--work", type=Path, default=Path("/tmp/answer-kinds-work"))
    p.add_argument("--sets", default="dalk,cdr_dev,biored_dev,cdr_dev_setting,biored_dev_setting")
    p.add_argument("--out", type=Path, help="write every question's row (JSON) here")
    a = p.parse_args()
    sys.path.insert(0, str(a.code.resolve()))
    from kgbuild.evaluate.facts import node_map
    from kgbuild.query.engine import QueryEngine
    from kgbuild.store.snapshots import Warehouse

    sets = a.sets.split(",")
    figures: dict[str, dict] = {}
    rows_out: dict[str, list[dict]] = {}
    for name in sets:
        if name == "dalk":
            if a.dalk is None or not a.dalk.is_dir():
                print(f"dalk: skipped, no warehouse at {a.dalk}", file=sys.stderr)
                continue
            qs = [json.loads(x) for x in DALK_QUESTIONS.read_text().splitlines() if x.strip()]
            engine, mapping = QueryEngine(a.dalk, embeddings=False), None
        else:
            base = SETTING_GOLD.get(name, name)
            if not GOLD[base].is_file():
                print(f"{name}: skipped, {GOLD[base]} is absent", file=sys.stderr)
                continue
            gold, wh = common.hidden_build(GOLD[base], a.work / base, "build-input")
            if name in SETTING_FORMS:
                qs = setting_questions(gold, SETTING_FORMS[name])
            else:
                qs = gold_questions(gold, FORMS[name])
            engine = QueryEngine(wh, embeddings=False)
            sid = engine.state().index.snapshot_id
            mapping = node_map(Warehouse(wh), sid)
        engine.retrieve(qs[0]["question"])  # open the index and its caches once
        rows = ask_all(engine, qs, mapping)
        rows_out[name] = rows
        figures[name] = per_kind(rows)
        figures[name]["_median_ms"] = round(statistics.median(r["ms"] for r in rows), 2)
        for kind, f in figures[name].items():
            if not kind.startswith("_"):
                print(f"{name:10} {kind:12} {json.dumps(f)}")
    if a.out:
        a.out.write_text(json.dumps(rows_out, indent=1, default=sorted))
    import kgbuild

    common.emit({"code": str(Path(kgbuild.__file__).parent), **figures})


if __name__ == "__main__":
    main()
