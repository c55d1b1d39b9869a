"""The decision for one cue and one pair: does the cue govern the relation between them?

:func:`governs` is what :mod:`kgbuild.extract.epistemics` asks of every negation or hedge cue
found in a sentence (NegEx, Chapman et al. 2001; BioScope, Vincze et al. 2008): the checks
that hold for every cue (an endpoint in a bracketed aside, an endpoint that only modifies a
third noun) and then the rules of the cue's kind (:mod:`.negation`, :mod:`.hedge`).
"""

from __future__ import annotations

from collections.abc import Callable

from kgbuild.extract.scope.hedge import hedge
from kgbuild.extract.scope.negation import negation
from kgbuild.extract.scope.phrases import modifier
from kgbuild.extract.scope.words import Hit, Span, Words

RULES: dict[str, Callable[[Words, Hit, Span, Span, tuple[bool, bool]], bool]] = {
    "negation": negation,
    "hedge": hedge,
}


def governs(
    s: Words, h: Hit, head: Span, tail: Span, bound: tuple[bool, bool] = (False, False)
) -> bool:
    """The cue ``h`` negates or hedges the relation between the two endpoint phrases (token
    spans, either order; overlapping endpoints are never related by a cue). ``bound``: the
    head, the tail is the first part of a hyphenated modifier ("Abeta-induced toxicity"), so
    it cannot be a subject. An endpoint in a bracketed aside ("(except for B)") is outside the
    reach of a cue outside it."""
    (a, a_bound), (b, b_bound) = sorted(zip((head, tail), bound, strict=True))
    if a[1] > b[0]:
        return False
    for e in (a, b):
        group = s.group[e[0]]
        if group and s.group.count(group) > 3 and s.group[h.i] != group:
            return False
        if modifier(s, e):
            return False
    return RULES[h.kind](s, h, a, b, (not a_bound, not b_bound))
