"""When a hedge cue governs the relation between the two endpoints.

A speculation cue (BioScope, Vincze et al. 2008) hedges the relation between A and B only
when the pair is inside what it puts in question: the verb after it ("A may inhibit B"), the
relational noun after it ("a potential target of B"), the clause after it ("whether A
affects B", "to examine the effect of A on B") or the relational subject before it ("the role
of A in B remains unclear"); ConText's (Harkema et al. 2009) window and termination terms
bound the reach. Inside a hedged clause the pair must be parties to one relation
(:func:`paired`) and the clause must put their relation in question, not a third concept's
predicate over a presupposed phrase (:func:`proposition`). "could" conjectures only as
BioScope annotates it (:func:`conjecture`): "A could reverse B" reports what A did.
"""

from __future__ import annotations

import re

from kgbuild.extract.scope.arguments import after, complement, relational_np, subject
from kgbuild.extract.scope.lexicon import (
    BASE_VERBS,
    CONJECTURE,
    CONJECTURE_VERBS,
    DIAGNOSES,
    GROUP_NOUNS,
    HEDGE_NOUNS,
    HEDGE_REACH,
    LINK_VERBS,
    NOUNS_S,
    NP_PREP,
    OBSERVE,
    PREP,
    PRESUPPOSING,
    RELATIONAL,
    ROLE_HEADS,
    TOOLS,
    TRANSPARENT,
    VERBS,
)
from kgbuild.extract.scope.phrases import (
    argument,
    coordinated,
    left_free,
    linked,
    population,
)
from kgbuild.extract.scope.words import Hit, Span, Words, adverb, verb_start


def conjecture(s: Words, h: Hit) -> bool:
    """ "could" conjectures (BioScope) unless it reports an ability shown: "A could reverse B",
    "A could be detected" (Vincze et al. 2008 annotate the first kind only)."""
    nxt = s.w[h.j] if h.j < len(s.w) else ""
    if nxt == "be" and h.j + 1 < len(s.w) and s.w[h.j + 1] in OBSERVE:
        return False
    return nxt in CONJECTURE_VERBS or bool(CONJECTURE.search(" ".join(s.w[: h.i])))


def hedge(s: Words, h: Hit, a: Span, b: Span, frees: tuple[bool, bool]) -> bool:
    free = frees[0]
    mid = a[1] <= h.i and h.j <= b[0]
    before = h.j <= a[0]
    w = s.w[h.i]
    if h.scope == "verb":
        if w == "could" and not conjecture(s, h):
            return False
        if w == "may" and s.raw[h.i] == "May" and h.i > 0:
            return False  # the month
        if mid:
            start = verb_start(s, h.i, frozenset({"a", "an", "the", "be", "to", "as"}))
            return free and subject(s, a, start) and complement(s, h.j, b, HEDGE_REACH, hedge=True)
        return h.i >= b[1] and after(s, a, b, h.i, h.j, hedge=True)
    if h.scope == "np":
        if (
            w in ("possible", "probable")
            and h.j < len(s.w)
            and (s.w[h.j].split("-")[0] in DIAGNOSES or s.raw[h.j][:1].isupper())
        ):
            return False
        if mid:
            start = verb_start(s, h.i, frozenset({"a", "an", "the", "as", "represent",
                                                  "represents", "serve", "serves"}))  # fmt: skip
            gap = s.plain(h.j, b[0])  # "a potential drug for C inhibiting B": B is not in it
            return (
                start < h.i
                and free
                and subject(s, a, start)
                and complement(s, h.j, b, 8, hedge=True)
                and not any(s.w[k].endswith("ing") and len(s.w[k]) > 5 for k in gap)
            )
        return before and relational_np(s, h.j, a, b, RELATIONAL | HEDGE_NOUNS)
    if h.scope in ("clause", "aim"):
        if not before or not free:
            return False  # "whether these A-related proteins …": A modifies a third noun
        stop_comma = h.scope == "aim"
        span = range(h.j + (h.j < len(s.w) and s.w[h.j] == "that"), b[1])
        if any(s.stop(k, comma=stop_comma) or s.w[k] in ("which", "whereas", "while", "but")
               for k in span if k not in s.paren):  # fmt: skip
            return False
        if not paired(s, a, b):
            return False
        if h.scope == "aim":  # "to examine the effect of A on B": A an argument of the noun
            nouns = [k for k in s.plain(h.j, a[0]) if s.w[k] in RELATIONAL]
            return (
                bool(nouns)
                and linked(s, a, b, reach=8)  # "the effect of A on B"; the aim ends at a verb
                and "as" not in {s.w[k] for k in s.plain(a[1], b[0])}  # "A as a determinant of"
                and frees[0]
                and argument(s, nouns[-1], a)
                and not _presupposed(s, nouns[-1])
            )
        return proposition(s, span.start, a, b)
    if h.scope == "post":
        if h.i < b[1] or not paired(s, a, b):
            return False
        head = s.plain(max(0, a[0] - 5), a[0])
        if not any(s.w[k] in RELATIONAL | {"how", "whether"} for k in head):
            return False  # "the role of A in B remains unclear"; not "the mechanism by which"
        if any(s.w[k] in RELATIONAL and _presupposed(s, k) for k in head):
            return False  # "the exact role of A in B remains unclear": the role is granted
        span = s.plain(a[0], h.i)
        return not any(s.stop(k) for k in span) and linked(s, a, b, reach=6)
    return False


def paired(s: Words, a: Span, b: Span) -> bool:
    """Inside a hedged clause, A and B are parties to one relation: near each other, not two
    items of a list, not in two coordinated predicates ("reduced A and rescued B"), and B not
    the population the clause is about."""
    gap = s.plain(a[1], b[0])
    if not gap or len(gap) > 10 or coordinated(s, a, b) or population(s, b):
        return False  # (no gap: one phrase, "Val(8)GLP-1")
    if population(s, a) and not left_free(s, a):
        return False  # "the sex differences between APP/PS1 mice in the pathogenesis of B"
    people = GROUP_NOUNS - {"cells", "neurons", "astrocytes", "microglia", "brains"}
    if any(s.w[k] in people and s.w[gap[n - 1]] in ("in", "among") for n, k in
           enumerate(gap) if n):  # fmt: skip
        return False  # "whether C is associated with A in patients undergoing D for B"
    if any(s.w[k] in TOOLS for k in gap):
        return False  # "A may be a useful tool for B studies" hedges A's use, not A–B
    return not any(
        s.w[k] in ("and", "or", "nor")
        and n + 1 < len(gap)
        and (s.verbish(gap[n + 1]) or s.w[gap[n + 1]] in BASE_VERBS)
        for n, k in enumerate(gap)
    )


def _participle(s: Words, k: int) -> bool:
    """A past participle heading a reduced relative ("those *observed* in", "a drug *used*
    for"): an -ed word followed by a preposition."""
    w = s.w[k]
    return (
        len(w) > 4 and w.endswith("ed") and w.isalpha() and k + 1 < len(s.w)
        and s.w[k + 1] in PREP
    )  # fmt: skip


def _presupposed(s: Words, k: int) -> bool:
    """The relational noun at ``k`` is qualified as known, its details asked about: "the
    *exact* role of A in B", "the *precise* mechanism"."""
    return any(s.w[x] in PRESUPPOSING for x in s.plain(max(0, k - 2), k))


def _verb_s(w: str) -> bool:
    """A verb in -s the lexicon misses ("represses", "potentiates"), by form."""
    return re.fullmatch(r"[a-z]{3,}[a-hj-rtv-z]s", w) is not None and w not in (
        NOUNS_S | TRANSPARENT | RELATIONAL | GROUP_NOUNS | ROLE_HEADS
    )


def _gap_verb(s: Words, gap: list[int], n: int) -> bool:
    """The ``n``-th word between A and B predicates something: a verb by form or lexicon,
    a link verb ("A correlate with B"), a verb in -s before a preposition ("A corresponds
    to B"), a gerund after a preposition ("A by inducing B")."""
    k = gap[n]
    w = s.w[k]
    return (
        s.verbish(k)
        or w in BASE_VERBS | LINK_VERBS
        or (n == 0 and _verb_s(w) and len(gap) > 1 and s.w[gap[1]] in PREP)
        or (w.endswith("ing") and len(w) > 5 and s.w[k - 1] in PREP)
    )


def proposition(s: Words, start: int, a: Span, b: Span) -> bool:
    """A hedged clause starting at ``start`` ("whether …", "suggest that …") puts the pair's
    relation in question, not only a phrase naming both (a blind judge's reading):

    - a verb between A and B is the clause's first verb, A in its subject (not in a third
      concept's modifier: "whether drug C, used for A, might improve B"; "C was the cause of
      A induced by B"; "processes observed in A may contribute to B");
    - A and B both in the clause's subject ("the hypothesis that A susceptibility of B may
      originate in C", "the benefits and C effects of B are associated with D"): only a
      relational noun over them ("whether the effect of A on B is …") or a link verb after
      them ("whether A and B interact") puts their relation in question;
    - A and B one short noun phrase after a third concept's verb ("whether C could alleviate
      A in B", "the neurotoxic protein B", "A after B"): presupposed, unless a relational
      noun heads it; "C may influence A through the modulation of B" relates them;
    - "whether C moderates the association of A with B": the association is presupposed.
    """
    gap = s.plain(a[1], b[0])
    verb = next((k for n, k in enumerate(gap) if _gap_verb(s, gap, n)), None)
    body = s.plain(start, a[0])
    heads = [k for k in body[-4:] if s.w[k] in RELATIONAL and argument(s, k, a)]
    if heads and any((s.verbish(k) and s.w[k] not in ("is", "are", "was", "were"))
                     or _verb_s(s.w[k]) for k in body if k < heads[-1]):  # fmt: skip
        return False
    if verb is not None:
        if any((s.verbish(k) and not (n and s.w[body[n - 1]] == "there")) or _participle(s, k)
               for n, k in enumerate(body)):  # fmt: skip
            return False
        span = s.plain(a[1], verb)  # "A, C and D can enhance B": a list of subjects
        listed = any(s.w[k] in ("and", "or") for k in span)
        return not any(s.stop(k, comma=not listed) for k in span)
    content = [k for k in gap if not adverb(s.w[k])]
    if len(content) == 1 and _verb_s(s.w[content[0]]):
        return True  # "A represses B"
    nxt = [k for k in s.plain(b[1], min(len(s.w), b[1] + 6)) if not adverb(s.w[k])]
    linked = bool(heads) or any(s.w[k] in LINK_VERBS for k in nxt[:4])
    if not any(s.verbish(k) for k in body):
        return linked  # both in the subject
    if len(gap) > 4 or any(
        (s.w[k] in PREP and s.w[k] not in NP_PREP) or s.w[k] in RELATIONAL
        or (s.w[k].endswith("ing") and len(s.w[k]) > 5) or s.w[k] in BASE_VERBS | VERBS
        for k in gap
    ):  # fmt: skip
        return True  # "A … through the modulation of B", "A leading to B", "A via B"
    return linked
