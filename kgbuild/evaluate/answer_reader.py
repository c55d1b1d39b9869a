"""Train and measure the answer-sentence reader (:mod:`kgbuild.corpus.answer_reader`) on the
blind corpus-ceiling judgments.

Each judged question (label ``stated`` or ``partly``, primary round) is asked of a snapshot the
way ``kgbuild ask`` reads an open question's abstracts (the :data:`SENTENCE_ABSTRACTS` BM25 best,
their :data:`SENTENCES_EMBEDDED` sentences that write most of it, each with its MiniLM cosine);
a candidate is positive when it is the judge's quoted sentence (:func:`is_quote`). The model is a
logistic regression (L2, features standardised, weights written back in raw units); its ``C`` is
chosen by leave-one-walk-out cross-validation (a walk's questions are one writer's session), and
the figures written beside it are those held-out predictions, against the hand-weighted hybrid
on the same candidates:

- ``quote@k``: questions whose judge's quote is among the first k sentences, over those whose
  quote is among the candidates at all;
- ``pmid@k``: questions with a judged abstract's sentence among the first k.

Deterministic: same snapshot, same judgments → same file. ::

    python -m kgbuild.evaluate.answer_reader --warehouse warehouse \\
        --out data/answer_sentence_model.json
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.corpus.answer_reader import FEATURE_SET, FEATURES, FORMAT, candidates, features
from kgbuild.corpus.answer_sentences import (
    ABSTRACTS_READ as SENTENCE_ABSTRACTS,
)
from kgbuild.corpus.answer_sentences import SENTENCES_EMBEDDED, hybrid_scores
from kgbuild.corpus.passages import passages

ROOT = Path(__file__).resolve().parents[2]
WALKS = ROOT / "data" / "walks"
#: The judgments trained on: every blind corpus-ceiling file.
JUDGED = (WALKS / "ceiling" / "judged.tsv", WALKS / "walk13" / "ceiling.tsv",
          WALKS / "walk15" / "ceiling.tsv")  # fmt: skip
#: L2 strengths tried (sklearn's inverse ``C``).
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)
#: Characters of the judge's quote matched (quotes were copied by hand and sometimes cut).
QUOTE_CHARS = 200


def is_quote(sentence: str, evidence: str) -> bool:
    """Is ``sentence`` the judge's quoted evidence: its first :data:`QUOTE_CHARS` characters,
    whitespace and case aside, matched at 90% or more (rapidfuzz's partial ratio)?"""
    from rapidfuzz import fuzz

    ev = " ".join(evidence.lower().split())[:QUOTE_CHARS]
    s = " ".join(sentence.lower().split())
    return bool(ev) and len(s) >= len(ev) / 2 and fuzz.partial_ratio(ev, s) >= 90


def judged_questions(files: tuple[Path, ...] = JUDGED,
                     walks: Path = WALKS) -> list[dict[str, Any]]:  # fmt: skip
    """The primary judgments whose gold answer the corpus states (or partly), with their
    walk's question: walk, qid, question, evidence (the quote), pmids."""
    out = []
    for path in files:
        with open(path, encoding="utf-8", newline="") as fh:
            rows = [r for r in csv.DictReader(fh, delimiter="\t") if r["round"] == "primary"]
        asked: dict[tuple[str, str], str] = {}
        for walk in sorted({r["walk"] for r in rows}):
            for line in (walks / walk / "questions.jsonl").read_text("utf-8").splitlines():
                if line.strip():
                    q = json.loads(line)
                    asked[(walk, q["id"])] = q["question"]
        for r in rows:
            if r["label"] in ("stated", "partly") and r["evidence"].strip():
                pmids = [p.strip() for p in r["pmids"].split(",") if p.strip()]
                out.append({"walk": r["walk"], "qid": r["qid"], "pmids": pmids,
                            "question": asked[(r["walk"], r["qid"])],
                            "evidence": r["evidence"]})  # fmt: skip
    return out


def pools(engine: Any, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per question, its candidates as the query reads them: features, hybrid score, and
    whether each is the quote or from a judged abstract."""
    state = engine.state()
    idx = state.index
    index = idx.ensure_abstracts(engine.wh)
    encode = state.linker.vectors.encode
    out = []
    for q in questions:
        texts: dict[str, Any] = {}
        matching = passages(engine.wh, idx.snapshot_id, index, q["question"], SENTENCE_ABSTRACTS,
                            texts, read=SENTENCE_ABSTRACTS, min_cover=0.0)  # fmt: skip
        cands, _ = candidates(index, q["question"], matching, texts, SENTENCES_EMBEDDED)
        if not cands:
            continue
        vectors = encode([q["question"]] + [c.text for c in cands])
        cosine = vectors[1:] @ vectors[0]
        out.append({**q, "x": features(cands, cosine), "hybrid": hybrid_scores(cands, cosine),
                    "quote": np.array([is_quote(c.text, q["evidence"]) for c in cands]),
                    "judged": np.array([c.pmid in q["pmids"] for c in cands])})  # fmt: skip
    return out


def hits(pool: list[dict[str, Any]], scores: list[np.ndarray]) -> dict[str, int]:
    """quote@1/3/5 and pmid@1/3 of ``scores`` (one array per pool row), with their bases."""
    got = {"quote@1": 0, "quote@3": 0, "quote@5": 0, "with_quote": 0, "pmid@1": 0, "pmid@3": 0,
           "with_judged": 0}  # fmt: skip
    for p, s in zip(pool, scores, strict=True):
        order = sorted(range(len(s)), key=lambda k: (-round(float(s[k]), 9), k))
        if p["quote"].any():
            got["with_quote"] += 1
            for k in (1, 3, 5):
                got[f"quote@{k}"] += int(p["quote"][order[:k]].any())
        if p["judged"].any():
            got["with_judged"] += 1
            for k in (1, 3):
                got[f"pmid@{k}"] += int(p["judged"][order[:k]].any())
    return got


def fit(pool: list[dict[str, Any]], c: float) -> tuple[np.ndarray, float]:
    """Raw-unit weights and intercept of the L2 logistic regression on ``pool``."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([p["x"] for p in pool])
    y = np.concatenate([p["quote"] for p in pool]).astype(int)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=5000).fit((x - mean) / scale, y)
    w = model.coef_[0] / scale
    return w, float(model.intercept_[0] - (mean * w).sum())


def held_out(pool: list[dict[str, Any]], c: float) -> list[np.ndarray]:
    """Each question's scores from the model fitted on the other walks."""
    scores: list[np.ndarray] = [np.zeros(0)] * len(pool)
    for walk in sorted({p["walk"] for p in pool}):
        w, b = fit([p for p in pool if p["walk"] != walk], c)
        for i, p in enumerate(pool):
            if p["walk"] == walk:
                scores[i] = p["x"] @ w + b
    return scores


def train(pool: list[dict[str, Any]],
          say: Callable[[str], None] = print) -> dict[str, Any]:  # fmt: skip
    """The model file's content: ``C`` chosen by held-out quote@3 (then @1, then the weaker
    regularisation's order), the weights fitted on every walk, the held-out figures."""
    hybrid = hits(pool, [p["hybrid"] for p in pool])
    say(f"hybrid (hand-weighted): {hybrid}")
    tried = {}
    for c in C_GRID:
        tried[c] = hits(pool, held_out(pool, c))
        say(f"reader C={c}: {tried[c]}")
    best = max(C_GRID, key=lambda c: (tried[c]["quote@3"], tried[c]["quote@1"], -c))
    w, b = fit(pool, best)
    return {
        "format": FORMAT, "feature_set": FEATURE_SET, "label": "judge_quoted_sentence",
        "C": best, "coefficients": {"intercept": round(b, 6),
                                    **{f: round(float(v), 6) for f, v in zip(FEATURES, w,
                                                                               strict=True)}},
        "questions": len(pool), "candidates": int(sum(len(p["quote"]) for p in pool)),
        "held_out": {"by": "walk", "reader": tried[best], "hybrid": hybrid,
                     "walks": sorted({p["walk"] for p in pool})},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", "-w", type=Path, default=ROOT / "warehouse")
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--out", type=Path, help="model file to write (default: only report)")
    a = ap.parse_args(argv)
    from kgbuild.query.engine import QueryEngine

    engine = QueryEngine(a.warehouse, a.snapshot)
    questions = judged_questions()
    pool = pools(engine, questions)
    say = lambda s: print(s, file=sys.stderr)  # noqa: E731
    say(f"{len(questions)} judged questions, {len(pool)} with candidates")
    model = train(pool, say)
    model["snapshot"] = engine.state().index.snapshot_id
    model["judged"] = {str(p.relative_to(ROOT)): hashlib.sha256(p.read_bytes()).hexdigest()
                       for p in JUDGED}  # fmt: skip
    model["command"] = ("python -m kgbuild.evaluate.answer_reader --warehouse warehouse "
                        "--out data/answer_sentence_model.json")  # fmt: skip
    text = json.dumps(model, indent=1, sort_keys=False) + "\n"
    if a.out:
        a.out.write_text(text, encoding="utf-8")
    print(json.dumps(model["held_out"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
