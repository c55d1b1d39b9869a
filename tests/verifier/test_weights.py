"""Loading refuses every model file it cannot trust, with one clear error; the shipped one loads."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import numpy as np
import pytest

from kgbuild.errors import ConfigError
from kgbuild.schema import data_dir
from kgbuild.verifier.model import load_verifier
from kgbuild.verifier.train import train_verifier
from kgbuild.verifier.weights import MODEL_FILE, MODEL_FORMAT
from tests.verifier.gold_fixture import gold_files


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verifier")
    train_verifier(**gold_files(folder / "gold"), out=folder / "v.npz", command="train")
    return folder / "v.npz"


def copy(src, folder):
    folder.mkdir()
    for suffix in (".npz", ".json"):
        (folder / f"v{suffix}").write_bytes(src.with_suffix(suffix).read_bytes())
    return folder / "v.npz"


def reseal(path):
    """Record the file's current digest in its sidecar (what a forger would do)."""
    card = json.loads(path.with_suffix(".json").read_text())
    card["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
    path.with_suffix(".json").write_text(json.dumps(card))


def test_a_changed_byte_fails_the_digest(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="does not match the digest"):
        load_verifier(path)


def test_a_corrupt_file_is_refused_even_with_a_matching_digest(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    path.write_bytes(path.read_bytes()[:1000])  # cut short
    reseal(path)
    with pytest.raises(ConfigError, match="corrupt"):
        load_verifier(path)


def test_a_file_that_needs_pickle_is_refused(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    buf = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(buf, "w") as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
        obj = io.BytesIO()
        np.lib.format.write_array(obj, np.array([{"a": 1}], dtype=object), allow_pickle=True)
        dst.writestr("payload.npy", obj.getvalue())
    path.write_bytes(buf.getvalue())
    reseal(path)
    with pytest.raises(ConfigError, match="corrupt"):
        load_verifier(path)


def test_another_format_version_is_refused(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    card = json.loads(path.with_suffix(".json").read_text())
    card["format"] = "kgbuild-relation-verifier/0"
    path.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ConfigError, match="another format") as err:
        load_verifier(path)
    assert "\n" not in str(err.value) and MODEL_FORMAT in str(err.value)


def test_an_npz_of_another_feature_set_is_refused(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    buf = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(buf, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name == "meta.npy":
                meta = json.loads(np.load(io.BytesIO(data)).tobytes())
                meta["feature_set"] = "kgbuild-verifier-features/0"
                out = io.BytesIO()
                np.save(out, np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
                data = out.getvalue()
            dst.writestr(name, data)
    path.write_bytes(buf.getvalue())
    reseal(path)
    with pytest.raises(ConfigError, match="another format or feature set"):
        load_verifier(path)


def test_a_missing_sidecar_is_refused(trained, tmp_path):
    path = copy(trained, tmp_path / "m")
    path.with_suffix(".json").unlink()
    with pytest.raises(ConfigError, match="not found"):
        load_verifier(path)


def test_the_shipped_model_loads_within_its_size_budget():
    path = data_dir() / MODEL_FILE
    assert path.stat().st_size <= 20 * 1024 * 1024
    card = json.loads(path.with_suffix(".json").read_text())
    verifier = load_verifier()
    assert verifier.digest == card["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert 0 < verifier.pair_threshold < 1 and 0 < verifier.cid_threshold < 1
    assert set(verifier.types) <= set(card["types"]) and "Association" in verifier.types
