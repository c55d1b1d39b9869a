"""Sentence spans for abstracts, without a model.

A rule splitter is enough for PubMed abstracts and keeps the no-LLM path dependency-free: split
after . ! ? followed by space and an upper-case letter, digit or bracket, except after common
abbreviations (e.g., i.e., et al., vs., Fig.) and single initials, and never inside an annotated
mention (so an entity is never cut in two, whatever the annotator's span).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence

_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+(?=[A-Z0-9(\[\"'])")
_NO_SPLIT_AFTER = frozenset(
    {
        "e.g", "i.e", "et", "al", "vs", "fig", "figs", "ref", "refs", "no", "approx", "ca",
        "cf", "dr", "mr", "mrs", "ms", "prof", "st", "sp", "spp", "resp", "eq", "eqs", "vol",
        "inc", "ltd", "co", "jr", "sr",
    }
)  # fmt: skip


def _disjoint(spans: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """Spans merged where they overlap (as open intervals), as sorted start and end lists, so
    "is this position strictly inside a mention" is one binary search, not a scan of every
    mention per candidate boundary (quadratic on a dense 2 MB abstract)."""
    starts: list[int] = []
    ends: list[int] = []
    for s, e in sorted(spans):
        if starts and s < ends[-1]:
            ends[-1] = max(ends[-1], e)
        else:
            starts.append(s)
            ends.append(e)
    return starts, ends


def sentence_spans(
    text: str, protected: Sequence[tuple[int, int]] = (), breaks: Sequence[int] = ()
) -> list[tuple[int, int]]:
    """(start, end) spans of the sentences of ``text``, trimmed of whitespace.

    ``protected`` spans are never split; ``breaks`` are forced cuts (the end of the title).
    """
    starts, ends = _disjoint(protected)
    cuts = [0, *breaks]
    for m in _BOUNDARY.finditer(text):
        cut = m.end()
        word = text[max(0, m.start() - 12) : m.start() + 1].split()
        last = word[-1].rstrip(".").lower() if word else ""
        if last in _NO_SPLIT_AFTER or (len(last) == 1 and last.isalpha()):
            continue
        at = m.start() + 1
        k = bisect.bisect_left(starts, at) - 1  # the last protected span starting before `at`
        if k >= 0 and at < ends[k]:
            continue
        cuts.append(cut)
    cuts.append(len(text))
    cuts = sorted(set(cuts))
    spans = []
    for a, b in itertools.pairwise(cuts):
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a:
            spans.append((a, b))
    return spans
