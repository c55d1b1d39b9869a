"""What a noun phrase around an endpoint is: free, a modifier, a population, a list item.

A cue's window (NegEx, Chapman et al. 2001; ConText, Harkema et al. 2009) reaches words; here
it must reach the endpoint as a party to the relation, so the grammar first asks what the
endpoint's phrase is: the head of a free phrase (:func:`left_free`), only a modifier of a
third head noun (:func:`modifier`: "the NMDA receptor antagonist ketamine"), the population
or model a statement is about (:func:`population`: "in AD patients"), an item of a list
(:func:`coordinated`), or a part of one relational phrase with the other endpoint
(:func:`linked`). Each test reads the words by form and the classes of :mod:`.lexicon`.
"""

from __future__ import annotations

import itertools
import re

from kgbuild.extract.scope.lexicon import (
    AUX,
    BASE_VERBS,
    CHANGE_IN,
    CLAUSE_WORDS,
    DRUG_CLASS,
    EXAMPLES,
    GROUP_NOUNS,
    LINK_VERBS,
    LINKERS,
    PREP,
    RELATIONAL,
    ROLE_HEADS,
    TRANSPARENT,
)
from kgbuild.extract.scope.words import Span, Words, adverb


def left_free(s: Words, a: Span) -> bool:
    """A heads its phrase: it is not the object of a verb nor of a preposition (but "levels of
    A", "treatment with A" speak of A, as far as their own phrase is free)."""
    k, steps = a[0] - 1, 0
    while k >= 0 and steps < 8:
        if k in s.paren or s.w[k] in "()[]":
            k -= 1
            continue
        w = s.w[k]
        if s.stop(k):
            return not (w == "," and _listed(s, k))
        if s.verbish(k) or w in BASE_VERBS or (len(w) > 5 and w.endswith("ing") and w.isalpha()):
            return False  # the object of a verb or of a participle ("strains lacking A")
        if w in PREP:
            prev = s.plain(max(0, k - 3), k)
            head = s.w[prev[-1]] if prev else ""
            if not (w in ("of", "with", "to") and head in TRANSPARENT) and not (
                w == "in" and head in CHANGE_IN
            ):
                return False
            k = prev[-1]  # "(the) treatment with A": go on left of the head
        k, steps = k - 1, steps + 1
    return True


def _listed(s: Words, k: int) -> bool:
    """The comma at ``k`` separates items of a list of examples ("client proteins including
    C, D, A"): a list-opening word before it, only list items between."""
    for x in range(k - 1, max(-1, k - 16), -1):
        if x in s.paren or s.w[x] in "()[]":
            continue
        if s.w[x] in EXAMPLES:
            return True
        if s.stop(x, comma=False) or s.verbish(x) or s.w[x] in PREP - {"of"}:
            return False
    return False


def modifier(s: Words, e: Span) -> bool:
    """The endpoint only modifies a third head noun after it ("the NMDA receptor antagonist
    ketamine", "BACE inhibitor", "the GluN2A domain", "AD signature cortical thickness", the
    "Alzheimer's Disease Neuroimaging Initiative cohorts") or marks a cell type ("P2RY12(+)
    microglia"): what a cue says of the phrase is not said of the endpoint."""
    if e[1] + 1 < len(s.w) and s.w[e[1]] == "(" and s.w[e[1] + 1] in "+-":
        cells = s.plain(e[1], min(len(s.w), e[1] + 8))[:3]
        return any(s.w[k] in GROUP_NOUNS for k in cells)  # "P2RY12(+) parenchymal microglia"
    after = s.plain(e[1], min(len(s.w), e[1] + 6))
    if (
        e[1] - e[0] == 1
        and re.fullmatch(r"[a-z-]{4,}(?:ic|ive|ous)", s.raw[e[0]])
        and after
        and s.w[after[0]].isalpha()
        and not (
            s.w[after[0]] in PREP | LINKERS | AUX | CLAUSE_WORDS | GROUP_NOUNS
            or s.verbish(after[0])
        )
    ):  # ("diabetic mice" names a group: the group rules decide)
        return True  # "the neurotoxic protein B", "neurotoxic B peptides": an adjective
    for n, k in enumerate(after[:3]):
        w = s.w[k]
        if w in ROLE_HEADS:
            return True
        if w in DRUG_CLASS:
            name = s.raw[after[n + 1]] if n + 1 < len(after) else ""
            return name[:1].isalnum() and not (
                name.lower() in LINKERS | PREP | AUX | CLAUSE_WORDS or s.verbish(after[n + 1])
            )
        if s.stop(k) or s.verbish(k) or w in PREP or w in LINKERS or not w[:1].isalnum():
            return False
    return False


def population(s: Words, e: Span) -> bool:
    """The endpoint only sets the scene: it names the population or model a statement is
    about, not a party to it:
    "in AD patients", "in prodromal Alzheimer subjects", "a mouse model of AD", "SH-SY5Y
    neuroblastoma cells"."""
    before = [s.w[k] for k in s.plain(max(0, e[0] - 3), e[0])]
    after = [s.w[k] for k in s.plain(e[1], min(len(s.w), e[1] + 12))][:4]
    if before[-2:] in (["model", "of"], ["models", "of"]) or (group(s, e) and "with" in before):
        return True  # "a mouse model of B", "individuals with B"
    if before[-2:] in (["presence", "of"], ["absence", "of"]):
        return True  # "in the presence of B": a condition of the experiment
    head = set(itertools.takewhile(lambda w: w not in PREP and w.isalnum()
                                   and not w.endswith("ing"), after))  # fmt: skip
    if head & {"transgenic", "model", "mice", "mouse", "rats", "rat"}:
        return True  # "B transgenic mice", "B (B) mice"
    where = {"in", "among", "from", "with", "of"} & set(before)
    return bool(where) and bool(head & (GROUP_NOUNS | {"transgenic", "model"}))


def group(s: Words, e: Span) -> bool:
    """The endpoint names a group of people or animals ("B patients", "patients with (mild)
    B")."""
    after = s.w[e[1]] if e[1] < len(s.w) else ""
    before = s.plain(max(0, e[0] - 4), e[0])
    with_ = [n for n, k in enumerate(before) if s.w[k] == "with"]
    return after in GROUP_NOUNS or bool(
        with_
        and with_[-1] > 0
        and s.w[before[with_[-1] - 1]] in GROUP_NOUNS
        and not any(s.stop(k) or s.verbish(k) or s.w[k] in PREP for k in before[with_[-1] + 1 :])
    )


def nested(s: Words, gap: list[int]) -> bool:
    """B sits in a prepositional phrase of a third noun inside the verb's object: "did not
    suppress the aggregation of C mutants *at* B" (two prepositions, the last one's head
    neither transparent nor relational)."""
    preps = [n for n, k in enumerate(gap) if s.w[k] in PREP]
    if len(preps) < 2 or preps[-1] == 0 or s.w[gap[preps[-1]]] == "of":
        return False  # "the rate of B" speaks of B
    head = s.w[gap[preps[-1] - 1]]
    return head not in TRANSPARENT | RELATIONAL | CHANGE_IN and head not in PREP


def argument(s: Words, k: int, a: Span) -> bool:
    """A is an argument of the relational noun at ``k``: "the effect *of* (chronic) A"."""
    gap = s.plain(k + 1, a[0])
    return (
        bool(gap)
        and s.w[gap[0]] in PREP
        and len(gap) <= 3
        and not any(s.stop(x) or s.verbish(x) for x in gap)
    )


def suspended(s: Words, e: Span) -> bool:
    """ "A- and C fibrinogen burden": A is the first part of a suspended compound; but "A-
    versus C-treated patients" names a group compared, A its treatment."""
    if not (len(s.w[e[1] - 1]) > 1 and s.w[e[1] - 1].endswith("-")):
        return False
    return not any("-" in w and w.endswith("ed") for w in s.w[e[1] : e[1] + 3])


def caused_next(s: Words, e: Span) -> bool:
    """The word after the endpoint is a hyphenated participle or a suffix after a bracket
    ("B exposure-induced C", "(B)-dependent C"): B modifies what follows."""
    nxt = s.plain(e[1], min(len(s.w), e[1] + 6))[:1]
    return bool(nxt) and (caused(s, nxt[0]) or (s.w[nxt[0]][:1] == "-" and
                                                 s.w[nxt[0]][1:].isalpha()))  # fmt: skip


def caused(s: Words, k: int) -> bool:
    """A hyphenated participle ("variant-induced", "Abeta-mediated"): what follows is caused
    by the word before it."""
    w = s.w[k]
    return "-" in w and w.endswith("ed") and len(w.rsplit("-", 1)[-1]) > 3


def coordinated(s: Words, a: Span, b: Span) -> bool:
    """A and B are items of one list ("whether A or B participates", "the effects of curcumin,
    A and B on …"): a hedge over the list hedges each item's relation to something else, not a
    relation between them — unless a link verb follows ("whether A and B interact") or a
    relational noun heads the pair ("the association between A and B")."""
    gap = s.plain(a[1], b[0])
    if not gap or any(s.verbish(k) or s.stop(k, comma=False) for k in gap):
        return False
    marks = ("and", "or", "nor", ",", "/")
    if not (
        s.w[gap[0]] in marks  # "A, C and B", "A/C/B"
        or (s.w[gap[-1]] in marks and not any(s.w[k] in PREP for k in gap))  # "A levels and B"
        or (  # "A metabolism and abnormal B phosphorylation"
            len(gap) <= 4
            and any(s.w[k] in ("and", "or") for k in gap)
            and not any(s.w[k] in PREP for k in gap)
        )
        or "as well as" in " ".join(s.w[k] for k in gap)  # "A as well as B"
        or (s.w[gap[-1]] in marks and "," in {s.w[k] for k in gap})  # "A with L, C and B"
        or any(  # "A oligomers, C fibrils, and B-induced damage"
            s.w[gap[n]] in ("and", "or") and s.w[gap[n - 1]] == ","
            for n in range(max(1, len(gap) - 3), len(gap))
        )
    ):
        return False
    before = s.plain(max(0, a[0] - 2), a[0])
    if any(s.w[k] in ("between", "among") for k in before):
        return False
    nxt = [k for k in s.plain(b[1], min(len(s.w), b[1] + 4)) if not adverb(s.w[k])]
    return not any(s.w[k] in LINK_VERBS - {"independent", "unrelated"} for k in nxt)


def linked(s: Words, a: Span, b: Span, reach: int = 6) -> bool:
    """A and B are parts of one phrase: few words between, one of them a linker, no verb."""
    gap = s.plain(a[1], b[0])
    return (
        0 < len(gap) <= reach
        and not any(s.stop(k) or s.verbish(k) for k in gap)
        and any(s.w[k] in LINKERS for k in gap)
    )
