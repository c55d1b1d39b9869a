"""Hetionet schema and type maps, loaded from the tables in ``data/`` (data, not if-chains).

DALK Table 10 maps PubTator types onto Hetionet kinds; DALK Table 11 lists the relations allowed
for each kind pair, which are exactly Hetionet's metaedges among Gene, Compound and Disease.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kgbuild.config import env
from kgbuild.errors import ConfigError


def data_dir() -> Path:
    """``KGBUILD_DATA`` if set, else the ``data/`` folder beside the package."""
    path = Path(env("KGBUILD_DATA") or Path(__file__).resolve().parent.parent / "data")
    if not path.is_dir():
        raise ConfigError("reference data folder not found", path=path)
    return path


def read_tsv(name: str) -> list[dict[str, str]]:
    """Rows of a TSV table under ``data/`` as dicts ('-' and '' read as empty)."""
    with open(data_dir() / name, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [{k: ("" if v in ("-", None) else v) for k, v in row.items()} for row in rows]


@dataclass(frozen=True, slots=True)
class RelationOption:
    """One allowed relation of a kind pair (a row of DALK Table 11)."""

    head_kind: str
    tail_kind: str
    relation: str
    metaedge: str | None
    direction: str  # symmetric | oriented | directed


@cache
def metanodes() -> dict[str, str]:
    """Hetionet node kind → abbreviation."""
    return {r["kind"]: r["abbreviation"] for r in read_tsv("hetionet/metanodes.tsv")}


@cache
def metaedges() -> list[dict[str, str]]:
    """The 24 Hetionet metaedges (abbreviation, source_kind, relation, target_kind, direction)."""
    return read_tsv("hetionet/metaedges.tsv")


@cache
def _type_map() -> dict[str, tuple[str | None, str | None]]:
    return {
        r["source_type"].lower(): (r["hetionet_kind"] or None, r["id_prefix"] or None)
        for r in read_tsv("type_map.tsv")
    }


def hetionet_kind(source_type: str) -> str | None:
    """The Hetionet kind an annotator type maps to, or None (kept as a mention, not a node)."""
    return _type_map().get(source_type.lower(), (None, None))[0]


@cache
def type_pair_relations() -> tuple[RelationOption, ...]:
    """DALK Table 11: every allowed (head kind, tail kind, relation) with its direction."""
    return tuple(
        RelationOption(
            r["head_kind"], r["tail_kind"], r["relation"], r["metaedge"] or None, r["direction"]
        )
        for r in read_tsv("type_pair_relations.tsv")
    )


def relations_for(kind_a: str, kind_b: str) -> list[RelationOption]:
    """Allowed relations between two kinds, in either order (head kind is the option's)."""
    return [
        o
        for o in type_pair_relations()
        if (o.head_kind, o.tail_kind) in ((kind_a, kind_b), (kind_b, kind_a))
    ]


@cache
def cooccurrence_relations() -> dict[frozenset[str], RelationOption]:
    """Kind pair → the association-style relation a sentence co-mention asserts."""
    out = {}
    for r in read_tsv("cooccurrence_relations.tsv"):
        direction = "symmetric" if r["head_kind"] == r["tail_kind"] else "oriented"
        out[frozenset((r["head_kind"], r["tail_kind"]))] = RelationOption(
            r["head_kind"], r["tail_kind"], r["relation"], r["metaedge"] or None, direction
        )
    return out


@cache
def hetionet_relations() -> frozenset[str]:
    """Relation names used by DALK's prompts (the Table 11 relations)."""
    return frozenset(o.relation for o in type_pair_relations())


@cache
def hetionet_relation_names() -> frozenset[str]:
    """Every relation name of Hetionet's 24 metaedges (DALK's 10, plus causes, expresses,
    includes, localizes, participates, presents)."""
    return frozenset(r["relation"] for r in metaedges())


#: Problem kinds (``problems.kind``) of an annotator ID that is not used as a concept ID.
UNKNOWN_PREFIX = "unknown_id_prefix"
BAD_LOCAL_ID = "bad_local_id"
ID_PROBLEM_TEXT = {
    UNKNOWN_PREFIX: "prefix not in data/id_prefixes.tsv",
    BAD_LOCAL_ID: "local ID does not match its prefix's pattern (data/id_prefixes.tsv)",
}


@dataclass(frozen=True, slots=True)
class IdPrefix:
    """A known CURIE prefix (its canonical spelling) and the pattern of its local IDs."""

    name: str
    pattern: re.Pattern[str]


@cache
def id_prefixes() -> dict[str, IdPrefix]:
    """Every accepted spelling, lower-cased (``ncbitaxid``, ``mesh``) → its prefix.

    Any ``prefix:local`` string would otherwise be a node ID: ``FOO:123`` and
    ``javascript:alert(1)`` fail kgx's own validator, and ``NCBIGene:abc`` names nothing.
    ``data/id_prefixes.tsv`` lists the prefixes annotators write and each one's local-ID pattern,
    from the Bioregistry (bioregistry 0.15.6's ``bioregistry.json``; tmVar from its own forms).
    """
    out: dict[str, IdPrefix] = {}
    for row in read_tsv("id_prefixes.tsv"):
        prefix = IdPrefix(row["prefix"], re.compile(row["pattern"]))
        for spelling in [row["prefix"], *row["spellings"].split(",")]:
            if spelling.strip():
                out[spelling.strip().lower()] = prefix
    return out


def check_curie(prefix: str, local: str) -> tuple[str, str]:
    """``(CURIE, "")`` in the prefix's canonical spelling, or ``("", problem kind)`` when the
    prefix is unknown or the local ID is not of its pattern (the whole local ID must match)."""
    known = id_prefixes().get(prefix.strip().lower())
    if known is None:
        return "", UNKNOWN_PREFIX
    if not known.pattern.fullmatch(local):
        return "", BAD_LOCAL_ID
    return f"{known.name}:{local}", ""


_BARE_ID = re.compile(r"^[A-Za-z]{0,3}[0-9][0-9A-Za-z_.]*$")
#: tmVar's normalized variant forms (``p|SUB|R|140|Q``, ``c|Allele|A|-1082``) and HGVS
#: (``p.G593S``), as BioRED writes them without a ``tmVar:`` prefix.
_TMVAR = re.compile(r"^(?:[cgmnpr]?\|[A-Za-z]+\||[cgmnpr]\.)\S*$")
_COMPOSITE = re.compile(r"[;,|]")


@dataclass(slots=True)
class ParsedIds:
    """An annotator's ID field read: the CURIEs kept, and the IDs refused by problem kind."""

    curies: list[str] = field(default_factory=list)
    refused: dict[str, list[str]] = field(default_factory=dict)


def to_curies(source_type: str, raw: str) -> list[str]:
    """Annotator IDs → CURIEs (``351;11820`` → ``NCBIGene:351``, ``NCBIGene:11820``); see
    :func:`parse_ids`, which also says which IDs were refused and why."""
    return parse_ids(source_type, raw).curies


def parse_ids(source_type: str, raw: str) -> ParsedIds:
    """Annotator IDs → CURIEs of known prefixes, and the refused ones.

    Bare IDs get the type's prefix from ``type_map.tsv``; a variant's extra fields (``;HGVS:…``,
    ``;VariantGroup:…``) and a cell line's taxon are qualifiers of its first ID, not more IDs.
    A composite mention ("cleft lip and palate") lists its concepts with ``,`` (BioRED) or ``|``
    (BC5CDR) as well as ``;``; a bare tmVar ID (BioRED's ``c|DEL|1314_1328|``) is one ID. Every
    CURIE is checked against ``data/id_prefixes.tsv`` (:func:`check_curie`): an unknown prefix or
    a local ID not of its prefix's pattern is refused. No ID ('-', '') or text that is not an
    identifier (e.g. 'T cell') gives neither.
    """
    out = ParsedIds()
    raw = raw.strip()
    if raw in ("", "-"):
        return out
    prefix = _type_map().get(source_type.lower(), (None, None))[1]
    if prefix in ("tmVar", "cellosaurus"):
        parts = [p.strip() for p in raw.split(";") if p.strip()][:1]
    else:
        parts = [p.strip() for p in _COMPOSITE.split(raw) if p.strip()]
    for part in parts:
        if part.upper().startswith("CVCL_"):
            pre, local = "cellosaurus", part.upper()
        elif ":" in part:
            pre, _, local = part.partition(":")
            if prefix_name(pre) == "cellosaurus" and not local.upper().startswith("CVCL_"):
                local = f"CVCL_{local}"
        elif (_BARE_ID.match(part) or (prefix == "tmVar" and _TMVAR.match(part))) and prefix:
            pre, local = prefix, part
        else:
            continue
        curie, problem = check_curie(pre, local)
        if problem:
            out.refused.setdefault(problem, []).append(part)
        elif curie not in out.curies:
            out.curies.append(curie)
    return out


def prefix_name(spelling: str) -> str | None:
    """The canonical spelling of a known prefix, or None."""
    known = id_prefixes().get(spelling.strip().lower())
    return known.name if known else None
