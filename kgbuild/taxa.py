"""What an organism PubTator tags is: a virus, bacterium, fungus, parasite, prion, an animal of
which class, a laboratory model, or a misreading.

PubTator tags the organisms abstracts name (its Species type, NCBI Taxonomy ids: HSV-1
NCBITaxon:10298, *Porphyromonas gingivalis* 837, *Drosophila* 7227), but NCBI Taxonomy's
lineage is not shipped offline. So the few facts a question about organisms needs are read
from ``data/organisms.tsv`` (one row per taxon or genus; its header cites the sources) and,
for a taxon it does not list, from its surface forms ("… virus", "HIV", "… bacterium"); else
the taxon's group is unknown.
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
#: The classes of ``organisms.tsv`` that are vertebrates.
VERTEBRATES = frozenset({"mammal", "bird", "fish", "amphibian", "reptile"})

#: A surface form that says the taxon is a virus (ICTV names end in "virus"; HIV, HSV, HHV …).
_VIRUS_FORM = re.compile(
    r"virus|viral|phage|\b(?:hiv|hsv|hhv|hpv|ebv|vzv|cmv|hcmv|zikv|hcv|hbv|bodv)\b", re.I
)
_BACTERIUM_FORM = re.compile(r"bacteri|bacill|coccus|cocci\b|microbio", re.I)
_FUNGUS_FORM = re.compile(r"\byeasts?\b|fung|mushroom", re.I)


@dataclass(frozen=True, slots=True)
class Taxon:
    """One row of ``organisms.tsv`` (or what surface forms say of an unlisted taxon)."""

    name: str = ""
    group: str = ""  # "" unknown
    cls: str = ""  # "" not an animal or unknown
    model: bool = False


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
