"""Matching a surface form against a concept's names: equal, sharing words, abbreviating.

The three rules of :mod:`kgbuild.resolve.idcheck` (see its docstring), as pure functions of
normalized strings (:func:`kgbuild.names.norm`): :func:`match` says how a form matches a list
of names (exact | word | abbreviation) or None; :func:`stem` is the light suffix stemmer rule 2
compares words by; :func:`abbreviates` is Schwartz & Hearst's (2003) character matching.
"""

from __future__ import annotations

import re
from functools import lru_cache

from kgbuild.names import norm

#: Words that carry no identity of their own in a name.
GENERIC = frozenset({
    "the", "of", "in", "on", "by", "to", "and", "for", "with", "a", "an", "at", "or", "from",
    "disease", "diseases", "disorder", "disorders", "syndrome", "syndromes", "deficit",
    "deficits", "dysfunction", "dysfunctions", "impairment", "impairments", "impaired", "loss",
    "injury", "injuries", "damage", "abnormality", "abnormalities", "abnormal", "failure",
    "defect", "defects", "decline", "change", "changes", "acute", "chronic", "severe", "mild",
    "condition", "conditions", "symptom", "symptoms", "type", "types", "related", "associated",
    "induced", "lesion", "lesions", "state", "problem", "problems", "other", "unspecified",
    "protein", "proteins", "gene", "genes", "factor", "factors", "receptor", "receptors",
    "family", "member", "domain", "containing", "subunit", "like", "binding", "homolog",
    "chain", "complex", "class", "region", "alpha", "beta", "gamma", "delta", "kappa",
    "epsilon", "isoform", "kinase", "human", "cell", "cells", "level", "levels", "expression",
    "activity", "mrna", "rna", "antisense", "open", "reading", "frame", "pseudogene",
    "putative", "small", "large", "precursor", "peptide", "peptides", "dependent", "specific",
    "regulatory", "transcription", "non", "coding", "long", "novel", "system", "systems",
})  # fmt: skip
#: Suffixes the stemmer strips (longest first), at most twice, leaving ≥ 4 characters.
SUFFIXES = (
    "ational", "ations", "ation", "ative", "atory", "ities", "ity", "ions", "ion", "ives",
    "ive", "ical", "ous", "ates", "ate", "ies", "ic", "al", "es", "ed", "ing", "ia", "s", "y", "e",
)  # fmt: skip
_GREEK_LETTER = (("alpha", "a"), ("beta", "b"), ("gamma", "g"), ("delta", "d"), ("kappa", "k"))
_INVERTED = re.compile(r"^([^,]+),\s*([^,]+)$")
_TRAILING_NUMBER = re.compile(r"\d+$")
_PARENTHESIZED = re.compile(r"\(([^()]+)\)")


def stem(word: str) -> str:
    """A light suffix stemmer (two passes of :data:`SUFFIXES`): "neurodegeneration" and
    "neurodegenerative" → "neurodegener", "plaques"/"plaque" → "plaqu"; "crystallin" keeps its
    "-in", so it never meets "crystal" ("cryst"). A plural is undone first and is no pass of
    its own: "dyskinesias" and "dyskinesia" meet ("dyskin")."""
    word = _singular(word)
    for _ in range(2):
        for suffix in SUFFIXES:
            if word.endswith(suffix) and len(word) - len(suffix) >= 4:
                word = word[: -len(suffix)]
                break
        else:
            break
    return word


@lru_cache(maxsize=1 << 17)
def name_forms(name: str) -> tuple[str, ...]:
    """Normalized readings of a vocabulary name: as written, MeSH's inverted "Plaque,
    Amyloid" as "amyloid plaque", without its parenthesized qualifier ("prion protein (Kanno
    blood group)"), and a parenthesized word on its own (HGNC's "heat shock protein family A
    (Hsp70) member 4", MeSH's "Alzheimer Type Dementia (ATD)")."""
    out = list(dict.fromkeys([norm(name), norm(_PARENTHESIZED.sub(" ", name))]))
    out += [norm(p) for p in _PARENTHESIZED.findall(name) if " " not in p.strip()]
    inverted = _INVERTED.match(name)
    if inverted:
        out.append(norm(f"{inverted.group(2)} {inverted.group(1)}"))
    return tuple(n for n in out if n)


def _greek_flat(s: str) -> str:
    flat = s.replace(" ", "")
    for word, letter in _GREEK_LETTER:
        flat = flat.replace(word, letter)
    return flat


def _singular(w: str) -> str:
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"  # "toxicities", "neuropathies"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


@lru_cache(maxsize=1 << 17)
def _keys(s: str) -> frozenset[str]:
    """Equality keys: as is, spaces dropped, Greek letters as letters, words sorted and made
    singular ("plaques amyloid" = "amyloid plaque")."""
    words = tuple(sorted(_singular(w) for w in s.split()))
    return frozenset({s, s.replace(" ", ""), _greek_flat(s), " ".join(words)})


def _is_content(w: str) -> bool:
    return w not in GENERIC and len(w) > 2 and not w.isdigit()


@lru_cache(maxsize=1 << 17)
def _content(s: str) -> frozenset[str]:
    return frozenset(stem(w) for w in s.split() if _is_content(w))


def shares_enough(words: set[str], name: str) -> bool:
    """Whether a form's stemmed content ``words`` name the concept of normalized ``name``
    (rule 2): one shared word for a name of one or two content words, else at least half of
    the name's content words. A lone modifier is no concept: "coli" is a third of
    "adenomatous polyposis coli", "neurofibrillary" a quarter of "diffuse neurofibrillary
    tangles with calcification"."""
    content = _content(name)
    shared = words & content
    return bool(shared) and (len(content) <= 2 or 2 * len(shared) >= len(content))


def abbreviates(short: str, long: str) -> bool:
    """Schwartz & Hearst (2003): every letter/digit of ``short`` found in ``long`` right to
    left, the first one at the start of ``long``; ``long`` has at most min(|short| + 5,
    2·|short|) words. Both normalized."""
    short = short.replace(" ", "")
    if len(short) < 2 or not short[0].isalnum():
        return False
    if len(long.split()) > min(len(short) + 5, 2 * len(short)):
        return False
    li = len(long) - 1
    for si in range(len(short) - 1, -1, -1):
        c = short[si]
        while li >= 0 and (long[li] != c or (si == 0 and li > 0 and long[li - 1].isalnum())):
            li -= 1
        if li < 0:
            return False
        li -= 1
    return li == -1 or not long[: li + 1].strip()


def match(
    form: str, names: tuple[str, ...], synonyms: tuple[str, ...] = (), strict: bool = True
) -> str | None:
    """How a normalized ``form`` matches one of ``names`` or ``synonyms`` (entry terms: rules
    1 and 3 only) (exact | word | abbreviation), or None. ``strict``: rule 2 needs
    :func:`shares_enough` (MeSH); else one shared word (gene names, whose commas and
    "family … member" wording make word counts meaningless: "SH3 domain containing GRB2
    like 3, endophilin A3")."""
    keys = _keys(form)
    preferred = [n for name in names for n in name_forms(name)]
    normed = preferred + [n for name in synonyms for n in name_forms(name)]
    if any(keys & _keys(n) for n in normed):
        return "exact"
    bare = _TRAILING_NUMBER.sub("", form.replace(" ", ""))  # "APOE4", "Abeta42": a variant
    if len(bare) >= 3 and bare != form.replace(" ", "") and any(bare in _keys(n) for n in normed):
        return "exact"
    words = _content(form)
    if words and any(shares_enough(words, n) if strict else words & _content(n) for n in preferred):
        return "word"
    flat = form.replace(" ", "")  # "a beta": a short form written in two pieces
    single = 2 <= len(flat) <= (10 if " " not in form else 8) and len(form.split()) <= 2
    for n in normed:
        if {w for w in form.split() if _is_content(w)} & set(n.split()):  # a word of a name
            continue  # is no abbreviation of it: "dementia" of the entry term "Dementia, Senile"
        if single and any(
            abbreviates(x, n)
            for x in (flat, _greek_flat(form), bare if len(bare) >= 4 else "")
            if x
        ):
            return "abbreviation"
        if " " not in n and 3 <= len(n) <= 10 and not single and abbreviates(n, form):
            return "abbreviation"
    return None
