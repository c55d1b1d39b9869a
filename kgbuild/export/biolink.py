"""Hetionet kinds → Biolink categories and kgbuild relations → Biolink predicates (KGX export).

The mapping is data (``data/biolink_categories.tsv``, ``data/biolink_predicates.tsv``; see
``data/README.md``), checked against the Biolink Model 4.4.6 with ``bmt`` by the tests. A
predicate row is chosen by (relation, head kind, tail kind), the first row in file order whose
kinds match (``*`` matches any kind); its ``direction`` says how kgbuild's head→tail becomes
Biolink's subject→object: ``head_to_tail``, ``tail_to_head`` (Hetionet's DaG is written
Disease→Gene, Biolink's ``gene_associated_with_condition`` goes Gene→Disease) or ``symmetric``.

Provenance (Biolink's knowledge level / agent type, the Translator KL/AT standard) comes from
how an edge was extracted. A model read the sentence and stated the relation (LLM generative or
pair-wise, the trained relation classifier): ``knowledge_assertion`` by a ``text_mining_agent``.
Two entities only co-occurred in a sentence: ``text_co_occurrence`` — the KnowledgeLevelEnum value
for exactly that (fitter than ``prediction`` or ``statistical_association``, which claim an
inference or a statistic over a cohort) — by a ``data_analysis_pipeline`` (an
``automated_agent``): the NER finds the mentions, but the edge is a count of co-mentions, which
is how Biolink's own examples of ``text_co_occurrence`` type it. A method this table does not
know is ``not_provided`` by an ``automated_agent`` (kgbuild's pipeline made it, whatever it is).
Exported edges are what ``kg_edges`` serves: at least one asserted, not refuted, not retracted
evidence row, so none is negated (:data:`NOT_NEGATED`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from kgbuild.errors import ConfigError
from kgbuild.schema import read_tsv

CATEGORIES_TSV = "biolink_categories.tsv"
PREDICATES_TSV = "biolink_predicates.tsv"
#: The Biolink Model release the tables were checked against (the ``biolink-model`` package).
BIOLINK_VERSION = "4.4.6"
#: Category of a node whose kind is not in the table.
FALLBACK_CATEGORY = "biolink:NamedThing"
#: Extraction method → (knowledge_level, agent_type); the strongest method of an edge wins
#: (listed strongest first).
METHOD_PROVENANCE: dict[str, tuple[str, str]] = {
    "generative": ("knowledge_assertion", "text_mining_agent"),
    "pairwise": ("knowledge_assertion", "text_mining_agent"),
    # the trained relation verifier: a model's reading of the text
    "classifier": ("knowledge_assertion", "text_mining_agent"),
    # the sentence reader's own readings (kgbuild.reader)
    "reader": ("knowledge_assertion", "text_mining_agent"),
    "cooccurrence": ("text_co_occurrence", "data_analysis_pipeline"),
}
UNKNOWN_PROVENANCE = ("not_provided", "automated_agent")
#: Biolink ``negated`` of an exported edge. Every exported edge is asserted, and an absent
#: ``negated`` is Biolink's "not negated". Not the text ``False``: kgx's TSV reader casts the
#: cell with ``bool(str)``, so ``False`` would read back as True (kgx 2.6, ``column_types``).
NOT_NEGATED = ""
#: ``negated`` of an edge whose evidence negates it (an export of negated facts would use it).
NEGATED = "True"
DIRECTIONS = ("head_to_tail", "tail_to_head", "symmetric")


@dataclass(frozen=True, slots=True)
class PredicateMapping:
    """How one kgbuild relation (for a kind pair) is written in Biolink."""

    predicate: str
    direction: str
    qualified_predicate: str = ""
    object_aspect_qualifier: str = ""
    object_direction_qualifier: str = ""

    @property
    def swap(self) -> bool:
        return self.direction == "tail_to_head"


@cache
def categories() -> dict[str, str]:
    """Hetionet kind (``''`` for an unlinked node) → Biolink category CURIE."""
    return {r["kind"]: r["category"] for r in read_tsv(CATEGORIES_TSV)}


@cache
def predicate_rows() -> tuple[tuple[str, str, str, PredicateMapping], ...]:
    rows = []
    for r in read_tsv(PREDICATES_TSV):
        if r["direction"] not in DIRECTIONS or not r["predicate"].startswith("biolink:"):
            raise ConfigError("bad row in the Biolink predicate table", row=r)
        mapping = PredicateMapping(
            r["predicate"],
            r["direction"],
            r["qualified_predicate"],
            r["object_aspect_qualifier"],
            r["object_direction_qualifier"],
        )
        rows.append((r["relation"], r["head_kind"], r["tail_kind"], mapping))
    if not rows or rows[-1][:3] != ("*", "*", "*"):
        raise ConfigError("the Biolink predicate table must end with a '* * *' row")
    return tuple(rows)


def category(kind: str | None) -> str:
    return categories().get(kind or "", FALLBACK_CATEGORY)


@cache
def predicate(relation: str, head_kind: str, tail_kind: str) -> PredicateMapping:
    """The first table row matching (relation, head kind, tail kind)."""
    for rel, hk, tk, mapping in predicate_rows():
        if rel in ("*", relation) and hk in ("*", head_kind) and tk in ("*", tail_kind):
            return mapping
    raise AssertionError("unreachable: the table ends with a catch-all row")


def provenance(methods: list[str]) -> tuple[str, str]:
    """(knowledge_level, agent_type) of an edge from its evidence's extraction methods."""
    for method, prov in METHOD_PROVENANCE.items():
        if method in methods:
            return prov
    return UNKNOWN_PROVENANCE
