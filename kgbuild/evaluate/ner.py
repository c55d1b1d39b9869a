"""NER evaluation against a gold set: strict and overlapping precision / recall / F1.

Why two matches: **strict** (same start, end and type) is the measure of BioCreative V CDR and
of tmChem's published figures; annotators disagree about boundaries (determiners, "-induced",
a trailing "s", composite mentions), so **overlapping** (spans share a character and have the
same type) shows how much of the gap is boundaries rather than missed or invented entities.

Counting. Spans are (pmid, start, end, type) and count once however often they are listed.
Strict: a true positive is a span in both sets. Overlapping (BioCreative-style approximate
match, one-to-many): precision counts the predicted spans that overlap some gold span of their
type, recall the gold spans that some predicted span of their type overlaps. Only the PMIDs of
the gold set are scored: predictions for other documents are ignored, and a gold document with
no predictions has all its gold spans missed. Micro averages pool the counts of every type.

Types are compared by **Hetionet kind** when a mention has one, else by its source type, so
BC5CDR's Chemical, BioRED's ChemicalEntity and scispaCy's CHEMICAL all score as Compound;
``types`` may name either vocabulary ("Chemical" means Compound). Intervals (:mod:`.bootstrap`)
resample documents, from the per-document counts of :func:`ner_counts`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from kgbuild.records import Mention
from kgbuild.schema import hetionet_kind

SpanKey = tuple[str, int, int, str]


def entity_type(m: Mention) -> str:
    """The type a mention is scored as: its Hetionet kind, else its source type."""
    return m.hetionet_type or m.source_type


def canonical_type(name: str) -> str:
    """A type named in either vocabulary ("Chemical", "Compound") → the scored type."""
    return hetionet_kind(name) or name


def _spans(by_pmid: dict[str, list[Mention]], pmids: set[str]) -> set[SpanKey]:
    return {
        (pmid, m.start, m.end, entity_type(m))
        for pmid, mentions in by_pmid.items()
        if pmid in pmids
        for m in mentions
    }


def _overlapping(spans: set[SpanKey], others: set[SpanKey]) -> list[SpanKey]:
    """The spans of ``spans`` that overlap at least one span of ``others`` of the same type."""
    index: dict[tuple[str, str], list[tuple[int, int]]] = defaultdict(list)
    for pmid, start, end, typ in others:
        index[(pmid, typ)].append((start, end))
    return [
        (pmid, s, e, typ)
        for pmid, s, e, typ in spans
        if any(s < e2 and s2 < e for s2, e2 in index.get((pmid, typ), ()))
    ]


def _prf(tp_pred: int, n_pred: int, tp_gold: int, n_gold: int) -> dict[str, float]:
    p = tp_pred / n_pred if n_pred else 0.0
    r = tp_gold / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _score(gold: set[SpanKey], pred: set[SpanKey]) -> dict[str, Any]:
    tp = len(gold & pred)
    tp_pred, tp_gold = len(_overlapping(pred, gold)), len(_overlapping(gold, pred))
    return {
        "n_gold": len(gold),
        "n_predicted": len(pred),
        "strict": {"tp": tp, **_prf(tp, len(pred), tp, len(gold))},
        "overlap": {
            "tp_predicted": tp_pred,
            "tp_gold": tp_gold,
            **_prf(tp_pred, len(pred), tp_gold, len(gold)),
        },
    }


def _wanted(g: set[SpanKey], p: set[SpanKey], types: list[str] | None) -> list[str]:
    if types:
        return list(dict.fromkeys(canonical_type(t) for t in types))
    return sorted({s[3] for s in g} | {s[3] for s in p})


def ner_scores(
    gold: dict[str, list[Mention]],
    predicted: dict[str, list[Mention]],
    types: list[str] | None = None,
) -> dict[str, Any]:
    """Strict and overlapping P/R/F1 per type and micro-averaged, over the gold PMIDs.

    ``types`` restricts the evaluation (default: every type in gold or predictions).
    Returns ``{"n_documents", "types": {type: scores}, "micro": scores}``.
    """
    pmids = set(gold)
    g, p = _spans(gold, pmids), _spans(predicted, pmids)
    wanted = _wanted(g, p, types)
    g = {s for s in g if s[3] in wanted}
    p = {s for s in p if s[3] in wanted}
    per_type = {t: _score({s for s in g if s[3] == t}, {s for s in p if s[3] == t}) for t in wanted}
    return {"n_documents": len(pmids), "types": per_type, "micro": _score(g, p)}


def ner_counts(
    pmids: list[str],
    gold: dict[str, list[Mention]],
    predicted: dict[str, list[Mention]],
    types: list[str],
) -> dict[str, dict[str, np.ndarray]]:
    """Per type (and ``micro`` over ``types``), per match (``strict``, ``overlap``), one row per
    document of ``pmids``: (tp_predicted, n_predicted, tp_gold, n_gold)."""
    row = {p: i for i, p in enumerate(pmids)}
    g, p = _spans(gold, set(row)), _spans(predicted, set(row))
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, kinds in [*((t, {t}) for t in types), ("micro", set(types))]:
        gs = {s for s in g if s[3] in kinds}
        ps = {s for s in p if s[3] in kinds}
        strict = np.zeros((len(pmids), 4), dtype=np.int64)
        overlap = np.zeros((len(pmids), 4), dtype=np.int64)
        for col, spans in ((1, ps), (3, gs)):
            for s in spans:
                strict[row[s[0]], col] += 1
                overlap[row[s[0]], col] += 1
        for s in gs & ps:
            strict[row[s[0]], 0] += 1
            strict[row[s[0]], 2] += 1
        for s in _overlapping(ps, gs):
            overlap[row[s[0]], 0] += 1
        for s in _overlapping(gs, ps):
            overlap[row[s[0]], 2] += 1
        out[name] = {"strict": strict, "overlap": overlap}
    return out
