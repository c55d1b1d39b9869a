"""What an organism question asks for: which slice of the organisms PubTator tags.

A DALK build keeps Gene, Compound and Disease nodes (DALK Table 10), yet PubTator tags the
organisms every abstract names (its Species type, NCBI Taxonomy ids): HSV-1 NCBITaxon:10298,
*Porphyromonas gingivalis* 837, *Drosophila* 7227. A newcomer asks "which infectious agents",
"which viruses", "which non-mammalian organisms are used as models": each question keeps a
different slice of those organisms, decided by what :mod:`kgbuild.taxa` says each taxon is
(``data/organisms.tsv``, or its surface forms: NCBI Taxonomy's lineage is not shipped offline).

An unlisted taxon has an unknown group: a question for a group never takes it, and a
question for non-mammals takes only taxa the table calls animals (or yeasts) of another
class, and says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from kgbuild.taxa import PATHOGENS, VERTEBRATES, Taxon

_PLURAL = {"virus": "viruses", "bacterium": "bacteria", "fungus": "fungi",
           "parasite": "parasites", "prion": "prions"}  # fmt: skip
#: What the question's words ask for, first match wins within a rule (checked in order).
_ASKED = [
    ("virus", re.compile(r"\b(?:\w*viruses|\w*virus|viral|virions?)\b", re.I)),
    ("bacterium", re.compile(r"\b(?:bacteria|bacterium|bacterial)\b", re.I)),
    ("fungus", re.compile(r"\b(?:fungi|fungus|fungal)\b", re.I)),
    ("parasite", re.compile(r"\b(?:parasites?|parasitic|protozoa\w*)\b", re.I)),
    ("pathogen", re.compile(
        r"\b(?:infectious|infections?|pathogens?|pathogenic|microbes?|microbial|germs?"
        r"|micro-?organisms?)\b", re.I)),
]  # fmt: skip
_MODEL = re.compile(r"\bmodel(?:s|l?ed|l?ing)?\b|\bused (?:to|for|in) (?:study|studying|research)",
                    re.I)  # fmt: skip
_INVERTEBRATE = re.compile(r"\binvertebrates?\b|\bnon-?\s?vertebrates?\b", re.I)
_NON_MAMMAL = re.compile(r"\bnon-?\s?mammal(?:ian|s)?\b|\binvertebrates?\b|\bnon-?\s?vertebrate",
                         re.I)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Ask:
    """What an organism question asks for: a group of pathogens ("viruses"), any pathogen
    ("infectious agents"), laboratory models ("used as models"), and whether mammals are out."""

    groups: frozenset[str] = frozenset()
    #: Any pathogen ("infectious agents", "microbes"): only a sentence saying it infects counts.
    infection: bool = False
    model: bool = False
    non_mammal: bool = False
    #: No vertebrate either ("invertebrate models": flies and worms, not frogs or fish).
    invertebrate: bool = False

    def takes(self, t: Taxon) -> bool:
        """May a taxon answer the question?"""
        if t.group == "misread" or t.name == "human":
            return False
        if self.groups:
            return t.group in self.groups
        if self.invertebrate and t.cls in VERTEBRATES:
            return False
        if self.non_mammal:
            return t.cls not in ("", "mammal") or (t.group == "fungus" and t.model)
        if self.model:
            return t.group == "animal" or t.model
        return True

    def words(self) -> str:
        """The question's slice in words (for the answer's note)."""
        if self.groups and self.groups != PATHOGENS:
            return "/".join(_PLURAL.get(g, g) for g in sorted(self.groups))
        if self.groups:
            return "infectious agents (viruses, bacteria, fungi, parasites, prions)"
        if self.invertebrate:
            return "invertebrate model organisms"
        if self.non_mammal:
            return "non-mammalian model organisms"
        return "model organisms" if self.model else "organisms"


def read_ask(question: str) -> Ask:
    """The slice of organisms ``question`` asks for (module docstring): a group named first
    ("bacterial pathogens": bacteria), and infection words ("pathogens", "infections") ask
    for organisms said to infect, whatever the group."""
    groups: frozenset[str] = frozenset()
    for group, pat in _ASKED:
        if pat.search(question):
            groups = PATHOGENS if group == "pathogen" else frozenset({group})
            break
    infection = bool(groups) and _ASKED[-1][1].search(question) is not None
    non_mammal = bool(_NON_MAMMAL.search(question))
    model = non_mammal or (bool(_MODEL.search(question)) and not groups)
    invertebrate = bool(_INVERTEBRATE.search(question))
    return Ask(groups, infection, model, non_mammal, invertebrate)


def heads_wh(cues: list[Any]) -> bool:
    """Does the organism noun head the question ("Which viruses …"), rather than follow the
    noun asked for ("Which drugs treat infections …": drugs; "What genes do viruses
    regulate": genes)? ``cues``: the question's read cues (:class:`kgbuild.question.intent.Cue`)."""
    kind = next((c for c in cues if c.kind == "kind"), None)
    return kind is not None and not any(c.kind == "answer" and c.start < kind.start for c in cues)
