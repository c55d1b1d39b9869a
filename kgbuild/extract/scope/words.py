"""A sentence as the scope grammar reads it: tokens, brackets, breakers, and a cue's hit.

:class:`Words` holds the tokens twice (lower-case and as written), the bracketed indices
("amyloid-beta (Abeta)" is one phrase) and the breakers — punctuation, subordinators and the
cue table's termination terms, across which nothing is governed (NegEx, Chapman et al. 2001;
ConText, Harkema et al. 2009). :class:`Hit` is one cue found in it; :func:`verb_start` finds
the verb group a cue belongs to. Every rule of the grammar reads a sentence through these.
"""

from __future__ import annotations

from dataclasses import dataclass

from kgbuild.extract.scope.lexicon import AUX, CLAUSE_WORDS, DETERMINERS, PREP, PUNCT, VERBS

Span = tuple[int, int]  # token indices [lo, hi)


@dataclass(frozen=True, slots=True)
class Words:
    """A sentence's tokens, lower-case (``w``) and as written (``raw``), the indices inside
    brackets (``paren``: "amyloid-beta (Abeta)" is one phrase) and the breakers: punctuation
    and the termination terms (``brk``)."""

    w: tuple[str, ...]
    raw: tuple[str, ...]
    paren: frozenset[int]
    brk: frozenset[int]
    group: tuple[int, ...]  # the bracket group of each token (0: outside brackets)

    def verbish(self, k: int) -> bool:
        """A finite verb or participle, by form: an auxiliary, a listed verb, or an -ed word
        (not hyphenated; not after a determiner, preposition or clause start: "aged mice")."""
        w = self.w[k]
        if w in AUX or w in VERBS:
            return True
        if len(w) > 4 and w.endswith("ed") and "-" not in w and w.isalpha():
            prev = self.w[k - 1] if k > 0 else "."
            return not (prev in DETERMINERS or prev in PREP or k == 0 or k - 1 in self.brk)
        return False

    def stop(self, k: int, comma: bool = True) -> bool:
        return k in self.brk or (comma and self.w[k] == ",")

    def plain(self, lo: int, hi: int) -> list[int]:
        """Indices in [lo, hi) outside brackets, the brackets themselves left out."""
        return [k for k in range(lo, hi) if k not in self.paren and self.w[k] not in "()[]"]


def words_of(words: list[str], raw: list[str], terminators: set[int]) -> Words:
    paren, depth, groups, group = set(), 0, 0, []
    for k, w in enumerate(words):
        if w in ("(", "["):
            depth += 1
            groups += depth == 1
        elif w in (")", "]"):
            depth = max(0, depth - 1)
        elif depth:
            paren.add(k)
        group.append(groups if k in paren else 0)
    brk = {k for k, w in enumerate(words) if w in PUNCT or w in CLAUSE_WORDS} | terminators
    return Words(tuple(words), tuple(raw), frozenset(paren), frozenset(brk - paren), tuple(group))


def adverb(w: str) -> bool:
    return w.endswith("ly") or w in ("also", "still", "even", "further", "yet", "then")


def verb_start(s: Words, i: int, extra: frozenset[str] = frozenset()) -> int:
    """Where the verb group holding the cue at ``i`` begins (back over auxiliaries, adverbs
    and ``extra``: "A was *found to have* no effect on B")."""
    while (
        i > 0
        and (i - 1) not in s.paren
        and (s.w[i - 1] in AUX or adverb(s.w[i - 1]) or s.w[i - 1] in extra)
    ):
        i -= 1
    return i


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str  # negation | hedge
    scope: str
    i: int
    j: int
