"""Surface forms that must never become an alias of a node.

Why: an alias says "this string names that node", and the query side links questions through
aliases. DALK's corpus gave MAPT the alias "beta-amyloid (Abeta) and tau" and APP "Abeta and
C5a": a tagger's span (or an LLM's endpoint) that joins two concepts names neither, and a
question about C5a must not land on APP. A form is junk when it

1. has **unbalanced brackets** ("Abeta (1-42", "tau)") — a span cut inside a parenthesis;
2. **coordinates** concepts: "X and Y", "X or Y", "X and/or Y", "X & Y", "X as well as Y"
   ("APP or PS1", "amyotrophic lateral sclerosis and frontotemporal dementia"), or starts or
   ends with such a word ("and tau");
3. is a **comma list**: three or more comma-separated parts, or two parts that are each one
   word ("Abeta, tau"). "Plaque, Amyloid" (MeSH's inverted headings) is two words too, so
4. a form that is itself a vocabulary's name is never junk: MeSH descriptor names ("Signs and
   Symptoms", "Drug-Related Side Effects and Adverse Reactions") and HGNC gene names
   ("NLR family, pyrin domain containing 3") are one concept by definition.

Words joined by a hyphen ("Creutzfeldt-Jakob") are no coordination. The forms stay on the
mentions, the evidence and the ``mentions`` table: only their use as a *name* is refused.
"""

from __future__ import annotations

import re
from functools import cache

from kgbuild.names import norm
from kgbuild.resolve.vocabularies import hgnc_names, mesh_names

_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"))
#: Words (or symbols) that join two concepts into one span.
_JOIN = re.compile(r"\s(?:and/or|and|or|&|as well as|versus|vs\.?)\s", re.IGNORECASE)
_LOCANT = re.compile(r"(?<=\d),(?=\d)")
_EDGE = re.compile(r"^(?:and|or|&)\s|\s(?:and|or|&)$", re.IGNORECASE)
#: A comma list: at least this many parts, or two one-word parts.
LIST_PARTS = 3


@cache
def vocabulary_names() -> frozenset[str]:
    """Normalized MeSH descriptor and HGNC gene names (empty when not installed)."""
    names = set(map(norm, mesh_names().values()))
    names.update(norm(v[1]) for v in hgnc_names().values() if len(v) > 1)
    return frozenset(names)


def unbalanced(form: str) -> bool:
    """Whether some bracket opens without closing, or closes without opening."""
    for left, right in _BRACKETS:
        depth = 0
        for ch in form:
            depth += (ch == left) - (ch == right)
            if depth < 0:
                return True
        if depth:
            return True
    return False


def is_junk_alias(form: str, known: frozenset[str] | None = None) -> str | None:
    """Why ``form`` must not become an alias (module docstring), or None when it may.
    ``known``: normalized names that are never junk (default: :func:`vocabulary_names`)."""
    text = " ".join(form.split())
    if not text:
        return None
    if unbalanced(text):
        return "unbalanced brackets"
    joined = _JOIN.search(text) or _EDGE.search(text)
    # a comma between digits is a chemical locant ("2,6-diaminopyridine"), not a list
    parts = [p for p in _LOCANT.sub("", text).split(",") if p.strip()]
    listed = len(parts) >= LIST_PARTS or (
        len(parts) == 2 and all(len(p.split()) == 1 for p in parts)
    )
    if not (joined or listed):
        return None
    if norm(text) in (known if known is not None else vocabulary_names()):
        return None
    if joined:
        return f"coordination ({joined.group().strip()!r} joins two concepts)"
    return "comma list of concepts"
