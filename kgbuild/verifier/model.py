"""Scoring: the one function extractors and the confidence model call, :func:`score_pairs`.

Three logistic-regression heads (Cox 1958) over the same sparse pair features
(:mod:`kgbuild.verifier.features`):

- **pair** — P(the document states some relation between the two concepts), fitted on every
  candidate pair of BioRED's training abstracts (Luo et al. 2022, Brief Bioinform 23(5));
- **type** — which of BioRED's eight types (multinomial), fitted on the related pairs only, so
  it answers "given related, how": the pair+type measure of the BioCreative VIII BioRED track
  (Islamaj et al. 2024, Database baae069);
- **cid** — P(the chemical induces the disease), for Compound–Disease pairs only, fitted on
  BC5CDR's training abstracts (Wei et al. 2016, Database baw032) and BioRED's training
  Compound–Disease pairs (a Positive_Correlation between a chemical and a disease is BioRED's
  reading of "induces"; a marker feature keeps the corpora's base rates apart).

Each head is ``sigmoid``/``softmax`` of ``w · x + b`` with ``x`` the pair's known features at
weight 1/sqrt(k) (unit length, as in training). Thresholds were chosen on the development
splits and travel inside the file (:mod:`kgbuild.verifier.weights`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from kgbuild.errors import ConfigError
from kgbuild.records import Document, Mention
from kgbuild.verifier.corpus import PAIR_KINDS
from kgbuild.verifier.features import FEATURE_SET, DocContext, doc_context, order, pair_features
from kgbuild.verifier.text import EntityView, doc_view
from kgbuild.verifier.weights import MODEL_FILE, Weights, blob_text, read_weights, sidecar

#: BioRED's relation types (Luo et al. 2022, Table 2), in the order the type head may use.
TYPES = (
    "Association", "Positive_Correlation", "Negative_Correlation", "Bind", "Cotreatment",
    "Comparison", "Drug_Interaction", "Conversion",
)  # fmt: skip
CHEMICAL_DISEASE = ("Compound", "Disease")


@dataclass(frozen=True, slots=True)
class PairScore:
    """The verifier's answer for one unordered pair of a document.

    ``a``/``b`` in role order (by kind, then the more mentioned); ``p_related`` and
    ``related`` (at the model's threshold); the most likely BioRED ``rel_type`` with its
    probability given related; ``p_cid``/``cid`` for a Compound–Disease pair, else None.
    ``mention_a``/``mention_b`` are the closest mentions (one sentence when they share one),
    the place an evidence row should cite; ``same_sentence`` says whether they share one.
    """

    a: str
    b: str
    kind_a: str
    kind_b: str
    p_related: float
    related: bool
    rel_type: str
    p_type: float
    p_cid: float | None
    cid: bool | None
    mention_a: Mention
    mention_b: Mention
    same_sentence: bool


class Verifier:
    """A loaded model file: vocabulary, heads and thresholds."""

    def __init__(self, weights: Weights) -> None:
        arr, meta = weights.arrays, weights.meta
        self.meta = meta
        self.digest = weights.digest
        self.index = {f: i for i, f in enumerate(blob_text(arr["vocab"]))}
        self.pair_w, self.pair_b = arr["pair_coef"].astype(np.float64), _scalar(arr["pair_bias"])
        self.type_w, self.type_b = arr["type_coef"].astype(np.float64), arr["type_bias"]
        self.cid_w, self.cid_b = arr["cid_coef"].astype(np.float64), _scalar(arr["cid_bias"])
        self.types: tuple[str, ...] = tuple(meta["types"])
        self.pair_threshold = float(meta["thresholds"]["pair"])
        self.cid_threshold = float(meta["thresholds"]["cid"])

    @property
    def ref(self) -> str:
        """A short name of this model for provenance (``relation_verifier@<sha256[:12]>``)."""
        return f"relation_verifier@{self.digest[:12]}"

    def columns(self, features: list[str]) -> np.ndarray:
        found = set(map(self.index.get, features))  # C-level lookups: ~10^5 pairs per build
        found.discard(None)
        return np.array(sorted(found), dtype=np.int64)

    def score(self, ctx: DocContext, a: str, b: str) -> PairScore:
        """Every head on one pair of a document."""
        ea, eb = order(ctx.view.entities[a], ctx.view.entities[b], ctx.sal)
        cols = self.columns(pair_features(ctx, ea.id, eb.id))
        scale = 1.0 / np.sqrt(len(cols)) if len(cols) else 0.0
        p = _sigmoid(self.pair_w[cols].sum() * scale + self.pair_b)
        logits = self.type_w[:, cols].sum(axis=1) * scale + self.type_b
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        k = int(probs.argmax())
        p_cid: float | None = None
        if (ea.kind, eb.kind) == CHEMICAL_DISEASE:
            p_cid = _sigmoid(self.cid_w[cols].sum() * scale + self.cid_b)
        ma, mb, same = _closest_mentions(ctx, ea, eb)
        return PairScore(
            ea.id, eb.id, ea.kind, eb.kind, p, p >= self.pair_threshold, self.types[k],
            float(probs[k]), p_cid, None if p_cid is None else p_cid >= self.cid_threshold,
            ma, mb, same,
        )  # fmt: skip

    def score_pairs(
        self,
        doc: Document,
        mentions: list[Mention],
        kinds: frozenset[tuple[str, str]] = PAIR_KINDS,
    ) -> list[PairScore]:
        """Every candidate pair of the document (kinds in ``kinds``, sorted pairs), scored."""
        view = doc_view(doc, mentions)
        ctx = doc_context(view)
        ents = sorted(view.entities.values(), key=lambda e: e.id)
        out = []
        for i, ea in enumerate(ents):
            for eb in ents[i + 1 :]:
                if tuple(sorted((ea.kind, eb.kind))) in kinds:
                    out.append(self.score(ctx, ea.id, eb.id))
        return out


def _scalar(arr: np.ndarray) -> float:
    return float(arr.reshape(-1)[0])


def _sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))


def _closest_mentions(
    ctx: DocContext, a: EntityView, b: EntityView
) -> tuple[Mention, Mention, bool]:
    """The closest mentions of two entities (one sentence preferred; two places in the text
    preferred to one composite mention naming both)."""
    sent = ctx.view.sentence
    best = min(
        ((i == j, sent[i] != sent[j], abs(i - j), i, j, x, y)
         for x, i in enumerate(a.units) for y, j in enumerate(b.units)),
    )  # fmt: skip
    return a.mentions[best[5]], b.mentions[best[6]], not best[1]


def default_path() -> Path:
    from kgbuild.schema import data_dir

    return data_dir() / MODEL_FILE


def load_verifier(path: Path | None = None) -> Verifier:
    """The model file (default ``data/relation_verifier.npz``), checked (see
    :mod:`kgbuild.verifier.weights`); cached per file state."""
    file = Path(path or default_path())
    try:
        states = tuple((s.st_size, s.st_mtime_ns) for s in (file.stat(), sidecar(file).stat()))
    except OSError:
        raise ConfigError("relation verifier file or its metadata not found", path=file) from None
    return _load(file, states)


@lru_cache(maxsize=4)
def _load(file: Path, states: tuple[tuple[int, int], ...]) -> Verifier:
    del states  # the cache key: the state of the file and its sidecar
    return Verifier(read_weights(file, FEATURE_SET))


def score_pairs(
    doc: Document, mentions: list[Mention], path: Path | None = None
) -> list[PairScore]:
    """The shipped verifier on every candidate pair of ``doc`` (see :class:`PairScore`)."""
    return load_verifier(path).score_pairs(doc, mentions)
