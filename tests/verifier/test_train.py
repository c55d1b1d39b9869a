"""Training: deterministic bytes, the recorded provenance, clear errors on unusable gold."""

from __future__ import annotations

import hashlib
import json

import pytest

from kgbuild.errors import InputError
from kgbuild.verifier.model import load_verifier
from kgbuild.verifier.train import main, train_verifier
from tests.verifier.gold_fixture import BIORED_DOCS, gold_files, write


def test_the_same_inputs_train_the_same_bytes(tmp_path):
    files = gold_files(tmp_path / "gold")
    one = train_verifier(**files, out=tmp_path / "a" / "v.npz", command="train")
    two = train_verifier(**files, out=tmp_path / "b" / "v.npz", command="train")
    a, b = (tmp_path / x / "v.npz" for x in "ab")
    assert a.read_bytes() == b.read_bytes()
    assert one["sha256"] == two["sha256"] == hashlib.sha256(a.read_bytes()).hexdigest()
    assert (tmp_path / "a" / "v.json").read_bytes() == (tmp_path / "b" / "v.json").read_bytes()


def test_the_sidecar_records_how_the_model_was_made(tmp_path):
    files = gold_files(tmp_path / "gold")
    out = tmp_path / "v.npz"
    report = train_verifier(**files, out=out, command="python -m kgbuild.verifier.train …")
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["sha256"] == report["sha256"]
    assert card["training_command"] == "python -m kgbuild.verifier.train …"
    digest = hashlib.sha256(files["biored_train"].read_bytes()).hexdigest()
    assert card["inputs"]["biored_train"] == {
        "file": "biored.PubTator", "sha256": digest, "documents": 5, "relation_pairs": 9,
    }  # fmt: skip
    assert set(card["thresholds"]) == {"pair", "cid"}
    assert card["dev"]["biored"]["all"]["pair"]["gold"] == 9
    verifier = load_verifier(out)  # what was written loads, with the tuned thresholds
    assert verifier.pair_threshold == card["thresholds"]["pair"]
    assert verifier.ref == f"relation_verifier@{report['sha256'][:12]}"


def test_a_gold_file_without_relations_is_one_clear_error(tmp_path):
    files = gold_files(tmp_path / "gold")
    bare = [(p, t, a, e, []) for p, t, a, e, _ in BIORED_DOCS]
    files["biored_train"] = write(tmp_path / "bare.PubTator", bare)
    with pytest.raises(InputError, match="no relation lines"):
        train_verifier(**files, out=tmp_path / "v.npz")
    assert not (tmp_path / "v.npz").exists()


def test_the_command_line_prints_one_line_on_bad_input(tmp_path, capsys):
    files = gold_files(tmp_path / "gold")
    args = [f"--{k.replace('_', '-')}={v}" for k, v in files.items()]
    args[0] = f"--biored-train={tmp_path / 'missing.PubTator'}"
    assert main([*args, f"--out={tmp_path / 'v.npz'}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no such gold file") and "\n" not in err
