"""Sentence co-occurrence extraction: the no-LLM default and the baseline for LLM extractors.

Two normalized entities mentioned in one sentence, whose Hetionet kinds have relations in DALK
Table 11, give one candidate triple with the pair's association-style relation
(``data/cooccurrence_relations.tsv``) and that sentence as evidence. Co-mention is weak
evidence; its strength shows in support (distinct PMIDs), not in the relation it claims.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from kgbuild.extract.base import ExtractionResult
from kgbuild.extract.claims import evidence_confidence
from kgbuild.extract.sentences import sentence_spans
from kgbuild.records import Document, Evidence, ExtractionStatus, Mention, Triple, stable_id
from kgbuild.schema import RelationOption, cooccurrence_relations
from kgbuild.triples import triple_key

METHOD = "cooccurrence"
EXTRACTOR = "kgbuild.cooccurrence/1"


class CooccurrenceExtractor:
    """The slice interface over :func:`extract` (no LLM: every document is ``done``)."""

    method = METHOD

    def config(self) -> dict[str, Any]:
        return {"method": METHOD}

    def close(self) -> None:
        pass

    def extract(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> ExtractionResult:
        out = ExtractionResult()
        for doc in docs:
            triples, evidence = extract(doc, mentions.get(doc.pmid, []))
            out.triples.extend(triples)
            out.evidence.extend(evidence)
            out.statuses.append(
                ExtractionStatus(doc.pmid, doc.year, METHOD, "done", "ok", n_triples=len(triples))
            )
        return out


def orient(a: Mention, b: Mention, option: RelationOption) -> tuple[Mention, Mention]:
    """Head first: the metaedge's source kind across kinds, sorted IDs for symmetric pairs."""
    if a.hetionet_type == b.hetionet_type:
        return (a, b) if (a.concept_id or "") <= (b.concept_id or "") else (b, a)
    return (a, b) if a.hetionet_type == option.head_kind else (b, a)


def extract(doc: Document, mentions: list[Mention]) -> tuple[list[Triple], list[Evidence]]:
    """Co-occurrence triples and their evidence sentences for one document."""
    nodes = [m for m in mentions if m.hetionet_type and m.concept_id]
    if len(nodes) < 2:
        return [], []
    text = doc.text
    spans = sentence_spans(text, [(m.start, m.end) for m in mentions], [len(doc.title) + 1])
    options = cooccurrence_relations()
    triples: dict[str, Triple] = {}
    evidence: list[Evidence] = []
    nodes.sort(key=lambda m: m.start)
    i = 0
    for s_start, s_end in spans:
        first: dict[str, Mention] = {}
        while i < len(nodes) and nodes[i].start < s_end:
            m = nodes[i]
            if m.start >= s_start:
                first.setdefault(m.concept_id or "", m)
            i += 1
        for a, b in combinations(sorted(first.values(), key=lambda m: m.concept_id or ""), 2):
            option = options.get(frozenset((a.hetionet_type, b.hetionet_type)))
            if option is None:
                continue
            head, tail = orient(a, b, option)
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
                    sentence=text[s_start:s_end],
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
                )
            )
    return list(triples.values()), evidence
