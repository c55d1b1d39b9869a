"""Name normalization shared by grounding, resolution, quality and the query side.

An LLM and an annotator write one concept many ways ("Alzheimer's disease", "Alzheimer disease",
"AD (Alzheimer's disease)", "Abeta levels"): :func:`norm` folds case, Unicode, Greek letters,
possessives and punctuation; :func:`variants` adds the readings entity linkers try next
(parenthetical parts, an appended head noun dropped, a singular).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache

#: Head nouns an LLM appends to an entity's name ("APOE gene", "tau protein", "Abeta levels").
_HEAD_NOUNS = (
    "protein", "proteins", "peptide", "peptides", "gene", "genes", "level", "levels",
    "expression", "mrna",
)  # fmt: skip
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon", "κ": "kappa",
    "λ": "lambda", "μ": "mu", "τ": "tau", "ω": "omega",
}  # fmt: skip
_PAREN = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*(.*)$")
_ENUMERATED = re.compile(r"^\s*\d{1,2}[.)]\s+(.+)$")


_GREEK_TABLE = str.maketrans(_GREEK)
_POSSESSIVE = re.compile(r"['’`]s\b")
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


@lru_cache(maxsize=1 << 16)
def norm(name: str) -> str:
    """Case, Unicode, Greek letters, possessives, hyphens and punctuation folded away."""
    s = unicodedata.normalize("NFKC", name).lower().translate(_GREEK_TABLE)
    s = _NON_ALNUM.sub(" ", _POSSESSIVE.sub("", s))
    return " ".join(s.split())


@lru_cache(maxsize=1 << 16)
def variants(name: str) -> tuple[str, ...]:
    """Normalized readings of a name: its parenthetical parts ("AD (Alzheimer's disease)"), the
    name without an appended head noun or a list number ("1. AD"), and a singular."""
    out = [name, name.replace("-", "")]  # "neuro-inflammation" is "neuroinflammation"
    listed = _ENUMERATED.match(name)  # "1. Alzheimer's disease": an LLM's list numbering
    if listed:
        out.append(listed.group(1))
    m = _PAREN.match(name)
    if m:
        out.append(f"{m.group(1)} {m.group(3)}".strip())
        opens = m.start(2) - 1  # the "(": an apposition opens a word ("AD (Alzheimer's
        if opens == 0 or name[opens - 1].isspace():  # disease)"); a formula's parentheses
            out.append(m.group(2))  # are no second name ("Ru(bpy)3": not bipyridine)
    forms = []
    for v in out:
        n = norm(v)
        if not n:
            continue
        forms.append(n)
        words = n.split()
        if len(words) > 1 and words[-1] in _HEAD_NOUNS:
            forms.append(" ".join(words[:-1]))
        singular = _singular(n)
        if singular != n:
            forms.append(singular)
        if n.startswith("the "):
            forms.append(n[4:])
    return tuple(dict.fromkeys(forms))


def _singular(n: str) -> str:
    """English plural of the last word undone ("stresses", "tauopathies", "plaques")."""
    if len(n) <= 4 or not n.endswith("s") or n.endswith(("ss", "us", "is")):
        return n
    if n.endswith(("sses", "xes", "ches", "shes")):
        return n[:-2]
    if n.endswith("ies"):
        return n[:-3] + "y"
    return n[:-1]


def by_frequency(counts: Mapping[str, int]) -> list[str]:
    """Keys of ``counts``, most frequent first; ties in alphabetical order (deterministic)."""
    return sorted(counts, key=lambda k: (-counts[k], k))


def most_frequent(counts: Mapping[str, int]) -> str:
    """The most frequent key (a concept's usual surface form, a form's usual concept or kind);
    ties: the alphabetically first. Every "most frequent" choice of kgbuild goes through here,
    so a build and its restored resumption agree on names."""
    return min(counts, key=lambda k: (-counts[k], k))


_GREEK_SYMBOL = (("alpha", "A"), ("beta", "B"), ("gamma", "G"), ("delta", "D"), ("kappa", "K"))


def greek_symbol(text: str) -> str | None:
    """ "GSK-3beta" → "GSK3B", "IL-1beta" → "IL1B": the text as a gene symbol, with Greek letter
    names spelled the way HGNC symbols spell them; None when the text has no Greek letter name."""
    low = re.sub(r"[^a-z0-9]", "", text.lower())
    if not any(g in low for g, _ in _GREEK_SYMBOL):
        return None
    for g, letter in _GREEK_SYMBOL:
        low = low.replace(g, letter.lower())
    return low.upper()


#: Greek letters that abstracts write as HTML entities, with or without the ";" ("A&beta",
#: "TNF-&alpha;"): :func:`html.unescape` needs the ";", so these are spelled out first.
_GREEK_ENTITY = re.compile(
    r"&(alpha|beta|gamma|delta|epsilon|kappa|lambda|mu|tau|omega);?", re.IGNORECASE
)
#: Leading characters no name starts with: quotes, dashes, list bullets and stray closers.
_LEADING_JUNK = re.compile(r"^[\s\"'“”‘’`´\-–—−_,.;:!?*•·/\\|)\]}>]+")
#: Trailing characters no name ends with (a trailing ")" closes "(Abeta)": kept).
_TRAILING_JUNK = re.compile(r"[\s\"“”`,;:/\\|&(\[{<–—_-]+$")
#: A list number an abstract's or an LLM's enumeration left in front of a name: "49 Alzheimer's
#: disease dementia", "3) tau" — digits then a capitalized word, or digits with "." or ")".
_LEADING_NUMBER = re.compile(r"^\d{1,3}(?:[.)]\s+|\s+(?=[A-Z][a-z]{2}))")


@lru_cache(maxsize=1 << 16)
def clean_alias(text: str) -> str:
    """A surface form as a person should read it: HTML entities unescaped ("A&beta" → "Aβ",
    "&amp;" → "&"), leading punctuation, quotes and list numbers dropped ('"amyloid-beta',
    "-amyloid beta", "49 Alzheimer's disease dementia"), a dangling trailing "&", dash or quote
    dropped, white space collapsed. "" when nothing readable is left. Only what is *shown*
    changes: matching keys (:func:`norm`, the query side's tokens) fold these characters anyway."""
    s = html.unescape(_GREEK_ENTITY.sub(lambda m: _GREEK_LETTER[m.group(1).lower()], text))
    s = " ".join(s.split())
    for _ in range(3):  # "1. "Abeta": a number, then a quote
        before = s
        s = _LEADING_NUMBER.sub("", _LEADING_JUNK.sub("", s))
        s = _TRAILING_JUNK.sub("", s)
        if s == before:
            break
    if s.count('"') == 1:  # an unbalanced quote inside ("amyloid-beta"" fragments)
        s = s.replace('"', "")
    if s.endswith("'") and s.count("'") == 1 and not s[-2:-1].isdigit():
        s = s[:-1]  # a closing quote left by a leading one dropped (a prime "5'" stays)
    if s.count("(") != s.count(")") and s.endswith(")") and "(" not in s:
        s = s[:-1]  # a stray closer: "Abeta)"
    return s.strip()


_GREEK_LETTER = {name: letter for letter, name in _GREEK.items()}


#: Morphemes of systematic (IUPAC) chemical nomenclature: substituent prefixes, ring and bond
#: suffixes (IUPAC Recommendations 2013, P-1 to P-3). Common names rarely chain three of them.
_IUPAC_PARTS = re.compile(
    r"methyl|ethyl|propyl|butyl|phenyl|benzyl|hydroxy|amino|oxo|oxy|fluoro|chloro|bromo|iodo|"
    r"nitro|cyano|carbonyl|carbox|hydro|amido|amide|imino|sulfon|thio|azepin|pyrid|pyrrol|"
    r"piperid|piperaz|imidazo|indol|quinol|thiazol|oxazol|triazol|benz|naphth|cyclo|"
    r"ylidene|anoyl|anyl|enyl|inyl|oyl|yl\b|ol\b|one\b|ate\b|ide\b",
    re.IGNORECASE,
)
#: Locants ("3,5-", "N1-", "7S", "2H-"), stereodescriptors ("(2S)", "(R,R)") and fused-ring
#: letters ("(b,d)").
_LOCANT = re.compile(r"\d+(?:,\d+)+-|\b[NOS]\d*-|\(\d*[RSEZ](?:,\d*[RSEZ])*\)|\d+[A-Z]?H-|"
                     r"\([a-z](?:,[a-z])+\)|\d-[a-z]")  # fmt: skip
#: Shortest systematic name flagged: short ones ("4-aminopyridine", "2-deoxyglucose") are the
#: common names chemists and clinicians use.
SYSTEMATIC_MIN_CHARS = 25


def is_systematic(name: str) -> bool:
    """Whether ``name`` reads as a systematic chemical name ("N2-((2S)-2-(3,5-difluorophenyl)-
    2-hydroxyethanoyl)-N1-…-L-alaninamide": semagacestat's MeSH name) rather than a name a
    person uses: at least :data:`SYSTEMATIC_MIN_CHARS` characters with two of three signs —
    locants or stereodescriptors, two or more brackets, three or more nomenclature morphemes."""
    s = name.strip()
    if len(s) < SYSTEMATIC_MIN_CHARS:
        return False
    signs = (
        len(_LOCANT.findall(s)) >= 2,
        sum(s.count(b) for b in "([{") >= 2,
        len(_IUPAC_PARTS.findall(s)) >= 3,
    )
    return sum(signs) >= 2
