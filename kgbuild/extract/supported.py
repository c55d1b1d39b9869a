"""The relation verifier as a second reader of LLM claims.

Why: a blind audit of the replayed DALK build found about half of the served (asserted) LLM
rows unsupported by their sentence, most of them pairs the sentence names without relating
(listed together, named as study topics, a study aim). The verifier
(:mod:`kgbuild.verifier`), trained on BioRED's and BC5CDR's curated relations, reads the
abstract and says how likely it states *some* relation between the two endpoints. Every LLM
evidence row gets that probability (``Evidence.verifier_score``, a feature of the confidence
model); an asserted row whose pair the verifier rejects — below :data:`UNSUPPORTED_BELOW` —
takes the status ``unsupported``: kept and queryable (``evidence``, ``kg_edges_all``), not
served by ``kg_edges``.

An endpoint the document's mentions do not carry (a free-text node: "number of astrocytes")
is placed where the claim found it (the evidence's span) as a mention of no kind, so the
verifier still reads the words around it; a row whose endpoints cannot be placed at all keeps
``verifier_score`` None and its status.

The verifier is data checked against its digest (:mod:`kgbuild.verifier.weights`): a missing,
corrupt or foreign file makes the build say so once and leave the rows unscored — nothing is
lost, nothing is half-scored.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from pathlib import Path

from kgbuild.errors import ConfigError
from kgbuild.records import Document, Evidence, Mention, Triple

log = logging.getLogger(__name__)

#: Extraction methods whose rows the verifier reads (the LLM's claims).
LLM_METHODS = frozenset({"generative", "pairwise"})
#: The status of an asserted row whose pair the verifier rejects.
STATUS = "unsupported"
#: A row is ``unsupported`` when P(the abstract states a relation between the pair) is below
#: this. Set before measuring, not tuned on the audit sheets (they measure it): a rejection needs
#: the verifier to be fairly sure there is no relation. On BioRED Dev's candidate pairs, 157 of
#: the 1,161 related pairs (13.5%) and 4,709 of the 5,498 unrelated ones (85.6%) score below it.
UNSUPPORTED_BELOW = 0.1


def _place(
    node: str, span: tuple[int, int], pmid: str, by_id: dict[str, list[Mention]]
) -> tuple[str, Mention | None]:
    """The entity the verifier knows ``node`` by, and a mention to add when the document's
    mentions do not carry it (a free node, placed at the claim's own span)."""
    if node in by_id:
        return node, None
    start, end = span
    if start < 0 or end <= start:
        return "", None
    for ms in by_id.values():  # a node renamed by grounding: the mention under the claim's span
        for m in ms:
            if m.start < end and start < m.end and m.concept_id:
                return m.concept_id, None
    return node, Mention(pmid, start, end, "", "free", None, node)


def verifier_ref(model_path: Path | None = None) -> str:
    """The verifier an LLM extractor's rows are read with, for its config (a build with another
    verifier, or none, has other fingerprints)."""
    from kgbuild.verifier.model import load_verifier

    try:
        return f"{load_verifier(model_path).ref} <{UNSUPPORTED_BELOW}"
    except ConfigError:
        return "unavailable"


def score_claims(
    triples: list[Triple],
    evidence: list[Evidence],
    docs: list[Document],
    mentions: dict[str, list[Mention]],
    model_path: Path | None = None,
) -> None:
    """Set ``verifier_score`` on every LLM row of ``evidence`` (its ``triples`` name the pairs)
    and mark rejected asserted rows ``unsupported``, in place."""
    from kgbuild.verifier.features import doc_context
    from kgbuild.verifier.model import load_verifier
    from kgbuild.verifier.text import doc_view

    rows = [e for e in evidence if e.method in LLM_METHODS]
    if not rows:
        return
    try:
        verifier = load_verifier(model_path)
    except ConfigError as exc:
        _warn_once(str(exc))
        return
    by_triple: dict[str, Triple] = {t.triple_id: t for t in triples}
    by_doc: dict[str, list[Evidence]] = defaultdict(list)
    for e in rows:
        by_doc[e.pmid].append(e)
    for doc in docs:
        evidence = by_doc.get(doc.pmid)
        if not evidence:
            continue
        known = [m for m in mentions.get(doc.pmid, []) if m.concept_id]
        by_id: dict[str, list[Mention]] = defaultdict(list)
        for m in known:
            by_id[m.concept_id or ""].append(m)
        pairs, extra = [], {}
        for e in evidence:
            t = by_triple.get(e.triple_id)
            if t is None:
                pairs.append(None)
                continue
            a, ma = _place(t.head_id, (e.head_start, e.head_end), doc.pmid, by_id)
            b, mb = _place(t.tail_id, (e.tail_start, e.tail_end), doc.pmid, by_id)
            for m in (ma, mb):
                if m is not None:
                    extra.setdefault((m.concept_id, m.start, m.end), m)
            pairs.append((a, b) if a and b and a != b else None)
        ctx = doc_context(doc_view(doc, known + list(extra.values())))
        for e, pair in zip(evidence, pairs, strict=True):
            if pair is None or not all(x in ctx.view.entities for x in pair):
                continue
            e.verifier_score = round(verifier.score(ctx, *pair).p_related, 4)
            if e.epistemic == "asserted" and e.verifier_score < UNSUPPORTED_BELOW:
                e.epistemic, e.epistemic_cue = STATUS, f"verifier p={e.verifier_score:.2f}"


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        log.warning("relation verifier unavailable, LLM claims left unscored: %s", message)
