"""What a build reads from ``--source``: nothing outside it, no FIFO or
device, no file held whole, never its own warehouse. Real builds through the CLI, in a
separate process (a FIFO that got opened would hang it; the timeout says so)."""

import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kgbuild.sources.bioc import read_bioc
from kgbuild.store.snapshots import Warehouse

ROOT = Path(__file__).resolve().parents[2]
#: The stated BioC-JSON size limit (``kgbuild.sources.bioc.MAX_JSON_BYTES``).
JSON_LIMIT = 64 << 20


def doc(pmid: str) -> str:
    return f"{pmid}|t|APOE and tau.\n{pmid}|a|APOE binds tau.\n{pmid}\t0\t4\tAPOE\tGene\t348\n\n"


def kgbuild(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGBUILD_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "kgbuild.cli", *args],
        capture_output=True, text=True, timeout=180, cwd=cwd, env=env,
    )  # fmt: skip


BUILD = ("build", "--kg", "t", "--extractor", "cooccurrence", "--embed-model", "none")


def test_links_fifos_and_sockets_are_skipped_with_a_problem_row(tmp_path):
    outside = tmp_path / "outside"
    (outside / "more").mkdir(parents=True)
    (outside / "secret.pubtator").write_text(doc("666"))
    (outside / "more" / "2015_more.pubtator").write_text(doc("667"))
    src = tmp_path / "src"
    (src / "raw").mkdir(parents=True)
    (src / "2015.pubtator").write_text(doc("1001"))
    (src / "raw" / "extra.dat").write_text(doc("1002"))
    refused = {  # name → the problem row it must get (names without a year: the first year's)
        "2015_secret.pubtator": "outside_source",
        "passwd.pubtator": "outside_source",
        "2015_zero.pubtator": "outside_source",
        "linked": "outside_source",
        "2015_broken.pubtator": "broken_link",
        "dead": "broken_link",  # a dead link of any name is said
        "pipe.pubtator": "not_regular",
        "2015_socket.pubtator": "not_regular",
    }
    (src / "2015_secret.pubtator").symlink_to(outside / "secret.pubtator")
    (src / "passwd.pubtator").symlink_to("/etc/passwd")
    (src / "2015_zero.pubtator").symlink_to("/dev/zero")
    (src / "linked").symlink_to(outside / "more", target_is_directory=True)
    (src / "2015_broken.pubtator").symlink_to(src / "missing.dat")
    (src / "dead").symlink_to(src / "missing.dat")
    (src / "2015_extra.pubtator").symlink_to(Path("raw") / "extra.dat")  # inside: read once
    (src / "2015_again.pubtator").symlink_to("2015.pubtator")  # read where it is, not twice
    os.mkfifo(src / "pipe.pubtator")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(src / "2015_socket.pubtator"))
    try:
        os.mknod(src / "2015_device.pubtator", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        refused["2015_device.pubtator"] = "not_regular"
    except OSError:  # not root: FIFO and socket cover non-regular files
        pass
    try:
        wh = tmp_path / "wh"
        first = kgbuild(*BUILD, "--source", str(src), "-w", str(wh), cwd=tmp_path)
        second = kgbuild(*BUILD, "--source", str(src), "-w", str(wh), cwd=tmp_path)
    finally:
        sock.close()
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr[-2000:]
    w = Warehouse(wh)
    assert w.query("SELECT pmid FROM documents ORDER BY 1") == [("1001",), ("1002",)]
    # nothing refused was opened, so nothing changed: the re-run reuses the year
    assert second.returncode == 0 and "reused" in second.stderr, second.stderr[-2000:]
    for name, kind in refused.items():
        ((status, reason),) = w.query(
            "SELECT status, reason FROM doc_status WHERE source_file = ?", [name]
        )
        assert status == "rejected" and reason.startswith("file not read"), (name, reason)
        assert w.query("SELECT kind FROM problems WHERE source_file = ?", [name]) == [(kind,)]
    built = w.query("SELECT source_file, status FROM doc_status WHERE pmid LIKE '100%'")
    assert sorted(built) == [("2015.pubtator", "built"), ("2015_extra.pubtator", "built")]
    # read through its link, raw/extra.dat is no file of unknown format
    assert w.query("SELECT count(*) FROM doc_status WHERE source_file LIKE 'raw%'") == [(0,)]
    details = " ".join(d for (d,) in w.query("SELECT detail FROM problems"))
    assert "root:" not in details and "Secret" not in details and str(outside) not in details
    assert len(w.snapshots("t")) == 1


def test_newline_free_cr_only_and_utf16_files_are_read_in_bounded_memory(tmp_path):
    """100 MB without a line end (LF, then CR-only, then UTF-16): peak memory grows by a
    bounded line, not the file; the long line's record is rejected and the others built."""
    size = 100 << 20
    for name, sep, encoding in (
        ("2015_lf.pubtator", "\n", "ascii"),
        ("2015_cr.pubtator", "\r", "ascii"),
        ("2015_utf16.pubtator", "\n", "utf-16"),
    ):
        with open(tmp_path / name, "wb") as fh:
            head = f"1|t|APOE.{sep}1|a|APOE binds tau.{sep}{sep}2|t|"
            fh.write(head.encode(encoding))
            block = ("A" * (1 << 20)).encode("utf-16-le" if encoding == "utf-16" else encoding)
            for _ in range(size // len(block)):
                fh.write(block)
    script = """
import json, resource, sys
from pathlib import Path
from kgbuild.sources.local import SourceFile, read_file
root = Path(sys.argv[1])
out = {}
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for name in ("2015_lf.pubtator", "2015_cr.pubtator", "2015_utf16.pubtator"):
    recs = read_file(SourceFile(root / name, "pubtator", 2015), root)
    out[name] = [(r.pmid, r.reject_reason, [p.kind for p in r.problems]) for r in recs]
out["grew_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps(out))
"""
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out.pop("grew_mb") < 64, out  # an 8 MiB line cap, 1 MiB blocks: not 100 MB
    for name, recs in out.items():
        (p1, reason1, _), (p2, reason2, kinds2) = recs
        assert (p1, reason1) == ("1", None), name
        assert p2 == "2" and "over the 8,388,608-byte line limit" in reason2, (name, reason2)
        assert "overlong_line" in kinds2


def test_a_bioc_json_file_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "2015.json"
    body = json.dumps([{"pmid": "1", "passages": [{"infons": {"type": "title"}, "text": "T."}]}])
    with open(path, "w") as fh:
        fh.write(body)
        fh.write(" " * (JSON_LIMIT + 1 - len(body)))  # valid JSON, one byte too large
    (rec,) = read_bioc(path, year=2015)
    assert rec.pmid == "" and "over the 67,108,864-byte limit" in rec.reject_reason
    assert [p.kind for p in rec.problems] == ["file_too_large"]


@pytest.mark.slow  # three CLI builds
def test_a_warehouse_inside_the_source_is_never_read(tmp_path):
    """``--source .`` with the default ``./warehouse``: a re-run of unchanged input reuses
    every year and publishes nothing; another warehouse in the folder is not input either."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "2015.pubtator").write_text(doc("1001"))
    (src / "2016.pubtator").write_text(doc("1002") + doc("1003"))
    other = kgbuild(*BUILD, "--source", "2015.pubtator", "-w", "old", cwd=src)
    assert other.returncode == 0, other.stderr[-2000:]
    runs = [kgbuild(*BUILD, "--source", ".", cwd=src) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert runs[1].stderr.count("reused") == 2 and "published" not in runs[1].stderr
    w = Warehouse(src / "warehouse")
    assert len(w.snapshots("t")) == 2
    assert w.query("SELECT DISTINCT source_file FROM doc_status ORDER BY 1") == [
        ("2015.pubtator",), ("2016.pubtator",)
    ]  # fmt: skip
    same = kgbuild(*BUILD, "--source", ".", "-w", ".", cwd=src)
    assert same.returncode == 2 and "warehouse is the source folder" in same.stderr
    assert "Traceback" not in same.stderr


def test_a_file_gone_between_listing_and_reading_is_said(tmp_path, monkeypatch):
    """A corpus file removed while the folder is walked ends as an ``unreadable`` refusal,
    never a silent skip."""
    import kgbuild.sources.files as files

    (tmp_path / "2015.pubtator").write_text("1|t|T\n1|a|A\n\n", encoding="utf-8")
    (tmp_path / "2016.pubtator").write_text("2|t|T\n2|a|A\n\n", encoding="utf-8")
    real_lstat = os.lstat

    def vanishing(path, *args, **kwargs):
        if str(path).endswith("2016.pubtator"):
            raise FileNotFoundError(2, "No such file or directory", str(path))
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "lstat", vanishing)
    found = dict(files.walk(tmp_path, lambda name: name.endswith(".pubtator")))
    assert found[tmp_path / "2015.pubtator"] is None
    kind, why = found[tmp_path / "2016.pubtator"]
    assert kind == "unreadable" and "No such file" in why
