"""Node-name embeddings of one snapshot, computed once and cached beside its index.

The vectors come from the resolution stage's :class:`~kgbuild.resolve.embed.Embedder` model and
are saved as ``vectors-<model>.npy`` in the snapshot's index folder, with a sidecar written last
(``vectors-<model>.seal.json``: the snapshot's content hash, the model, a hash of the names in
row order and the file's SHA-256; :mod:`kgbuild.store.cache_seal`). A re-open reads one array,
after checking those, and never imports torch; a file the sidecar does not vouch for is
recomputed (one log line says why), never used. Recomputing takes each name's
vector from another snapshot's vectors file of the same model that its sidecar vouches for
(the names read from that snapshot's verified nodes table), so a new yearly snapshot encodes
only its new names; the rest go through the model itself. The Embedder's SQLite text cache is
not read here: nothing could vouch for a row of it (a vector edited in it would be served).
The model loads only when a text must be encoded (a new question's phrase, a new name), on the
first such call, or at a server's start (``QueryEngine.prepare``). A question's texts go through
:mod:`kgbuild.search.numpy_encoder` where it reproduces the model (the bundled MiniLM): the same
vectors without importing torch, which cost a ``kgbuild ask`` process 3–20 s. Query
texts are remembered in memory only (no disk write on the request path).

Nearest-node search: an exact inner-product search (one matrix product, FAISS's
interface, FAISS not imported) up to :data:`ANN_MIN_NODES` names, FAISS's HNSW graph (Malkov &
Yashunin 2018) above it, where a brute force product over every name grows with the KG. The
HNSW graph is built in memory from the ``.npy`` vectors (one thread, so the same vectors give
the same graph), never read from a file: FAISS's own index files are a binary format we would
have to trust.
"""

from __future__ import annotations

import io
import json
import logging
import re
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.config import env
from kgbuild.resolve.embed import Embedder
from kgbuild.search.index import read_table
from kgbuild.search.numpy_encoder import numpy_encoder
from kgbuild.store.cache_seal import (
    SEAL_SUFFIX,
    TABLES_SIDECAR,
    CacheMismatch,
    digest,
    entry,
    read_sidecar,
    read_verified,
    write_atomic,
    write_sidecar,
)

log = logging.getLogger("kgbuild.query")

#: Texts embedded per query are few; their vectors are remembered for this many texts.
QUERY_CACHE = 65536
#: Node names from which nearest-node search is approximate (HNSW) rather than exact.
ANN_MIN_NODES = 50_000
#: HNSW links per node, and the candidate list sizes while building and searching.
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 64
#: Other snapshots' vectors files (newest first) whose rows a recomputation may reuse.
REUSE_SIBLINGS = 3
#: New names up to which node vectors are encoded with numpy rather than by loading torch.
NUMPY_MAX_NAMES = 256


#: ``torch`` here makes query texts go through sentence-transformers even where the numpy encoder
#: reproduces the model (a comparison, or a way out should it ever disagree); default ``auto``.
QUERY_ENCODER_ENV = "KGBUILD_QUERY_ENCODER"

#: Torch threads once query texts are being encoded. One: a request encodes a few short texts,
#: and on a busy 2-core machine two OpenMP threads wait on each other — measured here at load 5:
#: p50 132 ms with 2 threads, 26 ms with 1, for two short texts.
QUERY_TORCH_THREADS = 1


def _single_thread_torch() -> None:
    try:
        import torch

        torch.set_num_threads(QUERY_TORCH_THREADS)
    except ImportError:  # pragma: no cover - a model loaded means torch is there
        pass


class NodeVectors:
    """``nearest(texts)`` → (node index, cosine) per text, over the node display names."""

    def __init__(self, names: list[str], folder: Path | None, embedder: Embedder,
                 queries: Embedder | None = None) -> None:  # fmt: skip
        self.names = names
        self.folder = folder
        self.embedder = embedder
        #: Query texts go through an in-memory embedder sharing the model: a question's phrase
        #: is not worth a durable (fsync'ed) SQLite write on the request path.
        self.queries = queries
        self.matrix: np.ndarray | None = None
        self.timings: dict[str, float] = {}
        self._lock = threading.Lock()
        self._memo: dict[str, np.ndarray] = {}
        self._best: dict[str, tuple[int, float]] = {}
        self._ann: Any = None

    def _file(self) -> Path | None:
        if self.folder is None:
            return None
        slug = re.sub(r"[^A-Za-z0-9._-]+", "_", self.embedder.model_id)[-80:]
        return self.folder / f"vectors-{slug}.npy"

    def ready(self) -> np.ndarray:
        """The node matrix (n_nodes × dim): loaded when its sidecar vouches for the file,
        else computed (and saved, sidecar last) on first use."""
        with self._lock:
            if self.matrix is not None:
                return self.matrix
            t0 = time.perf_counter()
            path = self._file()
            if path is not None:
                try:
                    self.matrix = self._load(path)
                except CacheMismatch as exc:
                    if path.exists() or _seal(path).exists():  # absent is not news
                        log.warning("query cache %s recomputed: %s", path, exc)
                else:
                    self.timings["vectors_load_s"] = round(time.perf_counter() - t0, 4)
                    return self.matrix
            self.matrix = self._compute()
            self.timings["vectors_build_s"] = round(time.perf_counter() - t0, 4)
            if path is not None:
                self._save(path, self.matrix)
            return self.matrix

    def _identity(self) -> tuple[str, str]:
        """(snapshot id, content hash) of this index folder, from its tables' sidecar."""
        assert self.folder is not None
        meta = read_sidecar(self.folder / TABLES_SIDECAR)
        return str(meta["snapshot_id"]), str(meta["content_hash"])

    def _load(self, path: Path) -> np.ndarray:
        """The saved matrix if its sidecar names this snapshot, model and names and the file's
        bytes match; else :class:`CacheMismatch`."""
        seal = read_sidecar(_seal(path), *self._identity())
        if seal.get("model") != self.embedder.model_id:
            raise CacheMismatch(f"vectors of model {seal.get('model')!r}")
        if seal.get("names_sha256") != _names_digest(self.names):
            raise CacheMismatch("vectors of other node names")
        try:
            m = np.load(io.BytesIO(read_verified(path.parent, path.name, seal)),
                        allow_pickle=False)  # fmt: skip
        except ValueError as exc:
            raise CacheMismatch(f"{path.name} does not read: {str(exc)[:80]}") from None
        if m.ndim != 2 or m.shape[0] != len(self.names) or m.dtype != np.float32:
            raise CacheMismatch(f"{path.name} has shape {m.shape}, not one row per node")
        return m

    def _save(self, path: Path, m: np.ndarray) -> None:
        """The matrix, then its sidecar (last), each by temp file + rename; nothing when the
        folder is read-only or its tables have no sidecar to name the snapshot from."""
        try:
            snapshot_id, content_hash = self._identity()
            buf = io.BytesIO()
            np.save(buf, m, allow_pickle=False)
            data = buf.getvalue()
            write_atomic(path, data)
            write_sidecar(_seal(path), snapshot_id, content_hash, {path.name: entry(data)},
                          model=self.embedder.model_id, names_sha256=_names_digest(self.names),
                          rows=int(m.shape[0]), dim=int(m.shape[1]))  # fmt: skip
        except (OSError, CacheMismatch):
            pass  # a read-only index folder: vectors stay in memory

    def _compute(self) -> np.ndarray:
        """One row per name: reused from other snapshots' vouched-for vectors where the name
        is there, encoded by the model otherwise."""
        if not self.names:
            return np.zeros((0, 1), np.float32)
        known = self._reusable() if self.folder is not None else {}
        todo = [n for n in dict.fromkeys(self.names) if n not in known]
        self.timings["vectors_reused"] = sum(n in known for n in self.names)
        if todo:
            known.update(zip(todo, self._encode_fresh(todo), strict=True))
        return np.ascontiguousarray(np.stack([known[n] for n in self.names]), dtype=np.float32)

    def _encode_fresh(self, texts: list[str]) -> np.ndarray:
        """Texts through the model itself, in a throwaway in-memory cache: node vectors are
        saved as this folder's vouched-for file, not as rows of a shared SQLite file. A few
        (a small KG, a year's new names beside the last year's vectors) go through the numpy
        encoder where it reproduces the model: no torch import (3–20 s) for a few names — unless
        torch is loaded already (a build's later years): it encodes them faster."""
        few = len(texts) <= NUMPY_MAX_NAMES and self.embedder.model is None
        if few and (env(QUERY_ENCODER_ENV) or "auto") != "torch":
            model = numpy_encoder(self.embedder.model_name)
            if model is not None:
                order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # less padding
                vecs = model.encode([texts[i] for i in order])
                out = np.empty_like(vecs)
                out[order] = vecs
                self.timings["vectors_encoder"] = type(model).__name__
                return out
        self.embedder.load()
        fresh = Embedder(self.embedder.model_name, cache_path=None)
        fresh.model = self.embedder.model
        try:
            return fresh.embed(texts)
        finally:
            fresh.close()

    def _reusable(self) -> dict[str, np.ndarray]:
        """Name → vector from the newest :data:`REUSE_SIBLINGS` other index folders holding
        this model's vectors, each verified as :meth:`_load` verifies its own (sidecar, model,
        bytes) and paired with names read from that folder's verified nodes table."""
        path = self._file()
        assert path is not None and self.folder is not None
        seals = [s for s in self.folder.parent.glob(f"*/{_seal(path).name}")
                 if s.parent != self.folder]  # fmt: skip
        out: dict[str, np.ndarray] = {}
        for seal_path in sorted(seals, key=_mtime, reverse=True)[:REUSE_SIBLINGS]:
            other = seal_path.parent
            try:
                seal = read_sidecar(seal_path)
                names = read_table(other, "nodes", read_sidecar(other / TABLES_SIDECAR))["display"]
                if seal.get("model") != self.embedder.model_id or seal.get(
                    "names_sha256"
                ) != _names_digest(names):
                    continue
                m = np.load(io.BytesIO(read_verified(other, path.name, seal)), allow_pickle=False)
            except (CacheMismatch, ValueError, KeyError):
                continue
            if m.ndim == 2 and m.shape[0] == len(names) and m.dtype == np.float32:
                for n, row in zip(names, m, strict=True):
                    out.setdefault(n, row)
        return out

    def encode(self, texts: list[str]) -> np.ndarray:
        """Query texts' vectors: from this process's memo, else the model (through an
        in-memory embedder)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            q = self.queries
            if q is None:  # never the SQLite cache: nothing vouches for its rows
                q = self.queries = Embedder(self.embedder.model_name, cache_path=None)
            if q.model is None:
                q.model = self._query_model()
            vecs = q.embed(todo)
            with self._lock:
                if len(self._memo) + len(todo) > QUERY_CACHE:
                    self._memo.clear()
                self._memo.update(zip(todo, vecs, strict=True))
        return np.stack([self._memo[t] for t in texts])

    def _query_model(self) -> Any:
        """What encodes query texts: :mod:`kgbuild.search.numpy_encoder` when it reproduces the
        configured model (no torch: 0.1–0.3 s to load, against 3–20 s for sentence-transformers'
        imports), else the sentence-transformers model the node names went through."""
        t0 = time.perf_counter()
        model: Any = None
        if (env(QUERY_ENCODER_ENV) or "auto") != "torch":
            model = numpy_encoder(self.embedder.model_name)
        if model is None:
            self.embedder.load()
            model = self.embedder.model
            _single_thread_torch()
        self.timings["query_encoder"] = type(model).__name__
        self.timings["query_encoder_load_s"] = round(time.perf_counter() - t0, 4)
        return model

    def ann(self) -> Any:
        """The FAISS index over the node vectors (see module docstring), built on first use."""
        m = self.ready()
        with self._lock:
            if self._ann is None:
                self._ann = build_ann(m)
                self.timings["ann"] = type(self._ann).__name__
            return self._ann

    def nearest(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Best node and its cosine for each text (-1 / 0.0 when there are no nodes);
        remembered per text, as the vectors are."""
        m = self.ready()
        if not len(m) or not texts:
            return np.full(len(texts), -1), np.zeros(len(texts))
        todo = [t for t in dict.fromkeys(texts) if t not in self._best]
        if todo:
            scores_2d, best_2d = self.ann().search(
                np.ascontiguousarray(self.encode(todo), dtype=np.float32), 1
            )
            best, scores = best_2d[:, 0], scores_2d[:, 0]
            with self._lock:
                if len(self._best) + len(todo) > QUERY_CACHE:
                    self._best.clear()
                self._best.update(zip(todo, zip(best.tolist(), scores.tolist(), strict=True),
                                      strict=True))  # fmt: skip
        got = [self._best[t] for t in texts]
        return np.array([g[0] for g in got]), np.array([g[1] for g in got])


class ExactIP:
    """Exact inner-product search by one matrix product, with FAISS's ``add``/``search``
    interface: below :data:`ANN_MIN_NODES` rows it is what ``faiss.IndexFlatIP`` computes (2 ms
    for the DALK KG's 5,000 names), without importing FAISS (0.05 s of a ``kgbuild ask``
    process). Ties go to the lowest row."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.m = np.ascontiguousarray(matrix, dtype=np.float32)

    @property
    def ntotal(self) -> int:
        return len(self.m)

    def add(self, rows: np.ndarray) -> None:
        self.m = np.ascontiguousarray(np.vstack([self.m, rows]), dtype=np.float32)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(scores, row ids) of the ``k`` best rows per query, best first (-1 past the end)."""
        sims = np.asarray(queries, np.float32) @ self.m.T
        k_ = min(k, sims.shape[1])
        ids = np.argsort(-sims, axis=1, kind="stable")[:, :k_]
        scores = np.take_along_axis(sims, ids, axis=1)
        if k_ < k:
            pad = ((0, 0), (0, k - k_))
            ids = np.pad(ids, pad, constant_values=-1)
            scores = np.pad(scores, pad, constant_values=-np.inf)
        return scores.astype(np.float32), ids.astype(np.int64)


def build_ann(matrix: np.ndarray) -> Any:
    """An exact inner-product index (:class:`ExactIP`), or FAISS's HNSW from
    :data:`ANN_MIN_NODES` rows (vectors are normalized, so inner product = cosine)."""
    m = np.ascontiguousarray(matrix, dtype=np.float32)
    if len(m) < ANN_MIN_NODES:
        return ExactIP(m)
    import faiss

    faiss.omp_set_num_threads(1)  # one query at a time; and a reproducible HNSW build
    index = faiss.IndexHNSWFlat(m.shape[1], HNSW_M, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    index.hnsw.efSearch = HNSW_EF_SEARCH
    index.add(m)
    return index


def _seal(path: Path) -> Path:
    """A vectors file's sidecar: ``vectors-<model>.npy`` → ``vectors-<model>.seal.json``."""
    return path.with_name(path.stem + SEAL_SUFFIX)


def _names_digest(names: list[str]) -> str:
    """SHA-256 of the names in row order: vectors belong to exactly these names."""
    return digest(json.dumps(list(names), ensure_ascii=False).encode())


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
