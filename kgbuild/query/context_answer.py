"""A how-question about an entity *in some respect* — "How does amyloid beta damage
mitochondria?", "How does tau pathology spread through the brain?" — answered from the
sentences naming the entity together with that respect.

The question links its subject (amyloid beta, tau) and leaves the respect unlinked (no
organelle, process or verb is a PubTator entity). The subject's facts rank its hub partners
(caspase-3, TNF, BACE1); the context word (:mod:`kgbuild.question.context_words`) reweights them
only when their evidence rows happen to write it. The sentences that write the subject *and* the
respect are where a mechanism is stated ("Abeta … impairs mitochondrial respiration by binding
ABAD"), the unit an extractor reads a relation in, as :mod:`kgbuild.query.phrase_answer` reads
an unlinked subject: the documents writing the context word and naming the subject (one catalog
query), their sentences writing both, shown best first (naming more of the question's entities,
carrying the asked relation's cue, closest to the question in meaning, else newest, shortest),
above the facts' answers. Those stay the answers: counted in these sentences, the subject's hub
partners (caspase-3, Bax) come first again, where the context word's weight on the facts puts
cytochrome c first. Everything read here is labelled as read from sentences, not extracted
facts.
"""

from __future__ import annotations

from typing import Any

from kgbuild.corpus.answer_sentences import Encode, closest_first
from kgbuild.corpus.stems import word_stems
from kgbuild.query.phrase_answer import fetch, sentences, shown_sentences
from kgbuild.question.cues import Qualifier
from kgbuild.question.intent import Intent
from kgbuild.question.predicates import predicate_for
from kgbuild.question.question_phrase import Phrase
from kgbuild.search.index import SnapshotIndex

#: Sentences naming the subject and the context a reading needs to stand.
MIN_SENTENCES = 2


def context_answer(wh: Any, index: SnapshotIndex, question: str, subject: list[int],
                   context: Qualifier, intent: Intent,
                   as_of: int | None = None,
                   encode: Encode | None = None) -> dict[str, Any] | None:  # fmt: skip
    """A verdict-like dict with the sentences naming ``subject`` (the question's linked
    entities, first the subject) in the respect ``context`` names, or None when fewer than
    :data:`MIN_SENTENCES` sentences write both. ``encode``: the question encoder, to show the
    sentences closest to it first."""
    m = context.cue.search(question)
    if m is None or not subject:
        return None
    phrase = Phrase(m.group(0), m.start(), m.end(), word_stems(m.group(0)))
    ids = [str(index.nodes["id"][n]) for n in subject]
    first = ids[0]
    rows = fetch(wh, index.snapshot_id, phrase, ids, as_of)
    hits = [h for h in sentences(rows, [phrase]) if any(c == first for c, _, _ in h.mentions)]
    if len(hits) < MIN_SENTENCES:
        return None
    pred = predicate_for(intent.asked)
    want = set(ids)

    def key(h: Any) -> tuple[Any, ...]:
        named = len({c for c, _, _ in h.mentions} & want)
        cue = pred.cues.search(h.sentence) is not None
        return (-named, not cue, -h.year, len(h.sentence), h.pmid)

    hits.sort(key=key)
    hits = closest_first(hits, lambda h: h.sentence, question, encode, lambda h: key(h)[:2])
    shown, pmids = shown_sentences(hits, want)
    name = str(index.nodes["display"][subject[0]])
    line = (f"from sentences, not extracted facts: {len(hits)} sentences in {len(pmids)} "
            f"abstracts name {name} with '{phrase.text}'; the answers below are its facts, "
            f"those whose sentences say '{phrase.text}' first")  # fmt: skip
    return {"pair": None, "basis": "sentences", "phrase": phrase.text, "names": [name],
            "facts": [], "edges": [], "statuses": None, "answer": "from sentences",
            "line": line, "sentences": shown, "pmids": pmids[:10],
            "sentence_counts": {"sentences": len(hits), "abstracts": len(pmids)}}  # fmt: skip
