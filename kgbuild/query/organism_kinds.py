"""What an organism question asks for, and what each organism PubTator tags is.

A DALK build keeps Gene, Compound and Disease nodes (DALK Table 10), yet PubTator tags the
organisms every abstract names (its Species type, NCBI Taxonomy ids): HSV-1 NCBITaxon:10298,
*Porphyromonas gingivalis* 837, *Drosophila* 7227. A newcomer asks "which infectious agents",
"which viruses", "which non-mammalian organisms are used as models": each question keeps a
different slice of those organisms. NCBI Taxonomy's lineage is not shipped offline, so the
slices are read from ``data/organisms.tsv`` (one row per taxon or genus: virus, bacterium,
fungus, parasite, prion, animal with its class, or a PubTator misreading; its header cites the
sources) and, for a taxon it does not list, from its surface forms ("… virus", "HIV").

An unlisted taxon has an unknown group: a question for a group never takes it, and a
question for non-mammals takes only taxa the table calls animals (or yeasts) of another
class, and says so.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache

from kgbuild.schema import data_dir

ORGANISMS_TSV = "organisms.tsv"
#: The groups an infection can come from ("infectious agents", "pathogens", "microbes").
PATHOGENS = frozenset({"virus", "bacterium", "fungus", "parasite", "prion"})

#: A surface form that says the taxon is a virus (ICTV names end in "virus"; HIV, HSV, HHV …).
_VIRUS_FORM = re.compile(
    r"virus|viral|phage|\b(?:hiv|hsv|hhv|hpv|ebv|vzv|cmv|hcmv|zikv|hcv|hbv|bodv)\b", re.I
)
_BACTERIUM_FORM = re.compile(r"bacteri|bacill|coccus|cocci\b|microbio", re.I)
_FUNGUS_FORM = re.compile(r"\byeasts?\b|fung|mushroom", re.I)

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


#: The classes of ``organisms.tsv`` that are vertebrates.
_VERTEBRATES = frozenset({"mammal", "bird", "fish", "amphibian", "reptile"})


@dataclass(frozen=True, slots=True)
class Taxon:
    """One row of ``organisms.tsv`` (or what surface forms say of an unlisted taxon)."""

    name: str = ""
    group: str = ""  # "" unknown
    cls: str = ""  # "" not an animal or unknown
    model: bool = False


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
        if self.invertebrate and t.cls in _VERTEBRATES:
            return False
        if self.non_mammal:
            return t.cls not in ("", "mammal") or (t.group == "fungus" and t.model)
        if self.model:
            return t.group == "animal" or t.model
        return True

    def words(self) -> str:
        """The question's slice in words (for the answer's note)."""
        if self.groups and self.groups != PATHOGENS:
            return "/".join(sorted(self.groups))
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


@cache
def table() -> dict[str, Taxon]:
    """``organisms.tsv`` by key (``NCBITaxon:<id>`` or ``genus:<Genus>``)."""
    out: dict[str, Taxon] = {}
    with open(data_dir() / ORGANISMS_TSV, newline="") as fh:
        rows = csv.DictReader((x for x in fh if not x.startswith("#")), delimiter="\t")
        for r in rows:
            name = "" if r["name"] == "-" else r["name"]
            cls = "" if r["class"] == "-" else r["class"]
            out[r["key"]] = Taxon(name, r["group"], cls, r["model"] == "yes")
    return out


def taxon(concept: str, forms: list[str]) -> Taxon:
    """What a taxon is: its own row, else its genus's row (a binomial's first word in any of
    its surface ``forms``), else what the forms say (a virus, bacterium or fungus), else
    unknown."""
    rows = table()
    got = rows.get(concept)
    if got is not None:
        return got
    for f in forms:
        genus = f.strip().split(" ", 1)[0].capitalize()
        if len(genus) > 2 and f"genus:{genus}" in rows:
            return rows[f"genus:{genus}"]
    said = " ".join(forms)
    for group, pat in (("virus", _VIRUS_FORM), ("bacterium", _BACTERIUM_FORM),
                       ("fungus", _FUNGUS_FORM)):  # fmt: skip
        if pat.search(said):
            return Taxon("", group)
    return Taxon()
