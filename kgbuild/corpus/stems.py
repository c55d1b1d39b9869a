"""A phrase's word stems, and the patterns that find them in text: "plaques" by "plaqu",
"miR-29a" by "miR-29" (never "miR-299"). Shared by the readers that find an unlinked phrase,
a choice or a context word in the corpus's sentences (BM25's stems:
:func:`kgbuild.search.sentences.terms`)."""

from __future__ import annotations

import re

from kgbuild.search.sentences import terms


def stem_regex(stem: str) -> str:
    """A stem and the rest of its word: "plaqu" finds "plaques"; a stem ending in a digit only
    a letter suffix ("miR-29" finds "miR-29a" and "miR-29b", never "miR-299"). The caller
    bounds a last stem ending in a digit."""
    if stem[-1:].isdigit():
        return re.escape(stem) + r"(?:[a-z_]\w*)?"
    return re.escape(stem) + r"\w*"


def word_stems(text: str) -> tuple[str, ...]:
    """The stems of a phrase's words; a word the sentence index drops as a stopword ("types")
    is kept, lower-cased and without a plural "s" — in a phrase it carries meaning."""
    out: list[str] = []
    for tok in re.findall(r"[A-Za-z0-9]+", text):
        got = terms(tok)
        low = tok.lower()
        out += got or [low[:-1] if len(low) > 3 and low.endswith("s") else low]
    return tuple(out)
