"""Evidence sentence choice: one sentence naming both endpoints beats a closer pair
of mentions that straddles a sentence boundary."""

from __future__ import annotations

from kgbuild.extract.claims import _closest, _in_one_sentence
from kgbuild.extract.sentences import sentence_spans


def _spans(text: str, word: str) -> tuple[tuple[int, int], ...]:
    out, at = [], text.find(word)
    while at >= 0:
        out.append((at, at + len(word)))
        at = text.find(word, at + 1)
    return tuple(out)


TEXT = "Clusterin in the plasma of older adults binds amyloid. Clusterin fell."


def test_single_sentence_preferred_over_straddling_pair():
    a, b = _spans(TEXT, "Clusterin"), _spans(TEXT, "amyloid")
    sentences = sentence_spans(TEXT, [], [])
    # the closest pair overall ("amyloid. Clusterin") runs over two sentences …
    assert _closest(a, b) == (a[1], b[0])
    # … while the first sentence holds both
    assert _in_one_sentence(a, b, sentences) == (a[0], b[0])


def test_no_single_sentence_falls_back_to_closest():
    text = "Clusterin rose. Amyloid fell."
    a, b = _spans(text, "Clusterin"), _spans(text, "Amyloid")
    assert _in_one_sentence(a, b, sentence_spans(text, [], [])) is None
    assert _closest(a, b) == (a[0], b[0])
