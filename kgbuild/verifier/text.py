"""A document as the verifier reads it: a stream of units (words, and one unit per mention)
with sentence numbers, and the entities whose mentions those units are.

Why a tokenizer of its own: the model's features are defined over these units and sentences,
and a model file is only valid for the feature definitions it was fitted on (``FEATURE_SET``
in :mod:`kgbuild.verifier.features`). Reusing the pipeline's sentence splitter would let an
edit there shift every feature without a retrain; here the rules are frozen with the feature
set. They are the usual abstract rules: a boundary after . ! ? before an upper-case word, a
digit or a bracket, not after a common abbreviation or a single initial, never inside a
mention, and always at the end of the title.

A mention is one unit whose word is its kind (``<Gene>``), so "the words between two
mentions" never contain a piece of an entity name and every other entity in between reads as
its kind, as in the feature sets of document-level relation extractors (BioRED baseline
features: Luo et al. 2022, Brief Bioinform 23(5):bbac282).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from kgbuild.records import Document, Mention

#: Entity kinds the verifier scores pairs of (BioRED's related kinds; Variant is not a KG node).
KINDS = ("Compound", "Disease", "Gene", "Variant")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_DIGITS = re.compile(r"\d+")
_ENDS = frozenset({".", "!", "?"})
_NO_SPLIT_AFTER = frozenset(
    {"e", "g", "i", "e.g", "i.e", "al", "vs", "fig", "figs", "ref", "no", "approx", "ca", "cf",
     "dr", "mr", "ms", "prof", "st", "sp", "spp", "resp", "eq", "vol", "inc", "ltd", "co"}
)  # fmt: skip


def mention_kind(m: Mention) -> str:
    """The kind a mention's entity is scored as: its Hetionet kind, ``Variant`` for tmVar IDs,
    else ``Other`` (species, cell lines: context, never an endpoint)."""
    if m.hetionet_type:
        return m.hetionet_type
    if (m.concept_id or "").startswith("tmVar:"):
        return "Variant"
    return "Other"


def mention_ids(m: Mention) -> list[str]:
    """Every concept a mention names (a composite "cleft lip and palate" names two); none when
    the annotator's ID was removed (``concept_id`` None)."""
    if not m.concept_id:
        return []
    return [m.concept_id, *(c for c in m.concept_ids if c != m.concept_id)]


@dataclass(slots=True)
class EntityView:
    """One concept of the document: its kind and the units of its mentions."""

    id: str
    kind: str
    units: list[int] = field(default_factory=list)
    #: The mentions, in text order (parallel to ``units``).
    mentions: list[Mention] = field(default_factory=list)


@dataclass(slots=True)
class DocView:
    """Units (normalized words; ``<Kind>`` for a mention), their sentence numbers and character
    spans, and the entities by ID (sentence 0 is the title)."""

    words: list[str]
    sentence: list[int]
    spans: list[tuple[int, int]]
    entities: dict[str, EntityView]
    n_sentences: int


#: Suffixes a word is cut at (longest first), keeping a stem of at least 4 letters: a crude
#: stemmer, so "increases", "increased", "increasing" and "increase" are one feature.
_SUFFIXES = ("ations", "ation", "ingly", "ings", "ing", "edly", "ies", "ied", "es", "ed", "s")


def stem(word: str) -> str:
    if not word.isalpha() or len(word) < 6:
        return word
    for suf in _SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 4:
            return word[: -len(suf)].rstrip("e") if suf != "s" or word[-2] != "s" else word
    return word.rstrip("e") if len(word) > 5 else word


def _normal(token: str) -> str:
    return stem(_DIGITS.sub("0", token.lower()))


def _opens(token: str) -> bool:
    """Whether a token (as written) can open a sentence: upper case, a digit or a bracket."""
    c = token[:1]
    return c.isupper() or c.isdigit() or c in "([\"'"


def doc_view(doc: Document, mentions: list[Mention]) -> DocView:
    """Tokenize ``doc`` around its mentions; overlapping mentions share the first one's unit."""
    text = doc.text
    words: list[str] = []
    spans: list[tuple[int, int]] = []
    opens: list[bool] = []
    entities: dict[str, EntityView] = {}
    pos = 0
    last_end = -1

    def plain(upto: int | None) -> None:
        for t in _TOKEN.finditer(text, pos, len(text) if upto is None else upto):
            words.append(_normal(t.group()))
            spans.append((t.start(), t.end()))
            opens.append(_opens(t.group()))

    for m in sorted(mentions, key=lambda m: (m.start, -m.end)):
        kind = mention_kind(m)
        if m.start < last_end:  # nested or overlapping: the same place in the stream
            unit = len(words) - 1
        else:
            plain(m.start)
            words.append(f"<{kind}>")
            spans.append((m.start, m.end))
            opens.append(_opens(m.text) or not m.text[:1].isalpha())
            unit, pos, last_end = len(words) - 1, m.end, m.end
        for cid in mention_ids(m):
            ent = entities.setdefault(cid, EntityView(cid, kind))
            if not ent.units or ent.units[-1] != unit:
                ent.units.append(unit)
                ent.mentions.append(m)
    plain(None)
    sentence = _sentences(words, spans, opens, len(doc.title))
    return DocView(words, sentence, spans, entities, (sentence[-1] + 1) if sentence else 0)


def _sentences(
    words: list[str], spans: list[tuple[int, int]], opens: list[bool], title_end: int
) -> list[int]:
    """Sentence number of every unit (see the module docstring for the rules)."""
    out: list[int] = []
    s = 0
    for i in range(len(words)):
        if s == 0:
            if spans[i][0] > title_end:
                s = 1  # the title is sentence 0, always
        elif (
            words[i - 1] in _ENDS
            and opens[i]
            and spans[i][0] > spans[i - 1][1]
            and words[i - 2 if i >= 2 else 0] not in _NO_SPLIT_AFTER
            and not (i >= 2 and len(words[i - 2]) == 1 and words[i - 2].isalpha())
        ):
            s += 1
        out.append(s)
    return out
