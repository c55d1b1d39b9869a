"""Per-document bounds on entity pairs: one dense abstract must not cost quadratic memory or a
quadratic number of LLM prompts.

Pairs grow with the square of a document's entities: an abstract that lists 600 genes in one
sentence has 179,700 pairs, each a co-occurrence evidence row or a pair-wise question. Real
abstracts are far below the caps (measured on the shared corpora with
``kgbuild.extract.pairwise.candidate_pairs`` and :func:`kgbuild.extract.sentences.sentence_spans`):
the densest has 300 candidate pairs and 20 distinct entities in a sentence in DALK (9,764
abstracts), 703 and 23 in BioRED, 210 and 15 in BC5CDR. A document over a cap keeps a
deterministic subset, the pairs of its most-mentioned entities (earliest first mention, then ID,
on ties), and ends ``partial`` with the cap in its reason, so the loss is visible, never silent.
Pairs are enumerated lazily, so a capped document never holds its uncapped pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import combinations
from typing import TypeVar

#: Pairs per batched call of the pairwise extractor. DALK's corpus has 19.4 candidate pairs per
#: abstract (165,434 over 8,519; median 10, max 300): 80 keeps the mean at 0.98 calls per
#: abstract (40 would be 1.12). Here, not in :mod:`kgbuild.extract.pairwise`, so the CLI can
#: show it without importing the extractors.
CHUNK_SIZE = 80

T = TypeVar("T")

MAX_PAIRS_PER_DOCUMENT = 2_000
"""Entity pairs one document may cost: pair-wise questions (so at most 2,000 prompts per-pair,
25 batched at 80 pairs a call) or co-occurrence evidence rows. About 3x the densest abstract of
any shared corpus (BioRED's 703 pairs; DALK's 300), so only pathological documents reach it."""

MAX_ENTITIES_PER_SENTENCE = 40
"""Distinct entities of one sentence that co-occurrence pairs (at most 780 pairs a sentence).
Twice the densest sentence of the shared corpora (23, BioRED; 20, DALK): beyond it a
"sentence" is a list or a table, whose co-mentions say nothing about any one pair, and without
it one such sentence would spend the whole document's pair budget."""


def rank_key(count: int, first: int, ident: str) -> tuple[int, int, str]:
    """Sort key putting the most-mentioned entity first, then the earliest, then by ID: a
    stable order (no hash or input order) so a capped document keeps the same pairs on every
    build."""
    return (-count, first, ident)


def ranked_pairs(items: Sequence[T]) -> Iterator[tuple[T, T]]:
    """Every pair of ``items`` (already in rank order), lazily, the pairs among the first k
    items before any pair with item k+1: any prefix of this sequence is the pairs of the
    top-ranked items."""
    for j in range(1, len(items)):
        for i in range(j):
            yield items[i], items[j]


def count_pairs(kinds: Counter[str], allowed: Callable[[str, str], bool]) -> int:
    """Unordered pairs among entities counted by kind whose kind pair is ``allowed``, without
    enumerating them (so a dense document's size is known before any pair is built)."""
    total = 0
    for a, b in combinations(sorted(kinds), 2):
        if allowed(a, b):
            total += kinds[a] * kinds[b]
    for k, n in kinds.items():
        if allowed(k, k):
            total += n * (n - 1) // 2
    return total


def cap_reason(total: int, kept: int, what: str, limits: str) -> str:
    """The ``extraction_status`` reason of a capped document ('' when nothing was dropped):
    ``pair cap: 180,901 candidate pairs, over 2,000 per document; kept 2,000``."""
    if total <= kept:
        return ""
    return f"pair cap: {total:,} {what}, over {limits}; kept {kept:,}"
