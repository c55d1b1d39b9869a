"""Does the sentence state a relation between the two endpoints, or only name them both?

The check behind the epistemic status ``unstated`` (:mod:`kgbuild.extract.epistemics`).
INDRA's ``Evidence.epistemics`` has no such field — its readers (REACH, TRIPS) only emit a
statement when their grammar found the relation — but a generative extractor writes a relation
for endpoints that are merely co-mentioned ("A and B were measured"), and the development audit
(``tests/fixtures/audit/dalk_fixed_seed160[2-9].tsv``) found those the largest share of its
unsupported rows. A user needs to tell them apart from rows whose sentence states the claim.

It is stated when a word of the predicate as written (by a 5-letter stem, as
:func:`epistemics._predicate` matches it), or a cue word of its relation family, occurs between
the endpoints or within :data:`WINDOW` words of them (inside an endpoint's hyphenated compound
too: "Abeta-induced"). The family cue words are the keyword stems of
``data/relation_synonyms.tsv`` (the table that maps predicates to relations in the resolve
stage), grouped: a signed or unsigned change (up/down/regulates, causes, treats, palliates) is
stated by any change word ("X reduces Y" states "X causes Y"); an interaction or binding by any
relation word (a vaguer reading is still a reading). Stems naming a thing rather than a
relation ("disease", "gene", "oligomer") are no cue. Only specific claims are checked
(:data:`SPECIFIC`).

A direction check (the head as the grammatical agent: first in an active clause, or after a
passive "by") was tried and left out: on the training sheets it flagged 3 rows, 2 of them
judged supported.
"""

from __future__ import annotations

import csv
import re
from functools import lru_cache

from kgbuild.schema import data_dir

#: Words either side of the endpoints where the relation may be written ("the association
#: between A and B", "A and B were correlated").
WINDOW = 4
SYNONYMS_TSV = "relation_synonyms.tsv"
#: Families whose predicate is a change with an agent; any change word states any of them.
CHANGE = frozenset({"upregulates", "downregulates", "regulates", "causes", "treats", "palliates"})
#: Families any relation word states (a co-mention is the only thing that does not).
GENERIC = frozenset({"associates", "covaries", "interacts", "binds", "related_to"})
#: Families whose relation must be written near the endpoints: a specific claim (binding,
#: causation, a signed change, production, resemblance). An association, an unsigned
#: "regulates", a class or a place is often read from the context ("the role of X in Y",
#: "X, a Y") and the audit judges such rows supported: no word check for them.
SPECIFIC = frozenset(
    {"binds", "interacts", "causes", "upregulates", "downregulates", "produces", "resembles",
     "treats", "palliates"}
)  # fmt: skip
#: Keyword stems of the synonym table that name a thing, not a relation.
NOT_CUES = frozenset(
    {"disease", "disorder", "patholog", "comorbid", "morbid", "toxic", "gene", "fibril",
     "oligomer", "aggregat", "species", "organism", "taxon", "type", "class", "kind", "part",
     "found", "occur", "effect", "role", "sourc", "model", "imag"}
)  # fmt: skip
#: Change words the synonym table does not list as keywords (comparatives, losses, needs).
CHANGE_CUES = (
    "higher", "lower", "loss", "gain", "trigger", "driv", "requir", "depend", "accelerat",
    "worsen", "improv", "restor", "abolish", "abrogat", "elimin", "counteract", "revers",
    "upreg", "downreg", "respons", "against", "modif", "influenc", "control", "prolong",
    "shorten", "kill", "damag", "evok", "elicit",
)  # fmt: skip
_WORD = re.compile(r"[a-z]+")
_STOP = frozenset({"is", "are", "was", "were", "be", "been", "has", "have", "with", "of", "to",
                   "in", "the", "a", "an", "and", "or", "by", "on", "for", "as", "at", "from",
                   "its", "their", "that", "this", "not"})  # fmt: skip
Span = tuple[int, int]


@lru_cache(maxsize=1)
def keyword_stems() -> tuple[tuple[str, str], ...]:
    """(stem, family) of the keyword rows of ``data/relation_synonyms.tsv``, in file order."""
    with (data_dir() / SYNONYMS_TSV).open(encoding="utf-8", newline="") as f:
        rows = csv.DictReader(
            (x for x in f if not x.startswith("#")), delimiter="\t", quoting=csv.QUOTE_NONE
        )
        return tuple((r["predicate"], r["relation"]) for r in rows if r["match"] == "keyword")


def family(relation: str) -> str | None:
    """The relation family of a predicate as written: the first keyword stem beginning one of
    its words (the resolve stage's keyword rule; "INTERACTS_WITH" → interacts), else None."""
    words = _WORD.findall(relation.lower())
    for stem, fam in keyword_stems():
        if stem not in NOT_CUES and any(w.startswith(stem) for w in words):
            return fam
    return None


@lru_cache(maxsize=1024)
def cue_stems(relation: str) -> tuple[frozenset[str], str | None, tuple[int, ...]]:
    """(stems that state the claim's relation, its family, the stems' lengths ascending): a
    word is checked by its prefixes of those lengths (a set lookup each), not against every
    stem — a build reads ~200 stems for each of ~10 words of each of tens of thousands of
    co-mention sentences."""
    fam = family(relation)
    own = {w[:5] for w in _WORD.findall(relation.lower()) if w not in _STOP and len(w) > 2}
    table = [(s, f) for s, f in keyword_stems() if s not in NOT_CUES]
    if fam is None or fam in GENERIC:
        own |= {s for s, _ in table} | set(CHANGE_CUES)
    elif fam in CHANGE:
        own |= {s for s, f in table if f in CHANGE} | set(CHANGE_CUES)
    else:
        own |= {s for s, f in table if f == fam}
    return frozenset(own), fam, tuple(sorted({len(s) for s in own}))


def _words(text: str, spans: list[Span]) -> list[tuple[str, int]]:
    """Lower-case words of ``text`` with their offsets, the endpoint spans blanked out."""
    chars = list(text.lower())
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return [(m.group(), m.start()) for m in _WORD.finditer("".join(chars))]


def relation_stated(sentence: str, head: Span, tail: Span, relation: str) -> str | None:
    """The cue word stating the relation near the endpoints (spans local to ``sentence``),
    or None when the sentence only co-mentions them."""
    stems, fam, lengths = cue_stems(relation)
    if fam not in SPECIFIC:
        return "(not checked)"
    words = _words(sentence, [head, tail])
    lo, hi = min(head[0], tail[0]), max(head[1], tail[1])
    before = [k for k, (_, at) in enumerate(words) if at < lo]
    after = [k for k, (_, at) in enumerate(words) if at >= hi]
    first = before[-WINDOW] if len(before) >= WINDOW else 0
    last = after[WINDOW - 1] if len(after) >= WINDOW else len(words) - 1
    for w, _ in words[first : last + 1]:
        for n in lengths:
            if n > len(w):
                break
            if w[:n] in stems:
                return w
    return None
