"""How often the rule reader (``kgbuild/question/intent.py``) reads a question's asked relation,
answer kind and yes/no-ness right — and, given an endpoint, how often the LLM reader
(``kgbuild/query/llm_intent.py``) does.

    python bench/intent_reader.py [--per-kind 6] [--llm-base-url URL --llm-model NAME]

Questions (each with a hand-labelled asked relation, answer kind and yes/no):

- ``forms``: every template of ``kgbuild/evaluate/facts_questions.py::FORMS`` (the questions of
  ``kgbuild eval facts``), filled with the ``--per-kind`` most-mentioned gold entities of the
  form's kind: chemicals and diseases from BC5CDR's development set, genes from BioRED's.
- ``paraphrases``: the same asks worded as people also word them ("What drugs can cause X?",
  "Which chemicals are bad for X?"), filled the same way.

The entity's span is passed to the reader as the linker would (its words are never cues), and
the answer kind is the engine's (``infer_answer_type`` with the entity's kind: "What does X
bind?" → Gene). A question is right when all three fields are. The LLM reading is the merged one
(:func:`merge_intent`): what the engine would use. With a small local model such as SmolLM2-135M
its answers are nonsense — its figures then measure robustness (no crash, unreadable answers
fall back to the rules), not accuracy. The last line is one JSON object of the figures.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import BIORED_DEV, CDR_DEV
from kgbuild.evaluate.facts_questions import FORMS
from kgbuild.question.intent import Intent, infer_answer_type, read_intent

SOURCES = {  # kind → (file, PubTator type)
    "Compound": (CDR_DEV, "Chemical"),
    "Disease": (CDR_DEV, "Disease"),
    "Gene": (BIORED_DEV, "GeneOrGeneProduct"),
}
#: form name → (asked relation, answer kind): what each FORMS template asks.
FORM_LABELS = {
    "cid_chemicals_induce": ("causes", "Compound"),
    "assoc_genes_of_disease": ("associates", "Gene"),
    "assoc_chemicals_of_disease": ("associates", "Compound"),
    "bind_what_chemical_binds": ("binds", "Gene"),
    "neg_chemicals_lower_gene": ("downregulates", "Compound"),
    "pos_chemicals_raise_gene": ("upregulates", "Compound"),
    "pos_chemicals_risk_disease": ("risk_factor", "Compound"),
    "neg_chemicals_treat_disease": ("treats", "Compound"),
    "pos_genes_risk_disease": ("risk_factor", "Gene"),
    "assoc_genes_interact_gene": ("interacts", "Gene"),
}
#: (template, kind of the entity, asked relation, answer kind or None, yes/no)
PARAPHRASES = [
    ("What drugs can cause {}?", "Disease", "causes", "Compound", False),
    ("Which chemicals are bad for {}?", "Disease", "causes", "Compound", False),
    ("Which medications make {} worse?", "Disease", "causes", "Compound", False),
    ("What substances are harmful in {}?", "Disease", "causes", "Compound", False),
    ("Which drugs have {} as a side effect?", "Disease", "causes", "Compound", False),
    ("Name compounds that reduce {}.", "Gene", "downregulates", "Compound", False),
    ("Which agents switch off {}?", "Gene", "downregulates", "Compound", False),
    ("Which compounds activate {}?", "Gene", "upregulates", "Compound", False),
    ("What drugs help with {}?", "Disease", "treats", "Compound", False),
    ("Which medicines are good for {}?", "Disease", "treats", "Compound", False),
    ("Which drugs are used against {}?", "Disease", "treats", "Compound", False),
    ("Which genes are linked to {}?", "Disease", "associates", "Gene", False),
    ("Which genes are mutated in {}?", "Disease", "associates", "Gene", False),
    ("List genes that predispose to {}.", "Disease", "risk_factor", "Gene", False),
    ("What proteins does {} target?", "Compound", "binds", "Gene", False),
    ("Which proteins form a complex with {}?", "Gene", "interacts", "Gene", False),
    ("Does {} cause liver damage?", "Compound", "causes", None, True),
    ("Is {} a risk factor for heart disease?", "Gene", "risk_factor", None, True),
]


def entity_names(per_kind: int) -> dict[str, list[str]]:
    """The ``per_kind`` concepts of each kind mentioned in most documents, by their most
    frequent mention text (3+ characters)."""
    out: dict[str, list[str]] = {}
    for kind, (path, ptype) in SOURCES.items():
        docs: dict[str, set[str]] = defaultdict(set)
        texts: dict[str, Counter[str]] = defaultdict(Counter)
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) >= 6 and parts[4] == ptype and parts[5] not in ("", "-1"):
                docs[parts[5]].add(parts[0])
                texts[parts[5]][parts[3]] += 1
        ranked = sorted(docs, key=lambda c: (-len(docs[c]), c))
        names = [texts[c].most_common(1)[0][0] for c in ranked]
        out[kind] = [n for n in dict.fromkeys(names) if len(n) >= 3][:per_kind]
    return out


def questions(per_kind: int) -> dict[str, list[dict]]:
    names = entity_names(per_kind)
    out: dict[str, list[dict]] = {"forms": [], "paraphrases": []}
    for f in FORMS:
        asked, kind = FORM_LABELS[f.name]
        for n in names[f.asked]:
            out["forms"].append(_q(f.template, n, f.asked, asked, kind, False))
    for template, ekind, asked, kind, yes_no in PARAPHRASES:
        for n in names[ekind]:
            out["paraphrases"].append(_q(template, n, ekind, asked, kind, yes_no))
    return out


def _q(template: str, name: str, ekind: str, asked: str, kind: str | None, yes_no: bool) -> dict:
    text = template.format(name)
    start = template.index("{}")
    return {"text": text, "span": (start, start + len(name)), "entity_kind": ekind,
            "want": {"asked": asked, "answer_type": kind, "yes_no": yes_no}}  # fmt: skip


def judge(q: dict, it: Intent) -> dict[str, bool]:
    got_kind = infer_answer_type(it, [q["entity_kind"]])
    w = q["want"]
    return {
        "asked": it.asked[:1] == [w["asked"]],
        "answer_type": got_kind == w["answer_type"],
        "yes_no": it.yes_no == w["yes_no"],
    }


def score(rows: list[dict[str, bool]]) -> dict[str, int]:
    return {
        "questions": len(rows),
        "asked_right": sum(r["asked"] for r in rows),
        "answer_type_right": sum(r["answer_type"] for r in rows),
        "yes_no_right": sum(r["yes_no"] for r in rows),
        "all_right": sum(all(r.values()) for r in rows),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-kind", type=int, default=6)
    ap.add_argument("--llm-base-url")
    ap.add_argument("--llm-model", default="smollm2")
    ap.add_argument("--verbose", action="store_true", help="Print every question's reading")
    a = ap.parse_args()
    qs = questions(a.per_kind)
    rules: dict[str, list[dict[str, bool]]] = {}
    readings: dict[str, list[Intent]] = {}
    for group, items in qs.items():
        readings[group] = [read_intent(q["text"], [q["span"]]) for q in items]
        rules[group] = [judge(q, it) for q, it in zip(items, readings[group], strict=True)]
    figures: dict = {"rules": {g: score(r) for g, r in rules.items()}}
    misses = sorted({q["text"].replace(q["text"][slice(*q["span"])], "{}")
                     for g, items in qs.items() for q, r in zip(items, rules[g], strict=True)
                     if not all(r.values())})  # fmt: skip
    figures["rules_missed_templates"] = misses
    if a.llm_base_url:
        figures["llm"] = llm_figures(a, qs, readings)
    for g, s in figures["rules"].items():
        print(f"rules {g}: {s['all_right']}/{s['questions']} right "
              f"(relation {s['asked_right']}, kind {s['answer_type_right']}, "
              f"yes/no {s['yes_no_right']})")  # fmt: skip
    if a.verbose:
        for g, items in qs.items():
            for q, it in zip(items, readings[g], strict=True):
                print(g, q["text"], it.asked, it.answer_type, it.yes_no)
    print(json.dumps(figures, sort_keys=True))
    return 0


def llm_figures(a: argparse.Namespace, qs: dict[str, list[dict]], rules: dict) -> dict:
    """The merged LLM reading's figures, and how many answers were unreadable or failed."""
    from kgbuild.llm.client import LLMClient, LLMSettings
    from kgbuild.query.llm import Usage
    from kgbuild.query.llm_intent import merge_intent, read_intent_llm

    settings = LLMSettings(model=a.llm_model, base_url=a.llm_base_url, max_tokens=96,
                           concurrency=1, timeout_s=120)  # fmt: skip
    client = LLMClient(settings)
    out: dict = {"model": a.llm_model}
    for group, items in qs.items():
        usage, rows, unreadable, fields = Usage(), [], 0, Counter()
        for q, rule in zip(items, rules[group], strict=True):
            reading = read_intent_llm(client, q["text"], [], usage)
            unreadable += reading is None
            merged = merge_intent(rule, reading)
            fields.update(k for k, v in merged.source.items() if v == "llm")
            rows.append(judge(q, merged))
        out[group] = {**score(rows), "unreadable": unreadable, "failed": usage.failed,
                      "fields_from_llm": dict(fields)}  # fmt: skip
    return out


if __name__ == "__main__":
    raise SystemExit(main())
