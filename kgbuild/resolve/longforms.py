"""An abbreviation means what its long form in the same abstract means.

Why: a tagger normalizes a short form on its own, so "dementia of the Alzheimer type (DAT)" has
its long form linked to Alzheimer Disease and every "DAT" to the dopamine transporter gene
(SLC6A3); "beta2-adrenoreceptor (beta2AR)" has ADRB2 for the long form and ADORA2A for the short;
"diabetes mellitus (DM)" has myotonic dystrophy for "DM". A claim about "DAT" then becomes a
claim about a transporter (the DALK audit, seed 1603). The abstract itself says what the short
form stands for: Schwartz & Hearst (2003) definitions, found by scispaCy's detector
(:func:`kgbuild.extract.ground.abbreviations`), are the evidence a curator would read.

The rule (automatic, a *relink*): a short form annotated inside parentheses right after its
long form, where one mention covers that whole long form (or all of it but a trailing "type" /
"form": taggers stop before them) with another ID, takes the long form's ID and kind — the
parenthesized mention and every other mention of the same text with the same ID in the abstract.
Not when either is a species or a cell line (a tagger's species guess is no definition), not
from a disease to a gene (a long form like "spinocerebellar ataxia type 1" tagged as the gene
names the disease), and not between a human and a non-human gene (which species the paper means
is not in the definition). On DALK's corpus this relinks 265 mentions.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable

from kgbuild.extract.ground import abbreviations
from kgbuild.names import norm
from kgbuild.records import Mention
from kgbuild.resolve.namematch import abbreviates
from kgbuild.resolve.vocab import Reference

#: How far before the parenthesis a long form may start (characters).
LONG_FORM_WINDOW = 120
#: Words a tagger leaves out at the end of a long form ("dementia of the Alzheimer [type]").
TRAILING = frozenset({"type", "types", "form", "forms"})
_NOT_DEFINING = frozenset({"Species", "CellLine"})


def _short_forms(ms: list[Mention], text: str) -> Iterable[tuple[Mention, int, list[Mention]]]:
    """(parenthesized short-form mention, its opening parenthesis, the other linked mentions of
    another ID that start in the window before it, in document order). Mentions are looked up
    by start offset, so a document with many mentions costs n log n, not n²."""
    by_start = sorted(range(len(ms)), key=lambda i: ms[i].start)
    starts = [ms[i].start for i in by_start]
    for s in ms:
        if not s.concept_id or s.source_type in _NOT_DEFINING or s.start < 2:
            continue
        if text[s.start - 1 : s.start] != "(" or text[s.end : s.end + 1] != ")":
            continue
        paren = s.start - 1
        near = by_start[bisect_left(starts, paren - LONG_FORM_WINDOW) : bisect_right(starts, paren)]
        others = [
            lf
            for lf in (ms[i] for i in sorted(near))  # in document order, as annotated
            if lf.concept_id
            and lf.concept_id != s.concept_id
            and lf.source_type not in _NOT_DEFINING
            and lf.hetionet_type
        ]
        if others:
            yield s, paren, others


def _candidates(ms: list[Mention], text: str) -> Iterable[tuple[Mention, list[Mention]]]:
    """(parenthesized short-form mention, mentions that may be its long form: they end at the
    parenthesis, or before words a tagger leaves out)."""
    for s, paren, others in _short_forms(ms, text):
        longs = [
            lf
            for lf in others
            if lf.end <= paren and set(norm(text[lf.end : paren]).split()) <= TRAILING
        ]
        if longs:
            yield s, longs


def _allowed(short: Mention, long: Mention, ref: Reference) -> bool:
    if short.hetionet_type == "Disease" and long.hetionet_type == "Gene":
        return False
    if short.hetionet_type == "Gene" and long.hetionet_type == "Gene":
        return (ref.name(short.concept_id or "") is None) == (
            ref.name(long.concept_id or "") is None
        )
    return True


def long_form_links(
    ms: list[Mention],
    text: str,
    ref: Reference,
    definitions: Callable[[str], dict[str, str]] = abbreviations,
) -> dict[tuple[str, str], Mention]:
    """(normalized short form, its annotated ID) → the long-form mention whose ID it takes.

    ``definitions`` finds Schwartz & Hearst pairs in ``text`` (normalized short → long form);
    it runs only for abstracts with a candidate (about a second over DALK's 8,519 abstracts).
    """
    out: dict[tuple[str, str], Mention] = {}
    found: dict[str, str] | None = None
    for short, longs in _candidates(ms, text):
        if found is None:
            found = definitions(text)
        key = norm(short.text)
        long_form = found.get(key)
        if not long_form:
            continue
        paren = short.start - 1
        whole = [lf for lf in longs if norm(text[lf.start : paren]) == long_form]
        if len({lf.concept_id for lf in whole}) != 1 or not _allowed(short, whole[0], ref):
            continue
        out.setdefault((key, short.concept_id or ""), whole[0])
    return out


def partial_long_forms(
    ms: list[Mention],
    text: str,
    definitions: Callable[[str], dict[str, str]] = abbreviations,
) -> list[tuple[Mention, Mention]]:
    """(parenthesized short-form mention, mention that starts its long form but stops short of
    it): "Alzheimer's beta-amyloid (Abeta)" with the tagger's mention "Alzheimer's beta".
    Such a mention never gives its ID to the short form (it is not the whole long form); it is
    what :func:`kgbuild.resolve.mislinked.unlink_slice` may give the *short* form's ID to, when
    a vocabulary confirms that ID and not the truncated mention's."""
    out: list[tuple[Mention, Mention]] = []
    found: dict[str, str] | None = None
    for s, paren, others in _short_forms(ms, text):
        # ends before the parenthesis, not at it
        near = [lf for lf in others if lf.end < paren and norm(text[lf.end : paren])]
        if not near:
            continue
        if found is None:
            found = definitions(text)
        long_form = found.get(norm(s.text))
        out += [(s, lf) for lf in near if long_form and norm(text[lf.start : paren]) == long_form]
    return out


#: A parenthesized short form with a hyphenated qualifier ("(ADAS-Cog)", "(ARIA-E)", "(ADAS-cog,
#: SMD = …)"): group 1 is its first part.
_COMPOUND = re.compile(r"\(\s*([A-Za-z][A-Za-z0-9]{1,9})-([A-Za-z0-9]{1,12})\s*[),;]")
#: Where the words a long form may take end on the left (the clause before the parenthesis).
_CLAUSE_ENDS = ".;:()[]"


def compound_first_parts(text: str) -> dict[str, str]:
    """Normalized first part of each hyphenated short form → the long form before it, as
    Schwartz & Hearst (2003) find a long form (the shortest run of words, within the clause,
    that the first part abbreviates), without the words of the qualifier ("cognitive subscale"
    for "Cog", "induced" for "STZ-induced"): "Alzheimer's Disease Assessment Scale-cognitive
    subscale (ADAS-Cog)" defines "ADAS" as "alzheimer disease assessment scale". scispaCy's
    detector leaves such compounds out, and a tagger links their first part on its own ("ADAS"
    to the gene AGPS, whose alias it is: 52 mentions in DALK's corpus), so the vocabulary check
    judges the part by what the abstract says."""
    out: dict[str, str] = {}
    for m in _COMPOUND.finditer(text):
        first, qualifier = norm(m.group(1)), norm(m.group(2))
        start = max(text.rfind(c, 0, m.start()) for c in _CLAUSE_ENDS) + 1
        words = norm(text[start : m.start()]).split()
        words = words[: _qualifier_start(qualifier, words)]
        for i in range(len(words) - 1, -1, -1):
            long = " ".join(words[i:])
            if abbreviates(first, long):
                out.setdefault(first, _trimmed(first, words[i:]))
                break
    return out


def _qualifier_start(qualifier: str, words: list[str]) -> int:
    """Where the qualifier's own words begin at the end of ``words`` (len(words): none): the
    last word it begins ("…Scale-cognitive subscale (ADAS-Cog)"), else the shortest run of
    last words it abbreviates ("Down syndrome with Alzheimer's disease (DS-AD)")."""
    for j in range(len(words) - 1, 0, -1):
        if words[j].startswith(qualifier):
            return j
    if len(qualifier) >= 2 and qualifier.isalpha():
        for j in range(len(words) - 1, 0, -1):
            if abbreviates(qualifier, " ".join(words[j:])):
                return j
    return len(words)


#: Trailing words a compound's long form sheds while its first part still abbreviates the
#: rest: a participle of the qualifier ("streptozotocin-induced (STZ-icv)") or a function word.
_TRAILING = re.compile(r"\w+ed|for|of|in|and|the|a|an|to|with|by")


def _trimmed(short: str, words: list[str]) -> str:
    """``words`` without the trailing ones :data:`_TRAILING` names that ``short`` can do
    without, as one string."""
    while (
        len(words) > 1
        and _TRAILING.fullmatch(words[-1])
        and abbreviates(short, " ".join(words[:-1]))
    ):
        words = words[:-1]
    return " ".join(words)
