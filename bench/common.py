"""What the bench scripts share: where the data lies, how a kgbuild process is started (its
command, environment, a served ``kgbuild serve``), what a run is timed and described by.

A script runs as ``python bench/x.py`` (its own folder first on ``sys.path``) and is imported
as ``bench.x`` (by another bench or a test), so each puts the checkout first on ``sys.path`` and
imports this module as ``from bench import common``: the checkout's ``kgbuild`` is the one
measured, whichever way it was started.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: The shared data beside the checkout (``../shared``), or beside every worktree (/work/shared).
SHARED = ROOT.parent / "shared" / "data"
if not SHARED.exists():
    SHARED = Path("/work/shared/data")
BIORED = SHARED / "biored"
BIORED_DEV = BIORED / "Dev.PubTator"
CDR_DEV = SHARED / "bc5cdr" / "CDR_DevelopmentSet.PubTator.txt"
DALK = SHARED / "dalk"
DALK_YEARS = DALK / "by_year"
#: ADQA's MedQA and MedMCQA subsets with choices (train/dev-like questions).
ADQA = [DALK / "adqa" / "medqa_filter.json", DALK / "adqa" / "medmcqa_filter.json"]
#: The small test corpus the drills build their warehouse from.
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
CLI = [sys.executable, "-m", "kgbuild.cli"]
#: The installed ``kgbuild`` script beside this interpreter: what a user runs.
KGBUILD = Path(sys.executable).with_name("kgbuild")
#: Variables that point a process at an LLM endpoint or another warehouse.
NO_LLM = ("OPENAI_", "KGBUILD_")
#: The words a gold file's name gives its split by (``CDR_DevelopmentSet``, ``Test.BioC``).
SPLITS = {"dev": "dev", "development": "dev", "test": "test", "testing": "test",
          "train": "train", "training": "train"}  # fmt: skip


def split_name(path: str | Path) -> str:
    """The split a gold file holds, to name its figures by: ``dev``, ``test`` or ``train`` when
    a word of its name says so (BioRED ``Dev.BioC.JSON`` → ``dev``, BC5CDR
    ``CDR_TestSet.PubTator.txt`` → ``test``), else its stem in lowercase words joined by ``_``
    — so a run on the held-out split never prints figures named ``*_dev_*``."""
    stem = Path(path).name.split(".")[0]
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", stem).lower()
    words = [w for w in re.split(r"[^a-z0-9]+", words) if w]
    return next((SPLITS[w] for w in words if w in SPLITS), "_".join(words) or "gold")


def cli_env(drop: tuple[str, ...] = (), **extra: str) -> dict[str, str]:
    """This process's environment without the variables whose names start with ``drop``, with
    the checkout on ``PYTHONPATH`` and ``extra`` set: a child kgbuild runs this checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return {**env, "PYTHONPATH": str(ROOT), **extra}


def go_offline() -> None:
    """No LLM endpoint and no model download for this process and its children."""
    for k in [k for k in os.environ if k.startswith(NO_LLM)]:
        del os.environ[k]
    os.environ["HF_HUB_OFFLINE"] = "1"


def small_warehouse(workdir: Path) -> Path:
    """A fresh warehouse ``workdir/wh`` built from the test corpus by the offline
    co-occurrence extractor (two or more yearly snapshots)."""
    from kgbuild.pipeline.build import build_kg

    wh = Path(workdir) / "wh"
    shutil.rmtree(wh, ignore_errors=True)
    wh.parent.mkdir(parents=True, exist_ok=True)
    build_kg(CORPUS, kg="t", warehouse=wh, extractor="cooccurrence")
    return wh


def require_warehouse(wh: Path) -> None:
    """Exit with what to do when ``wh`` holds no warehouse (a bench that only reads one)."""
    if not (Path(wh) / "kg.duckdb").exists():
        raise SystemExit(f"no warehouse at {wh}: run `make build` first (or pass --warehouse)")


def copy_warehouse(src: Path, into: Path) -> Path:
    """A copy ``into/wh`` of a warehouse (a serving or querying run writes into it), without
    the build lock a copy of a running build would carry."""
    dst = into / "wh"
    shutil.copytree(src, dst, symlinks=True)
    (dst / ".build.lock").unlink(missing_ok=True)
    return dst


def start_serve(wh: Path, *args: str, log: Path | None = None, cmd: list[str] = CLI,
                timeout_s: float = 600, poll_s: float = 0.05,
                **popen: Any) -> tuple[subprocess.Popen, str]:  # fmt: skip
    """``kgbuild serve -w wh`` on a free loopback port: (process, base URL) once ``/health``
    answers 200. Its stderr goes to ``log`` (a file: a pipe nobody reads can fill up), else to
    a pipe; a server that ends or never answers raises with the tail of what it printed."""
    from tests.support.serve_process import free_port, wait_healthy

    port = free_port()
    with open(log or os.devnull, "wb") as err:
        proc = subprocess.Popen([*cmd, "serve", "-w", str(wh), "--port", str(port), *args],
                                stdout=subprocess.DEVNULL, stderr=err if log else subprocess.PIPE,
                                **popen)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    if wait_healthy(proc, url, timeout_s, poll_s) is not None:
        said = log.read_bytes() if log else proc.stderr.read() if proc.stderr else b""
        said = said if isinstance(said, str) else said.decode(errors="replace")
        raise RuntimeError(f"kgbuild serve did not start: {said[-2000:]}")
    return proc, url


def run_measured(cmd: list[str], env: dict[str, str], stdout: Any = subprocess.PIPE,
                 ) -> tuple[float, float, int, str]:  # fmt: skip
    """Run ``cmd``: (wall seconds, the child's own peak RSS in MB from ``wait4``, its exit
    status, its stdout when piped). Its stderr goes where its stdout goes, unless piped."""
    t = time.perf_counter()
    err = subprocess.DEVNULL if stdout is subprocess.PIPE else subprocess.STDOUT
    proc = subprocess.Popen(cmd, stdout=stdout, stderr=err, env=env)
    out = proc.stdout.read().decode() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out


def last_json(text: str) -> Any:
    """The JSON object of the last line a bench or a child printed."""
    return json.loads(text.strip().splitlines()[-1])


def peak_rss_mb() -> float:
    """This process's peak RSS (VmHWM, reset at exec). Not ``ru_maxrss`` where there is
    /proc: Linux carries that over fork+exec, so a child would report its parent's peak."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn: Callable[..., Any], *args: Any, repeats: int = 1, **kw: Any) -> tuple[float, Any]:
    """(median wall seconds of ``repeats`` calls ``fn(*args, **kw)``, what the last returned)."""
    out, times = None, []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args, **kw)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def p95(values: list[float], digits: int = 3) -> float:
    """The 95th percentile of ``values`` (the nearest rank at or below it), rounded."""
    return round(sorted(values)[int(0.95 * (len(values) - 1))], digits)


def run_drill(drill: Callable[[Path], dict], doc: str, prefix: str,
              sort_keys: bool = False) -> None:  # fmt: skip
    """Run a trust drill in ``--workdir DIR`` (kept) or a fresh temporary folder, and print its
    counts as one JSON line; ``doc`` (the script's docstring) gives ``--help`` its first
    paragraph."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, metavar="DIR", help="keep the drill's folder here")
    workdir = ap.parse_args().workdir
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        where = workdir or Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        print(json.dumps(drill(where), sort_keys=sort_keys), flush=True)


def add_query_options(ap: argparse.ArgumentParser, index_help: str | None = None) -> None:
    """The options of a bench that queries a built snapshot with the ADQA questions."""
    ap.add_argument("--warehouse", "-w", type=Path, default=ROOT / "warehouse")
    ap.add_argument("--snapshot", default="latest")
    ap.add_argument("--questions", type=Path, nargs="+", default=ADQA)
    ap.add_argument("--index-dir", type=Path, default=None, help=index_help)


def add_llm_options(ap: argparse.ArgumentParser) -> None:
    """The ``--llm-*`` options of a bench that can read through an LLM endpoint."""
    ap.add_argument("--llm-base-url", help="OpenAI-compatible endpoint [env OPENAI_BASE_URL]")
    ap.add_argument("--llm-model", help="LLM model [env KGBUILD_LLM_MODEL]")
    ap.add_argument("--llm-max-tokens", type=int, help="completion token cap")


def llm_client(ap: argparse.ArgumentParser, a: argparse.Namespace, root: Path | None) -> Any:
    """The LLM client of ``--reader llm`` (the key from the environment only), caching in the
    warehouse ``root``; an argparse error (exit 2) when no endpoint is configured."""
    from kgbuild.llm.client import LLMSettings
    from kgbuild.llm.options import make_client

    settings = LLMSettings.from_env(base_url=a.llm_base_url, model=a.llm_model,
                                    max_tokens=a.llm_max_tokens)  # fmt: skip
    if not settings.endpoint_configured:
        ap.error("--reader llm needs an endpoint: --llm-base-url or OPENAI_BASE_URL")
    return make_client(settings, root)


def hidden_build(gold_path: Path, root: Path, input_name: str = "input") -> tuple[Any, Path]:
    """(the gold corpus, its warehouse): the gold file's abstracts built with their relation
    lines hidden, as ``kgbuild eval facts`` builds them, once into ``root/warehouse`` (kept
    between runs)."""
    from kgbuild.evaluate.facts import _read, build_hidden, hide_relations

    gold = _read(gold_path)
    wh = root / "warehouse"
    if not (wh / "kg.duckdb").exists():
        root.mkdir(parents=True, exist_ok=True)
        build_hidden(hide_relations(gold_path, gold.fmt, root / input_name), wh)
    return gold, wh


def read_tsv_sheet(path: Path, encoding: str = "utf-8") -> tuple[dict[str, str], list[dict]]:
    """(metadata, rows) of a TSV sheet whose ``# key: value`` lines come before its header."""
    lines = path.read_text(encoding=encoding).splitlines()
    meta = {}
    for line in (x for x in lines if x.startswith("#")):
        key, _, value = line[1:].partition(":")
        meta[key.strip()] = value.strip()
    body = "\n".join(x for x in lines if not x.startswith("#"))
    return meta, list(csv.DictReader(io.StringIO(body), delimiter="\t"))


def machine(python: bool = True, load: bool = False) -> str:
    """The machine a figure was measured on: architecture, cores, Python, and with ``load`` the
    1-minute load average (benches share the machine's two cores with other work, so a figure
    without it says little)."""
    line = f"{platform.machine()} {os.cpu_count()} cores"
    line += f", {platform.python_version()}" if python else ""
    return line + (f", load {os.getloadavg()[0]:.2f}" if load else "")


def emit(figures: dict[str, Any], sort_keys: bool = False, **machine_kw: bool) -> None:
    """The one JSON line a bench ends with: its ``figures``, the :func:`machine` they were
    measured on added (``machine_kw`` are that function's)."""
    figures["machine"] = machine(**machine_kw)
    print(json.dumps(figures, sort_keys=sort_keys))
