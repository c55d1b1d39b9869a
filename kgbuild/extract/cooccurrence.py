"""Sentence co-occurrence extraction: the no-LLM default and the baseline for LLM extractors.

Two normalized entities mentioned in one sentence, whose Hetionet kinds have relations in DALK
Table 11, give one candidate triple with the pair's association-style relation
(``data/cooccurrence_relations.tsv``) and that sentence as evidence. Co-mention is weak
evidence; its strength shows in support (distinct PMIDs), not in the relation it claims.

A dense document is bounded (:mod:`kgbuild.extract.caps`): a sentence pairs at most its
``MAX_ENTITIES_PER_SENTENCE`` most-mentioned entities, a document keeps at most
``MAX_PAIRS_PER_DOCUMENT`` co-mentions (earliest sentences first), and such a document is
``partial`` with the cap in its reason.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, islice
from typing import Any, NamedTuple

from kgbuild.extract.base import ExtractionResult
from kgbuild.extract.caps import (
    MAX_ENTITIES_PER_SENTENCE,
    MAX_PAIRS_PER_DOCUMENT,
    cap_reason,
    count_pairs,
    rank_key,
)
from kgbuild.extract.claims import evidence_confidence
from kgbuild.extract.epistemics import classify
from kgbuild.extract.sentences import sentence_spans
from kgbuild.records import Document, Evidence, ExtractionStatus, Mention, Triple, stable_id
from kgbuild.schema import RelationOption, cooccurrence_relations
from kgbuild.triples import triple_key

METHOD = "cooccurrence"
EXTRACTOR = "kgbuild.cooccurrence/1"


class CooccurrenceExtractor:
    """The slice interface over :func:`extract_bounded` (no LLM: a document is ``done``, or
    ``partial`` when it is over a cap)."""

    method = METHOD

    def config(self) -> dict[str, Any]:
        return {
            "method": METHOD,
            "max_entities_per_sentence": MAX_ENTITIES_PER_SENTENCE,
            "max_pairs_per_document": MAX_PAIRS_PER_DOCUMENT,
        }

    def close(self) -> None:
        pass

    def extract(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> ExtractionResult:
        out = ExtractionResult()
        for doc in docs:
            got = extract_bounded(doc, mentions.get(doc.pmid, []))
            out.triples.extend(got.triples)
            out.evidence.extend(got.evidence)
            status = "partial" if got.capped else "done"
            out.statuses.append(
                ExtractionStatus(doc.pmid, doc.year, METHOD, status, got.capped or "ok",
                                 n_triples=len(got.triples))
            )  # fmt: skip
        return out


class CoMentions(NamedTuple):
    """A document's co-occurrence triples and evidence, and the cap reason ('' if none)."""

    triples: list[Triple]
    evidence: list[Evidence]
    capped: str


def orient(a: Mention, b: Mention, option: RelationOption) -> tuple[Mention, Mention]:
    """Head first: the metaedge's source kind across kinds, sorted IDs for symmetric pairs."""
    if a.hetionet_type == b.hetionet_type:
        return (a, b) if (a.concept_id or "") <= (b.concept_id or "") else (b, a)
    return (a, b) if a.hetionet_type == option.head_kind else (b, a)


def extract(doc: Document, mentions: list[Mention]) -> tuple[list[Triple], list[Evidence]]:
    """Co-occurrence triples and their evidence sentences for one document (bounded)."""
    got = extract_bounded(doc, mentions)
    return got.triples, got.evidence


def _allowed(kind_a: str, kind_b: str) -> bool:
    return frozenset((kind_a, kind_b)) in cooccurrence_relations()


def extract_bounded(doc: Document, mentions: list[Mention]) -> CoMentions:
    """Co-occurrence triples and evidence for one document, within the caps.

    A sentence pairs its ``MAX_ENTITIES_PER_SENTENCE`` top entities (most mentions in the
    document, then earliest); pairs are generated lazily and stop at ``MAX_PAIRS_PER_DOCUMENT``
    co-mentions, so a sentence of 800 entities never builds its 319,600 pairs.
    """
    nodes = [m for m in mentions if m.hetionet_type and m.concept_id]
    if len(nodes) < 2:
        return CoMentions([], [], "")
    text = doc.text
    spans = sentence_spans(text, [(m.start, m.end) for m in mentions], [len(doc.title) + 1])
    options = cooccurrence_relations()
    triples: dict[str, Triple] = {}
    evidence: list[Evidence] = []
    nodes.sort(key=lambda m: m.start)
    counts = Counter(m.concept_id or "" for m in nodes)
    firsts: dict[str, int] = {}
    for m in nodes:
        firsts.setdefault(m.concept_id or "", m.start)

    def rank(m: Mention) -> tuple[int, int, str]:
        cid = m.concept_id or ""
        return rank_key(counts[cid], firsts[cid], cid)

    total = 0
    i = 0
    for s_start, s_end in spans:
        first: dict[str, Mention] = {}
        while i < len(nodes) and nodes[i].start < s_end:
            m = nodes[i]
            if m.start >= s_start:
                first.setdefault(m.concept_id or "", m)
            i += 1
        if len(first) < 2:
            continue
        total += count_pairs(Counter(m.hetionet_type or "" for m in first.values()), _allowed)
        members = sorted(first.values(), key=rank)[:MAX_ENTITIES_PER_SENTENCE]
        pairs = (
            (a, b, option)
            for a, b in combinations(sorted(members, key=lambda m: m.concept_id or ""), 2)
            if (option := options.get(frozenset((a.hetionet_type, b.hetionet_type))))
        )
        sentence = text[s_start:s_end]  # one string per sentence, shared by its evidence
        for a, b, option in islice(pairs, MAX_PAIRS_PER_DOCUMENT - len(evidence)):
            head, tail = orient(a, b, option)
            status, cue = classify(
                text, (s_start, s_end), (head.start, head.end), (tail.start, tail.end),
                "", s_end <= len(doc.title),
            )  # fmt: skip
            tid = triple_key(head.concept_id, option.relation, tail.concept_id)
            if tid not in triples:
                triples[tid] = Triple(
                    tid,
                    head.concept_id,
                    option.relation,
                    tail.concept_id,
                    option.relation,
                    METHOD,
                    option.metaedge,
                )
            evidence.append(
                Evidence(
                    evidence_id=stable_id(tid, doc.pmid, s_start, METHOD),
                    triple_id=tid,
                    pmid=doc.pmid,
                    year=doc.year,
                    sentence=sentence,
                    sent_start=s_start,
                    sent_end=s_end,
                    head_start=head.start,
                    head_end=head.end,
                    tail_start=tail.start,
                    tail_end=tail.end,
                    method=METHOD,
                    extractor=EXTRACTOR,
                    relation_raw=option.relation,
                    head_text=head.text,
                    tail_text=tail.text,
                    confidence=evidence_confidence(METHOD),
                    epistemic=status,
                    epistemic_cue=cue,
                )
            )
    limits = (
        f"{MAX_ENTITIES_PER_SENTENCE} entities a sentence or {MAX_PAIRS_PER_DOCUMENT:,} a document"
    )
    capped = cap_reason(total, len(evidence), "sentence co-mention pairs", limits)
    return CoMentions(list(triples.values()), evidence, capped)
