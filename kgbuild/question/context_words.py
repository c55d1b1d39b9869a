"""The question's own words as a qualifier of its answers: "How does amyloid beta damage
*mitochondria*?", "Which enzymes *degrade* amyloid beta?", "How does tau pathology *spread*?".

Such a question links its subject (amyloid beta) and leaves the words that say *what about it*
unlinked; PubTator tags no organelles, processes or verbs. Ranked by the subject's facts alone,
the answers are its hubs (caspase-3, TNF, BACE1); a researcher expects the ones whose sentences
speak of mitochondria (cytochrome c, Bax). This is the classic retrieval move of weighting an
answer by the query terms its passages contain (Robertson & Zaragoza 2009, BM25; the Aristo IR
solver, Clark et al. 2016): here the rarest content word left unlinked becomes a qualifier like
``data/question_qualifiers.toml``'s, and :func:`kgbuild.question.cues.cue_factor` reweights each
candidate by the share of its evidence rows naming it — uniformly when none does, so a word the
evidence never writes changes nothing.

Only a word of the evidence's vocabulary written in at most :data:`MAX_SHARE` of its sentences
counts ("brain", "patients" say nothing), never a stopword, a generic word ("role", "effect"), a
question word or a word of a cue the intent already read ("treat", "which drugs").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgbuild.link.generic import GENERIC_WORDS
from kgbuild.question.cues import Qualifier
from kgbuild.question.intent import QUESTION_WORDS, Intent
from kgbuild.question.question_phrase import LIGHT_VERBS, stem_regex
from kgbuild.search.sentences import terms
from kgbuild.search.text import STOPWORDS

#: Largest share of the evidence sentences a context word may be written in …
MAX_SHARE = 0.02
#: … or sentences, whatever the share (a share of a small corpus says nothing).
MIN_COMMON = 20
#: Shortest stem read (shorter ones match too many words).
MIN_STEM = 4
#: Context words read per question (the rarest first).
MAX_WORDS = 1
#: Words that say how, not what: never a context word.
_HOW = frozenset({
    "affect", "affects", "affected", "affecting", "work", "works", "influence", "influences",
    "role", "contribute", "contributes", "contributing", "lead", "leads", "cause", "causes",
    "involve", "involved", "mechanism", "mechanisms", "increase", "increases", "decrease",
    "decreases", "change", "changes", "act", "acts",
})  # fmt: skip


def context_qualifiers(question: str, links: Sequence[Any], intent: Intent,
                       lexical: Any) -> tuple[Qualifier, ...]:  # fmt: skip
    """Qualifiers from the question's unlinked content words (``links`` with no node, of the
    question), the rarest :data:`MAX_WORDS` in ``lexical`` (the snapshot's sentence index)."""
    if lexical is None or not getattr(lexical, "n_docs", 0):
        return ()
    taken = [(c.start, c.end) for c in intent.cues]
    taken += [m.span() for q in intent.qualifiers for m in q.cue.finditer(question)]
    found: dict[str, tuple[int, str]] = {}
    for x in links:
        if x.where != "question" or x.node is not None:
            continue
        for m in re.finditer(r"[A-Za-z][A-Za-z-]{2,}", question[x.start : x.end]):
            a, b = x.start + m.start(), x.start + m.end()
            word = m.group(0).lower()
            if (word in STOPWORDS or word in GENERIC_WORDS or word in QUESTION_WORDS
                    or word in _HOW or word in LIGHT_VERBS
                    or any(s < b and a < e for s, e in taken)):  # fmt: skip
                continue
            for stem in terms(word):
                # "mitochondria" is written "mitochondrial" too: either form is the word
                t = lexical.vocab.get(stem, lexical.vocab.get(_root(stem)))
                if len(stem) < MIN_STEM or t is None:
                    continue
                df = lexical.df(t)
                if 0 < df <= max(MAX_SHARE * lexical.n_docs, MIN_COMMON):
                    found.setdefault(stem, (df, word))
    rarest = sorted(found.items(), key=lambda kv: (kv[1][0], kv[0]))[:MAX_WORDS]
    return tuple(
        Qualifier(f"context:{stem}", re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", re.I),
                  re.compile(rf"(?<![a-z0-9]){stem_regex(_root(stem))}", re.IGNORECASE))
        for stem, (_, word) in rarest
    )  # fmt: skip


def _root(stem: str) -> str:
    """ "mitochondria" → "mitochondri" (so "mitochondrial" matches too)."""
    return stem[:-1] if len(stem) > 6 and stem[-1] in "aey" else stem
