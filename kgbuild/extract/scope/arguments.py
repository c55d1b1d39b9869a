"""The arguments of a cue's predicate: the verb's subject and complement, a relational noun's.

Where NegEx (Chapman et al. 2001) and ConText (Harkema et al. 2009) give a cue a window, the
grammar asks whether the two endpoints are the arguments of what the cue negates or hedges:
A the subject of the verb group (:func:`subject`) and B in its complement
(:func:`complement`: "A did not increase B"), both arguments of a relational noun after the
cue (:func:`relational_np`: "no association between A and B"), or both before a cue that
states their link (:func:`after`: "A and B were not correlated").
"""

from __future__ import annotations

from kgbuild.extract.scope.lexicon import (
    AUX,
    DETERMINERS,
    DIFFER,
    GROUPS,
    LINK_VERBS,
    MODIFIER,
    NULL_PREDICATES,
    PREP,
    PRONOUNS,
    RELATIONAL,
    SEPARATION,
    TOOLS,
)
from kgbuild.extract.scope.phrases import (
    caused,
    coordinated,
    group,
    left_free,
    linked,
    nested,
    population,
)
from kgbuild.extract.scope.words import Span, Words, adverb


def subject(s: Words, a: Span, start: int) -> bool:
    """A is the subject of the verb group beginning at ``start``: it heads its phrase and only
    its own modifiers ("levels in CSF", an abbreviation in brackets) stand between."""
    if a[1] > start:
        return False
    gap = s.plain(a[1], start)
    if len(gap) > 6 or any(
        s.stop(k)
        or s.verbish(k)
        or (s.w[k] in PRONOUNS and not _determines(s, k, gap))
        or s.w[k] in RELATIONAL
        or caused(s, k)
        or (s.w[k].endswith("ing") and len(s.w[k]) > 5)
        for k in gap
    ):  # a pronoun starts another subject; "A-induced *increase* of C", "A variant-induced
        # neurodegeneration" are not about A
        return False
    if any(s.w[k] in PREP and s.w[k] not in ("in", "of", "at", "within", "from") for k in gap):
        return False
    return left_free(s, a)


def _determines(s: Words, k: int, gap: list[int]) -> bool:
    """The word at ``k`` is a determiner of a noun that follows it inside the subject ("A *in
    this trial* did not reduce B"), not a pronoun opening another subject ("A; *this* did
    not…")."""
    return s.w[k] in DETERMINERS and k + 1 in gap and s.w[k + 1].isalpha()


def complement(s: Words, j: int, b: Span, reach: int, hedge: bool = False) -> bool:
    """B lies in the complement of the verb right after ``j`` (after adverbs; "to" + verb too):
    near, in the same clause, and — for a negation — before any second verb ("A did not
    affect neurons *treated* with B" does not negate A–B)."""
    if b[0] < j:
        return False
    gap = s.plain(j, b[0])
    if len(gap) > reach or any(s.stop(k) for k in gap):
        return False
    if hedge:  # "responsible for this decrease in B patients": B names who
        return not any(s.w[k] in TOOLS for k in gap) and not population(s, b)
    if len(gap) >= 2 and s.w[gap[-1]] == "of" and s.w[gap[-2]] in ("model", "models"):
        return False  # "in a mouse model of B" names the model, not B
    words = [k for k in gap if not adverb(s.w[k])]
    last = [k for k in gap if s.w[k] not in DETERMINERS]
    verb = {s.w[j - 1], s.w[words[0]] if words else ""}  # "did not differ", "not different"
    if verb & {"differ", "differed", "different"} and not (
        last and s.w[last[-1]] in GROUPS | {"and", "or", "in", "among"}
    ):
        return False  # "X did not differ between A+ and A- *B* groups": B is not compared
    if group(s, b) and len(words) > 2 and {s.w[k] for k in gap[-3:]} & {"in", "among", "with"}:
        return False  # "A did not predict dementia *in B participants*": B names who
    if (population(s, b) and len(words) > 2) or nested(s, gap):
        return False  # "… a response only in B hippocampal neurons"; "C mutants at B"
    if s.w[j - 1] in SEPARATION or (words and s.w[words[0]] in SEPARATION):
        return False  # "A is not released from B": A stays bound to B
    rest = words[1:]
    rest = [k for n, k in enumerate(rest) if not (n and s.w[rest[n - 1]] == "to")]
    return not any(s.verbish(k) and s.w[k] not in ("been", "be") for k in rest)


def relational_np(s: Words, j: int, a: Span | None, b: Span, nouns: frozenset[str]) -> bool:
    """The cue ending at ``j`` is followed by a relational noun whose arguments are A and B:
    "[no] significant association between A and B" (``a`` given), "[had no] effect on B"
    (``a`` None: the subject is checked by the caller)."""
    k = j
    while k < len(s.w) and k < j + 4 and (s.w[k] in MODIFIER or s.w[k] in ("evidence", "of",
                                                                             "for")):  # fmt: skip
        k += 1
    if k >= len(s.w) or s.w[k] not in nouns or k + 1 >= len(s.w) or s.w[k + 1] not in PREP:
        return False
    first = a or b
    if first[0] <= k or len(s.plain(k + 1, first[0])) > (4 if a is None else 3):
        return False
    if any(s.stop(x) or s.verbish(x) for x in s.plain(k + 1, first[0])):
        return False
    if a is None:
        return True
    if not linked(s, a, b) or coordinated(s, a, b) or population(s, b):
        return False
    if s.w[k] not in DIFFER:
        return True
    # "no difference in A between B and C": A is what was measured, B a group compared; "no
    # change in A and B", "no difference between A and B" (the groups) negate nothing between
    return not {s.w[x] for x in range(k + 1, a[0])} & GROUPS and bool(
        {s.w[x] for x in range(a[1], b[0])} & GROUPS
    )


def after(s: Words, a: Span, b: Span, i: int, j: int, hedge: bool = False) -> bool:
    """The cue at [i, j) follows both endpoints and governs the link between them: "A and B
    were not correlated" (a link verb over coordinated endpoints) or "the association between
    A and B was not significant" (a relational subject)."""
    between = s.plain(b[1], i)
    if len(between) > 4 or any(s.stop(k) or (s.verbish(k) and s.w[k] not in AUX)
                               for k in between):  # fmt: skip
        return False
    gap = s.plain(a[1], b[0])
    verb = next((k for k in range(j, min(j + 3, len(s.w))) if not adverb(s.w[k])), None)
    said = {s.w[k] for k in range(i, j)} | ({s.w[verb]} if verb is not None else set())
    if (
        0 < len(gap) <= 4
        and s.w[gap[0]] in ("and", "or", ",", "/")
        and not any(s.w[k] in PREP or s.verbish(k) for k in gap)
    ):
        # "A and (plasma) B were not correlated" — not "… were not correlated with C"
        obj = s.w[j - 1] in PREP or (  # "independent of C", "correlated with C"
            verb is not None and verb + 1 < len(s.w) and s.w[verb + 1] in PREP
        )
        if said & LINK_VERBS and not (obj and s.w[verb + 2 : verb + 3] != ["each"]):
            return True
    if hedge or not said & NULL_PREDICATES:
        return False  # "the effect of A on B was unaffected by C" is about C
    head = [k for k in s.plain(max(0, a[0] - 4), a[0])]
    noun = next((k for k in head if s.w[k] in RELATIONAL and s.w[k] not in DIFFER), None)
    return (
        noun is not None
        and not any(s.stop(k) or s.verbish(k) for k in head if k > noun)
        and linked(s, a, b, reach=4)
        and left_free(s, (noun, noun + 1))
    )
