"""When a negation cue governs the relation between the two endpoints.

NegEx (Chapman et al. 2001) reads a negation cue as reaching the words after it up to a
termination term; in a co-mention sentence most negations reach the pair but govern something
else (a group, a third concept, another item of a list). :func:`negation` reads each kind of
cue (its ``scope`` in ``data/epistemic_cues.tsv``) by the construction it negates: a verb
(``verb``: "A did not increase B"), a relational noun (``np``: "A had no effect on B"), a
predicate (``pred``: "A was independent of B"), "without" before a verb (``prep``), a
contrast (``contrast``: "A increased C but not B") or a coordination (``coord``: "neither A
nor C affected B").
"""

from __future__ import annotations

from kgbuild.extract.scope.arguments import after, complement, relational_np, subject
from kgbuild.extract.scope.lexicon import (
    AUX,
    DETERMINERS,
    HAVE,
    NEG_REACH,
    OBSERVE,
    PREP,
    RELATIONAL,
)
from kgbuild.extract.scope.phrases import caused_next, suspended
from kgbuild.extract.scope.words import Hit, Span, Words, adverb, verb_start


def negation(s: Words, h: Hit, a: Span, b: Span, frees: tuple[bool, bool]) -> bool:
    if not all(frees):  # "did not reduce *B*-stimulated elevation of C" denies C, not B
        return False
    if any(caused_next(s, e) or suspended(s, e) for e in (a, b)):
        return False  # "prevented B exposure-induced neurotoxicity", "B)-induced": B modifies
    free = True
    mid = a[1] <= h.i and h.j <= b[0]
    before = h.j <= a[0]
    w = s.w[h.i]
    if h.scope == "verb":
        if w == "not" and (h.i == 0 or s.w[h.i - 1] not in AUX):
            return False  # "patients not receiving A": a group, not a verb's negation
        if w == "not" and s.w[h.i - 1] in ("may", "might"):
            return False  # "A may not cure B": a hedge, read as one
        if w == "unable" and verb_start(s, h.i) == h.i:
            return False  # "C oligomers unable to trigger B": describes C, no verb of A's
        if mid:
            start = verb_start(s, h.i)
            return free and subject(s, a, start) and complement(s, h.j, b, NEG_REACH)
        return h.i >= b[1] and after(s, a, b, h.i, h.j)
    if h.scope == "np":
        if mid:
            start = verb_start(s, h.i, HAVE)
            return (start < h.i and s.w[h.i - 1] in HAVE and free and subject(s, a, start)
                    and relational_np(s, h.j, None, b, RELATIONAL))  # fmt: skip
        return before and relational_np(s, h.j, a, b, RELATIONAL)
    if h.scope == "pred":
        if mid:
            start = verb_start(s, h.i, frozenset({"remained", "remain", "remains"}))
            if (start == h.i and w not in AUX) or not (free and subject(s, a, start)):
                return False
            gap = s.plain(h.j, b[0])
            return len(gap) <= 4 and not any(s.stop(k) or s.verbish(k) for k in gap)
        return h.i >= b[1] and after(s, a, b, h.i, h.j)
    if h.scope == "prep":  # without + V-ing
        nxt = s.plain(h.j, h.j + 2)
        if not (mid and nxt and s.w[nxt[0]].endswith("ing")):
            return False
        # A is the subject of the clause's verb: "A reduced C without affecting B"
        verb = next((k for k in s.plain(a[1], h.i) if s.verbish(k)), None)
        if not free or verb is None or not subject(s, a, verb_start(s, verb)):
            return False
        if _passive(s, verb):
            return False  # "A can be eliminated without affecting B": the agent is unnamed
        return not any(s.stop(k) for k in s.plain(a[1], h.i)) and complement(s, nxt[0], b, 7)
    if h.scope == "contrast":
        if mid:
            return all(frees) and _contrast(s, h, a, b)
        # "A, but not B, induced C": the contrasted phrase (here a) closed by a comma, then the
        # verb whose complement holds C (here b)
        if not (before and free and _heads(s, h.j, a)):
            return False
        close = next((k for k in range(a[1], b[0]) if s.w[k] == ","), None)
        if close is None or any(s.stop(k, comma=False) for k in s.plain(a[1], close)):
            return False
        verb = next((k for k in s.plain(close + 1, b[0]) if not adverb(s.w[k])), None)
        return (
            verb is not None
            and s.verbish(verb)
            and not _by_participle(s, verb)
            and complement(s, verb, b, NEG_REACH)
        )
    if h.scope == "coord":
        if mid and w == "neither":
            return free and subject(s, a, verb_start(s, h.i)) and complement(s, h.j, b, 10)
        # "neither A nor C affected B", "neither C nor A affected B": A in a conjunct, B after
        # the conjunction's verb (a participle "assayed by" inside a conjunct is not it)
        if not before or len(s.plain(h.j, a[0])) > 3 or not free:
            return False
        span = s.plain(a[1], b[0])
        verb = next((k for k in span if s.verbish(k) and not _by_participle(s, k)), None)
        if verb is None or any(s.stop(k) for k in span):
            return False
        rest = s.plain(a[1], verb)
        if (w == "neither" and "nor" not in {s.w[k] for k in rest}) or s.w[verb - 1] == "nor":
            return False  # "neither A nor *increases* in B": a noun, not the verb
        return complement(s, verb_start(s, verb), b, NEG_REACH)
    return False


def _passive(s: Words, k: int) -> bool:
    """The verb group starting at ``k`` is passive: a form of "be" then a participle."""
    group = [x for x in s.plain(k, min(len(s.w), k + 5)) if not adverb(s.w[x])]
    bes = [n for n, x in enumerate(group) if s.w[x] in ("be", "been", "being", "is", "are",
                                                          "was", "were")]  # fmt: skip
    return (
        bool(bes)
        and bes[0] + 1 < len(group)
        and (s.w[group[bes[0] + 1]].endswith("ed") or s.w[group[bes[0] + 1]] in OBSERVE)
    )


def _by_participle(s: Words, k: int) -> bool:
    """A past participle modifying a noun ("TBARS *assayed by* …"), not a clause's verb."""
    return 0 < k < len(s.w) - 1 and s.w[k + 1] == "by" and s.w[k - 1] not in AUX


def _contrast(s: Words, h: Hit, a: Span, b: Span) -> bool:
    """ "A increased C but not B": A, the subject of the clause's verb, against B, named at the
    head of the contrasted phrase (the rest of a list after it too: "but not with B, C, or
    D"); "A, but not B, induced C" (the phrase followed by the verb) is read at B–C."""
    tail = s.plain(h.j, b[0])
    if len(tail) > 10 or any(s.stop(k, comma=False) or s.verbish(k) for k in tail):
        return False
    if not _heads(s, h.j, b) and not (tail and s.w[tail[-1]] in ("or", "and", "nor")):
        return False
    end = next((k for k in range(b[1], len(s.w)) if s.stop(k, comma=False)), len(s.w))
    if any(s.verbish(k) for k in s.plain(b[1], end)):
        return False
    if b[1] < len(s.w) and a[1] < len(s.w) and s.w[b[1]] == s.w[a[1]]:
        return False  # "A over-expression …, but not B over-expression": B stands for A
    verb = next((k for k in s.plain(a[1], h.i) if s.verbish(k)), None)
    return verb is not None and subject(s, a, verb_start(s, verb))


def _heads(s: Words, j: int, e: Span) -> bool:
    """The endpoint heads the contrasted phrase that starts at ``j``: only prepositions and
    determiners before it ("but not *in aged* AD mice" contrasts the age, not AD)."""
    return all(s.w[k] in PREP or s.w[k] in DETERMINERS for k in s.plain(j, e[0]))
