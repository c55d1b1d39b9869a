"""The records every stage passes on: Document → Mention → Entity → Triple → Evidence.

Identity is kept apart from support: a :class:`Triple` is the claim (head, relation, tail);
each sentence that supports it is an :class:`Evidence` row. Dedupe merges evidence, it never
drops rows (INDRA preassembly). :class:`DocStatus` and :class:`Problem` account for every input
record and every line that could not be used, so nothing is lost silently.

Each record is declared once: its dataclass, registered with :func:`table` under its table name
and natural key; the Arrow schema (versioned through schema metadata) is derived from the
fields. This module does no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # pyarrow is imported where a table is built: a CLI that only reads via SQL
    import pyarrow as pa  # starts without it (~0.25 CPU s of pyarrow + numpy per process)

#: 5: entities.display_name (one name per node). 6: the retractions table (PubMed's marks).
SCHEMA_VERSION = "6"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A record class as a warehouse table: its name and natural key (the columns that identify
    a row across snapshots). The Arrow schema is derived from the class's fields."""

    name: str
    cls: type
    key: tuple[str, ...]


#: Every table, in declaration order (the order snapshot content hashes are taken in).
TABLES: dict[str, TableSpec] = {}


def table(name: str, key: tuple[str, ...]) -> Callable[[type[T]], type[T]]:
    """Register a record dataclass as the table ``name`` (one declaration per record)."""

    def register(cls: type[T]) -> type[T]:
        missing = set(key) - {f.name for f in fields(cls)}
        if missing or name in TABLES:
            raise TypeError(f"table {name}: bad key {sorted(missing)} or declared twice")
        TABLES[name] = TableSpec(name, cls, key)
        return cls

    return register


def stable_id(*parts: object, size: int = 16) -> str:
    """A short content hash, stable across runs and machines (blake2b over the parts)."""
    h = hashlib.blake2b(digest_size=size)
    for p in parts:
        h.update(str(p).encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


@table("documents", key=("pmid",))
@dataclass(slots=True)
class Document:
    """One unique input abstract. ``text`` (title + space + abstract) is what offsets index."""

    pmid: str
    year: int
    title: str
    abstract: str
    journal: str | None = None
    source: str = ""

    @property
    def text(self) -> str:
        return f"{self.title} {self.abstract}"


@table("mentions", key=("pmid", "start", "end", "source_type"))
@dataclass(slots=True)
class Mention:
    """An annotated span of a document, typed in the source's vocabulary and in Hetionet's.

    ``concept_id`` is a CURIE (``MESH:D000544``, ``NCBIGene:351``) or ``None`` when the annotator
    gave no normalized ID; ``concept_ids`` keeps every ID of a multi-ID mention (``351;11820``).
    """

    pmid: str
    start: int
    end: int
    text: str
    source_type: str
    hetionet_type: str | None
    concept_id: str | None
    concept_ids: list[str] = field(default_factory=list)
    annotator: str = "pubtator"
    #: The ID as the annotator gave it, when kgbuild changed or removed ``concept_id`` (a
    #: vocabulary check dropped it, a rule relinked it, a non-human gene took its human
    #: ortholog); None when ``concept_id`` is the annotator's own.
    annotator_id: str | None = None
    #: The vocabulary check of the annotator's ID: "<vocabulary>:<outcome>", outcome
    #: kept | suspect | dropped | uncheckable (e.g. "mesh:kept", "hgnc:dropped",
    #: "none:uncheckable"; "mesh:suspect": the ID stays, as no match is weak evidence); ""
    #: when the mention has no ID or was not checked.
    id_check: str = ""


@table("entities", key=("id",))
@dataclass(slots=True)
class Entity:
    """A KG node: one normalized concept, its display name and every surface form seen."""

    id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    first_year: int = 0
    #: The one name shown everywhere (:func:`kgbuild.resolve.naming.display_name`);
    #: "" in records made by hand, and NULL in parts written before it: readers fall back to
    #: ``name``.
    display_name: str = ""


@table("triples", key=("triple_id",))
@dataclass(slots=True)
class Triple:
    """The identity of a claim; its support lives in :class:`Evidence` rows."""

    triple_id: str
    head_id: str
    relation: str
    tail_id: str
    relation_raw: str
    method: str
    metaedge: str | None = None


@table("evidence", key=("evidence_id",))
@dataclass(slots=True)
class Evidence:
    """One sentence of one document supporting one triple, with how it was found."""

    evidence_id: str
    triple_id: str
    pmid: str
    year: int
    sentence: str
    sent_start: int
    sent_end: int
    head_start: int
    head_end: int
    tail_start: int
    tail_end: int
    method: str
    extractor: str
    model: str | None = None
    prompt_version: str | None = None
    relation_raw: str = ""
    #: The endpoints as the extractor wrote them (an LLM's own words; a mention's text).
    head_text: str = ""
    tail_text: str = ""
    #: How much this one piece of evidence supports the triple (0–1): by method and by how
    #: its endpoints were grounded: a prior, the fallback of the calibrated model for a method it
    #: was not fitted on (``kg_edges.confidence`` is the model's, :mod:`kgbuild.belief.confidence`).
    confidence: float = 0.0
    #: The stored triple reads the extractor's claim backwards ("A is caused by B" stored as
    #: B causes A): ``head_text``/``tail_text`` follow the triple, so the claim as written is
    #: (tail_text, relation_raw, head_text). Audits need the claim as the extractor wrote it.
    claim_reversed: bool = False
    #: What the sentence does with the claim (INDRA's Evidence.epistemics):
    #: asserted | hypothesis | negated | background | not_in_sentence. Every row keeps its
    #: status; ``kg_edges`` and the query module serve asserted evidence by default.
    epistemic: str = "asserted"
    #: The words that decided ``epistemic`` ("may", "did not", "previous studies"…), for review.
    epistemic_cue: str = ""
    #: Species of the annotator's gene IDs when not human (one node per gene across
    #: species, the human ortholog as the node): e.g. "NCBIGene:11820=mouse"; "" when human/none.
    species: str = ""
    #: The optional LLM verification pass: "yes" | "no" — the model says the sentence
    #: states the stored triple — or "" when the pass did not run.
    verified: str = ""
    #: The relation verifier's probability that the text states a relation between the two
    #: endpoints (:mod:`kgbuild.verifier`, trained on BioRED and BC5CDR); None when
    #: it did not score the row (an endpoint it cannot place, or a part written before it).
    verifier_score: float | None = None


@table("resolutions", key=("node_id",))
@dataclass(slots=True)
class Resolution:
    """One entity-resolution decision: a node string (an ungrounded LLM endpoint, ``free:…``)
    and the node it was merged into, how, and with what score — the trace of every merge.
    Decisions are sticky: a later year reuses them instead of resolving again."""

    node_id: str
    name: str
    merged_into: str
    method: str  # alias | abbreviation | fuzzy | embedding | cluster | unresolved
    score: float
    year: int


@table("abbreviations", key=("pmid", "short", "long"))
@dataclass(slots=True)
class Abbreviation:
    """A short form defined in a document ("amyloid beta (Abeta)"), normalized; resolution uses
    them across the corpus (Schwartz & Hearst 2003, via scispaCy's AbbreviationDetector)."""

    pmid: str
    short: str
    long: str


@table("source_relations", key=("pmid", "rel_type", "arg1", "arg2", "extra"))
@dataclass(slots=True)
class SourceRelation:
    """A relation the input itself asserts (PubTator relation lines, BioC ``relations``).

    Kept as given (IDs as written, e.g. BioRED's bare ``D003409``): they are the annotator's or
    curator's claims, used for evaluation, not triples of the built KG.
    """

    pmid: str
    rel_type: str
    arg1: str
    arg2: str
    extra: str
    source_file: str


@table("doc_status", key=("source_file", "record_no"))
@dataclass(slots=True)
class DocStatus:
    """What happened to one input record (one per record, duplicates included)."""

    pmid: str
    source_file: str
    record_no: int
    year: int | None
    status: str
    reason: str
    n_mentions: int = 0
    n_problems: int = 0


@table("problems", key=("source_file", "line_no", "kind"))
@dataclass(slots=True)
class Problem:
    """One input line or annotation that could not be used as given, and why."""

    pmid: str
    source_file: str
    line_no: int
    kind: str
    detail: str


@table("extraction_status", key=("pmid", "method"))
@dataclass(slots=True)
class ExtractionStatus:
    """How relation extraction went for one built document: nothing ends without a status.

    ``status`` is ``done`` (every call answered), ``partial`` (an answer was cut off at
    ``max_tokens`` and only what parsed was kept) or ``failed`` (a call failed for good; the
    reason says why; a later build retries it, finished calls come from the cache).
    """

    pmid: str
    year: int
    method: str
    status: str
    reason: str
    n_calls: int = 0
    n_triples: int = 0
    n_rejected: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model: str | None = None
    prompt_version: str | None = None


@table("rejections", key=("pmid", "method", "head", "relation", "tail", "reason"))
@dataclass(slots=True)
class Rejection:
    """An extracted claim that was not kept, and why (hallucination guard, bad answer…)."""

    pmid: str
    year: int
    method: str
    head: str
    relation: str
    tail: str
    reason: str
    prompt_version: str | None = None


@table("llm_calls", key=("pmid", "method", "request_no"))
@dataclass(slots=True)
class LLMCall:
    """Token and cost accounting of one LLM request (cached answers keep their recorded usage,
    so the figures are the same whether a build paid for them or replayed them)."""

    pmid: str
    year: int
    method: str
    request_no: int
    model: str
    prompt_version: str
    outcome: str  # ok | truncated | failed
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    error: str = ""


@table("retractions", key=("pmid",))
@dataclass(slots=True)
class Retraction:
    """A paper the KG already held that PubMed now marks retracted.

    A paper retracted *before* it is fetched never becomes a document: ingest rejects it
    (``doc_status`` reason "retracted publication"). This table covers the paper built in an
    earlier year and retracted later: a snapshot's build asks PubMed about every PMID of its
    lineage and records the new retractions here, and the catalog stops serving their evidence
    from that snapshot on (:mod:`kgbuild.store.retractions`); the snapshots before it keep
    serving them, as the literature stood then. One row per PMID per lineage (append-only).
    """

    pmid: str
    #: The as-of year of the snapshot whose build found the retraction (PubMed gives no
    #: retraction date in a search; the build's year is what makes the row reproducible).
    checked_year: int
    #: Who said so: "pubmed-esearch" (``"Retracted Publication"[pt]``).
    source: str
    reason: str


@dataclass(slots=True)
class SnapshotCounts:
    """What one snapshot holds, cumulative through its year: DALK Table 1 (``documents`` =
    #corpus, ``nodes``, ``relations``, ``triples``), the accounting of every input record, and
    extraction and LLM use. One definition for the build state that counts them, the manifest
    that records them, the catalog's registry columns (:data:`REGISTRY_COUNTS`), reports and
    ``kgbuild stats``."""

    records: int = 0
    documents: int = 0
    duplicates: int = 0
    rejected: int = 0
    mentions: int = 0
    entities: int = 0
    nodes: int = 0
    relations: int = 0
    triples: int = 0
    evidence: int = 0
    problems: int = 0
    extraction_done: int = 0
    extraction_partial: int = 0
    extraction_failed: int = 0
    rejections: int = 0
    llm_calls: int = 0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0
    llm_cost_usd: float = 0.0

    def to_dict(self) -> dict[str, int | float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SnapshotCounts:
        """From a manifest's ``counts`` (a figure an older manifest lacks is 0)."""
        kinds = {f.name: f.type for f in fields(cls)}
        return cls(
            **{k: (float if kinds[k] == "float" else int)(v) for k, v in data.items() if k in kinds}
        )


#: The counts that are columns of the catalog's ``snapshots`` registry (``n_<name>``).
REGISTRY_COUNTS = (
    "records", "documents", "duplicates", "rejected", "mentions", "entities", "nodes",
    "relations", "triples", "evidence", "problems",
)  # fmt: skip


#: Table name → record class, in the order snapshots hash them (Arrow schemas:
#: :func:`arrow_schemas`).
RECORD_TYPES: dict[str, type] = {name: spec.cls for name, spec in TABLES.items()}
#: Natural key of each table: the columns that identify a row across snapshots.
KEYS: dict[str, tuple[str, ...]] = {name: spec.key for name, spec in TABLES.items()}


@cache
def arrow_schemas() -> dict[str, pa.Schema]:
    """Table name → its Arrow schema, derived from the record's fields (built once, on first
    use, so that importing the records does not import pyarrow)."""
    import pyarrow as pa

    arrow = {  # the Arrow type of each field annotation a record may use
        "str": pa.string(),
        "str | None": pa.string(),
        "int": pa.int32(),
        "int | None": pa.int32(),
        "float": pa.float64(),
        "float | None": pa.float64(),
        "bool": pa.bool_(),
        "list[str]": pa.list_(pa.string()),
    }
    return {
        name: pa.schema([(f.name, arrow[str(f.type)]) for f in fields(cls)])
        for name, cls in RECORD_TYPES.items()
    }


def schema_for(table: str) -> pa.Schema:
    """The versioned Arrow schema of a table (the version travels in the schema metadata)."""
    return arrow_schemas()[table].with_metadata(
        {"kgbuild.record": table, "kgbuild.schema_version": SCHEMA_VERSION}
    )


def to_arrow(table: str, records: list[Any]) -> pa.Table:
    """Records of one kind → an Arrow table of that kind's schema (column by column, fast)."""
    import pyarrow as pa

    schema = schema_for(table)
    names = [f.name for f in fields(RECORD_TYPES[table])]
    columns = {n: [getattr(r, n) for r in records] for n in names}
    return pa.table(columns, schema=schema)
