"""What ``serve`` and ``ask`` open, made by the build as it publishes: ready when it ends.

A newcomer's first ``kgbuild serve`` after ``make build`` spent 126 s computing node vectors,
the first ``kgbuild ask`` 25 s building the snapshot's query index, and each as-of year the
explorer opened 7–9 s building that year's. None of it depends on anything but the snapshot
and the encoder, so the build makes it once, right after each year's snapshot is published,
into the same caches the readers open (:mod:`kgbuild.search.index`, :mod:`kgbuild.search.vectors`):

* every snapshot's query index (tables, the sentences' and the abstracts' BM25 arrays), in the
  folder named by its content hash and the confidence model — what ``ask --as-of`` and the
  explorer's as-of years open;
* its node vectors, keyed by the snapshot's content hash, the encoder's identity and the names
  (sidecar written last; :mod:`kgbuild.store.cache_seal`). Years are made oldest first, so each
  encodes only the names new that year: the rest are read from the year before's vectors;
* the head's index over every evidence row as well (``-all``): the weaker-evidence answers of a
  "what are the side effects of …" question read it on the first question.

Nothing here is trusted more than a reader trusts it: a file its sidecar does not vouch for
(stale, foreign, damaged) is refused with one log line and made again, so a re-run of the build
repairs the caches. The encoder is the one a reader uses by default (``Embedder(None)``: the
settings' model), so the vectors made are the vectors looked for.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbuild.errors import ConfigError
from kgbuild.search.index import SnapshotIndex, open_index
from kgbuild.store.snapshots import Warehouse


@dataclass(slots=True)
class Readied:
    """What was made ready for one snapshot, and how (for the build's log line)."""

    snapshot_id: str
    #: ``read`` (the caches were there and vouched for) or ``built``.
    index: str
    #: ``read``, ``computed``, or why there are none (``off``, the model's error).
    vectors: str
    #: Node names whose vectors came from another snapshot's file rather than the model.
    reused: int = 0
    seconds: float = 0.0
    #: Indexes opened (the served one, and the head's every-evidence one).
    folders: list[Path] = field(default_factory=list)

    def line(self) -> str:
        how = self.vectors + (f" ({self.reused:,} reused)" if self.vectors == "computed" else "")
        return f"query index {self.index}, node vectors {how} in {self.seconds:.1f}s"


class Readier:
    """``make(snapshot_id, head=…)``: one build's snapshots made ready in turn, sharing one
    encoder (the model loads once per build, and only when a name must be encoded)."""

    def __init__(
        self,
        warehouse: Path | str,
        index_dir: Path | None = None,
        embeddings: bool = True,
        embed_model: str | None = None,
    ) -> None:
        self.wh = Warehouse(Path(warehouse))
        self.index_dir = index_dir
        self.embeddings = embeddings
        self.embed_model = embed_model
        self._embedder: Any = None
        self.embedding_error: str | None = None
        #: Each document's BM25 terms, by its text's digest: every later year's snapshot
        #: holds the earlier years' documents, so each is stemmed once per build.
        self._terms: dict[bytes, list[str]] = {}

    def make(self, snapshot_id: str, head: bool = True) -> Readied:
        """The query index and node vectors of ``snapshot_id`` (and, for the ``head``, its
        every-evidence index), read when present and vouched for, else made and saved."""
        t0 = time.perf_counter()
        idx = open_index(self.wh, snapshot_id, self.index_dir)
        got = Readied(snapshot_id, "read" if "load_s" in idx.timings else "built", "off")
        got.folders += [idx.path] if idx.path else []
        abstracts = idx.ensure_abstracts(self.wh, self._terms)
        got.vectors, got.reused = self._vectors(idx)
        if head:
            every = open_index(self.wh, snapshot_id, self.index_dir, all_evidence=True)
            every.ensure_abstracts(self.wh, same=abstracts)
            got.folders += [every.path] if every.path else []
            if "build_s" in every.timings:
                got.index = "built"
            self._vectors(every)
        got.seconds = time.perf_counter() - t0
        return got

    def _vectors(self, idx: SnapshotIndex) -> tuple[str, int]:
        """(how the node vectors came to be, names reused) for ``idx``."""
        if not self.embeddings or self.embedding_error or idx.path is None:
            return self.embedding_error or "off", 0
        from kgbuild.resolve.embed import Embedder
        from kgbuild.search.vectors import NodeVectors

        try:
            if self._embedder is None:
                self._embedder = Embedder(self.embed_model, cache_path=None)
            vec = NodeVectors(idx.nodes["display"], idx.path, self._embedder)
            vec.ready()
        except ConfigError as exc:  # no model here: the readers fall back as they would
            self.embedding_error = f"off ({exc})"
            return self.embedding_error, 0
        if "vectors_load_s" in vec.timings:
            return "read", 0
        return "computed", int(vec.timings.get("vectors_reused", 0))

    def close(self) -> None:
        if self._embedder is not None:
            self._embedder.close()


def make_ready(
    warehouse: Path | str,
    snapshot_ids: list[str],
    say: Callable[[str], None] | None = None,
    **options: Any,
) -> list[Readied]:
    """Every snapshot of ``snapshot_ids`` (oldest first; the last is the head) made ready."""
    readier = Readier(warehouse, **options)
    out: list[Readied] = []
    try:
        for i, sid in enumerate(snapshot_ids):
            out.append(readier.make(sid, head=i == len(snapshot_ids) - 1))
            if say:
                say(f"{sid}: {out[-1].line()}")
    finally:
        readier.close()
    return out
