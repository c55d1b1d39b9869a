"""The verifier's file: numbers in an ``.npz``, described by a JSON sidecar that records its
digest. Data, never code: the arrays are read with ``allow_pickle=False``, so a model file
cannot run anything when loaded.

``relation_verifier.npz`` holds the vocabulary (feature strings, one a line, as UTF-8 bytes),
each head's coefficients and intercept, and a ``meta`` entry (JSON bytes: format, feature
set, type names, thresholds) — everything scoring needs. ``relation_verifier.json`` says
where it came from (training command, digests of the gold files, hyper-parameters, the dev
figures) and the ``sha256`` of the ``.npz``, checked on every load: a file changed by hand, cut
short or swapped refuses to load with one clear error, as does a file of another format or
feature set (the house rule of ``data/confidence_model.json``, :mod:`kgbuild.belief.confidence`).

The ``.npz`` is written byte-for-byte reproducibly: members in sorted order, stored (not
deflated: zlib's output may differ between builds of zlib), with a fixed 1980-01-01 timestamp,
so the same training inputs give the same file and the same digest.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgbuild.errors import ConfigError

#: Version of the file layout below; a file of another version is refused.
MODEL_FORMAT = "kgbuild-relation-verifier/1"
#: The shipped model, under ``data/`` (the sidecar is the same name with ``.json``).
MODEL_FILE = "relation_verifier.npz"
_EPOCH = (1980, 1, 1, 0, 0, 0)


@dataclass(slots=True)
class Weights:
    """What a model file holds: arrays by name and the ``meta`` dictionary."""

    arrays: dict[str, np.ndarray]
    meta: dict[str, Any]
    #: sha256 of the file the weights were read from ('' for weights not read from a file).
    digest: str = ""


def sidecar(path: Path) -> Path:
    return path.with_suffix(".json")


def text_blob(lines: list[str]) -> np.ndarray:
    """Strings (no newlines) as one UTF-8 byte array."""
    return np.frombuffer("\n".join(lines).encode("utf-8"), dtype=np.uint8)


def blob_text(blob: np.ndarray) -> list[str]:
    data = blob.tobytes().decode("utf-8")
    return data.split("\n") if data else []


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def write_weights(path: Path, weights: Weights, info: dict[str, Any]) -> str:
    """Write the ``.npz`` and its JSON sidecar (``info`` plus the digest); the sha256."""
    meta = {**weights.meta, "format": MODEL_FORMAT}
    members = {**weights.arrays, "meta": text_blob([json.dumps(meta, sort_keys=True)])}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for name in sorted(members):
            entry = zipfile.ZipInfo(f"{name}.npy", date_time=_EPOCH)
            entry.external_attr = 0o644 << 16
            zf.writestr(entry, _npy(members[name]))
    data = buf.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    card = {**info, "format": MODEL_FORMAT, "file": path.name, "sha256": digest,
            "bytes": len(data), "feature_set": meta.get("feature_set")}  # fmt: skip
    sidecar(path).write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return digest


def read_card(path: Path) -> dict[str, Any]:
    """The JSON sidecar of a model file, checked for format (ConfigError otherwise)."""
    card_path = sidecar(path)
    try:
        card = json.loads(card_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError("relation verifier has no metadata file", path=card_path) from None
    except (OSError, ValueError) as exc:
        raise ConfigError("relation verifier metadata unreadable", path=card_path,
                          error=str(exc)[:80]) from None  # fmt: skip
    if not isinstance(card, dict) or card.get("format") != MODEL_FORMAT:
        got = card.get("format") if isinstance(card, dict) else type(card).__name__
        raise ConfigError(
            "relation verifier of another format: retrain it with `python -m "
            "kgbuild.verifier.train`",
            path=card_path, format=got, expected=MODEL_FORMAT,
        )  # fmt: skip
    return card


def read_weights(path: Path, feature_set: str) -> Weights:
    """The arrays and meta of a model file, after checking its digest, format and feature set;
    every failure is one ConfigError naming the file."""
    card = read_card(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError("relation verifier file unreadable", path=path,
                          error=exc.strerror) from None  # fmt: skip
    digest = hashlib.sha256(data).hexdigest()
    if digest != card.get("sha256"):
        raise ConfigError(
            "relation verifier file does not match the digest its metadata records "
            "(changed or truncated)",
            path=path, sha256=digest[:12], recorded=str(card.get("sha256"))[:12],
        )  # fmt: skip
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
        meta = json.loads(blob_text(arrays.pop("meta"))[0])
    except (zipfile.BadZipFile, ValueError, KeyError, IndexError, OSError) as exc:
        raise ConfigError("relation verifier file is corrupt", path=path,
                          error=str(exc)[:80]) from None  # fmt: skip
    if meta.get("format") != MODEL_FORMAT or meta.get("feature_set") != feature_set:
        raise ConfigError(
            "relation verifier of another format or feature set: retrain it",
            path=path, format=meta.get("format"), feature_set=meta.get("feature_set"),
            expected=f"{MODEL_FORMAT}, {feature_set}",
        )  # fmt: skip
    return Weights(arrays, meta, digest)
