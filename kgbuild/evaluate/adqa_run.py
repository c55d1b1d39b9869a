"""ADQA evaluation (DALK §4, Table 3 and Figure 3): retrieval figures without an LLM, accuracy
with one, and both against every yearly snapshot.

Without an LLM, per subset (each a share of its questions unless said otherwise):

- ``linked_question``: questions with ≥ 1 entity linked in the question text itself;
- ``dalk_entities_linked``: of DALK's recorded question entities (``*_ner.json``), the share our
  linker links (dictionary, then embedding), and ``dalk_nodes_found``: of the nodes those link
  to, the share our own LLM-free linking of the question and choices also found;
- ``choices_linked``: choices that name ≥ 1 KG node;
- ``gold_reachable``: the gold choice's node within ``hops`` of a question entity (hubs not
  crossed, as in exploration), over questions where both sides link;
- ``hit_gold`` vs ``hit_wrong``: the top-k triples touch the gold choice's nodes, against the
  mean over the wrong choices — retrieval that favours the answer has hit_gold > hit_wrong;
- ``kg_accuracy`` vs ``chance``: the KG-only answer (the best-scored choice,
  :mod:`kgbuild.query.choices`; no score or a tie is no answer, counted wrong) against
  1/#choices; ``kg_accuracy_ci``: its Wilson 95% interval — a subset of 150–200 questions
  cannot tell 31% from 35% (±7 points), so a change is read against the interval, not the
  point;
- ``evidence_gold`` vs ``evidence_wrong``: questions whose context holds a sentence
  that mentions the gold choice, against the mean over the wrong choices — a sentence mentions
  a choice when it holds ⌈2/3⌉ of the choice's index terms (all of a one- or two-term choice);
- ``retrieval_p50_ms`` / ``retrieval_p95_ms``: retrieval time per question.

``replay_entities``: the question's entities are DALK's recorded ones (``*_ner.json``), linked
by the dictionary then embedding, instead of our linking of the question text — so the KG and
the retrieval are judged apart from the linker.

With an LLM: ``accuracy`` with the KG context and ``accuracy_without_kg`` (the same model
answering alone, DALK Table 3's "GPT-3.5 alone"), side by side; an unparsable answer counts
wrong (DALK's code dropped those from its denominator); ``unparsed`` and the tokens and money
spent on both.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.audit.score import wilson
from kgbuild.errors import InputError
from kgbuild.evaluate.adqa import Question
from kgbuild.link.linker import Link
from kgbuild.llm.client import LLMClient
from kgbuild.query.answer import answer_question
from kgbuild.query.engine import QueryEngine, Retrieval
from kgbuild.query.explore import HUB_DEGREE
from kgbuild.query.llm import answer_alone
from kgbuild.search.sentences import terms

#: DALK Table 3 (accuracy %, MedQA / MedMCQA / MMLU / QA4MRE and their mean), for comparison.
DALK_REPORTED = {
    "DALK": {"medqa": 57.9, "medmcqa": 75.2, "mmlu": 85.4, "qa4mre": 71.4, "AVG": 72.6},
    "GPT-3.5 alone": {"medqa": 50.0, "medmcqa": 71.9, "mmlu": 83.6, "qa4mre": 62.9, "AVG": 67.1},
}
RETRIEVAL_FIGURES = (
    "questions",
    "linked_question",
    "dalk_entities_linked",
    "dalk_nodes_found",
    "choices_linked",
    "gold_reachable",
    "hit_gold",
    "hit_wrong",
    "kg_accuracy",
    "kg_accuracy_ci",
    "kg_answered",
    "chance",
    "evidence_gold",
    "evidence_wrong",
    "retrieval_p50_ms",
    "retrieval_p95_ms",
)


def mentions(sentence_terms: set[str], choice_terms: list[str]) -> bool:
    """A sentence mentions a choice when it holds ⌈2/3⌉ of the choice's distinct terms."""
    want = sorted(set(choice_terms))
    if not want:
        return False
    need = math.ceil(2 * len(want) / 3)
    return sum(t in sentence_terms for t in want) >= need


def context_sentences(r: Retrieval) -> list[str]:
    """Every sentence the context shows: the triples' evidence and the choices' sentences."""
    out = [x.sentence for t in r.triples for x in t.evidence]
    out += [x["sentence"] for x in r.sentences if x["sentence"][:60] in r.context]
    return out


def question_record(engine: QueryEngine, q: Question, r: Retrieval, hops: int) -> dict[str, Any]:
    """The per-question facts the subset figures average."""
    st = engine.state()
    qn, cn = r.question_nodes(), r.choice_nodes()
    rec: dict[str, Any] = {
        "id": q.qid,
        "linked_question": bool(qn),
        "choices_linked": [bool(c) for c in cn],
        "kg_answer": r.kg_answer,
        "kg_correct": r.kg_answer == q.answer,
        "chance": 1 / len(q.choices),
    }
    touched = {
        n for t in r.triples for n in (st.index.node_of[t.head_id], st.index.node_of[t.tail_id])
    }
    hits = [bool(set(c) & touched) for c in cn]
    rec["hit_gold"] = hits[q.answer]
    wrong = [h for i, h in enumerate(hits) if i != q.answer]
    rec["hit_wrong"] = sum(wrong) / len(wrong) if wrong else 0.0
    shown = [set(terms(x)) for x in context_sentences(r)]
    said = [any(mentions(st_, terms(c)) for st_ in shown) for c in q.choices]
    rec["evidence_gold"] = said[q.answer]
    wrong_said = [x for i, x in enumerate(said) if i != q.answer]
    rec["evidence_wrong"] = sum(wrong_said) / len(wrong_said) if wrong_said else 0.0
    rec["retrieval_ms"] = r.timings.get("total_ms", 0.0)
    gold = cn[q.answer]
    if qn and gold:
        barred = st.index.graph.degree > HUB_DEGREE
        reach = st.index.graph.within(np.array(qn, np.int64), hops, barred)
        rec["gold_reachable"] = bool(reach[gold].any())
    if q.recorded_entities:
        recorded = st.linker.link_names(
            q.recorded_entities, "question", embed=st.linker.vectors is not None
        )
        per_name: dict[str, bool] = {}
        for x in recorded:
            per_name[x.surface] = per_name.get(x.surface, False) or x.node is not None
        rec["dalk_entities"] = len(q.recorded_entities)
        rec["dalk_entities_linked"] = sum(per_name.get(n, False) for n in q.recorded_entities)
        dalk_nodes = {x.node for x in recorded if x.node is not None}
        ours = set(qn) | {n for c in cn for n in c}
        rec["dalk_nodes"] = len(dalk_nodes)
        rec["dalk_nodes_found"] = len(dalk_nodes & ours)
    return rec


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Subset figures (shares in %, 1 decimal) from per-question records."""
    n = len(records)

    def pct(num: float, den: float) -> float | None:
        return round(100 * num / den, 1) if den else None

    reach = [r["gold_reachable"] for r in records if "gold_reachable" in r]
    dalk_n = sum(r.get("dalk_entities", 0) for r in records)
    out = {
        "questions": n,
        "linked_question": pct(sum(r["linked_question"] for r in records), n),
        "dalk_entities_linked": pct(sum(r.get("dalk_entities_linked", 0) for r in records), dalk_n),
        "dalk_nodes_found": pct(
            sum(r.get("dalk_nodes_found", 0) for r in records),
            sum(r.get("dalk_nodes", 0) for r in records),
        ),
        "choices_linked": pct(
            sum(sum(r["choices_linked"]) for r in records),
            sum(len(r["choices_linked"]) for r in records),
        ),
        "gold_reachable": pct(sum(reach), len(reach)),
        "gold_reachable_n": len(reach),
        "hit_gold": pct(sum(r["hit_gold"] for r in records), n),
        "hit_wrong": pct(sum(r["hit_wrong"] for r in records), n),
        "kg_accuracy": pct(sum(r["kg_correct"] for r in records), n),
        "kg_accuracy_ci": (
            [round(100 * x, 1) for x in wilson(sum(r["kg_correct"] for r in records), n)]
            if n
            else None
        ),
        "kg_answered": pct(sum(r["kg_answer"] is not None for r in records), n),
        "chance": pct(sum(r["chance"] for r in records), n),
        "evidence_gold": pct(sum(r["evidence_gold"] for r in records), n),
        "evidence_wrong": pct(sum(r["evidence_wrong"] for r in records), n),
        "retrieval_p50_ms": _quantile([r["retrieval_ms"] for r in records], 0.50),
        "retrieval_p95_ms": _quantile([r["retrieval_ms"] for r in records], 0.95),
    }
    if records and "llm_correct" in records[0]:
        out["accuracy"] = pct(sum(r["llm_correct"] for r in records), n)
        out["accuracy_without_kg"] = pct(sum(r["alone_correct"] for r in records), n)
        out["unparsed"] = sum(r["llm_choice"] is None for r in records)
        out["unparsed_without_kg"] = sum(r["alone_choice"] is None for r in records)
        out["invalid_citations"] = sum(r["invalid_citations"] for r in records)
        out["llm_calls"] = sum(r["llm_calls"] for r in records)
        out["prompt_tokens"] = sum(r["prompt_tokens"] for r in records)
        out["completion_tokens"] = sum(r["completion_tokens"] for r in records)
        out["cost_usd"] = round(sum(r["cost_usd"] for r in records), 6)
    return out


def _quantile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile (nearest rank) in ms, 1 decimal; None for no values."""
    if not values:
        return None
    v = sorted(values)
    return round(v[min(len(v) - 1, max(0, math.ceil(q * len(v)) - 1))], 1)


def replayed_entities(engine: QueryEngine, q: Question, embed: str) -> list[Link]:
    """DALK's recorded question entities linked to nodes (dictionary, then embedding)."""
    linker = engine.state().linker
    use = embed != "off" and linker.vectors is not None
    return linker.link_names(q.recorded_entities, "question", embed=use)


def evaluate(
    engine: QueryEngine,
    questions: Iterable[Question],
    *,
    k: int = 10,
    hops: int = 3,
    embed: str = "mentions",
    client: LLMClient | None = None,
    llm_entities: bool = True,
    rerank: bool = True,
    replay_entities: bool = False,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Figures per subset (and their unweighted mean ``AVG`` of accuracies with an LLM)."""
    by_subset: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i, q in enumerate(questions):
        if replay_entities and not q.recorded_entities:
            raise InputError(
                "--replay-entities needs recorded question entities (an 'entity' field, as in "
                "DALK's *_ner.json files)", question=q.qid, subset=q.subset,
            )  # fmt: skip
        replay = (
            {"entities": replayed_entities(engine, q, embed), "link_question": False}
            if replay_entities else {}
        )  # fmt: skip
        if client is None:
            r = engine.retrieve(q.question, q.choices, k=k, hops=hops, embed=embed, **replay)
            rec = question_record(engine, q, r, hops)
        else:
            a = answer_question(
                engine,
                client,
                q.question,
                q.choices,
                k=k,
                hops=hops,
                embed=embed,
                llm_entities=llm_entities and not replay_entities,
                rerank=rerank,
                **replay,
            )
            alone = answer_alone(client, q.question, q.choices, a.usage)
            rec = question_record(engine, q, a.retrieval, hops)
            rec.update(
                llm_choice=a.choice,
                llm_correct=a.choice == q.answer,
                alone_choice=alone.choice,
                alone_correct=alone.choice == q.answer,
                invalid_citations=len(a.invalid_citations),
                llm_calls=a.usage.calls,
                prompt_tokens=a.usage.prompt_tokens,
                completion_tokens=a.usage.completion_tokens,
                cost_usd=a.usage.cost_usd,
            )
        by_subset[q.subset].append(rec)
        if progress:
            progress(i + 1)
    subsets = {name: summarize(recs) for name, recs in sorted(by_subset.items())}
    out: dict[str, Any] = {
        "snapshot": engine.snapshot_id,
        "k": k,
        "hops": hops,
        "embed": embed,
        "replay_entities": replay_entities,
        "subsets": subsets,
    }
    if client is not None:
        accs = [s["accuracy"] for s in subsets.values() if s.get("accuracy") is not None]
        out["AVG"] = round(statistics.fmean(accs), 1) if accs else None
        alone = [s["accuracy_without_kg"] for s in subsets.values()
                 if s.get("accuracy_without_kg") is not None]  # fmt: skip
        out["AVG_without_kg"] = round(statistics.fmean(alone), 1) if alone else None
        out["reported"] = DALK_REPORTED
    return out


def year_chart(rows: list[dict[str, Any]], path: Path, figures: tuple[str, ...]) -> Path:
    """DALK Figure 3's shape: one line per (subset, figure) against the snapshot year."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=100)
    subsets = sorted({r["subset"] for r in rows})
    styles = ["-", "--", ":", "-."]
    for j, fig_name in enumerate(figures):
        for i, s in enumerate(subsets):
            pts = [
                (r["year"], r[fig_name])
                for r in rows
                if r["subset"] == s and r.get(fig_name) is not None
            ]
            if pts:
                xs, ys = zip(*sorted(pts), strict=True)
                ax.plot(
                    xs,
                    ys,
                    styles[i % len(styles)],
                    marker="o",
                    color=f"C{j}",
                    label=f"{s} {fig_name}",
                )
    ax.set_xlabel("snapshot year (cumulative KG)")
    ax.set_ylabel("%")
    ax.set_title("ADQA against each yearly snapshot (DALK Figure 3)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.13))
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, metadata={"Software": None})
    plt.close(fig)
    return path
