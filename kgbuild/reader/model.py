"""The sentence reader as shipped data: logistic heads over sparse features, and scoring.

Heads (Cox 1958 logistic regression, one weight matrix each, over :mod:`.features`):

- ``fact`` — P(the sentence states some relation between the two mentions as a finding);
  P(fact) — stated, asserted, and both mentions the concepts their IDs say — is its product
  with the two grounding probabilities;
- ``relation`` — which relation and direction, given a fact (multinomial);
- ``status`` — asserted / negated / hedged / background / none (multinomial);
- ``ground`` — P(a mention is the concept its ID says), one head for A and B.

What is served is decided from them (:func:`decide`): nothing below the serving threshold on
P(fact); above it the most likely typed relation when it is more likely than not given a fact,
else ``associates`` (implied by any stated relation); ``confidence`` is the reading's raw score
through a calibration map fitted on cross-validated training scores (isotonic, Zadrozny &
Elkan 2002).

The file pair is ``<name>.npz`` (weights, vocabulary) + ``<name>.json`` (version, classes,
thresholds, calibration, the npz's SHA-256): a changed or foreign file is refused
(:class:`ReaderModelError`), and the build then serves no typed fact (co-mentions only).
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy import sparse

from kgbuild.errors import KgbuildError
from kgbuild.reader.features import Pair, mention_features, pair_features

FORMAT = "kgbuild-sentence-reader/1"
HEADS = ("fact", "relation", "status", "ground")
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "sentence_reader.json"


class ReaderModelError(KgbuildError):
    """The reader's model file is missing, damaged or from another version."""


@dataclass(slots=True)
class Head:
    classes: list[str]
    coef: np.ndarray  # (n_classes or 1, n_features)
    intercept: np.ndarray

    def proba(self, x: sparse.csr_matrix) -> np.ndarray:
        z = x @ self.coef.T + self.intercept
        if len(self.classes) == 2 and self.coef.shape[0] == 1:
            p1 = 1.0 / (1.0 + np.exp(-z[:, 0]))
            return np.column_stack([1.0 - p1, p1])
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


@dataclass(slots=True)
class Reading:
    """What the reader makes of one pair."""

    p_fact: float
    relation: str  # served relation ("" when not served)
    direction: str  # A>B | B>A | undirected | ""
    score: float  # P(fact) × P(relation): the raw score the threshold is applied to
    confidence: float  # calibrated P(the served reading is supported)
    status: str  # most likely status
    p_ground_a: float
    p_ground_b: float
    relations: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class Reader:
    vocab: dict[str, int]
    heads: dict[str, Head]
    threshold: float
    calibration: tuple[list[float], list[float]]
    meta: dict

    def design(self, feats: list[list[str]]) -> sparse.csr_matrix:
        rows: list[int] = []
        cols: list[int] = []
        get = self.vocab.get
        for i, fs in enumerate(feats):
            js = set(map(get, fs))  # one C-level lookup per feature (a build reads ~10^5 pairs)
            js.discard(None)
            rows += [i] * len(js)
            cols += js
        data = np.ones(len(rows))
        x = sparse.csr_matrix((data, (rows, cols)), shape=(len(feats), len(self.vocab)))
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sparse.diags(1.0 / norms) @ x

    def calibrate(self, score: np.ndarray) -> np.ndarray:
        xs, ys = self.calibration
        return np.interp(score, xs, ys)

    def read(self, pairs: list[Pair]) -> list[Reading]:
        if not pairs:
            return []
        x = self.design([pair_features(p) for p in pairs])
        p_claim = self.heads["fact"].proba(x)[:, 1]
        rel = self.heads["relation"]
        p_rel = rel.proba(x)
        status = self.heads["status"]
        p_status = status.proba(x)
        g = self.heads["ground"]
        ga = g.proba(self.design([mention_features(p, "A") for p in pairs]))[:, 1]
        gb = g.proba(self.design([mention_features(p, "B") for p in pairs]))[:, 1]
        p_fact = p_claim * ga * gb
        relations = [{c: float(p_rel[i, k]) for k, c in enumerate(rel.classes)}
                     for i in range(len(pairs))]  # fmt: skip
        decided = [
            decide(float(p), r, self.threshold) for p, r in zip(p_fact, relations, strict=True)
        ]
        confidence = self.calibrate(np.array([score for *_, score in decided]))
        out = []
        for i, (relation, direction, score) in enumerate(decided):
            out.append(
                Reading(
                    p_fact=float(p_fact[i]),
                    relation=relation,
                    direction=direction,
                    score=score,
                    confidence=float(confidence[i]),
                    status=status.classes[int(p_status[i].argmax())],
                    p_ground_a=float(ga[i]),
                    p_ground_b=float(gb[i]),
                    relations=relations[i],
                )
            )
        return out


#: A typed relation is served when, given a fact, it is more likely than all the others
#: together (a fixed rule, not tuned): otherwise the fact is served as ``associates``.
TYPED_MIN = 0.5


def decide(p_fact: float, relations: dict[str, float], threshold: float) -> tuple[str, str, float]:
    """The served (relation, direction, raw score) of a reading: nothing ("", "", P(fact))
    below the serving threshold; above it the most likely typed relation when its
    probability given a fact is at least :data:`TYPED_MIN` (score P(fact) × P(relation)),
    else ``associates``, which any stated relation implies (score P(fact))."""
    if p_fact < threshold:
        return "", "", p_fact
    typed = {c: p for c, p in relations.items() if not c.startswith("associates")}
    if typed:
        best = max(sorted(typed), key=typed.__getitem__)
        if typed[best] >= TYPED_MIN:
            rel, _, direction = best.partition(":")
            return rel, direction or "undirected", p_fact * typed[best]
    return "associates", "undirected", p_fact


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(reader: Reader, json_path: Path) -> None:
    """Write ``<name>.npz`` and ``<name>.json`` (the JSON names the npz and its digest)."""
    npz_path = json_path.with_suffix(".npz")
    arrays: dict[str, np.ndarray] = {
        "vocab": np.array(sorted(reader.vocab, key=reader.vocab.__getitem__), dtype=object)
    }
    for name, h in reader.heads.items():
        arrays[f"{name}_coef"] = h.coef.astype(np.float32)
        arrays[f"{name}_intercept"] = h.intercept.astype(np.float64)
    buf = io.BytesIO()
    vocab = arrays.pop("vocab")
    np.savez_compressed(buf, vocab=np.array("\n".join(vocab)), **arrays)
    npz_path.write_bytes(buf.getvalue())
    meta = {
        **reader.meta,
        "format": FORMAT,
        "weights": npz_path.name,
        "weights_sha256": digest(npz_path),
        "threshold": reader.threshold,
        "calibration": {"score": reader.calibration[0], "confidence": reader.calibration[1]},
        "classes": {n: h.classes for n, h in reader.heads.items()},
    }
    json_path.write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load(json_path: Path = DEFAULT_PATH) -> Reader:
    """The reader of ``json_path``; :class:`ReaderModelError` (one line) when either file is
    missing, unreadable, of another format, or the weights do not match their digest."""
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReaderModelError(f"sentence reader model unreadable: {json_path}: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise ReaderModelError(f"sentence reader model {json_path} is {got!r}, not {FORMAT}")
    npz_path = json_path.parent / Path(str(meta.get("weights", ""))).name
    if not npz_path.is_file() or digest(npz_path) != meta.get("weights_sha256"):
        raise ReaderModelError(
            f"sentence reader weights {npz_path} missing or not the ones "
            f"{json_path.name} names (digest differs)"
        )
    try:
        with np.load(npz_path, allow_pickle=False) as z:
            vocab = str(z["vocab"]).split("\n")
            heads = {
                n: Head(
                    list(meta["classes"][n]), z[f"{n}_coef"].astype(np.float64), z[f"{n}_intercept"]
                )
                for n in HEADS
            }
        cal = meta["calibration"]
        return Reader(
            {f: i for i, f in enumerate(vocab)},
            heads,
            float(meta["threshold"]),
            (list(cal["score"]), list(cal["confidence"])),
            meta,
        )
    except (KeyError, ValueError, TypeError, OSError) as exc:
        raise ReaderModelError(f"sentence reader model {json_path} is damaged: {exc}") from None


@lru_cache(maxsize=4)
def cached(json_path: Path, ref: str) -> Reader:
    """:func:`load`, once per model file and content (``ref``: its digest)."""
    del ref  # the cache key: the file's content
    return load(json_path)
