"""A node's display name: its preferred name where one is known, else its most frequent surface
form that does not belong to another concept.

Why: the name is what a user reads, and the most frequent surface form can describe a different
concept than the ID (MESH:D001791, Blood Platelet Disorders, was named "Abeta aggregation";
MESH:D007022, Hypotension, "blood glucose"; NCBIGene:351 "Abeta" for the gene APP). In order:

1. the reference name (``data/reference_names.tsv``: Hetionet's gene symbols and symptom names);
2. the most frequent surface form that a curated corpus also links to the ID
   (``data/reference_forms.tsv``) — the curators' name wins over the tagger's majority;
3. the most frequent surface form that is not *another concept's name plus generic words*
   (:func:`kgbuild.resolve.mixed.foreign_owner`: "Abeta aggregation" is Abeta's name);
4. the most frequent surface form.

Forms that join two concepts ("Abeta and tau": :func:`kgbuild.resolve.junk.is_junk_alias`)
are passed over while another form is left.

Ties go to the alphabetically first form, so a build and a build resumed from a snapshot name
every node alike.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from kgbuild.names import by_frequency, clean_alias, is_systematic, norm
from kgbuild.resolve.junk import is_junk_alias
from kgbuild.resolve.mixed import foreign_owner, owners_of
from kgbuild.resolve.vocab import Reference


def form_owners(
    forms: Mapping[str, Counter[str]], kinds: Mapping[str, str]
) -> dict[str, tuple[str, str]]:
    """Frequent normalized form → the concept (or kind) that owns it, over the whole KG."""
    normalized: dict[str, Counter[str]] = {}
    for cid, c in forms.items():
        acc: Counter[str] = Counter()
        for f, n in c.items():
            acc[norm(f)] += n
        normalized[cid] = acc
    return owners_of(normalized, dict(kinds))


def node_name(
    cid: str,
    forms: Counter[str],
    kind: str,
    owners: Mapping[str, tuple[str, str]],
    ref: Reference,
) -> str:
    """The display name of concept ``cid`` (see the module docstring)."""
    preferred = ref.name(cid)
    if preferred:
        return preferred
    ranked = by_frequency(forms)
    ranked = [f for f in ranked if not is_junk_alias(f)] or ranked  # never "X and Y"
    known = ref.known_forms(cid)
    if known:
        for f in ranked:
            if norm(f) in known:
                return f
    for f in ranked:
        if not foreign_owner(norm(f), cid, kind, owners):
            return f
    return ranked[0]


def display_name(cid: str, name: str) -> str:
    """The one name a person reads for node ``cid`` everywhere (SQL views, ask, serve, exports,
    report), computed once at build time and stored in ``entities.display_name``.

    The rule, so a reader can predict it:

    - a human gene HGNC knows: ``SYMBOL (approved name)`` — "APP (amyloid beta precursor
      protein)": the symbol is what biologists say, the name what a newcomer recognizes;
    - a MeSH descriptor (``MESH:D…``): its preferred heading ("Alzheimer Disease"); a
      supplementary concept (``MESH:C…``): its MeSH name — unless that is a systematic
      chemical name, then the node's name or a synonym a person uses (:func:`readable_name`);
    - anything else (non-human genes, species, variants, free-text nodes, IDs no installed
      vocabulary names): the node's name (``name``: the reference name or its most frequent
      clean surface form, :func:`node_name`), cleaned of stray punctuation, quotes, list
      numbers and HTML entities (:func:`kgbuild.names.clean_alias`).

    Only vocabularies installed by the project's own files are read (deterministic: the same
    inputs and the same installed vocabularies give the same names and content hashes); without
    them every node falls back to its cleaned name.
    """
    from kgbuild.resolve.vocabularies import hgnc_names, mesh_names, mesh_supplementary

    if cid.startswith("NCBIGene:"):
        hgnc = hgnc_names().get(cid)
        if hgnc and len(hgnc) >= 2 and hgnc[1] != hgnc[0]:
            return f"{hgnc[0]} ({hgnc[1]})"
    elif cid.startswith("MESH:D"):
        heading = mesh_names().get(cid)
        if heading:
            return heading
    elif cid.startswith("MESH:C"):
        names = mesh_supplementary(cid)
        if names:
            return readable_name(names[0], (clean_alias(name), *names[1:]))
    return clean_alias(name) or name


def readable_name(preferred: str, alternatives: Iterable[str]) -> str:
    """``preferred`` unless it is a systematic chemical name (:func:`kgbuild.names.is_systematic`:
    MeSH names semagacestat "N2-((2S)-2-(3,5-difluorophenyl)-…-L-alaninamide"); then the first
    alternative a person would say — the node's most frequent surface form first, then the
    vocabulary's synonyms. A reader searching for a drug types its common name, and a graph
    labelled with IUPAC names cannot be read."""
    if not is_systematic(preferred):
        return preferred
    for alt in alternatives:
        if alt and alt.strip() and not is_systematic(alt):
            return alt.strip()
    return preferred
