"""Gold relation types ↔ kgbuild's canonical relations (``data/gold_relation_map.tsv``).

Why a table: kgbuild's triples carry canonical relations (DALK Table 11's Hetionet relations,
Hetionet's ``presents``/``expresses`` and a few open predicates, ``kgbuild.resolve.relations``);
BioRED (Luo et al. 2022) and BC5CDR (Wei et al. 2016) annotate their own types. The table says,
by definition and not fitted to any gold file, which gold type a canonical relation between two
kinds asserts. Read forward it tells which canonical relations express a gold type, so the
**mapping's ceiling** — how much of a gold file any extractor could get right through it — is
computed from the same rows (:func:`reachable_types`).

Rows: ``scheme, gold_type, kind_a, kind_b, relation``. Kinds are Hetionet kinds or ``*`` (any,
unordered); ``relation`` ``*`` is every relation the scheme does not list; ``gold_type`` ``-``
means "asserts no relation of this scheme" (such predictions are set aside and counted, never
scored as errors); ``relation`` ``-`` declares a gold type no canonical relation expresses.
Lookup takes the most specific row: exact kinds before ``*`` (so "no relation of this scheme
between these kinds" overrides every relation row), then a named relation before ``*``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from kgbuild.errors import ConfigError, InputError
from kgbuild.resolve.relations import OPEN_PREDICATES, canonical_relation
from kgbuild.schema import hetionet_relation_names, read_tsv

MAP_TSV = "gold_relation_map.tsv"
ANY = "*"
NONE = "-"
#: The type a scheme uses when no more specific one applies (BioRED's guideline; BioREDirect
#: resolves conflicting labels of one pair the same way: any specific label beats it).
GENERIC_TYPES = frozenset({"Association"})


@dataclass(frozen=True, slots=True, eq=False)
class Scheme:
    """One annotation scheme: its gold types in table order and its rows, indexed."""

    name: str
    types: tuple[str, ...]
    #: (relation, frozenset of kinds or None for any) → gold type or None.
    rows: dict[tuple[str, frozenset[str] | None], str | None]

    def gold_type(self, relation: str, kind_a: str, kind_b: str) -> str | None:
        """The gold type ``relation`` between the two kinds asserts; None: outside the scheme."""
        kinds = frozenset((kind_a, kind_b))
        for key in ((relation, kinds), (ANY, kinds), (relation, None), (ANY, None)):
            if key in self.rows:
                return self.rows[key]
        return None

    def listed(self, relation: str) -> bool:
        """Whether the table names ``relation`` for this scheme (else only the ``*`` row)."""
        return any(r == relation for r, _ in self.rows)

    def rank(self, gold_type: str) -> tuple[int, int]:
        """Precedence of a type when one pair has triples of several: specific before generic,
        then table order."""
        return (gold_type in GENERIC_TYPES, self.types.index(gold_type))


@cache
def schemes() -> dict[str, Scheme]:
    """Every scheme of the mapping table (ConfigError when a key maps to two types)."""
    types: dict[str, list[str]] = defaultdict(list)
    rows: dict[str, dict[tuple[str, frozenset[str] | None], str | None]] = defaultdict(dict)
    for r in read_tsv(MAP_TSV):
        scheme, gold, relation = r["scheme"], r["gold_type"] or NONE, r["relation"] or NONE
        if gold != NONE and gold not in types[scheme]:
            types[scheme].append(gold)
        if relation == NONE:
            continue
        kinds = None if ANY in (r["kind_a"], r["kind_b"]) else frozenset((r["kind_a"], r["kind_b"]))
        key = (relation, kinds)
        value = None if gold == NONE else gold
        if key in rows[scheme] and rows[scheme][key] != value:
            raise ConfigError("mapping row maps one relation to two gold types", row=r)
        rows[scheme][key] = value
    return {s: Scheme(s, tuple(types[s]), dict(rows[s])) for s in types}


def get_scheme(name: str) -> Scheme:
    known = schemes()
    if name not in known:
        raise InputError("unknown gold scheme", scheme=name, known=", ".join(sorted(known)))
    return known[name]


def detect_scheme(gold_types: set[str]) -> Scheme:
    """The scheme whose types cover most of a gold file's relation types."""
    if not gold_types:
        raise InputError("the gold file has no relation lines: nothing to score")
    best = max(schemes().values(), key=lambda s: (len(gold_types & set(s.types)), s.name))
    if not gold_types & set(best.types):
        raise InputError(
            "no mapping for these relation types (see data/gold_relation_map.tsv)",
            types=",".join(sorted(gold_types)),
        )
    return best


@cache
def _relation_universe() -> tuple[str, ...]:
    named = {rel for s in schemes().values() for rel, _ in s.rows if rel != ANY}
    return tuple(sorted(hetionet_relation_names() | set(OPEN_PREDICATES) | named))


@cache
def emitted_relations(kind_a: str, kind_b: str) -> frozenset[str]:
    """Canonical relations a triple between these kinds can carry after kgbuild's kind-aware
    canonicalization (Gene "upregulates" Gene becomes ``regulates``), in either direction."""
    out = set()
    for rel in _relation_universe():
        out.add(canonical_relation(rel, kind_a, kind_b).relation)
        out.add(canonical_relation(rel, kind_b, kind_a).relation)
    return frozenset(out)


@cache
def reachable_types(scheme: Scheme, kind_a: str, kind_b: str) -> frozenset[str]:
    """Gold types some canonical relation between these kinds maps to (the mapping's reach)."""
    types = {scheme.gold_type(r, kind_a, kind_b) for r in emitted_relations(kind_a, kind_b)}
    return frozenset(t for t in types if t)


def forward_table(scheme: Scheme, kinds: list[tuple[str, str]]) -> list[dict[str, str]]:
    """Read forward, for documentation and reports: per gold type and kind pair, the canonical
    relations that express it."""
    out = []
    for gold in scheme.types:
        for a, b in kinds:
            rels = sorted(r for r in emitted_relations(a, b) if scheme.gold_type(r, a, b) == gold)
            out.append({"gold_type": gold, "kinds": f"{a}-{b}", "relations": ", ".join(rels)})
    return out
