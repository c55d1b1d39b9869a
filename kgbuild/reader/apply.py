"""The reader decides what is served: every evidence row of an extraction, read in its sentence.

Extractors propose; the sentence reader (:mod:`kgbuild.reader.model`) decides, per evidence row
whose two mentions sit in its one sentence, for the offline extractor (the relation verifier's
document-level proposals, ``classifier``) and the LLM ones (generative, pair-wise) alike:

- the reader reads the row's own triple (same pair, relation and direction): that row is
  served (``asserted``) with the reader's confidence;
- it reads another relation, direction or order: the extractor's row is kept with the status
  ``proposed`` (not served; the cue says what the reader read) and the reading becomes a row
  of its own (method ``reader``), served;
- it reads no fact (nothing stated, a hedge, a denial, a mention that is not its concept): the
  row keeps the reader's status (``unstated``, ``hypothesis``, ``negated``, ``background``).
  A co-mention is kept and queryable, and never served as a fact.

The extractor's rows are never removed: ``kgbuild eval re`` measures them, and a user can
query what an LLM claimed and the reader did not confirm. ``confidence`` is the reader's
calibrated probability that the served reading is supported. A row the reader cannot read
(its mentions not in one sentence) is not served. A missing, damaged or foreign model file
serves nothing: every readable row becomes ``unstated`` (cue ``sentence reader
unavailable``), every row kept; the build logs the reason once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from kgbuild.config import env
from kgbuild.extract.base import ExtractionResult
from kgbuild.pair_relations import signed_name, signed_reading
from kgbuild.reader.features import Pair
from kgbuild.reader.model import DEFAULT_PATH, Reader, ReaderModelError, cached, digest
from kgbuild.records import Document, Evidence, Mention, Triple, stable_id
from kgbuild.triples import orient, triple_key

log = logging.getLogger("kgbuild.reader")

CO_MENTIONED = "co_mentioned"
#: The method and extractor of a reading that is a row of its own.
METHOD = "reader"
EXTRACTOR = "kgbuild.reader/1"
#: The status of an extractor's row whose sentence the reader read otherwise (not served).
PROPOSED = "proposed"
#: Relations without an order between their two ends.
UNORDERED = frozenset({"associates", "interacts", "related_to", CO_MENTIONED})
#: The reader's relations as KG relations (``other``: a stated relation of another kind).
KG_RELATION = {
    "upregulates": "upregulates",
    "downregulates": "downregulates",
    "treats": "treats",
    "binds": "binds",
    "interacts": "interacts",
    "associates": "associates",
    "other": "related_to",
}


def kg_relation(reading: str, agent_kind: str | None, other_kind: str | None) -> str:
    """The KG relation of a reading, agent → other: :data:`KG_RELATION`, then the pair's own
    name for a signed one (``data/pair_relations.tsv``): a chemical the reader reads as
    raising a disease ``causes`` it, as lowering it ``treats`` it (BioRED's chemical–disease
    Positive/Negative_Correlation; BC5CDR's CID). The reader itself is not retrained."""
    return signed_name(KG_RELATION[reading], agent_kind, other_kind)


#: The reader's statuses as evidence statuses (``none``: states nothing about the pair).
STATUS = {
    "asserted": "asserted",
    "negated": "negated",
    "hedged": "hypothesis",
    "background": "background",
    "none": "unstated",
}
UNAVAILABLE = "sentence reader unavailable"


def reader_ref() -> str:
    """What identifies the reader in a build's fingerprint and on its rows: the digest of its
    model file (which names its weights' digest, threshold and calibration), or "missing"."""
    try:
        return "sentence-reader@" + digest(model_path())[:12]
    except OSError:
        return "sentence-reader@missing"


def model_path() -> Path:
    """The reader's model file: ``KGBUILD_READER_MODEL`` (a path; another trained reader) or
    the shipped ``data/sentence_reader.json``."""
    return Path(env("KGBUILD_READER_MODEL") or DEFAULT_PATH)


def _reader() -> tuple[Reader | None, str, str]:
    """(the reader or None, why none, its ref): the model file is hashed once per batch."""
    ref = reader_ref()
    try:
        return cached(model_path(), ref), "", ref
    except ReaderModelError as exc:
        _warn_once(str(exc))
        return None, str(exc), ref


@lru_cache(maxsize=8)
def _warn_once(message: str) -> None:
    log.warning("%s: serving co-mentions only (%s)", UNAVAILABLE, message)


def _kinds(mentions: Sequence[Mention]) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in mentions:
        if m.concept_id and m.hetionet_type:
            out.setdefault(m.concept_id, m.hetionet_type)
    return out


def _pair(
    ev: Evidence, triple: Triple, kinds: dict[str, str], source: str
) -> tuple[Pair, bool] | None:
    """The row as the reader reads it, and whether the head is mention A; None when its two
    mentions are not both inside its (single) sentence."""
    from kgbuild.resolve.naming import display_name

    s0, s1 = ev.sent_start, ev.sent_end
    h, t = (ev.head_start, ev.head_end), (ev.tail_start, ev.tail_end)
    if min(h[0], t[0]) < s0 or max(h[1], t[1]) > s1 or h[0] < 0 or t[0] < 0:
        return None
    if not (h[1] <= t[0] or t[1] <= h[0]) or ev.epistemic == "not_in_sentence":
        return None
    head_first = h <= t
    (a, a_id), (b, b_id) = (
        ((h, triple.head_id), (t, triple.tail_id))
        if head_first
        else ((t, triple.tail_id), (h, triple.head_id))
    )
    sent = ev.sentence
    a_text, b_text = sent[a[0] - s0 : a[1] - s0], sent[b[0] - s0 : b[1] - s0]
    pair = Pair(
        sent,
        a[0] - s0,
        a[1] - s0,
        b[0] - s0,
        b[1] - s0,
        kinds.get(a_id, ""),
        kinds.get(b_id, ""),
        display_name(a_id, a_text),
        display_name(b_id, b_text),
        -1.0 if ev.verifier_score is None else float(ev.verifier_score),
        source,
        _canonical(triple.relation, kinds.get(triple.head_id), kinds.get(triple.tail_id)),
    )
    return pair, head_first


def _canonical(relation: str, head_kind: str | None, tail_kind: str | None) -> str:
    """The relation as resolution will store it (an LLM's "inhibits" → ``downregulates``):
    the reader learnt the extractor's proposal from stored rows."""
    from kgbuild.resolve.relations import canonical_relation

    rel = canonical_relation(relation, head_kind or None, tail_kind or None).relation
    if rel in KG_RELATION.values():
        return rel
    # the pair's own name for a sign (Compound ``causes`` Disease): the reader was trained on
    # the signed name (``upregulates``), so it is shown the proposal under that name
    return signed_reading(rel, head_kind or None, tail_kind or None)


def _oriented(
    agent: tuple, other: tuple, rel: str, kinds: dict[str, str]
) -> tuple[tuple, tuple, str | None]:
    """(head end, tail end, metaedge) of a reading: as DALK Table 11 orients its relation
    (:func:`kgbuild.triples.orient`); an unordered relation outside Hetionet puts the
    smaller ID first, so one pair read in two sentences is one triple."""
    metaedge, swap = orient(
        agent[0], kinds.get(agent[0]) or None, rel, other[0], kinds.get(other[0]) or None
    )
    if swap or (metaedge is None and rel in UNORDERED and other[0] < agent[0]):
        agent, other = other, agent
    return agent, other, metaedge


def read_rows(
    result: ExtractionResult,
    docs: list[Document],
    mentions: dict[str, list[Mention]],
    source: str,
) -> None:
    """The reader's readings of one batch's evidence (in place; the module docstring says
    what becomes of each row). ``source``: the extractor family, a feature of the reader."""
    reader, problem, ref = _reader()
    triples = {t.triple_id: t for t in result.triples}
    kinds = {cid: k for d in docs for cid, k in _kinds(mentions.get(d.pmid, [])).items()}
    todo = []
    for i, ev in enumerate(result.evidence):
        t = triples[ev.triple_id]
        got = _pair(ev, t, kinds, source)
        if got is not None:
            todo.append((i, got[0], got[1], t))
        elif ev.epistemic == "asserted":  # the reader cannot read it: not served
            result.evidence[i] = replace(
                ev, epistemic="not_in_sentence", epistemic_cue="reader: not in one sentence"
            )
    if reader is None:  # nothing is served; other statuses say what they said
        for i, *_ in todo:
            ev = result.evidence[i]
            if ev.epistemic == "asserted":
                result.evidence[i] = replace(
                    ev, epistemic="unstated", epistemic_cue=f"{UNAVAILABLE}: {problem}"[:200]
                )
        return
    readings = reader.read([p for _, p, _, _ in todo])
    added: list[Evidence] = []
    for (i, _, head_first, t), r in zip(todo, readings, strict=True):
        ev = result.evidence[i]
        relation, direction = r.relation, r.direction
        conf = round(r.confidence, 4)
        if not relation:
            status = STATUS.get(r.status, "unstated")
            status = "unstated" if status == "asserted" else status
            result.evidence[i] = replace(
                ev,
                confidence=conf,
                epistemic=status,
                epistemic_cue=f"reader: P(fact) {r.p_fact:.2f}",
            )
            continue
        s0 = ev.sent_start  # a reading's ends are the sentence's words, not an LLM's
        ends = [
            (
                t.head_id,
                ev.head_start,
                ev.head_end,
                ev.sentence[ev.head_start - s0 : ev.head_end - s0],
            ),
            (
                t.tail_id,
                ev.tail_start,
                ev.tail_end,
                ev.sentence[ev.tail_start - s0 : ev.tail_end - s0],
            ),
        ]
        a_end, b_end = ends if head_first else ends[::-1]
        agent, other = (b_end, a_end) if direction == "B>A" else (a_end, b_end)
        rel = kg_relation(relation, kinds.get(agent[0]), kinds.get(other[0]))
        head, tail, metaedge = _oriented(agent, other, rel, kinds)
        tid = triple_key(head[0], rel, tail[0])
        if tid == t.triple_id:
            result.evidence[i] = replace(
                ev, confidence=conf, epistemic="asserted", epistemic_cue=""
            )
            continue
        if ev.epistemic != "not_in_sentence":
            result.evidence[i] = replace(
                ev, epistemic=PROPOSED, epistemic_cue=f"reader: {rel} {direction}"
            )
        if tid not in triples:
            triples[tid] = Triple(tid, head[0], rel, tail[0], rel, METHOD, metaedge)
            result.triples.append(triples[tid])
        added.append(
            replace(
                ev,
                evidence_id=stable_id(tid, ev.pmid, ev.sent_start, METHOD),
                triple_id=tid,
                head_start=head[1],
                head_end=head[2],
                head_text=head[3],
                tail_start=tail[1],
                tail_end=tail[2],
                tail_text=tail[3],
                method=METHOD,
                extractor=EXTRACTOR,
                model=ref,
                prompt_version=None,
                claim_reversed=False,
                relation_raw=f"{relation} {direction}",
                confidence=conf,
                epistemic="asserted",
                epistemic_cue="",
                verified="",  # an LLM verification pass judged the claim, not this reading
            )
        )
    seen = {ev.evidence_id for ev in result.evidence}
    for ev in added:
        if ev.evidence_id not in seen:
            seen.add(ev.evidence_id)
            result.evidence.append(ev)


#: Extraction methods whose rows the reader re-reads, and how.
OFFLINE_METHODS = frozenset({"classifier"})
LLM_METHODS = frozenset({"generative", "pairwise", "llm"})


def read_result(
    method: str, result: ExtractionResult, docs: list[Document], mentions: dict[str, list[Mention]]
) -> ExtractionResult:
    """The reader's pass over one batch's extraction (in place; returned for chaining). The
    co-occurrence baseline is left as it is: it is the measure of what reading adds."""
    if method in OFFLINE_METHODS:
        read_rows(result, docs, mentions, "classifier")
    elif method in LLM_METHODS:
        read_rows(result, docs, mentions, "llm")
    return result
