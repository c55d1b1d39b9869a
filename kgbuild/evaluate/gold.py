"""Gold files: documents, gold mentions and relation lines, read by kgbuild's own readers.

A gold file is PubTator text (BioRED ``*.PubTator``, BC5CDR ``CDR_*.PubTator.txt``) or BioC-JSON
(BioRED ``*.BioC.JSON``); the format is recognized from the content, so a test split named
anything is read unchanged. Relation lines name concepts by their IDs as written (BioRED's bare
``D003409`` and gene numbers, BC5CDR's MeSH IDs); each is turned into the CURIE kgbuild's nodes
carry (``MESH:D003409``, ``NCBIGene:6528``) through the type of a gold mention that carries it in
the same document (``schema.to_curies``), because a bare ``D…`` is a chemical or a disease only
by its mention. An ID no mention of its document carries is kept (it still counts as gold) and
recorded as a ``gold_id_not_annotated`` problem.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.records import Document, Mention, Problem
from kgbuild.schema import to_curies
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.sources.record import SourceRecord

#: Year given to gold documents (the files carry none; evaluation does not depend on it).
EVAL_YEAR = 2000
#: What a relation line's extra field says when the relation is the paper's own finding.
NOVEL = "Novel"


@dataclass(frozen=True, slots=True)
class GoldRelation:
    """One relation line, endpoints as CURIEs in sorted order (gold pairs are unordered)."""

    pmid: str
    rel_type: str
    a: str
    b: str
    kind_a: str
    kind_b: str
    novelty: str = ""

    @property
    def pair(self) -> tuple[str, str]:
        return (self.a, self.b)

    @property
    def kinds(self) -> str:
        return "-".join(sorted((self.kind_a or "?", self.kind_b or "?")))


@dataclass(slots=True)
class GoldCorpus:
    """A gold file, read: its documents (file order), gold mentions, relations and problems."""

    path: Path
    fmt: str
    digest: str
    documents: list[Document] = field(default_factory=list)
    mentions: dict[str, list[Mention]] = field(default_factory=dict)
    relations: list[GoldRelation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: PMID → every CURIE a gold mention of the document carries → its entity class.
    entities: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def pmids(self) -> list[str]:
        return [d.pmid for d in self.documents]

    def content_digest(self, pmids: list[str] | None = None) -> str:
        """Digest of the gold annotations themselves (mentions and relations), whatever the
        file format: two files with the same gold content compare as the same gold."""
        keep = set(pmids if pmids is not None else self.pmids)
        spans = sorted(
            (m.pmid, m.start, m.end, m.source_type, ";".join(m.concept_ids))
            for p, ms in self.mentions.items()
            if p in keep
            for m in ms
        )
        rels = sorted(
            (r.pmid, r.rel_type, r.a, r.b, r.novelty) for r in self.relations if r.pmid in keep
        )
        body = json.dumps([sorted(keep), spans, rels]).encode()
        return hashlib.blake2b(body, digest_size=8).hexdigest()

    def nodes(self, pmid: str) -> set[str]:
        """The document's KG nodes: the concept each typed mention is built as (its first ID;
        a composite mention's other IDs are not nodes)."""
        return {m.concept_id for m in self.mentions[pmid] if m.hetionet_type and m.concept_id}

    def by_pmid(self) -> dict[str, list[GoldRelation]]:
        out: dict[str, list[GoldRelation]] = {p: [] for p in self.pmids}
        for r in self.relations:
            out.setdefault(r.pmid, []).append(r)
        return out


def sniff_format(path: Path) -> str:
    """``bioc`` when the file starts with a JSON object or array, else ``pubtator``."""
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return "bioc" if head[:1] in (b"{", b"[") else "pubtator"


def entity_class(m: Mention) -> str:
    """The kind a gold endpoint is reported under: its Hetionet kind, ``Variant`` for tmVar
    IDs, else its source type (OrganismTaxon, CellLine…)."""
    if m.hetionet_type:
        return m.hetionet_type
    if (m.concept_id or "").startswith("tmVar:"):
        return "Variant"
    return m.source_type


def _records(path: Path, fmt: str) -> Iterator[SourceRecord]:
    if fmt == "bioc":
        yield from read_bioc(path, year=EVAL_YEAR, label=path.name)
    else:
        yield from read_pubtator(path, year=EVAL_YEAR, label=path.name)


def read_gold_corpus(path: Path) -> GoldCorpus:
    """Read a gold file (InputError when it is missing or holds no document)."""
    if not path.is_file():
        raise InputError("no such gold file", path=path)
    fmt = sniff_format(path)
    digest = hashlib.blake2b(path.read_bytes(), digest_size=8).hexdigest()
    gold = GoldCorpus(path, fmt, digest)
    for rec in _records(path, fmt):
        gold.problems.extend(rec.problems)
        if rec.record_no < 0 or rec.reject_reason:
            gold.problems.append(
                Problem(rec.pmid, path.name, rec.line_no, "rejected", rec.reject_reason or "")
            )
            continue
        if rec.pmid in gold.mentions:
            gold.problems.append(
                Problem(rec.pmid, path.name, rec.line_no, "duplicate_document", "first kept")
            )
            continue
        gold.documents.append(rec.document(EVAL_YEAR, path.name))
        gold.mentions[rec.pmid] = rec.mentions
        gold.entities[rec.pmid] = _id_index(rec.mentions)
        gold.relations.extend(_relations(rec, gold.entities[rec.pmid], path.name, gold.problems))
    if not gold.documents:
        raise InputError("the gold file holds no usable document", path=path)
    return gold


def _relations(
    rec: SourceRecord, index: dict[str, str], source: str, problems: list[Problem]
) -> list[GoldRelation]:
    out: dict[tuple[str, str, str], GoldRelation] = {}
    for fields in rec.relations:
        if len(fields) < 3 or not fields[1].strip() or not fields[2].strip():
            problems.append(
                Problem(rec.pmid, source, rec.line_no, "malformed_relation", repr(fields)[:120])
            )
            continue
        rel_type = fields[0].strip()
        (a, ka), (b, kb) = (_resolve(rec, x.strip(), index, problems, source) for x in fields[1:3])
        novelty = fields[3].strip() if len(fields) > 3 else ""
        if (b, kb) < (a, ka):
            (a, ka), (b, kb) = (b, kb), (a, ka)
        key = (rel_type, a, b)
        if key in out:  # the same line twice asserts one relation
            continue
        out[key] = GoldRelation(rec.pmid, rel_type, a, b, ka, kb, novelty)
    return list(out.values())


def _id_index(mentions: list[Mention]) -> dict[str, str]:
    """CURIE → entity class, for every CURIE a mention of the document carries."""
    index: dict[str, str] = {}
    for m in mentions:
        for cid in m.concept_ids:
            index.setdefault(cid, entity_class(m))
    return index


def _resolve(
    rec: SourceRecord, raw: str, index: dict[str, str], problems: list[Problem], source: str
) -> tuple[str, str]:
    """A relation argument → (CURIE, entity class) through the types of the document's
    mentions; an ID none of them carries stays as written, with no kind."""
    for source_type in dict.fromkeys(m.source_type for m in rec.mentions):
        curies = to_curies(source_type, raw)
        if curies and curies[0] in index:
            return curies[0], index[curies[0]]
    problems.append(
        Problem(rec.pmid, source, rec.line_no, "gold_id_not_annotated", f"{raw!r} has no mention")
    )
    return raw, ""
