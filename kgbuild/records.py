"""The records every stage passes on: Document → Mention → Entity → Triple → Evidence.

Identity is kept apart from support: a :class:`Triple` is the claim (head, relation, tail);
each sentence that supports it is an :class:`Evidence` row. Dedupe merges evidence, it never
drops rows (INDRA preassembly). :class:`DocStatus` and :class:`Problem` account for every input
record and every line that could not be used, so nothing is lost silently.

Each record has one Arrow schema, versioned through schema metadata; this module does no I/O.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from typing import Any

import pyarrow as pa

SCHEMA_VERSION = "3"


def stable_id(*parts: object, size: int = 16) -> str:
    """A short content hash, stable across runs and machines (blake2b over the parts)."""
    h = hashlib.blake2b(digest_size=size)
    for p in parts:
        h.update(str(p).encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


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


@dataclass(slots=True)
class Entity:
    """A KG node: one normalized concept, its display name and every surface form seen."""

    id: str
    name: str
    type: str
    aliases: list[str] = field(default_factory=list)
    first_year: int = 0


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
    #: its endpoints were grounded; triples aggregate it across documents by noisy-OR.
    confidence: float = 0.0
    #: The stored triple reads the extractor's claim backwards ("A is caused by B" stored as
    #: B causes A): ``head_text``/``tail_text`` follow the triple, so the claim as written is
    #: (tail_text, relation_raw, head_text). Audits need the claim as the extractor wrote it.
    claim_reversed: bool = False


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


@dataclass(slots=True)
class Abbreviation:
    """A short form defined in a document ("amyloid beta (Abeta)"), normalized; resolution uses
    them across the corpus (Schwartz & Hearst 2003, via scispaCy's AbbreviationDetector)."""

    pmid: str
    short: str
    long: str


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


@dataclass(slots=True)
class Problem:
    """One input line or annotation that could not be used as given, and why."""

    pmid: str
    source_file: str
    line_no: int
    kind: str
    detail: str


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


_str = pa.string()
_int = pa.int32()
_float = pa.float64()

SCHEMAS: dict[str, pa.Schema] = {
    "documents": pa.schema(
        [
            ("pmid", _str),
            ("year", _int),
            ("title", _str),
            ("abstract", _str),
            ("journal", _str),
            ("source", _str),
        ]
    ),
    "mentions": pa.schema(
        [
            ("pmid", _str),
            ("start", _int),
            ("end", _int),
            ("text", _str),
            ("source_type", _str),
            ("hetionet_type", _str),
            ("concept_id", _str),
            ("concept_ids", pa.list_(_str)),
            ("annotator", _str),
        ]
    ),
    "entities": pa.schema(
        [
            ("id", _str),
            ("name", _str),
            ("type", _str),
            ("aliases", pa.list_(_str)),
            ("first_year", _int),
        ]
    ),
    "triples": pa.schema(
        [
            ("triple_id", _str),
            ("head_id", _str),
            ("relation", _str),
            ("tail_id", _str),
            ("relation_raw", _str),
            ("method", _str),
            ("metaedge", _str),
        ]
    ),
    "evidence": pa.schema(
        [
            ("evidence_id", _str),
            ("triple_id", _str),
            ("pmid", _str),
            ("year", _int),
            ("sentence", _str),
            ("sent_start", _int),
            ("sent_end", _int),
            ("head_start", _int),
            ("head_end", _int),
            ("tail_start", _int),
            ("tail_end", _int),
            ("method", _str),
            ("extractor", _str),
            ("model", _str),
            ("prompt_version", _str),
            ("relation_raw", _str),
            ("head_text", _str),
            ("tail_text", _str),
            ("confidence", _float),
            ("claim_reversed", pa.bool_()),
        ]
    ),
    "resolutions": pa.schema(
        [
            ("node_id", _str),
            ("name", _str),
            ("merged_into", _str),
            ("method", _str),
            ("score", _float),
            ("year", _int),
        ]
    ),
    "abbreviations": pa.schema([("pmid", _str), ("short", _str), ("long", _str)]),
    "source_relations": pa.schema(
        [
            ("pmid", _str),
            ("rel_type", _str),
            ("arg1", _str),
            ("arg2", _str),
            ("extra", _str),
            ("source_file", _str),
        ]
    ),
    "doc_status": pa.schema(
        [
            ("pmid", _str),
            ("source_file", _str),
            ("record_no", _int),
            ("year", _int),
            ("status", _str),
            ("reason", _str),
            ("n_mentions", _int),
            ("n_problems", _int),
        ]
    ),
    "problems": pa.schema(
        [
            ("pmid", _str),
            ("source_file", _str),
            ("line_no", _int),
            ("kind", _str),
            ("detail", _str),
        ]
    ),
    "extraction_status": pa.schema(
        [
            ("pmid", _str),
            ("year", _int),
            ("method", _str),
            ("status", _str),
            ("reason", _str),
            ("n_calls", _int),
            ("n_triples", _int),
            ("n_rejected", _int),
            ("prompt_tokens", _int),
            ("completion_tokens", _int),
            ("cost_usd", _float),
            ("model", _str),
            ("prompt_version", _str),
        ]
    ),
    "rejections": pa.schema(
        [
            ("pmid", _str),
            ("year", _int),
            ("method", _str),
            ("head", _str),
            ("relation", _str),
            ("tail", _str),
            ("reason", _str),
            ("prompt_version", _str),
        ]
    ),
    "llm_calls": pa.schema(
        [
            ("pmid", _str),
            ("year", _int),
            ("method", _str),
            ("request_no", _int),
            ("model", _str),
            ("prompt_version", _str),
            ("outcome", _str),
            ("prompt_tokens", _int),
            ("completion_tokens", _int),
            ("cost_usd", _float),
            ("error", _str),
        ]
    ),
}

RECORD_TYPES: dict[str, type] = {
    "documents": Document,
    "mentions": Mention,
    "entities": Entity,
    "triples": Triple,
    "evidence": Evidence,
    "resolutions": Resolution,
    "abbreviations": Abbreviation,
    "source_relations": SourceRelation,
    "doc_status": DocStatus,
    "problems": Problem,
    "extraction_status": ExtractionStatus,
    "rejections": Rejection,
    "llm_calls": LLMCall,
}

#: Natural key of each table: the columns that identify a row across snapshots.
KEYS: dict[str, tuple[str, ...]] = {
    "documents": ("pmid",),
    "mentions": ("pmid", "start", "end", "source_type"),
    "entities": ("id",),
    "triples": ("triple_id",),
    "evidence": ("evidence_id",),
    "resolutions": ("node_id",),
    "abbreviations": ("pmid", "short", "long"),
    "source_relations": ("pmid", "rel_type", "arg1", "arg2", "extra"),
    "doc_status": ("source_file", "record_no"),
    "problems": ("source_file", "line_no", "kind"),
    "extraction_status": ("pmid", "method"),
    "rejections": ("pmid", "method", "head", "relation", "tail", "reason"),
    "llm_calls": ("pmid", "method", "request_no"),
}


def schema_for(table: str) -> pa.Schema:
    """The versioned Arrow schema of a table (the version travels in the schema metadata)."""
    return SCHEMAS[table].with_metadata(
        {"kgbuild.record": table, "kgbuild.schema_version": SCHEMA_VERSION}
    )


def to_arrow(table: str, records: list[Any]) -> pa.Table:
    """Records of one kind → an Arrow table of that kind's schema (column by column, fast)."""
    schema = schema_for(table)
    names = [f.name for f in fields(RECORD_TYPES[table])]
    columns = {n: [getattr(r, n) for r in records] for n in names}
    return pa.table(columns, schema=schema)
