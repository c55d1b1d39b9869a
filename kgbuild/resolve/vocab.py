"""Reference names for concept IDs: what an ID denotes, independently of how a tagger used it.

Why: PubTator's IDs are taken on trust by grounding, and a node used to be named by its most
frequent surface form — so when the tagger links "Abeta aggregation" to MESH:D001791 (Blood
Platelet Disorders) 158 times, the node is *named* "Abeta aggregation" and looks right. A
reference name is a check that does not come from the same tagger.

What is available offline (and shipped in ``data/``, built by :func:`build_tables`):

- ``data/reference_names.tsv`` — preferred names from Hetionet v1.0 (CC0): the 20,945 human
  genes (``NCBIGene:<Entrez>``, official symbol) and the 438 symptoms (``MESH:D…``, MeSH
  heading). Hetionet's diseases are Disease Ontology IDs and its compounds DrugBank IDs, so the
  MeSH disease and chemical IDs PubTator uses have **no** preferred name here (no MeSH or UMLS
  release is installable offline);
- ``data/reference_forms.tsv`` — for MeSH disease and chemical IDs, the surface forms expert
  curators linked to them in the BioCreative V CDR and BioRED training and development sets
  (NCBI public-domain notice; the held-out test sets are not used). A partial lexicon: it names
  3.8k MeSH IDs, and tells which of an ID's groups of forms the curators meant.

Rebuild: ``python -m kgbuild.resolve.vocab ../shared/data`` (deterministic output).
"""

from __future__ import annotations

import csv
import re
import sys
from bisect import bisect_left
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kgbuild.names import norm
from kgbuild.schema import data_dir

NAMES_TSV = "reference_names.tsv"
FORMS_TSV = "reference_forms.tsv"
#: Curated corpora read by :func:`build_tables` (train and development sets only).
CURATED = (
    "bc5cdr/CDR_TrainingSet.PubTator.txt",
    "bc5cdr/CDR_DevelopmentSet.PubTator.txt",
    "biored/Train.PubTator",
    "biored/Dev.PubTator",
)
_MESH = re.compile(r"^(?:MESH:)?([CD]\d{6,9})$")


@dataclass(slots=True)
class Reference:
    """Preferred names (ID → name) and curated forms (ID → normalized forms)."""

    names: dict[str, str] = field(default_factory=dict)
    forms: dict[str, frozenset[str]] = field(default_factory=dict)
    symbols: frozenset[str] = frozenset()
    by_symbol: dict[str, str] = field(default_factory=dict)
    sorted_symbols: list[str] = field(default_factory=list)
    family_sizes: dict[str, int] = field(default_factory=dict)

    def name(self, cid: str) -> str | None:
        return self.names.get(cid)

    def known_forms(self, cid: str) -> frozenset[str]:
        """Normalized forms a reference gives for ``cid`` (its name included)."""
        extra = {norm(self.names[cid])} if cid in self.names else set()
        return self.forms.get(cid, frozenset()) | extra

    def gene_of_symbol(self, symbol: str) -> str | None:
        """The human gene (CURIE) whose official symbol is ``symbol`` (any case), or None."""
        if not self.by_symbol:
            self.by_symbol = {
                n.upper(): c for c, n in sorted(self.names.items()) if c.startswith("NCBIGene:")
            }
        return self.by_symbol.get(symbol.upper())

    def is_gene_symbol(self, symbol: str) -> bool:
        """Whether ``symbol`` is an official human gene symbol (any case)."""
        return symbol.upper() in self.symbols

    def family_size(self, stem: str) -> int:
        """How many official human gene symbols are ``stem`` followed by a digit ("CYP": CYP1A1,
        CYP2D6, … 57)."""
        stem = stem.upper()
        if stem in self.family_sizes:
            return self.family_sizes[stem]
        if not self.sorted_symbols:
            self.sorted_symbols = sorted(self.symbols)
        i, n = bisect_left(self.sorted_symbols, stem), 0
        while i < len(self.sorted_symbols) and self.sorted_symbols[i].startswith(stem):
            n += self.sorted_symbols[i][len(stem) : len(stem) + 1].isdigit()
            i += 1
        self.family_sizes[stem] = n
        return n


@cache
def reference() -> Reference:
    """The shipped reference tables (empty when the files are absent)."""
    ref = Reference()
    names, forms = data_dir() / NAMES_TSV, data_dir() / FORMS_TSV
    if names.exists():
        for row in _rows(names):
            ref.names[row["concept_id"]] = row["name"]
    grouped: dict[str, set[str]] = defaultdict(set)
    if forms.exists():
        for row in _rows(forms):
            grouped[row["concept_id"]].add(row["form"])
    ref.forms = {k: frozenset(v) for k, v in grouped.items()}
    ref.symbols = frozenset(n.upper() for c, n in ref.names.items() if c.startswith("NCBIGene:"))
    return ref


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def hetionet_names(nodes_tsv: Path) -> list[tuple[str, str, str]]:
    """(CURIE, name, kind) of Hetionet's genes and symptoms."""
    out = []
    with open(nodes_tsv, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE):
            _, _, ident = row["id"].partition("::")
            if row["kind"] == "Gene":
                out.append((f"NCBIGene:{ident}", row["name"], "Gene"))
            elif row["kind"] == "Symptom":
                out.append((f"MESH:{ident}", row["name"], "Symptom"))
    return sorted(out)


def curated_forms(paths: list[Path]) -> dict[str, Counter[str]]:
    """MeSH ID → normalized curated surface forms (counts) of PubTator gold files."""
    forms: dict[str, Counter[str]] = defaultdict(Counter)
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 6 or not parts[0].isdigit() or not parts[1].isdigit():
                    continue
                if not any(t in parts[4] for t in ("Disease", "Chemical")):
                    continue
                for raw in re.split(r"[|;,]", parts[5]):
                    m = _MESH.match(raw.strip())
                    if m and norm(parts[3]):
                        forms[f"MESH:{m.group(1)}"][norm(parts[3])] += 1
    return forms


def build_tables(shared: Path, out_dir: Path) -> tuple[int, int]:
    """Write the two reference tables from ../shared/data; return their row counts."""
    names = hetionet_names(shared / "hetionet" / "hetionet-v1.0-nodes.tsv")
    with open(out_dir / NAMES_TSV, "w", encoding="utf-8", newline="") as fh:
        fh.write("# Preferred names: Hetionet v1.0 (hetio/hetionet, CC0) genes and symptoms.\n")
        fh.write("# Built by: python -m kgbuild.resolve.vocab ../shared/data\n")
        fh.write("concept_id\tname\tkind\n")
        for cid, name, kind in names:
            fh.write(f"{cid}\t{name}\t{kind}\n")
    forms = curated_forms([shared / p for p in CURATED])
    rows = sorted((cid, f, n) for cid, c in forms.items() for f, n in c.items())
    with open(out_dir / FORMS_TSV, "w", encoding="utf-8", newline="") as fh:
        fh.write("# Curated surface forms of MeSH IDs: BioCreative V CDR and BioRED training and\n")
        fh.write("# development sets (NCBI public-domain notice); normalized (kgbuild norm).\n")
        fh.write("# Built by: python -m kgbuild.resolve.vocab ../shared/data\n")
        fh.write("concept_id\tform\tcount\n")
        for cid, f, n in rows:
            fh.write(f"{cid}\t{f}\t{n}\n")
    return len(names), len(rows)


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    print(build_tables(shared, data_dir()))
