"""The context handed to an LLM (or a person): top-k triples with their evidence, under a hard
token budget.

Each triple carries names, CURIEs, relation, support (distinct PMIDs), calibrated confidence, its
year span and ≤ 2 PMIDs with their evidence sentences — the citations GraphRAG/LightRAG users
keep asking for. The budget is hard: a triple whose lines do not fit is shortened (one sentence,
then none) and, if still too long, left out with every triple after it (reported in the
diagnostics), so the context never exceeds it. Rendering depends only on the snapshot and the
ranked triples: the same question on the same snapshot gives byte-identical text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgbuild.llm.tokens import estimate_tokens
from kgbuild.query.limits import DEFAULT_K, DEFAULT_TOKEN_BUDGET
from kgbuild.search.index import SnapshotIndex

#: Evidence sentences shown per triple, and the longest shown (characters; longer are cut).
EVIDENCE_PER_TRIPLE = 2
MAX_SENTENCE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Evidence:
    pmid: str
    year: int
    sentence: str
    #: The row's epistemic status (:mod:`kgbuild.extract.epistemics`; ``refuted`` when the
    #: verifier said no); empty when the index predates it.
    status: str = ""


@dataclass(frozen=True, slots=True)
class ContextTriple:
    rank: int
    triple_id: str
    head: str
    head_id: str
    relation: str
    tail: str
    tail_id: str
    support: int
    confidence: float
    first_year: int
    last_year: int
    score: float
    reasons: tuple[str, ...]
    evidence: tuple[Evidence, ...]
    #: The fact's belief in this snapshot (:mod:`kgbuild.belief.history`; 0 in older indexes).
    belief: float = 0.0
    #: Why the literature disagrees about it ("negated", "opposite_direction"), or
    #: "" — a contested fact is served with the mark, never hidden.
    contested: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "triple_id": self.triple_id,
            "head": self.head,
            "head_id": self.head_id,
            "relation": self.relation,
            "tail": self.tail,
            "tail_id": self.tail_id,
            "support": self.support,
            "confidence": self.confidence,
            "belief": self.belief,
            "contested": self.contested,
            "years": [self.first_year, self.last_year],
            "score": self.score,
            "reasons": list(self.reasons),
            "evidence": [
                {"pmid": x.pmid, "year": x.year, "sentence": x.sentence, "status": x.status}
                for x in self.evidence
            ],
        }

    @property
    def pmids(self) -> list[str]:
        return [x.pmid for x in self.evidence]


def evidence_for(index: SnapshotIndex, edge: int, as_of: int | None = None,
                 skip: frozenset[str] = frozenset()) -> list[Evidence]:  # fmt: skip
    """Up to EVIDENCE_PER_TRIPLE distinct PMIDs of an edge, most confident first (rows are
    stored in that order), only from years ≤ ``as_of`` when given, none of a status in
    ``skip``."""
    ev = index.evidence
    status = ev.get("status") or [""] * len(ev["edge"])
    out: list[Evidence] = []
    for r in range(int(index.ev_ptr[edge]), int(index.ev_ptr[edge + 1])):
        year = int(ev["year"][r])
        if (as_of is not None and year > as_of) or status[r] in skip:
            continue
        text = " ".join(ev["sentence"][r].split())
        if len(text) > MAX_SENTENCE_CHARS:
            text = text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
        out.append(Evidence(ev["pmid"][r], year, text, status[r]))
        if len(out) == EVIDENCE_PER_TRIPLE:
            break
    return out


def make_triple(
    index: SnapshotIndex,
    rank: int,
    edge: int,
    score: float,
    reasons: tuple[str, ...],
    evidence: list[Evidence],
) -> ContextTriple:
    e, n = index.edges, index.nodes
    h, t = int(e["head"][edge]), int(e["tail"][edge])
    return ContextTriple(
        rank,
        e["triple_id"][edge],
        n["display"][h],
        n["id"][h],
        e["relation"][edge],
        n["display"][t],
        n["id"][t],
        int(e["support"][edge]),
        round(float(e["confidence"][edge]), 4),
        int(e["first_year"][edge]),
        int(e["last_year"][edge]),
        score,
        reasons,
        tuple(evidence),
        round(float(e["belief"][edge]), 4) if "belief" in e else 0.0,
        e["contested"][edge] if "contested" in e else "",
    )


def render_triple(t: ContextTriple) -> str:
    years = f"{t.first_year}" if t.first_year == t.last_year else f"{t.first_year}–{t.last_year}"
    lines = [
        f"[{t.rank}] {t.head} [{t.head_id}] --{t.relation}--> {t.tail} [{t.tail_id}] "
        f"(support {t.support} PMIDs, confidence {t.confidence:.2f}, {years})"
        + (
            f" CONTESTED ({t.contested.replace(',', ', ')}: other papers disagree)"
            if t.contested
            else ""
        )
    ]
    lines += [f'    PMID {x.pmid} ({x.year}): "{x.sentence}"' for x in t.evidence]
    return "\n".join(lines)


HEADER = "Knowledge graph facts (head --relation--> tail), each with supporting PubMed sentences:"


SENTENCE_HEADER = (
    "Evidence sentences found for each choice (BM25 over the snapshot's evidence sentences):"
)


def build_context(
    index: SnapshotIndex,
    ranked: list[tuple[int, float, tuple[str, ...]]],
    k: int = DEFAULT_K,
    token_budget: int = DEFAULT_TOKEN_BUDGET,
    as_of: int | None = None,
    sentences: list[tuple[str, int, float]] | None = None,
    choices: list[str] | None = None,
    answering: list[dict[str, Any]] | None = None,
) -> tuple[list[ContextTriple], str, dict[str, int]]:
    """The top ``k`` of ``ranked`` (edge, score, reasons) that fit ``token_budget``, then the
    ``answering`` sentences (an open question's abstracts' sentences that best answer it,
    :mod:`kgbuild.corpus.answer_reader`: pmid, year, sentence) and the evidence ``sentences``
    (what each was found for — ``choice:<i>`` or ``question`` —, row, BM25) while they fit:
    the triples, the text, and what the budget cost (shortened / left out)."""
    used = estimate_tokens(HEADER)
    out: list[ContextTriple] = []
    blocks = [HEADER]
    stats = {"shortened": 0, "left_out": 0, "sentences": 0, "sentences_left_out": 0}
    said = _answering_lines(answering or [])
    # the reader's sentences keep their room (at most a third of the budget) however many
    # facts there are: on a hub they are what answers, and ten facts fill the budget alone
    reserved = min(token_budget // 3, sum(estimate_tokens(x) + 1 for x in said)
                   + (estimate_tokens(SENTENCE_HEADER) + 1 if said else 0))  # fmt: skip
    for pos, (edge, score, reasons) in enumerate(ranked[:k]):
        ev = evidence_for(index, edge, as_of)
        fitted = None
        for n_ev in range(len(ev), -1, -1):
            t = make_triple(index, len(out) + 1, edge, score, reasons, ev[:n_ev])
            text = render_triple(t)
            if used + estimate_tokens(text) + 1 <= token_budget - reserved:
                fitted = (t, text, n_ev < len(ev))
                break
        if fitted is None:
            stats["left_out"] = len(ranked[:k]) - pos
            break
        t, text, short = fitted
        stats["shortened"] += short
        used += estimate_tokens(text) + 1
        out.append(t)
        blocks.append(text)
    if not out:
        blocks, used = [], 0
    lines = said + _sentence_lines(index, sentences or [], choices or [])
    if stats["left_out"]:  # facts left out: no BM25 sentence, but the reader's keep their room
        bm25 = lines[len(said) :]
        stats["sentences_left_out"] = sum(1 for x in bm25 if x.startswith("  "))
        lines = said
    if lines:
        cost = estimate_tokens(SENTENCE_HEADER) + 1
        if used + cost <= token_budget:
            blocks.append(SENTENCE_HEADER)
            used += cost
            for n, line in enumerate(lines):
                cost = estimate_tokens(line) + 1
                if used + cost > token_budget:
                    stats["sentences_left_out"] += sum(1 for x in lines[n:] if x.startswith("  "))
                    break
                blocks.append(line)
                used += cost
                stats["sentences"] += line.startswith("  ")
    if blocks and blocks[-1] == SENTENCE_HEADER:
        blocks.pop()
    return out, "\n".join(blocks), stats


#: The label of the answer-sentence reader's sentences in the context.
ANSWERING_LABEL = "(read from the abstracts: the sentences that best answer the question)"


def _answering_lines(answering: list[dict[str, Any]]) -> list[str]:
    """The reader's sentences, labelled and indented like the evidence sentences."""
    lines = [ANSWERING_LABEL] if answering else []
    for x in answering:
        text = " ".join(str(x["sentence"]).split())
        if len(text) > MAX_SENTENCE_CHARS:
            text = text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
        lines.append(f'  PMID {x["pmid"]} ({int(x["year"])}): "{text}"')
    return lines


def _sentence_lines(index: SnapshotIndex, sentences: list[tuple[str, int, float]],
                    choices: list[str]) -> list[str]:  # fmt: skip
    """One label line per choice (or the question), then its sentences, indented."""
    s = index.sentences
    lines: list[str] = []
    last = None
    for where, row, _score in sentences:
        if where != last:
            if where.startswith("choice:"):
                i = int(where.split(":")[1])
                lines.append(f"({chr(65 + i)}) {' '.join(choices[i].split())[:80]}")
            else:
                lines.append("(question)")
            last = where
        text = " ".join(s["sentence"][row].split())
        if len(text) > MAX_SENTENCE_CHARS:
            text = text[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"
        lines.append(f'  PMID {s["pmid"][row]} ({int(s["year"][row])}): "{text}"')
    return lines
