"""Which surface forms may become a node's alias (a search key and an "also called" entry).

Why: the alias table feeds search (``kgbuild entities``), the question linker and the
explorer's "also called" list, so one wrong alias sends every later question to the wrong
concept. On the DALK build the tagger's weakest links were doing exactly that: a misspelt
"Alzhiemer's Disease" linked once to Parkinson Disease put Parkinson first for the query
"alzhiemer"; "GRS" (genetic risk score) and "BMIxAPOE4" linked to APOE, "ADNP" (a gene) and
"ADNI" (a study) to Alzheimer Disease. The rules, each measurable on the snapshot's own tables:

1. **Trusted mentions only.** A mention whose ID the vocabulary check marked ``suspect`` or
   ``dropped`` (:mod:`kgbuild.resolve.idcheck`) gives no alias: the check found no name of the
   ID in the form, which is the same reason resolution does not let it spread
   (:func:`kgbuild.resolve.idcheck.spreads`). Uncheckable IDs (species, cell lines: no
   installed vocabulary) and mentions never checked stay usable.
2. **Seen enough, or named by the vocabulary.** A form is a node's alias when trusted mentions
   link it at least :data:`MIN_MENTIONS` times, or it is the node's own name or display name, a
   resolution merged into it, or an abbreviation the corpus defines. The node's stored alias
   list alone (which kept every form ever linked) no longer makes a key. A MeSH entry term of
   the ID (:func:`entry_terms`: "senile dementia of the Alzheimer type") is a key of its own.
3. **An acronym must abbreviate the concept.** For a MeSH node with vocabulary names, a short
   all-capitals form ("ADNI", "ADNP", "LOAD") must abbreviate (:func:`initials`: word initials,
   a few inner letters; Schwartz & Hearst's 2003 character rule for a one-word name) one of
   the ID's names or entry terms, or a trusted long form of the
   node that *ends* with one of them (English noun phrases are head-final: "late onset
   Alzheimer disease" is a kind of Alzheimer disease, "Alzheimer Disease Neuroimaging
   Initiative" is an initiative). Gene nodes are not judged so: their symbols ("APOE4") are not
   abbreviations, and the vocabulary check already compared them with HGNC's symbols.
4. **Another gene's symbol is that gene's.** A one-word form that is the HGNC official symbol
   of another gene (three characters or more: "ADNP", "CAT") is no alias of a non-gene node or
   of a different gene.
5. **A form the corpus refutes is no alias.** When the vocabulary check took an ID away from
   more mentions of a form than it left (an abstract defines "ARIA" as amyloid-related imaging
   abnormalities, not the gene ECSCR whose alias it is: on the DALK build 15 mentions dropped
   (4 more tagged with the mouse gene), 5 kept in abstracts that define nothing; "ADAS" of
   ADAS-Cog, 34 (+3) to 15), the form names that node nowhere else: the undefined uses are most
   likely the same misreading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from kgbuild.names import norm
from kgbuild.resolve.namematch import abbreviates, name_forms
from kgbuild.resolve.vocabularies import hgnc_names, names_of, synonyms_of

#: Least trusted mentions of a form for it to be an alias on the strength of mentions alone
#: (one mention is one tagger decision; the DALK build's junk aliases were mostly seen once).
MIN_MENTIONS = 2
#: Shortest HGNC symbol rule 4 claims (two letters are too often something else: "AD", "PD").
MIN_SYMBOL_CHARS = 3
_ACRONYM = re.compile(r"^[A-Za-z][A-Za-z0-9]{1,7}$")


def trusted(id_check: str | None) -> bool:
    """Whether a mention's link may name its ID elsewhere: not ``<vocabulary>:suspect`` nor
    ``<vocabulary>:dropped`` (rule 1)."""
    return not (id_check or "").endswith((":suspect", ":dropped"))


def is_acronym(surface: str) -> bool:
    """A short form written mostly in capitals: "ADNI", "sAD", "LOAD" (not "Abeta", "tau")."""
    s = surface.strip()
    if not _ACRONYM.match(s):
        return False
    letters = [c for c in s if c.isalpha()]
    upper = sum(c.isupper() for c in letters)
    return upper >= 2 and upper >= len(letters) - 1


@cache
def vocabulary_names(cid: str) -> tuple[str, ...]:
    """The ID's normalized names and entry terms from the installed vocabularies (() when none
    names it: then rule 3 does not apply)."""
    got = names_of(cid)
    names = list(got[1]) if got else []
    names += synonyms_of(cid) if cid.startswith("MESH:") else ()
    return tuple(dict.fromkeys(f for n in names for f in name_forms(n)))


def entry_terms(cid: str) -> tuple[str, ...]:
    """A MeSH ID's entry terms, MeSH's inverted forms read in order ("Dementia, Alzheimer
    Type" → "Alzheimer Type Dementia"): names a curator types that the corpus may never write.
    Only terms of two words or more: the ontologies' one-word synonyms are loose ("amyloid" for
    Amyloidosis). Other IDs: () (HGNC's aliases collide too often: "PS1", "AD")."""
    if not cid.startswith("MESH:"):
        return ()
    out = []
    for term in synonyms_of(cid):
        head, sep, rest = term.partition(", ")
        if len(norm(term).split()) >= 2:
            out.append(f"{rest} {head}" if sep and "," not in rest else term)
    return tuple(dict.fromkeys(out))


def head_final_forms(names: Iterable[str], forms: Iterable[str]) -> list[str]:
    """Normalized long forms (two words or more) that end with one of ``names``: kinds of the
    concept ("familial alzheimer disease"), not things named after it."""
    ends = tuple(f" {n}" for n in names if n)
    return [f for f in (norm(x) for x in forms) if " " in f and (f.endswith(ends) or f in names)]


def acronym_ok(surface: str, names: tuple[str, ...], long_forms: Iterable[str]) -> bool:
    """Rule 3: the acronym is a name, or abbreviates a name or a head-final long form."""
    short = norm(surface).replace(" ", "")
    if surface.strip().endswith("s") and len(short) > 2:  # "NFTs": a plural
        short = short[:-1]
    return any(short == n.replace(" ", "") or initials(short, n)
               for n in (*names, *long_forms))  # fmt: skip


#: Words an acronym skips ("dementia of the Alzheimer type" is DAT).
_SKIPPED = frozenset({"of", "the", "and", "in", "to", "with", "for", "a", "an", "on", "by"})
#: Letters an acronym may take from inside the words of a multi-word name, beyond one per word
#: fewer than the words ("NFT": neuroFibrillary tangles).
_EXTRA_PER_WORD = 1


def initials(short: str, long: str) -> bool:
    """Whether ``short`` abbreviates ``long`` (both normalized) as acronyms do: every word of a
    multi-word name gives its first letter, in order, and may give a few more from inside it
    (at most one fewer than the words in all: "ADNI" is no abbreviation of "alzheimer
    dementia", whose two words give "AD"). A one-word name is matched by Schwartz & Hearst's
    character rule ("ACh", acetylcholine). Stricter than :func:`abbreviates`, which finds
    "ADNI" in "alzheimer dementia" letter by letter."""
    words = [w for w in long.split() if w not in _SKIPPED]
    if len(words) <= 1:
        return bool(words) and abbreviates(short, words[0])
    budget = len(words) - 1

    def fit(si: int, wi: int, extra: int) -> bool:
        if wi == len(words):
            return si == len(short)
        word = words[wi]
        if si >= len(short) or short[si] != word[0]:
            return False
        si, pos = si + 1, 1
        if fit(si, wi + 1, extra):
            return True
        while si < len(short) and extra < budget:  # more letters from inside this word
            pos = word.find(short[si], pos)
            if pos < 0:
                return False
            si, pos, extra = si + 1, pos + 1, extra + 1
            if fit(si, wi + 1, extra):
                return True
        return False

    return fit(0, 0, 0)


@cache
def _symbols() -> dict[str, str]:
    """Lower-case HGNC official symbol → its NCBIGene ID (symbols of two genes: neither)."""
    out: dict[str, str] = {}
    for cid, names in hgnc_names().items():
        k = names[0].lower() if names else ""
        if len(k) >= MIN_SYMBOL_CHARS:
            out[k] = "" if k in out else cid
    return out


def foreign_symbol(key: str, cid: str) -> bool:
    """Rule 4: ``key`` (one normalized word) is the official symbol of a gene other than
    ``cid``."""
    owner = _symbols().get(key)
    return bool(owner) and owner != cid
