"""Node-name embeddings of one snapshot, computed once and cached beside its index.

The vectors come from the resolution stage's :class:`~kgbuild.resolve.embed.Embedder` (its
SQLite cache means a name embedded for one yearly snapshot is never encoded again for the next)
and are saved as ``vectors-<model>.npy`` in the snapshot's index folder, so a re-open reads one
array and never imports torch. The model itself loads only when a text must be encoded (a new
question's phrase), on the first such call, or at a server's start (``QueryEngine.prepare``).
Query texts are remembered in memory only (no disk write on the request path).

Nearest-node search goes through FAISS (issue 26): an exact inner-product index up to
:data:`ANN_MIN_NODES` names, an HNSW graph (Malkov & Yashunin 2018) above it, where a brute
force product over every name grows with the KG. The HNSW graph is built in memory from the
``.npy`` vectors (one thread, so the same vectors give the same graph), never read from a file:
FAISS's own index files are a binary format we would have to trust.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.resolve.embed import Embedder

#: Texts embedded per query are few; their vectors are remembered for this many texts.
QUERY_CACHE = 65536
#: Node names from which nearest-node search is approximate (HNSW) rather than exact.
ANN_MIN_NODES = 50_000
#: HNSW links per node, and the candidate list sizes while building and searching.
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 64


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
        """The node matrix (n_nodes × dim), loaded or computed on first use."""
        with self._lock:
            if self.matrix is not None:
                return self.matrix
            t0 = time.perf_counter()
            path = self._file()
            if path is not None and path.is_file():
                m = np.load(path, allow_pickle=False)
                if m.shape[0] == len(self.names):
                    self.matrix = m
                    self.timings["vectors_load_s"] = round(time.perf_counter() - t0, 4)
                    return m
            m = self.embedder.embed(self.names) if self.names else np.zeros((0, 1), np.float32)
            self.matrix = np.ascontiguousarray(m, dtype=np.float32)
            self.timings["vectors_build_s"] = round(time.perf_counter() - t0, 4)
            if path is not None:
                try:
                    tmp = path.with_name(f".tmp-{uuid.uuid4().hex}.npy")
                    np.save(tmp, self.matrix, allow_pickle=False)
                    tmp.replace(path)
                except OSError:
                    pass  # a read-only index folder: vectors stay in memory
            return self.matrix

    def encode(self, texts: list[str]) -> np.ndarray:
        """Query texts' vectors: from this process's memo, else the embedder (and its cache)."""
        todo = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if todo:
            q = self.queries
            if q is not None and q.model is None:
                self.embedder.load()
                q.model = self.embedder.model
                _single_thread_torch()
            vecs = (q or self.embedder).embed(todo)
            with self._lock:
                if len(self._memo) + len(todo) > QUERY_CACHE:
                    self._memo.clear()
                self._memo.update(zip(todo, vecs, strict=True))
        return np.stack([self._memo[t] for t in texts])

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


def build_ann(matrix: np.ndarray) -> Any:
    """An exact inner-product index, or HNSW from :data:`ANN_MIN_NODES` rows (vectors are
    normalized, so inner product = cosine)."""
    import faiss

    faiss.omp_set_num_threads(1)  # one query at a time; and a reproducible HNSW build
    m = np.ascontiguousarray(matrix, dtype=np.float32)
    dim = m.shape[1]
    if len(m) < ANN_MIN_NODES:
        index = faiss.IndexFlatIP(dim)
    else:
        index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
    index.add(m)
    return index
