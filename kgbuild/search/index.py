"""A snapshot loaded once into memory for querying, and cached beside it by content hash.

Loading reads seven small SQL results through :class:`~kgbuild.store.snapshots.Warehouse` (each
query opens a read-only connection and closes it, so the catalog is never held open while
questions are answered: DuckDB allows one writer *or* readers per file, and a scheduled build
must be able to publish meanwhile). What is read becomes flat arrays — nodes, edges with
support / confidence / year span, the best evidence sentence per (triple, PMID), every distinct
evidence sentence with the triples it supports (and its BM25 index,
:mod:`kgbuild.search.sentences`), and the alias dictionary — written as Arrow IPC files to
``<index_dir>/<snapshot_id>-<content_hash[:16]>/``.
A snapshot is immutable, so its content hash names its index for good: a second open reads
those files (no DuckDB, no SQL) and only rebuilds the adjacency arrays.

A cache is never trusted blindly: each component (the tables, the BM25 arrays, the
node vectors) has a sidecar, written last, naming the snapshot's content hash and the SHA-256
of each of its files (:mod:`kgbuild.store.cache_seal`). Opening hashes the bytes it parses; a
file that does not match, or a sidecar of another snapshot or index version, is rebuilt from
the snapshot with one log line saying why, never served. Hashing costs 1–2 ms per MB on 2
shared cores (0.03–0.06 s for the DALK snapshot's 27 MB; a warm open 0.17 → 0.20 s): cheap
enough to do on every open.
Arrow and ``.npy`` files are read without pickle: a cache file is data, never code.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from kgbuild.resolve.vocabularies import hgnc_names
from kgbuild.search.abstracts import DOCUMENTS_SQL, AbstractIndex
from kgbuild.search.aliases import build_aliases, ortholog_nodes
from kgbuild.search.graph import Graph
from kgbuild.search.sentences import SentenceIndex
from kgbuild.search.tag_share import WORD_SQL, judged_forms, tag_shares
from kgbuild.search.text import is_content, tokens
from kgbuild.store.cache_seal import (
    ABSTRACTS_DIR,
    ABSTRACTS_SIDECAR,
    BM25_DIR,
    BM25_SIDECAR,
    INDEX_VERSION,
    TABLES_SIDECAR,
    CacheMismatch,
    entry,
    index_folder_name,
    read_sidecar,
    read_verified,
    write_sidecar,
)
from kgbuild.store.curations import digest as curation_digest
from kgbuild.store.snapshots import Warehouse
from kgbuild.version import code_version

log = logging.getLogger("kgbuild.query")
_TABLES = ("nodes", "edges", "evidence", "aliases", "sentences", "sentence_edges")
#: The BM25 arrays saved beside the tables (the format of :meth:`SentenceIndex.save`).
_BM25_ARRAYS = ("data", "indices", "indptr")


@dataclass(slots=True)
class SnapshotIndex:
    """Everything retrieval needs about one snapshot, as column arrays (row = node/edge id)."""

    snapshot_id: str
    kg: str
    as_of_year: int
    content_hash: str
    nodes: dict[str, Any]
    edges: dict[str, Any]
    evidence: dict[str, Any]
    aliases: dict[str, Any]
    #: Distinct evidence sentences (pmid, year, sentence), and which edges each supports
    #: (``sentence_edges``: sentence row → edge, sorted by sentence).
    sentences: dict[str, Any]
    sentence_edges: dict[str, Any]
    graph: Graph = field(init=False)
    node_of: dict[str, int] = field(init=False)
    relations: list[str] = field(init=False)
    ev_ptr: np.ndarray = field(init=False)
    sent_ptr: np.ndarray = field(init=False)
    #: Distinct PMIDs with evidence per node, and in the whole snapshot (PMI's counts).
    node_docs: np.ndarray = field(init=False)
    n_docs: int = field(init=False)
    lexical: SentenceIndex | None = None
    #: BM25 over the snapshot's abstracts (:mod:`kgbuild.search.abstracts`), once opened.
    abstracts: AbstractIndex | None = None
    path: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    _name_tokens: dict[int, frozenset[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.node_of = {nid: i for i, nid in enumerate(self.nodes["id"])}
        self.relations = sorted(set(self.edges["relation"]))
        rel_code = {r: i for i, r in enumerate(self.relations)}
        self.edges["rel"] = np.array([rel_code[r] for r in self.edges["relation"]], np.int16)
        self.graph = Graph.from_edges(
            len(self.nodes["id"]),
            self.edges["head"],
            self.edges["tail"],
            self.edges["support"],
            self.edges["confidence"],
        )
        # evidence rows are sorted by edge: ev_ptr[e]:ev_ptr[e+1] are edge e's rows
        self.ev_ptr = np.searchsorted(
            self.evidence["edge"], np.arange(len(self.edges["head"]) + 1)
        ).astype(np.int64)
        self.sent_ptr = np.searchsorted(
            self.sentence_edges["sentence"], np.arange(len(self.sentences["pmid"]) + 1)
        ).astype(np.int64)
        self.node_docs, self.n_docs = _node_docs(self)

    def sentence_edge_ids(self, row: int) -> np.ndarray:
        """The edges sentence ``row`` supports."""
        return self.sentence_edges["edge"][int(self.sent_ptr[row]) : int(self.sent_ptr[row + 1])]

    def ensure_lexical(self) -> SentenceIndex:
        """The BM25 index of the sentences (:meth:`_component`)."""
        if self.lexical is None:
            n = len(self.sentences["sentence"])
            self.lexical = self._component(
                BM25_DIR,
                lambda f: _load_bm25(f, self.snapshot_id, self.content_hash, n),
                lambda: SentenceIndex.build(self.sentences["sentence"]),
                lambda f, got: _save_bm25(f, self.snapshot_id, self.content_hash, got),
                "bm25_build_s",
            )
        return self.lexical

    def ensure_abstracts(self, wh: Warehouse, term_cache: dict[bytes, list[str]] | None = None,
                         same: AbstractIndex | None = None) -> AbstractIndex:  # fmt: skip
        """The BM25 index of the snapshot's abstracts (:meth:`_component`), built from the
        catalog. ``term_cache``: see :meth:`AbstractIndex.build`; ``same``: this snapshot's
        index already built (another index folder of it: every evidence row, a curation),
        used instead of building it again."""
        if self.abstracts is None:
            self.abstracts = self._component(
                ABSTRACTS_DIR,
                lambda f: _load_abstracts(f, self.snapshot_id, self.content_hash),
                lambda: (
                    same
                    or AbstractIndex.build(wh.query(DOCUMENTS_SQL, [self.snapshot_id]), term_cache)
                ),
                lambda f, got: _save_abstracts(f, self.snapshot_id, self.content_hash, got),
                "abstracts_build_s",
            )
        return self.abstracts

    def _component(self, folder: str, load: Callable[[Path], Any], build: Callable[[], Any],
                   save: Callable[[Path, Any], None], timing: str) -> Any:  # fmt: skip
        """One cache component of the index folder (``folder`` inside it): loaded when its
        sidecar vouches for it, else built, timed as ``timing``, and saved there when the
        folder is writable (a read-only one keeps it in memory only)."""
        if self.path is not None:
            try:
                return load(self.path)
            except CacheMismatch as exc:
                if (self.path / folder).exists():  # absent is not news; anything else is
                    log.warning("query cache %s rebuilt: %s", self.path / folder, exc)
        t0 = time.perf_counter()
        got = build()
        self.timings[timing] = round(time.perf_counter() - t0, 4)
        if self.path is not None:
            with contextlib.suppress(OSError):
                save(self.path, got)
        return got

    def name_tokens(self, node: int) -> frozenset[str]:
        """Content tokens of a node's display name (memoized: names are immutable)."""
        got = self._name_tokens.get(node)
        if got is None:
            got = frozenset(t for t in tokens(self.nodes["display"][node]) if is_content(t))
            self._name_tokens[node] = got
        return got

    @property
    def n_nodes(self) -> int:
        return len(self.nodes["id"])

    @property
    def n_edges(self) -> int:
        return len(self.edges["head"])

    def meta(self) -> dict[str, Any]:
        return {
            "index_version": INDEX_VERSION,
            "snapshot_id": self.snapshot_id,
            "kg": self.kg,
            "as_of_year": self.as_of_year,
            "content_hash": self.content_hash,
            "nodes": self.n_nodes,
            "edges": self.n_edges,
            "evidence": len(self.evidence["edge"]),
            "aliases": len(self.aliases["key"]),
            "sentences": len(self.sentences["pmid"]),
        }


def _node_docs(idx: SnapshotIndex) -> tuple[np.ndarray, int]:
    """Distinct PMIDs with evidence per node and overall (from the one-row-per-(triple, PMID)
    evidence table): the document frequencies PMI divides by."""
    ev, e = idx.evidence, idx.edges
    if not len(ev["edge"]):
        return np.zeros(idx.n_nodes, np.int32), 0
    pmids, code = np.unique(np.asarray(ev["pmid"], dtype=object), return_inverse=True)
    nodes = np.concatenate([e["head"][ev["edge"]], e["tail"][ev["edge"]]]).astype(np.int64)
    pairs = np.unique(nodes * len(pmids) + np.concatenate([code, code]))
    counts = np.bincount(pairs // len(pmids), minlength=idx.n_nodes).astype(np.int32)
    return counts, len(pmids)


def index_dir_for(warehouse: Path, index_dir: Path | None) -> Path:
    """Where indexes live: ``<warehouse>/index`` unless told otherwise (a read-only warehouse
    can keep its indexes elsewhere)."""
    return Path(index_dir) if index_dir else Path(warehouse) / "index"


def open_index(
    wh: Warehouse,
    snapshot_id: str,
    index_dir: Path | None = None,
    cache: bool = True,
    all_evidence: bool = False,
) -> SnapshotIndex:
    """The index of one snapshot: from its cache folder when present, else built and cached.

    By default only served evidence counts (``kg_edges``: asserted, not refuted):
    a triple with none is not in the index. ``all_evidence`` indexes every evidence row
    (``kg_edges_all``), whatever the sentence does with the claim, in its own cache folder."""
    m = wh.manifest(snapshot_id)
    # the edges' confidence comes from the calibrated model: another model, another cache
    # a curation changes what is served: another digest, another cache (kgbuild.store.curations)
    name = index_folder_name(m, all_evidence, curation_digest(wh.root))
    folder = index_dir_for(wh.root, index_dir) / name
    if cache and folder.exists():
        t0 = time.perf_counter()
        try:
            idx = _read(folder, m)
        except CacheMismatch as exc:  # stale, damaged or edited: rebuilt below, never served
            log.warning("query cache %s rebuilt: %s", folder, exc)
            shutil.rmtree(folder, ignore_errors=True)
        else:
            idx.ensure_lexical()
            idx.timings["load_s"] = round(time.perf_counter() - t0, 4)
            return idx
    t0 = time.perf_counter()
    tables = _from_warehouse(wh, snapshot_id, all_evidence)
    idx = SnapshotIndex(snapshot_id, m["kg"], m["as_of_year"], m["content_hash"], **tables)
    if cache:
        idx.path = _write(folder, idx)
        if idx.path is not None:
            _drop_older_curated(folder, index_folder_name(m, all_evidence))
    idx.ensure_lexical()
    idx.timings["build_s"] = round(time.perf_counter() - t0, 4)
    return idx


def _drop_older_curated(folder: Path, base: str) -> None:
    """Remove this snapshot's caches for earlier states of the curation log: the log only
    grows, so no reader opens them again, and each curation would otherwise leave one."""
    for old in folder.parent.glob(f"{base}-c*"):
        if old != folder and old.is_dir():
            shutil.rmtree(old, ignore_errors=True)


# ---- reading the snapshot ---------------------------------------------------------------------


def _from_warehouse(
    wh: Warehouse, sid: str, all_evidence: bool = False
) -> dict[str, dict[str, Any]]:
    """Ten read-only queries on one connection (the file's shared lock is held while they run,
    not for the aliases built after), always in a fixed order."""
    with wh.reader() as query:
        edges_of, evidence_of = (
            ("kg_edges_all_at", "evidence_status_at") if all_evidence
            else ("kg_edges_at", "served_evidence_at")
        )  # fmt: skip
        # display_name: computed at build time; NULL in parts written before it
        ents = query(
            "SELECT id, name, type, aliases, first_year, nullif(display_name, '') FROM ("
            "  SELECT * FROM entities_at(?) UNION ALL BY NAME"
            "  SELECT NULL::VARCHAR AS display_name WHERE false) ORDER BY id",
            [sid],
        )
        node_of = {r[0]: i for i, r in enumerate(ents)}
        edges = query(
            "SELECT triple_id, head_id, tail_id, relation, coalesce(metaedge, ''), support, "
            "n_evidence, coalesce(confidence, 0), coalesce(first_year, 0), coalesce(last_year, 0) "
            f"FROM {edges_of}(?) ORDER BY triple_id",
            [sid],
        )
        edges = [e for e in edges if e[1] in node_of and e[2] in node_of]
        edge_of = {e[0]: i for i, e in enumerate(edges)}
        # each fact's belief in this snapshot, and whether papers disagree about it
        # (asserted and negated, or opposite directions: kgbuild.belief.conflicts)
        belief = dict(query("SELECT triple_id, belief FROM belief_of(?)", [sid]))
        contested = dict(query(
            "SELECT triple_id, string_agg(DISTINCT kind, ',' ORDER BY kind) FROM ("
            "  SELECT unnest(triples_a || triples_b) AS triple_id, kind FROM conflicts_at(?)) "
            "GROUP BY triple_id",
            [sid],
        ))  # fmt: skip
        # the best sentence per (triple, PMID): most confident, then shortest, then by id
        ev = query(
            "SELECT triple_id, pmid, year, sentence, confidence, "
            "CASE WHEN verified = 'no' THEN 'refuted' ELSE epistemic END "
            f"FROM {evidence_of}(?) "
            "QUALIFY row_number() OVER (PARTITION BY triple_id, pmid "
            "ORDER BY confidence DESC, length(sentence), evidence_id) = 1",
            [sid],
        )
        ev = sorted(
            (
                (edge_of[r[0]], r[1], int(r[2] or 0), r[3] or "", float(r[4] or 0), r[5] or "")
                for r in ev
                if r[0] in edge_of
            ),
            key=lambda r: (r[0], -r[4], -r[2], r[1]),
        )
        # every distinct sentence, with the triples it supports (the lexical index's documents)
        sents = query(
            f"SELECT pmid, min(year), sentence, list(DISTINCT triple_id ORDER BY triple_id) "
            f"FROM {evidence_of}(?) WHERE sentence IS NOT NULL AND sentence <> '' "
            "GROUP BY pmid, sentence ORDER BY pmid, sentence",
            [sid],
        )
        sent_links = [(i, edge_of[t]) for i, r in enumerate(sents) for t in r[3] if t in edge_of]
        # with the vocabulary check's verdict: a suspect link names no alias (search.alias_trust)
        # a dropped link under the annotator's ID: the corpus's evidence against that form
        mentions = query(
            "SELECT coalesce(concept_id, annotator_id), text, count(*), coalesce(id_check, '') "
            "FROM (SELECT * FROM mentions_at(?) UNION ALL BY NAME"
            "  SELECT NULL::VARCHAR AS id_check, NULL::VARCHAR AS annotator_id WHERE false) "
            "WHERE concept_id IS NOT NULL OR (id_check LIKE '%:dropped' AND annotator_id <> '') "
            "GROUP BY ALL ORDER BY ALL",
            [sid],
        )
        # non-human gene IDs the build relinked to a human ortholog (search.aliases.ortholog_nodes)
        relinked = query(
            "SELECT annotator_id, concept_id, count(*) FROM mentions_at(?) "
            "WHERE annotator_id LIKE 'NCBIGene:%' AND concept_id LIKE 'NCBIGene:%' "
            "AND annotator_id <> concept_id GROUP BY ALL ORDER BY ALL",
            [sid],
        )
        merged = query(
            "SELECT name, merged_into, method FROM resolutions_at(?) "
            "WHERE merged_into <> node_id ORDER BY ALL",
            [sid],
        )
        abbrevs = query(
            "SELECT short, long, count(DISTINCT pmid) FROM abbreviations_at(?) GROUP BY ALL "
            "ORDER BY ALL",
            [sid],
        )
    nodes = {
        "id": [r[0] for r in ents],
        "name": [r[1] or r[0] for r in ents],
        "type": [r[2] or "" for r in ents],
        "first_year": np.array([r[4] or 0 for r in ents], np.int16),
    }
    degree = _degree(len(ents), [node_of[e[1]] for e in edges], [node_of[e[2]] for e in edges])
    same_as = ortholog_nodes(node_of, relinked, hgnc_names())
    aliases, display = build_aliases(ents, node_of, mentions, merged, abbrevs, degree, same_as)
    aliases["tag_share"] = _tag_shares(wh, sid, aliases, nodes["id"])
    nodes["display"] = display
    nodes["same_as"] = same_as
    return {
        "nodes": nodes,
        "edges": {
            "triple_id": [e[0] for e in edges],
            "head": np.array([node_of[e[1]] for e in edges], np.int32),
            "tail": np.array([node_of[e[2]] for e in edges], np.int32),
            "relation": [e[3] for e in edges],
            "metaedge": [e[4] for e in edges],
            "support": np.array([e[5] for e in edges], np.int32),
            "n_evidence": np.array([e[6] for e in edges], np.int32),
            "confidence": np.array([e[7] for e in edges], np.float32),
            "first_year": np.array([e[8] for e in edges], np.int16),
            "last_year": np.array([e[9] for e in edges], np.int16),
            "belief": np.array([belief.get(e[0]) or 0.0 for e in edges], np.float32),
            "contested": [contested.get(e[0]) or "" for e in edges],
        },
        "evidence": {
            "edge": np.array([r[0] for r in ev], np.int32),
            "pmid": [r[1] for r in ev],
            "year": np.array([r[2] for r in ev], np.int16),
            "sentence": [r[3] for r in ev],
            "confidence": np.array([r[4] for r in ev], np.float32),
            # asserted | unclassified when only served rows are read; any status otherwise
            "status": [r[5] for r in ev],
        },
        "aliases": aliases,
        "sentences": {
            "pmid": [r[0] for r in sents],
            "year": np.array([r[1] or 0 for r in sents], np.int16),
            "sentence": [r[2] for r in sents],
        },
        "sentence_edges": {
            "sentence": np.array([a for a, _ in sent_links], np.int32),
            "edge": np.array([b for _, b in sent_links], np.int32),
        },
    }


def _tag_shares(wh: Warehouse, sid: str, aliases: dict[str, Any], ids: list[str]) -> np.ndarray:
    """How often each short gene key is tagged as its gene where the abstracts write it
    (:mod:`kgbuild.search.tag_share`): two queries, words of the abstracts and mentions."""
    forms = judged_forms(aliases, ids)
    words = sorted({f for fs in forms.values() for f in fs})
    cids = sorted({ids[int(aliases["node"][r])] for r in forms})
    if not words:
        return tag_shares(aliases, ids, forms, [], [])
    with wh.reader() as query:
        occurs = query(
            "SELECT w, pmid FROM (SELECT DISTINCT pmid, unnest(regexp_extract_all("
            f"coalesce(title, '') || ' ' || coalesce(abstract, ''), '{WORD_SQL}')) AS w "
            "FROM documents_at(?)) WHERE w IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL",
            [sid, words],
        )
        tagged = query(
            "SELECT pmid, concept_id, text FROM mentions_at(?) "
            "WHERE concept_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL",
            [sid, cids],
        )
    return tag_shares(aliases, ids, forms, occurs, tagged)


def _degree(n: int, heads: list[int], tails: list[int]) -> np.ndarray:
    """Distinct neighbours per node."""
    pairs = {(min(h, t), max(h, t)) for h, t in zip(heads, tails, strict=True) if h != t}
    deg = np.zeros(n, np.int32)
    for h, t in pairs:
        deg[h] += 1
        deg[t] += 1
    return deg


# ---- the cache --------------------------------------------------------------------------------


def _to_arrow(cols: dict[str, Any]) -> pa.Table:
    return pa.table({k: pa.array(v) for k, v in cols.items() if k != "rel"})


def _from_arrow(table: pa.Table) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
            out[name] = _numeric(col)
        else:
            out[name] = col.to_pylist()
    return out


#: Arrow's names of float types that are not numpy's.
_FLOAT_NAMES = {"halffloat": "float16", "float": "float32", "double": "float64"}


def _numeric(col: pa.ChunkedArray) -> np.ndarray:
    """A numeric column as a read-only numpy view of its Arrow buffer — what ``to_numpy()``
    returns, without its first call importing pandas (0.3–1 s of a ``kgbuild ask`` process
    that needs nothing of pandas). Columns with nulls (none are written) go through
    ``to_numpy``."""
    arr = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    if arr.null_count:
        return col.to_numpy()
    dtype = np.dtype(_FLOAT_NAMES.get(str(arr.type), str(arr.type)))
    buf = arr.buffers()[1]
    if buf is None:  # an empty column
        return np.zeros(0, dtype)
    return np.frombuffer(buf, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def _arrow_bytes(cols: dict[str, Any]) -> pa.Buffer:
    """One table as the bytes of an Arrow IPC file (hashed, then written: the sidecar's hash
    is of exactly what is on disk)."""
    table = _to_arrow(cols)
    sink = pa.BufferOutputStream()
    with ipc.new_file(sink, table.schema) as w:
        w.write_table(table)
    return sink.getvalue()


def _write(folder: Path, idx: SnapshotIndex) -> Path | None:
    """Write the index atomically (a temp folder renamed into place), its sidecar last; None if
    the folder is not writable (the index then lives in memory only, and the next open builds
    it again)."""
    tmp = folder.parent / f".tmp-{uuid.uuid4().hex}"
    try:
        tmp.mkdir(parents=True)
        files = {}
        for name in _TABLES:
            data = _arrow_bytes(getattr(idx, name))
            (tmp / f"{name}.arrow").write_bytes(data)
            files[f"{name}.arrow"] = entry(data)
        meta = idx.meta()
        write_sidecar(tmp / TABLES_SIDECAR, meta.pop("snapshot_id"), meta.pop("content_hash"),
                      files, code_version=code_version(), **meta)  # fmt: skip
        try:
            os.replace(tmp, folder)
        except OSError:  # another process published the same index first: theirs is as good
            shutil.rmtree(tmp, ignore_errors=True)
        return folder
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return None


def read_table(folder: Path, name: str, sidecar: dict[str, Any]) -> dict[str, Any]:
    """One cached table's columns, from bytes its sidecar vouches for
    (:class:`CacheMismatch` otherwise)."""
    data = read_verified(folder, f"{name}.arrow", sidecar)
    try:
        return _from_arrow(ipc.open_file(pa.py_buffer(data)).read_all())
    except (ValueError, pa.ArrowException) as exc:  # hashes match, yet not Arrow: a bug
        raise CacheMismatch(f"{name}.arrow does not read: {str(exc)[:80]}") from None


def _read(folder: Path, manifest: dict[str, Any]) -> SnapshotIndex:
    """The cached index if its sidecar names this snapshot and index version and every table's
    bytes match their SHA-256; else :class:`CacheMismatch` saying why (a tampered, stale or
    half-copied cache is rebuilt, never trusted — an edit that keeps every row count
    included)."""
    meta = read_sidecar(folder / TABLES_SIDECAR, manifest["snapshot_id"],
                        manifest["content_hash"])  # fmt: skip
    if meta.get("code_version") != code_version():
        # the tables are made by this code from the data tables (gene product names, generic
        # words, tag-share rules): other code or data, another index — whatever INDEX_VERSION says
        raise CacheMismatch(
            f"built by kgbuild {meta.get('code_version')}; this is {code_version()}"
        )
    tables = {name: read_table(folder, name, meta) for name in _TABLES}
    try:
        idx = SnapshotIndex(
            manifest["snapshot_id"],
            manifest["kg"],
            manifest["as_of_year"],
            manifest["content_hash"],
            **tables,
        )
    except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
        raise CacheMismatch(f"tables inconsistent: {str(exc)[:80]}") from None
    if (
        idx.n_edges != meta.get("edges")
        or idx.n_nodes != meta.get("nodes")
        or len(idx.sentences["pmid"]) != meta.get("sentences")
        or not _links_ok(idx)
    ):
        raise CacheMismatch("row counts or sentence links do not match the sidecar")
    idx.path = folder
    return idx


def _bm25_files(lexical: SentenceIndex, folder: str = BM25_DIR) -> dict[str, bytes]:
    """A BM25 index as file bytes, in :meth:`SentenceIndex.save`'s layout, under ``folder``."""
    out = {}
    for name in _BM25_ARRAYS:
        buf = io.BytesIO()
        np.save(buf, getattr(lexical, name), allow_pickle=False)
        out[f"{folder}/{name}.npy"] = buf.getvalue()
    vocab = {"n_docs": lexical.n_docs, "vocab": lexical.vocab}
    out[f"{folder}/vocab.json"] = json.dumps(vocab, sort_keys=True).encode()
    return out


def _save_component(folder: Path, name: str, snapshot_id: str, content_hash: str,
                    files: dict[str, bytes]) -> None:  # fmt: skip
    """Write one cache component's files (paths ``<name>/…``) and its sidecar (last) into a
    temp folder renamed onto ``<folder>/<name>``."""
    tmp = folder / f".tmp-{uuid.uuid4().hex}"
    try:
        for rel, data in files.items():
            path = tmp / rel.removeprefix(f"{name}/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        write_sidecar(tmp / "seal.json", snapshot_id, content_hash,
                      {rel: entry(data) for rel, data in files.items()})  # fmt: skip
        shutil.rmtree(folder / name, ignore_errors=True)
        os.replace(tmp, folder / name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _save_bm25(folder: Path, snapshot_id: str, content_hash: str, lexical: SentenceIndex) -> None:
    """The sentences' BM25 files and their sidecar into ``<folder>/bm25``."""
    _save_component(folder, BM25_DIR, snapshot_id, content_hash, _bm25_files(lexical))


def _read_bm25(folder: Path, name: str, seal: dict[str, Any]) -> tuple[SentenceIndex, Any]:
    """The BM25 index under ``<folder>/<name>`` whose files' bytes match ``seal``, and its
    vocabulary file's ``n_docs``; else :class:`CacheMismatch`."""
    try:
        arrays = [
            np.load(io.BytesIO(read_verified(folder, f"{name}/{n}.npy", seal)),
                    allow_pickle=False)
            for n in _BM25_ARRAYS
        ]  # fmt: skip
        meta = json.loads(read_verified(folder, f"{name}/vocab.json", seal))
        vocab = {str(k): int(v) for k, v in meta["vocab"].items()}
        n_docs = meta.get("n_docs")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CacheMismatch(f"BM25 files do not read: {str(exc)[:80]}") from None
    data, indices, indptr = arrays
    if not isinstance(n_docs, int) or len(indptr) != len(vocab) + 1 or len(data) != len(indices):
        raise CacheMismatch("BM25 arrays do not fit together")
    if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= n_docs):
        raise CacheMismatch("BM25 arrays do not fit together")
    return SentenceIndex(vocab, data, indices, indptr, n_docs), n_docs


def _load_bm25(folder: Path, snapshot_id: str, content_hash: str, n_docs: int) -> SentenceIndex:
    """The saved BM25 index if its sidecar names this snapshot and its files' bytes match; else
    :class:`CacheMismatch`."""
    seal = read_sidecar(folder / BM25_SIDECAR, snapshot_id, content_hash)
    got, saved_docs = _read_bm25(folder, BM25_DIR, seal)
    if saved_docs != n_docs:
        raise CacheMismatch("BM25 arrays do not fit the sentences")
    return got


def _save_abstracts(folder: Path, snapshot_id: str, content_hash: str,
                    got: AbstractIndex) -> None:  # fmt: skip
    """The abstracts' BM25 files, their PMIDs and years, and the sidecar into
    ``<folder>/abstracts``."""
    files = _bm25_files(got.bm25, ABSTRACTS_DIR)
    docs = {"pmids": got.pmids, "years": got.years.tolist()}
    files[f"{ABSTRACTS_DIR}/documents.json"] = json.dumps(docs).encode()
    _save_component(folder, ABSTRACTS_DIR, snapshot_id, content_hash, files)


def _load_abstracts(folder: Path, snapshot_id: str, content_hash: str) -> AbstractIndex:
    """The saved abstracts' index if its sidecar names this snapshot and its files' bytes
    match; else :class:`CacheMismatch`."""
    seal = read_sidecar(folder / ABSTRACTS_SIDECAR, snapshot_id, content_hash)
    bm25, n_docs = _read_bm25(folder, ABSTRACTS_DIR, seal)
    try:
        docs = json.loads(read_verified(folder, f"{ABSTRACTS_DIR}/documents.json", seal))
        pmids = [str(p) for p in docs["pmids"]]
        years = np.array([int(y) for y in docs["years"]], np.int32)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CacheMismatch(f"abstract list does not read: {str(exc)[:80]}") from None
    if len(pmids) != n_docs or len(years) != n_docs:
        raise CacheMismatch("abstract list does not fit the BM25 arrays")
    return AbstractIndex(bm25, pmids, years)


def _links_ok(idx: SnapshotIndex) -> bool:
    """Sentence → edge links in range and sorted (a damaged cache is rebuilt, not trusted)."""
    se = idx.sentence_edges
    s, e = se["sentence"], se["edge"]
    if len(s) != len(e):
        return False
    if not len(s):
        return True
    n_sent = len(idx.sentences["pmid"])
    return bool(
        s.min() >= 0 and s.max() < n_sent and e.min() >= 0 and e.max() < idx.n_edges
        and np.all(np.diff(s) >= 0)
    )  # fmt: skip
