"""How well organism answers (:mod:`kgbuild.corpus.organisms`) find the organisms the gold
names.

Two measures:

- **gold** (BioRED Train/Dev, Luo et al. 2022: curators annotate OrganismTaxon mentions with
  NCBI Taxonomy ids): the files' abstracts are the corpus and their gold mentions its
  mentions. For each abstract naming a non-human organism and each disease or gene it names,
  the question is "which organisms are associated with <anchor>?", answered from the whole
  corpus as ``ask`` does (same-sentence and same-abstract tiers, ranked by specificity; human
  never an answer). Gold: the non-human organisms that abstract names. Figures: recall@10 (the
  abstract's organisms among the first ten answers), hit@5, and P@5 (first-five answers the
  abstract names), with counts; read from the whole corpus and from the other abstracts only
  (held out); against raw PMID counts as the ranking and the same-sentence tier alone. Before
  this reader ``ask`` answered no organism at all (every figure 0). The mentions are the
  curators', so this measures the reading and ranking, not PubTator's tagging.
- **questions** (``data/questions/organisms_dalk.jsonl``: hand-written questions with gold
  organism names from the literature, each row citing its source), asked of a DALK warehouse:
  hit@5 (a gold name among the first five answers' names) and P@5.

    python -m kgbuild.evaluate.organisms gold FILE [FILE …]
    python -m kgbuild.evaluate.organisms questions [--warehouse WH] [--file JSONL]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from kgbuild.corpus.organism_kinds import Ask
from kgbuild.corpus.organisms import ranked, tally
from kgbuild.evaluate.gold import GoldCorpus, read_gold_corpus
from kgbuild.store.species import TAXON_PREFIX

HUMAN = "NCBITaxon:9606"
QUESTIONS = Path(__file__).resolve().parents[2] / "data" / "questions" / "organisms_dalk.jsonl"


def _rows(golds: list[GoldCorpus]) -> list[tuple[Any, ...]]:
    """The documents as :func:`kgbuild.corpus.organism_answer.fetch` returns them."""
    return [(d.pmid, 0, d.title, d.abstract,
             [{"c": m.concept_id, "a": m.start, "b": m.end} for m in g.mentions.get(d.pmid, [])
              if m.concept_id and (m.hetionet_type in ("Disease", "Gene")
                                   or m.concept_id.startswith(TAXON_PREFIX))])
            for g in golds for d in g.documents]  # fmt: skip


def _answers(docs: list[tuple[Any, ...]], anchor: str, df: dict[str, int],
             n_docs: int) -> dict[str, list[str]]:  # fmt: skip
    """The organisms answered for ``anchor`` from ``docs`` per ranking."""
    seen = tally(docs, {anchor}, lambda c: c != HUMAN, Ask())
    spec = [c for c, _ in ranked(seen, df, df[anchor], n_docs)]
    return {
        "specificity": spec,
        "raw_counts": sorted(seen, key=lambda c: (-seen[c].weight(), c)),
        "sentence_only": [c for c in spec if seen[c].sent],
    }


def gold_figures(golds: list[GoldCorpus]) -> dict[str, Any]:
    """The **gold** figures (module docstring) per ranking, from the whole corpus
    (``in_corpus``) and from the other abstracts only (``held_out``: does the reading of
    the rest of the corpus name the organisms a new abstract about the anchor names?)."""
    rows = _rows(golds)
    n_docs = len(rows)
    named: dict[str, set[str]] = defaultdict(set)  # concept → PMIDs
    orgs: dict[str, set[str]] = {}
    for pmid, _, _, _, ms in rows:
        for m in ms:
            named[m["c"]].add(pmid)
        orgs[pmid] = {m["c"] for m in ms if m["c"].startswith(TAXON_PREFIX)} - {HUMAN}
    df = {c: len(p) for c, p in named.items()}
    pairs = [
        (pmid, a)
        for pmid, _, _, _, ms in rows
        if orgs[pmid]
        for a in sorted({m["c"] for m in ms if not m["c"].startswith(TAXON_PREFIX)})
    ]
    figures: dict[str, Counter[str]] = defaultdict(Counter)
    whole: dict[str, dict[str, list[str]]] = {}
    for pmid, anchor in pairs:
        if anchor not in whole:
            whole[anchor] = _answers([r for r in rows if r[0] in named[anchor]], anchor, df,
                                     n_docs)  # fmt: skip
        rest = [r for r in rows if r[0] in named[anchor] and r[0] != pmid]
        held = _answers(rest, anchor, df, n_docs) if rest else {k: [] for k in whole[anchor]}
        for mode, got_by in (("in_corpus", whole[anchor]), ("held_out", held)):
            for name, got in got_by.items():
                f = figures[f"{mode}/{name}"]
                f["questions"] += 1
                f["gold"] += len(orgs[pmid])
                f["found_at_10"] += len(orgs[pmid] & set(got[:10]))
                f["hit_at_5"] += bool(orgs[pmid] & set(got[:5]))
                f["answers_at_5"] += len(got[:5])
                f["right_at_5"] += len(orgs[pmid] & set(got[:5]))
    out: dict[str, Any] = {"abstracts": n_docs, "questions": len(pairs)}
    for name, f in sorted(figures.items()):
        out[name] = {
            **f,
            "recall_at_10": round(f["found_at_10"] / max(f["gold"], 1), 3),
            "hit_at_5": round(f["hit_at_5"] / max(f["questions"], 1), 3),
            "p_at_5": round(f["right_at_5"] / max(f["answers_at_5"], 1), 3),
        }
    return out


def question_figures(warehouse: str | None, path: Path = QUESTIONS) -> dict[str, Any]:
    """The **questions** figures (module docstring), with each question's first five."""
    from kgbuild.query.engine import QueryEngine

    eng = QueryEngine(warehouse, embeddings=False)
    rows, hits, right, shown = [], 0, 0, 0
    for line in path.read_text().splitlines():
        q = json.loads(line)
        pat = re.compile(r"\b(?:" + "|".join(q["gold"]) + r")\b", re.IGNORECASE)
        try:
            answers = eng.retrieve(q["question"], embed="off").answers[:5]
        except Exception as exc:  # a question ``ask`` refuses (no entity found) answers nothing
            answers, q["error"] = [], str(exc)[:120]
        ok = [bool(pat.search(a["name"])) for a in answers]
        hits += any(ok)
        right += sum(ok)
        shown += len(answers)
        row = {"question": q["question"], "top5": [a["name"] for a in answers], "hit": any(ok)}
        rows.append({**row, **({"error": q["error"]} if "error" in q else {})})
    n = len(rows)
    return {"questions": n, "hit_at_5": round(hits / max(n, 1), 3), "hits": hits,
            "p_at_5": round(right / max(shown, 1), 3), "right": right, "answers": shown,
            "rows": rows}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gold")
    g.add_argument("files", nargs="+", type=Path)
    q = sub.add_parser("questions")
    q.add_argument("--warehouse")
    q.add_argument("--file", type=Path, default=QUESTIONS)
    a = p.parse_args(argv)
    if a.cmd == "gold":
        print(json.dumps(gold_figures([read_gold_corpus(f) for f in a.files])))
    else:
        print(json.dumps(question_figures(a.warehouse, a.file), indent=1))


if __name__ == "__main__":
    main()
