"""What a typed relation between two node kinds is called: ``data/pair_relations.tsv``.

Why one table: a chemical that induces a disease was stored as "Cocaine upregulates Seizures",
which is not what the text says. BioRED (Luo et al. 2022) types a relation per entity pair
(Association, Positive_Correlation, Negative_Correlation, Bind, …) and BC5CDR (Wei et al. 2016)
marks chemical-induced disease (CID); Hetionet names its metaedges per kind pair (Compound
causes Side Effect, CcSE; Compound treats Disease, CtD; Compound upregulates Gene, CuG). The
table gives each reading, for every kind pair of the schema, the KG relation — Hetionet's name
where the pair has one — and is read by every path that names a typed fact: the offline
classifier (:func:`pair_relation`), relation resolution of an LLM's signed predicate
(:func:`signed_name`) and the sentence reader, trained on signed labels (both directions).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache

from kgbuild.errors import ConfigError
from kgbuild.schema import data_dir

PAIR_RELATIONS_TSV = "pair_relations.tsv"
#: The signed names a sentence reader or an LLM writes ("induces" → upregulates); between some
#: kinds the pair has a name of its own (a chemical that induces a disease ``causes`` it).
SIGNED = ("upregulates", "downregulates")


@dataclass(frozen=True, slots=True)
class PairRelation:
    """What a typed reading between two kinds is called: one row of ``pair_relations.tsv``.

    ``head``: "kind" (the entity of ``head_kind`` is the head) or "first" (the one named first).
    ``signed``: the up/down name that, stated head → tail between these kinds, means this row.
    """

    reading: str
    head_kind: str
    tail_kind: str
    relation: str
    head: str
    signed: str
    metaedge: str | None


@cache
def pair_relations() -> dict[tuple[str, str, str], PairRelation]:
    """(reading, head kind, tail kind) → its row. One table for every path that names a typed
    fact (classifier, resolution, sentence reader): BioRED's types (Luo et al. 2022) and BC5CDR's
    CID per kind pair, each under Hetionet's metaedge name where the pair has one. A kind pair
    is stored in the kinds' sorted order (Compound < Disease < Gene), Hetionet's own."""
    path = data_dir() / PAIR_RELATIONS_TSV
    with open(path, encoding="utf-8", newline="") as fh:
        lines = (ln for ln in fh if not ln.startswith("#"))
        rows = list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))
    out: dict[tuple[str, str, str], PairRelation] = {}
    for r in rows:
        row = PairRelation(
            r["reading"], r["head_kind"], r["tail_kind"], r["relation"], r["head"],
            "" if r["signed"] == "-" else r["signed"],
            None if r["metaedge"] == "-" else r["metaedge"],
        )  # fmt: skip
        key = (row.reading, row.head_kind, row.tail_kind)
        if row.head not in ("kind", "first") or row.head_kind > row.tail_kind or key in out:
            raise ConfigError("bad pair relation row", path=path, row=key)
        out[key] = row
    return out


def pair_relation(reading: str, kind_a: str, kind_b: str) -> PairRelation | None:
    """The row naming ``reading`` between two kinds, in either order; None if none."""
    a, b = sorted((kind_a, kind_b))
    return pair_relations().get((reading, a, b))


@cache
def _signed_names() -> dict[tuple[str, str, str], str]:
    return {
        (r.signed, r.head_kind, r.tail_kind): r.relation
        for r in pair_relations().values()
        if r.signed
    }


def signed_name(relation: str, head_kind: str | None, tail_kind: str | None) -> str:
    """The KG name of a signed relation stated head → tail between two kinds: a chemical that
    ``upregulates`` a disease ``causes`` it, one that ``downregulates`` it ``treats`` it (BioRED's
    Positive/Negative_Correlation for the pair). Any other relation, or the signed one stated
    against the table's direction ("a disease raises a chemical"), is returned as it is."""
    return _signed_names().get((relation, head_kind or "", tail_kind or ""), relation)


@cache
def _readings() -> dict[tuple[str, str, str], str]:
    return {
        (r.relation, r.head_kind, r.tail_kind): r.signed
        for r in pair_relations().values()
        if r.signed and r.signed != r.relation
    }


def signed_reading(relation: str, head_kind: str | None, tail_kind: str | None) -> str:
    """The inverse of :func:`signed_name`: the signed name a model trained on up/down labels
    (the sentence reader) knows for a KG relation between two kinds (Compound ``causes``
    Disease → ``upregulates``); any other relation as it is."""
    return _readings().get((relation, head_kind or "", tail_kind or ""), relation)
