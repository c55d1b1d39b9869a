"""Relation extraction by the trained relation verifier: the offline default extractor.

Every pair of normalized entities of a document (Compound, Disease, Gene; the kind pairs BioRED
annotates) is scored by :mod:`kgbuild.verifier` — P(the abstract states a relation), its BioRED
type (Luo et al. 2022), and for a chemical and a disease P(the chemical induces it) (BC5CDR's
CID, Wei et al. 2016). Relations are document-level, as in both corpora, so a pair need not
share a sentence.

What is written, per pair:

- the verifier is confident (over its pair threshold; for Compound–Disease, over its CID
  threshold, or related and a Negative_Correlation): a typed triple, its BioRED type read as
  kgbuild's canonical relation through ``data/pair_relations.tsv`` (a table, so that
  ``data/gold_relation_map.tsv`` reads it back as the same type);
- otherwise, when the two share a sentence: ``co_mentioned`` — an honest "named together",
  not a Hetionet relation and no relation of any gold scheme.

Evidence cites the sentence holding the closest mentions of the two or, when they never share
one, the span of sentences from one closest mention to the other (its epistemic status is then
``not_in_sentence``: a sentence-level reader cannot check it, so it is kept but not served by
default). Each row records the verifier's P(related) in ``verifier_score`` and, as its
``confidence``, the probability of the claim it makes (P(CID) for a CID-decided row). Dense
documents are bounded like co-occurrence (:mod:`kgbuild.extract.caps`): at most
``MAX_PAIRS_PER_DOCUMENT`` pairs, those of the most-mentioned entities, and the document ends
``partial`` with the cap in its reason.
"""

from __future__ import annotations

import bisect
from collections import Counter
from itertools import islice
from typing import Any

from kgbuild.errors import ConfigError
from kgbuild.extract.base import ExtractionResult
from kgbuild.extract.caps import (
    MAX_PAIRS_PER_DOCUMENT,
    cap_reason,
    count_pairs,
    rank_key,
    ranked_pairs,
)
from kgbuild.extract.epistemics import classify
from kgbuild.extract.sentences import sentence_spans
from kgbuild.pair_relations import pair_relation
from kgbuild.records import Document, Evidence, ExtractionStatus, Mention, Triple, stable_id
from kgbuild.triples import orient, triple_key
from kgbuild.verifier.features import doc_context
from kgbuild.verifier.model import PairScore, Verifier, load_verifier
from kgbuild.verifier.text import doc_view

METHOD = "classifier"
EXTRACTOR = "kgbuild.classifier/1"
CO_MENTIONED = "co_mentioned"
#: Kind pairs scored: BioRED's pair types between KG node kinds (a variant is not a node).
NODE_PAIRS = frozenset(
    {("Compound", "Compound"), ("Compound", "Disease"), ("Compound", "Gene"),
     ("Disease", "Gene"), ("Gene", "Gene")}
)  # fmt: skip
#: The reading of a pair the CID head decides "induced" (BC5CDR's chemical-induced disease).
CID = "CID"
#: A chemical–disease pair the verifier relates but the CID head does not read as induced,
#: and not as a treatment: related, but neither ``associates`` nor ``causes`` (both of
#: which claim "induces" in BC5CDR's terms, data/gold_relation_map.tsv).
RELATED_NOT_INDUCED = "related_to"
#: The predicate written for a relation whose name resolution would read otherwise ("related
#: to" is ``associates`` in data/relation_synonyms.tsv); the table has a row for each label.
RAW = {"related_to": "unspecified relation", CO_MENTIONED: CO_MENTIONED}


def relation_for(score: PairScore) -> tuple[str, str, str, float] | None:
    """(canonical relation, head role, claim as written, its probability) of a confident pair,
    or None (not confident: at most a co-mention). The reading (a BioRED type, or CID) is named
    per kind pair by ``data/pair_relations.tsv`` (:func:`kgbuild.pair_relations.pair_relation`): a
    chemical that induces a disease ``causes`` it, one negatively correlated with it ``treats``
    it; the head is the kinds' Hetionet order or, where the table says so, the one named first."""
    if score.cid is not None:  # Compound–Disease: the CID head decides "induces"
        if score.cid:
            reading = "Association" if score.rel_type == "Association" else CID
            return (*_named(reading, score), "CID", float(score.p_cid or 0.0))
        if not score.related:
            return None
        if score.rel_type == "Negative_Correlation":
            return (*_named(score.rel_type, score), score.rel_type, score.p_related)
        return RELATED_NOT_INDUCED, "kind", score.rel_type, score.p_related
    if not score.related:
        return None
    return (*_named(score.rel_type, score), score.rel_type, score.p_related)


def _named(reading: str, score: PairScore) -> tuple[str, str]:
    """(relation, head role) of a reading between the pair's kinds (the table covers every
    reading the verifier gives for every pair it scores; a test iterates them)."""
    row = pair_relation(reading, score.kind_a, score.kind_b)
    if row is None:
        raise ConfigError(
            "no pair relation row", reading=reading, kinds=f"{score.kind_a}|{score.kind_b}"
        )
    return row.relation, row.head


class ClassifierExtractor:
    """The slice interface over :func:`extract_document` (no LLM: a document is ``done``, or
    ``partial`` when it is over the pair cap)."""

    method = METHOD

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier or load_verifier()

    def config(self) -> dict[str, Any]:
        return {
            "method": METHOD,
            "verifier": self.verifier.ref,
            "thresholds": {
                "pair": self.verifier.pair_threshold,
                "cid": self.verifier.cid_threshold,
            },
            "max_pairs_per_document": MAX_PAIRS_PER_DOCUMENT,
        }

    def close(self) -> None:
        pass

    def extract(self, docs: list[Document], mentions: dict[str, list[Mention]]) -> ExtractionResult:
        out = ExtractionResult()
        for doc in docs:
            triples, evidence, capped = extract_document(
                doc, mentions.get(doc.pmid, []), self.verifier
            )
            out.triples.extend(triples)
            out.evidence.extend(evidence)
            out.statuses.append(
                ExtractionStatus(doc.pmid, doc.year, METHOD, "partial" if capped else "done",
                                 capped or "ok", n_triples=len(triples),
                                 model=self.verifier.ref)
            )  # fmt: skip
        return out


def _allowed(kind_a: str, kind_b: str) -> bool:
    return tuple(sorted((kind_a, kind_b))) in NODE_PAIRS


def extract_document(
    doc: Document, mentions: list[Mention], verifier: Verifier
) -> tuple[list[Triple], list[Evidence], str]:
    """Triples, evidence and the cap reason ('' if none) of one document."""
    nodes = {m.concept_id for m in mentions if m.hetionet_type and m.concept_id}
    if len(nodes) < 2:
        return [], [], ""
    view = doc_view(doc, mentions)
    ctx = doc_context(view)
    ents = sorted(
        (e for e in view.entities.values() if e.id in nodes),
        key=lambda e: rank_key(len(e.units), e.units[0], e.id),
    )
    total = count_pairs(Counter(e.kind for e in ents), _allowed)
    pairs = ((a, b) for a, b in ranked_pairs(ents) if _allowed(a.kind, b.kind))
    text = doc.text
    spans = sentence_spans(text, [(m.start, m.end) for m in mentions], [len(doc.title) + 1])
    starts = [s for s, _ in spans]
    triples: dict[str, Triple] = {}
    evidence: list[Evidence] = []
    n = 0
    for a, b in islice(pairs, MAX_PAIRS_PER_DOCUMENT):
        n += 1
        score = verifier.score(ctx, a.id, b.id)
        claim = relation_for(score)
        cited = _cited(spans, starts, score.mention_a, score.mention_b)
        if claim is None and cited[0] != cited[1]:
            continue  # neither confident nor in one sentence: nothing to say
        rel, head_role, raw, p = claim or (CO_MENTIONED, "kind", CO_MENTIONED, score.p_related)
        (h_id, head, h_kind), (t_id, tail, t_kind) = _orient(score, head_role)
        metaedge, swap = orient(h_id, h_kind, rel, t_id, t_kind)
        if swap:
            (h_id, head), (t_id, tail) = (t_id, tail), (h_id, head)
        tid = triple_key(h_id, rel, t_id)
        triples.setdefault(tid, Triple(tid, h_id, rel, t_id, RAW.get(rel, rel), METHOD, metaedge))
        span = (spans[cited[0]][0], spans[cited[1]][1])
        evidence.append(_evidence(doc, span, tid, head, tail, raw, p, score.p_related, verifier))
    limits = f"{MAX_PAIRS_PER_DOCUMENT:,} a document"
    return list(triples.values()), evidence, cap_reason(total, n, "entity pairs", limits)


End = tuple[str, Mention, str]


def _orient(score: PairScore, role: str) -> tuple[End, End]:
    """(head, tail) as (concept, closest mention, kind): by the kinds' order
    (``data/pair_relations.tsv``; one kind: the smaller ID first), or the one mentioned first."""
    a = (score.a, score.mention_a, score.kind_a)
    b = (score.b, score.mention_b, score.kind_b)
    if role == "first":
        first_a = (score.mention_a.start, score.a) <= (score.mention_b.start, score.b)
        return (a, b) if first_a else (b, a)
    return (a, b) if (score.kind_a, score.a) <= (score.kind_b, score.b) else (b, a)


def _cited(
    spans: list[tuple[int, int]], starts: list[int], ma: Mention, mb: Mention
) -> tuple[int, int]:
    """(first, last) sentence index of the sentences from one mention to the other."""
    i, j = (max(bisect.bisect_right(starts, m.start) - 1, 0) for m in (ma, mb))
    return min(i, j), max(i, j)


def _evidence(
    doc: Document,
    span: tuple[int, int],
    tid: str,
    head: Mention,
    tail: Mention,
    raw: str,
    p: float,
    p_related: float,
    verifier: Verifier,
) -> Evidence:
    """The evidence row citing ``span``: the sentence(s) from one closest mention to the other."""
    s0, s1 = span
    text = doc.text
    status, cue = classify(
        text, (s0, s1), (head.start, head.end), (tail.start, tail.end), "",
        s1 <= len(doc.title),
    )  # fmt: skip
    return Evidence(
        evidence_id=stable_id(tid, doc.pmid, s0, METHOD),
        triple_id=tid,
        pmid=doc.pmid,
        year=doc.year,
        sentence=text[s0:s1],
        sent_start=s0,
        sent_end=s1,
        head_start=head.start,
        head_end=head.end,
        tail_start=tail.start,
        tail_end=tail.end,
        method=METHOD,
        extractor=EXTRACTOR,
        model=verifier.ref,
        relation_raw=raw,
        head_text=head.text,
        tail_text=tail.text,
        confidence=round(p, 4),
        epistemic=status,
        epistemic_cue=cue,
        verifier_score=round(p_related, 4),
    )
