"""The verifier's own figures on gold pairs, outside the pipeline (no ingestion, no mapping).

Why apart from ``kgbuild eval re``: that command builds the gold file through the real pipeline,
so its figures also carry the pipeline's losses (ID checks at ingestion, pairs that are not KG
nodes, relations the mapping table cannot express). Scoring the model directly on the gold
mentions separates the model's quality from those losses.

Measures are micro P/R/F1 over unordered pairs per document, as in the BioCreative VIII BioRED
track (Islamaj et al. 2024): ``pair`` (related?), ``pair+type``, per gold type and per kind
pair; ``nodes`` restricts both sides to pairs of KG kinds (no variant endpoint: the pairs the
pipeline can emit). BC5CDR: ``CID`` (Wei et al. 2016). Every gold pair counts in recall,
whether or not the model could score it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from kgbuild.verifier.corpus import CID, GoldDoc

NODE_KINDS = frozenset({"Compound", "Disease", "Gene"})


@dataclass(frozen=True, slots=True)
class Scored:
    """One dev pair's raw head outputs (thresholds are applied when measuring)."""

    pmid: str
    a: str
    b: str
    kinds: str
    p_related: float
    rel_type: str
    p_cid: float | None


def prf(tp: int, n_pred: int, n_gold: int) -> dict[str, float | int]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"tp": tp, "predicted": n_pred, "gold": n_gold,
            "p": round(p, 4), "r": round(r, 4), "f1": round(f, 4)}  # fmt: skip


def _key(pmid: str, a: str, b: str) -> tuple[str, str, str]:
    return (pmid, a, b) if a <= b else (pmid, b, a)


def gold_pairs(docs: list[GoldDoc]) -> dict[tuple[str, str, str], frozenset[str]]:
    return {(d.doc.pmid, *pair): frozenset(t) for d in docs for pair, t in d.relations.items()}


def _kinds(docs: list[GoldDoc]) -> dict[tuple[str, str], str]:
    from kgbuild.verifier.text import mention_ids, mention_kind

    out: dict[tuple[str, str], str] = {}
    for d in docs:
        for m in d.mentions:
            for cid in mention_ids(m):
                out.setdefault((d.doc.pmid, cid), mention_kind(m))
    return out


def biored_figures(scored: list[Scored], docs: list[GoldDoc], threshold: float) -> dict[str, Any]:
    """Pair and pair+type figures (all pairs and KG-node pairs), per type, per kind pair."""
    gold = gold_pairs(docs)
    kind = _kinds(docs)

    def kinds_of(k: tuple[str, str, str]) -> str:
        return "|".join(sorted(kind.get((k[0], x), "?") for x in k[1:]))

    pred = {_key(s.pmid, s.a, s.b): s.rel_type for s in scored if s.p_related >= threshold}
    out: dict[str, Any] = {}
    for scope in ("all", "nodes"):

        def keep(k: tuple[str, str, str], scope: str = scope) -> bool:
            return scope == "all" or set(kinds_of(k).split("|")) <= NODE_KINDS

        g = {k: t for k, t in gold.items() if keep(k)}
        p = {k: t for k, t in pred.items() if keep(k)}
        out[scope] = {
            "pair": prf(len(g.keys() & p.keys()), len(p), len(g)),
            "pair+type": prf(sum(1 for k, t in p.items() if t in g.get(k, ())), len(p), len(g)),
        }
    types = sorted({t for ts in gold.values() for t in ts} | set(pred.values()))
    out["per_type"] = {
        t: prf(
            sum(1 for k, x in pred.items() if x == t and t in gold.get(k, ())),
            sum(1 for x in pred.values() if x == t),
            sum(1 for ts in gold.values() if t in ts),
        )
        for t in types
    }
    g_k = Counter(kinds_of(k) for k in gold)
    p_k = Counter(kinds_of(k) for k in pred)
    tp_k = Counter(kinds_of(k) for k in pred.keys() & gold.keys())
    out["per_kinds"] = {k: prf(tp_k[k], p_k[k], g_k[k]) for k in sorted(g_k | p_k)}
    return out


def cid_figures(scored: list[Scored], docs: list[GoldDoc], threshold: float) -> dict[str, Any]:
    """CID P/R/F1: Compound–Disease pairs at or over the CID threshold against CID pairs."""
    gold = {k for k, t in gold_pairs(docs).items() if CID in t}
    pred = {_key(s.pmid, s.a, s.b) for s in scored if s.p_cid is not None and s.p_cid >= threshold}
    return {"CID": prf(len(gold & pred), len(pred), len(gold))}
