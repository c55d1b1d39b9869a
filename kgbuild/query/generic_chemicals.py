"""Generic chemicals: what a researcher asking for *drugs* does not mean.

"Which drugs target GSK3B?" in a KG read from abstracts is answered first by zinc, reactive
oxygen species and hormones: they are named with everything, and every relation reads onto
them. A drug is one specific compound; these are elements and their ions (the metals),
the small inorganic molecules of chemistry's common names (water, hydrogen peroxide,
superoxide, nitric oxide) and MeSH *class* headings, which MeSH writes in the plural
("Flavonoids", "Reactive Oxygen Species", "Lipids", "Hormones") while a drug's heading is
singular ("Donepezil", "Valproic Acid"; MeSH Descriptor Record "Entry Term" conventions,
NLM). The rule is data and arithmetic, not a list of names: the elements' MeSH descriptors
(``data/chemical_elements.tsv``, IUPAC 2022 × MeSH), the molecule and ion names of
``data/chemical_formulas.tsv`` (IUPAC Red Book 2005), and a plural last word of a MeSH
descriptor's heading (:func:`kgbuild.search.text.singular`).

Such answers keep :data:`GENERIC_BASE` of their score when the question asks for drugs,
compounds or inhibitors (:data:`DRUG_WORDS`); a question asking for chemicals or metals is left
alone.
"""

from __future__ import annotations

import csv
import re
import threading
from functools import cache

import numpy as np

from kgbuild.question.intent import Intent
from kgbuild.schema import data_dir
from kgbuild.search.index import SnapshotIndex
from kgbuild.search.text import key, singular, tokens

#: Share of its score a generic chemical keeps as the answer to a drug question.
GENERIC_BASE = 0.3
#: The answer nouns that ask for drugs ("which drugs", "what compounds", "which inhibitors").
DRUG_WORDS = re.compile(
    r"^(?:drugs?|medications?|medicines?|compounds?|inhibitors?|agents?|therapeutics?|"
    r"pharmaceuticals?|small[- ]molecules?|antagonists?|agonists?|activators?|treatments?)$",
    re.IGNORECASE,
)
#: Answer kinds that ask for drugs whatever the noun ("What targets GSK3B?").
DRUG_KINDS = frozenset({"targeting_drug"})


def _tsv(name: str) -> list[dict[str, str]]:
    with open(data_dir() / name, newline="", encoding="utf-8") as fh:
        lines = [x for x in fh if x.strip() and not x.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


@cache
def _reference() -> tuple[frozenset[str], frozenset[str]]:
    """(the elements' MeSH IDs, the element, molecule and ion names in key form)."""
    elements = _tsv("chemical_elements.tsv")
    ids = frozenset(r["mesh_id"] for r in elements if r.get("mesh_id"))
    names = {key(r["name"]) for r in elements}
    names |= {key(r["name"]) for r in _tsv("chemical_formulas.tsv")
              if r.get("kind") in ("molecule", "ion")}  # fmt: skip
    return ids, frozenset(names)


def is_generic(node_id: str, name: str) -> bool:
    """Is the compound an element, a named inorganic molecule or ion, or a MeSH class
    heading (a descriptor, ``MESH:D…``, whose heading ends in a plural word)?"""
    ids, names = _reference()
    if node_id in ids or key(name) in names:
        return True
    words = re.findall(r"[A-Za-z]+", name)
    last = words[-1].lower() if words else ""
    return node_id.startswith("MESH:D") and len(last) >= 4 and singular(last) != last


_GENERIC: dict[int, tuple[SnapshotIndex, np.ndarray]] = {}
_LOCK = threading.Lock()


def generic_nodes(index: SnapshotIndex) -> np.ndarray:
    """Per node: is it a generic chemical (a Compound only; one pass per opened index)?"""
    with _LOCK:
        got = _GENERIC.get(id(index))
        if got is None or got[0] is not index:
            ids, names, types = index.nodes["id"], index.nodes["name"], index.nodes["type"]
            ok = np.fromiter((t == "Compound" and is_generic(i or "", n or "")
                              for i, n, t in zip(ids, names, types, strict=True)),
                             bool, index.n_nodes)  # fmt: skip
            if len(_GENERIC) >= 8:
                _GENERIC.clear()
            got = _GENERIC[id(index)] = (index, ok)
        return got[1]


def asks_for_drugs(intent: Intent) -> bool:
    """Does the question ask for drugs (its answer noun, or an answer kind that does)?"""
    if intent.kind is not None and intent.kind.key in DRUG_KINDS:
        return True
    return any(c.kind == "answer" and c.value == "Compound" and DRUG_WORDS.match(
        " ".join(tokens(c.text)) or c.text) for c in intent.cues)  # fmt: skip
