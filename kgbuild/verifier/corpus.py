"""Gold files as labelled pairs: every candidate pair of a document, with its gold types.

What a gold file is: PubTator text or BioC-JSON with entity mentions (IDs given) and relation
lines ``type, id1, id2[, novelty]`` — BioRED (Luo et al. 2022, Brief Bioinform 23(5):bbac282)
and BioCreative V CDR (Wei et al. 2016, Database baw032). Relations are document-level and
unordered; a bare ID (``D003409``, ``6528``) is turned into the CURIE a mention of the same
document carries (through that mention's type, ``schema.to_curies``), as ``kgbuild eval re``
does (:mod:`kgbuild.evaluate.gold`). This reader sits below the extractors (the verifier's
room), so it uses the source readers and the schema directly instead of importing the
evaluation stage.

A candidate pair is two entities of the document whose kinds are a pair the verifier scores
(:data:`PAIR_KINDS`): BioRED's related kinds, without Disease–Disease (BioRED annotates none),
or, for a CDR file, Compound–Disease only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.records import Document, Mention
from kgbuild.schema import to_curies
from kgbuild.sources.bioc import read_bioc
from kgbuild.sources.pubtator_files import read_pubtator
from kgbuild.sources.record import SourceRecord
from kgbuild.verifier.text import mention_ids, mention_kind

#: Kind pairs (sorted) the verifier scores: every BioRED entity-pair type (Islamaj et al. 2024
#: list eight; Disease–Disease is not one of them).
PAIR_KINDS = frozenset(
    {("Compound", "Compound"), ("Compound", "Disease"), ("Compound", "Gene"),
     ("Compound", "Variant"), ("Disease", "Gene"), ("Disease", "Variant"), ("Gene", "Gene"),
     ("Gene", "Variant"), ("Variant", "Variant")}
)  # fmt: skip
#: The relation type of BC5CDR's one relation (chemical-induced disease).
CID = "CID"


@dataclass(slots=True)
class GoldDoc:
    """One gold document: text, mentions and its relations as {unordered pair: types}."""

    doc: Document
    mentions: list[Mention]
    relations: dict[tuple[str, str], set[str]] = field(default_factory=dict)


def pair_key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def candidate_pairs(
    mentions: list[Mention], kinds: frozenset[tuple[str, str]] = PAIR_KINDS
) -> list[tuple[str, str]]:
    """Unordered pairs of the document's entities whose kinds are in ``kinds``, sorted."""
    kind: dict[str, str] = {}
    for m in mentions:
        for cid in mention_ids(m):
            kind.setdefault(cid, mention_kind(m))
    out = []
    for a, b in combinations(sorted(kind), 2):
        if tuple(sorted((kind[a], kind[b]))) in kinds:
            out.append((a, b))
    return out


def _records(path: Path) -> Iterator[SourceRecord]:
    with open(path, "rb") as fh:
        head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    if head[:1] in (b"{", b"["):
        yield from read_bioc(path, year=2000, label=path.name)
    else:
        yield from read_pubtator(path, year=2000, label=path.name)


def _curie(rec: SourceRecord, raw: str, ids: set[str]) -> str | None:
    for source_type in dict.fromkeys(m.source_type for m in rec.mentions):
        curies = to_curies(source_type, raw)
        if curies and curies[0] in ids:
            return curies[0]
    return None


def read_gold(path: Path) -> list[GoldDoc]:
    """The documents of a gold file with their relations (InputError when the file is missing,
    holds no document, or has no relation line: nothing to learn from or measure)."""
    if not path.is_file():
        raise InputError("no such gold file", path=path)
    docs: list[GoldDoc] = []
    seen: set[str] = set()
    n_relations = 0
    for rec in _records(path):
        if rec.record_no < 0 or rec.reject_reason or rec.pmid in seen:
            continue
        seen.add(rec.pmid)
        gd = GoldDoc(rec.document(2000, path.name), rec.mentions)
        ids = {c for m in rec.mentions for c in mention_ids(m)}
        for fields in rec.relations:
            if len(fields) < 3:
                continue
            n_relations += 1
            a, b = (_curie(rec, x.strip(), ids) for x in fields[1:3])
            if a and b and a != b:
                gd.relations.setdefault(pair_key(a, b), set()).add(fields[0].strip())
        docs.append(gd)
    if not docs:
        raise InputError("the gold file holds no usable document", path=path)
    if not n_relations:
        raise InputError("the gold file has no relation lines: nothing to train on", path=path)
    return docs
