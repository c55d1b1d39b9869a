"""An export is published whole. A real ``kgbuild export`` process is killed
(SIGKILL) at many points while it overwrites an older export of the same folder; every format
folder must then be byte for byte the old export or the new one, never a mix, and the next
export must leave no temporary file behind."""

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from kgbuild.errors import ExportError
from kgbuild.export import export_snapshot
from kgbuild.export.publish import STAGE_PREFIX
from kgbuild.store.snapshots import Warehouse
from tests.conftest import ROOT
from tests.support.synthetic_kg import publish_synthetic

KILL_AT = ROOT / "tests" / "support" / "kill_at.py"
FORMATS = ["parquet", "tsv", "kgx", "neo4j"]  # byte-identical across runs (LadybugDB is not)


@pytest.fixture(scope="module")
def two_years(tmp_path_factory):
    """A synthetic KG with two yearly snapshots, and a reference export of each."""
    base = tmp_path_factory.mktemp("pub")
    wh = Warehouse(base / "wh")
    old, new = publish_synthetic(wh.root, 1500, 600, years=(2019, 2020), tricky=True)
    export_snapshot(wh, old, base / "ref-old", FORMATS)
    export_snapshot(wh, new, base / "ref-new", FORMATS)
    return wh, old, new, base / "ref-old", base / "ref-new"


def tree(folder):
    """{relative path: sha256} of every file below ``folder`` (hidden ones too)."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _stage_signature(folder):
    """{path: (inode, mtime, size)} of the files in ``folder``'s staging folders (not DuckDB's
    spill folder, whose files come and go with memory pressure, not with the export's steps)."""
    out = {}
    for stage in folder.glob(f"{STAGE_PREFIX}*"):
        if stage.name.startswith(f"{STAGE_PREFIX}spill-"):
            continue
        for d, _, files in os.walk(stage):
            for f in files:
                try:
                    st = os.stat(os.path.join(d, f))
                except FileNotFoundError:
                    continue
                out[os.path.join(d, f)] = (st.st_ino, st.st_mtime_ns, st.st_size)
    return out


def _export_killed(wh, sid, target, *, staged_files=0, after=None):
    """Run ``kgbuild export`` into ``target`` and SIGKILL it: once ``staged_files`` files have
    been written to its staging folders (a poller from outside: somewhere in the writing), or
    right after the n-th return of ``after`` = (function, n) inside it
    (tests/support/kill_at.py: an exact step, e.g. the second folder swapped in). True when it
    was killed before finishing."""
    temp = target.parent / f"{target.name}-system-temp"  # the process's TMPDIR: stays empty
    temp.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KGBUILD_WAREHOUSE": str(wh.root),
           "TMPDIR": str(temp)}  # fmt: skip
    runner = ["-m", "kgbuild.cli"] if after is None else [str(KILL_AT), after[0], str(after[1])]
    proc = subprocess.Popen(
        [sys.executable, *runner, "export", sid, "--out", str(target), "-f", ",".join(FORMATS)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        while staged_files and proc.poll() is None:
            if len(_stage_signature(target)) >= staged_files:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.0005)
        proc.wait()
        if proc.returncode == -signal.SIGKILL:
            return True
        assert proc.returncode == 0, proc.stderr.read().decode()
        return False
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


#: Where each export is killed, and what each format folder (in FORMATS' order) must then be:
#: O the old export's, N the new one's. Polled kills land while files are staged; the exact
#: ones after the second folder is sealed and after each of the first three swaps.
KILLS = [
    ({"staged_files": 1}, "OOOO"),
    ({"staged_files": 6}, "OOOO"),
    ({"after": ("kgbuild.export.publish.seal", 2)}, "OOOO"),
    ({"after": ("kgbuild.export.publish.swap_in", 1)}, "NOOO"),
    ({"after": ("kgbuild.export.publish.swap_in", 2)}, "NNOO"),
    ({"after": ("kgbuild.export.publish.swap_in", 3)}, "NNNO"),
]


@pytest.mark.slow  # six export processes
def test_a_killed_export_leaves_the_old_export_or_the_new_one(two_years, tmp_path):
    wh, _, new_sid, ref_old, ref_new = two_years
    old = {fmt: tree(ref_old / fmt) for fmt in FORMATS}
    new = {fmt: tree(ref_new / fmt) for fmt in FORMATS}
    assert all(old[f] and new[f] and old[f] != new[f] for f in FORMATS)
    for i, (kill, expected) in enumerate(KILLS):
        target = tmp_path / f"out-{i}"
        shutil.copytree(ref_old, target)  # an older export, about to be overwritten
        assert _export_killed(wh, new_sid, target, **kill), f"{kill}: finished before the kill"
        got = "".join("N" if tree(target / f) == new[f] else "O" for f in FORMATS)
        assert got == expected, kill
        for fmt in FORMATS:
            assert tree(target / fmt) in (old[fmt], new[fmt]), f"{fmt} is a mix after {kill}"
        assert not list((tmp_path / f"out-{i}-system-temp").iterdir())  # all in target
        # the next export finishes the job and removes what the killed one left
        export_snapshot(wh, new_sid, target, FORMATS)
        assert {fmt: tree(target / fmt) for fmt in FORMATS} == new
        leftovers = (".tmp-", ".old-", ".kgbuild-write-test-")
        assert not [p for p in target.rglob("*") if p.name.startswith(leftovers)]


def test_each_format_folder_carries_a_manifest_that_reveals_damage(two_years, tmp_path):
    from kgbuild.export.publish import MANIFEST, verify

    wh, _, new_sid, _, ref_new = two_years
    out = tmp_path / "out"
    export_snapshot(wh, new_sid, out, ["kgx", "neo4j"])
    assert verify(out) == []
    assert (out / "kgx" / MANIFEST).is_file() and verify(out / "kgx") == []
    assert (out / "kgx" / MANIFEST).read_bytes() == (ref_new / "kgx" / MANIFEST).read_bytes()
    (out / "kgx" / "edges.tsv").write_text("subject\tpredicate\tobject\n")
    (out / "neo4j" / "nodes.csv").unlink()
    (out / ".tmp-export-kgx-dead").mkdir()
    problems = verify(out)
    assert any("edges.tsv: differs from the manifest" in p for p in problems)
    assert any("nodes.csv: missing" in p for p in problems)
    assert any("left by an interrupted export" in p for p in problems)
    cli = subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", "export", "--verify", str(out)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    lines = [ln for ln in cli.stderr.splitlines() if ln.strip()]
    assert cli.returncode == 2 and len(lines) == 1 and "export not whole" in lines[0]
    export_snapshot(wh, new_sid, out, ["kgx", "neo4j"])  # a fresh export repairs it all
    assert verify(out) == []


def test_a_folder_of_the_users_own_is_never_replaced(two_years, tmp_path):
    wh, _, new_sid, _, _ = two_years
    out = tmp_path / "out"
    (out / "parquet").mkdir(parents=True)
    (out / "parquet" / "my-notes.txt").write_text("mine")
    with pytest.raises(ExportError, match="files kgbuild did not write"):
        export_snapshot(wh, new_sid, out, ["parquet"])
    assert (out / "parquet" / "my-notes.txt").read_text() == "mine"
    assert sorted(p.name for p in out.iterdir()) == ["parquet"]  # nothing staged, nothing left


def test_one_export_at_a_time_per_folder(two_years, tmp_path):
    from kgbuild.export.publish import folder_lock

    wh, _, new_sid, _, _ = two_years
    out = tmp_path / "out"
    out.mkdir()
    with folder_lock(out), pytest.raises(ExportError, match="another kgbuild export"):
        export_snapshot(wh, new_sid, out, ["tsv"])
    export_snapshot(wh, new_sid, out, ["tsv"])  # the lock went with its holder
    assert (out / "tsv" / "triples.tsv").is_file()


def test_without_an_atomic_exchange_the_old_folder_is_moved_aside_then_removed(
    two_years, tmp_path, monkeypatch
):
    from kgbuild.export import publish

    wh, old_sid, new_sid, _, ref_new = two_years
    out = tmp_path / "out"
    export_snapshot(wh, old_sid, out, ["neo4j"])
    monkeypatch.setattr(publish, "_exchange", lambda a, b: False)  # another OS / file system
    export_snapshot(wh, new_sid, out, ["neo4j"])
    assert tree(out / "neo4j") == tree(ref_new / "neo4j")
    assert sorted(p.name for p in out.iterdir()) == ["neo4j"]
