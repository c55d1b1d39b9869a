"""A "how does X affect Y" question answered first by what joins X and Y.

"How does sleep deprivation affect amyloid beta levels?" names both ends of what it asks: the
reader wants what the literature says joins them ("sleep deprivation raises Abeta via neuronal
activity"), and then, if the KG has them, the genes a mechanism runs through. The mechanism
kind (``data/answer_kinds.toml``: Hetionet's CbG/GiG/GpPW legs) lists only genes between the
two; a pair joined by one served fact and no such gene would otherwise get "no answer". So, as
a yes/no question's verdict does (:func:`kgbuild.query.verdict.pair_verdict`), the pair's
served facts come first with their best sentences; when no fact joins them, the snapshot's
sentences naming both (:func:`kgbuild.query.verdict_sentences.sentence_verdict`), labelled as
not extracted. A kind asks for this with ``pair = true`` in its row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgbuild.query.verdict import pair_verdict
from kgbuild.query.verdict_sentences import MAX_SHOWN, sentence_verdict
from kgbuild.question.intent import Intent
from kgbuild.search.graph import Graph
from kgbuild.search.index import SnapshotIndex

#: Sentences shown per fact joining the pair (distinct PMIDs, most confident first).
PER_FACT = 2


def how_pair_nodes(intent: Intent, nodes: list[int]) -> tuple[int, int] | None:
    """The two entities a how-question joins: its first two distinct linked entities, when
    its kind asks for the pair (``pair = true``) and it names two."""
    if intent.kind is None or not intent.kind.pair or intent.yes_no:
        return None
    distinct = list(dict.fromkeys(nodes))
    return (distinct[0], distinct[1]) if len(distinct) >= 2 else None


def _fact_sentences(facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fact's best served sentence (most confident first), as a verdict shows them."""
    out, seen = [], set()
    for f in facts:
        for ev in f["evidence"][:PER_FACT]:
            if ev["pmid"] not in seen:
                seen.add(ev["pmid"])
                out.append({"pmid": ev["pmid"], "year": ev["year"], "reading": "",
                            "sentence": ev["sentence"]})  # fmt: skip
    return out[:MAX_SHOWN]


def how_pair(wh: Any, index: SnapshotIndex, lexical: Any, graph: Graph, mask: Any,
             question: str, pair: tuple[int, int], intent: Intent, as_of: int | None = None,
             links: Sequence[Any] = ()) -> dict[str, Any] | None:  # fmt: skip
    """What joins the pair: its served facts and their best sentences, else the sentences
    naming both; None when neither exists (the mechanism answers, or their absence, stand)."""
    a, b = pair
    base = pair_verdict(index, graph, mask, a, b, intent, as_of)
    x, y = base["names"]
    if base["facts"]:
        rels = ", ".join(f"{r} {n}" for r, n in base["by_relation"].items())
        out = {k: v for k, v in base.items() if k != "pair"}  # no yes/no statuses redo it
        out.update(
            answer="joined", basis="facts", ids=base["pair"],
            line=f"what joins {x} and {y}: {_n(len(base['facts']), 'served fact')} in "
                 f"{_n(base['mentioned'], 'PMID')} ({rels}); their best sentences below",
            sentences=_fact_sentences(base["facts"]),
        )  # fmt: skip
        return out
    got = sentence_verdict(wh, index, lexical, question, base, pair, [a, b], intent, as_of,
                           links)  # fmt: skip
    if got is None or got.get("basis") != "sentences":
        return None
    counts = got["sentence_counts"]
    out = {k: v for k, v in got.items() if k != "pair"}
    out.update(
        answer="sentences", ids=base["pair"], edges=[],
        line=f"what joins {x} and {y}: no served fact; {_n(counts['sentences'], 'sentence')} "
             f"in {_n(counts['abstracts'], 'abstract')} naming both (not extracted as facts), "
             "the plainest below",
    )  # fmt: skip
    for s in out["sentences"]:
        s["reading"] = ""  # read against no asked predicate: a how-question asks none
    return out


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
