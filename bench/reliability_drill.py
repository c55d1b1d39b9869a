"""Reliability drill: kill -9 a full DALK build at many points, resume each time, and
check that nothing is lost, nothing is paid twice and readers never see half a snapshot.

Loopback only: the LLM is the replay server (DALK's recorded generative outputs) in this
process, builds are `kgbuild build` processes (the user's path), killed with SIGKILL.

1. **Reference**: one clean generative build into its own warehouse (its per-year hashes).
2. **Kills**: a build into a fresh warehouse is killed at ``--kills`` points spread over four
   phases, and resumed after each: *parsing* (before its first LLM request), *llm* (after it
   has had k answers), *resolution* (its LLM requests went quiet: the year is being resolved
   and published) and *publishing* (a temporary part or manifest file appeared). A final run
   finishes it; every yearly content hash must equal the reference's.
3. The same at ``--fault-rate`` (20%) injected LLM faults (429 + Retry-After, 500, slow past the
   timeout, malformed JSON, truncated answers).
4. Readers in a thread, throughout 2–3: every snapshot they see registered must read whole
   (``triples_at``/``evidence_at`` counts equal the registry's).
5. The hostile-input corpus of ``tests/support/bad_inputs.py``: every record of every file
   ends with a status, and no traceback anywhere.
6. The hostile environment (``bench/hostile_scenario.py``): a ``kgbuild.toml`` in the
   corpus folder and one in the working folder, a second endpoint, an obedient model, one
   hostile value or file per build (the dense abstract among them), a shadow ``parts/`` folder
   and ``kgbuild serve`` under 60 heavy clients.
7. The trust drills, one module per class of hostile case (:data:`ROUND3`: ``trust_secrets``,
   ``trust_inputs``, ``trust_server``, ``trust_cache``, ``trust_sql``): every count each one's
   docstring names must be 0. Each also runs on its own and prints its JSON line.

``repeated_llm_calls``: answers delivered (HTTP 200, complete) for a request that had already
been delivered before. Answers are cached as they arrive, so these can only be requests in
flight at the instant of a kill (at most the client's concurrency per kill);
``repeated_after_cached`` counts the repeats whose first answer left more than 2 s before the
kill that ended its build — answers the build had received, asked again (must be 0).

    .venv/bin/python bench/reliability_drill.py [--kills 20] [--fault-rate 0.2] [--years 2011-2020]
        [--scenarios kills,bad-inputs,hostile,round3]

Ends with one JSON line: kill_points, resumed_builds, hash_matches, repeated_llm_calls,
half_snapshots_seen, bad_inputs, bad_inputs_with_status, tracebacks, keys_sent_elsewhere,
answers_reused_across_endpoints, injected_claims_in_kg, builds_stopped_by_one_record,
health_p99_ms_under_load (and more).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import common
from bench.common import DALK
from bench.hostile_scenario import hostile_environment
from kgbuild.store.snapshots import Warehouse
from tests.support.bad_inputs import write_bad_corpus
from tests.support.replay_llm_server import ReplayLLM, serve_llm

PHASES = ("parsing", "llm", "resolution", "publishing")


class LoggingReplay(ReplayLLM):
    """The replay server, remembering every complete answer it delivered (by request)."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.tl = threading.local()
        self.delivered: Counter[str] = Counter()
        self.first: dict[str, float] = {}  # request -> when its first complete answer left
        self.repeats: list[str] = []
        self.answers = 0
        self.last_answer = 0.0

    def next_fault(self) -> str | None:
        self.tl.fault = super().next_fault()
        return self.tl.fault

    def reply(self, body: dict[str, Any]) -> Any:
        out = super().reply(body)
        if getattr(self.tl, "fault", None) is None:
            key = hashlib.blake2b(
                json.dumps(body.get("messages"), sort_keys=True).encode(), digest_size=16
            ).hexdigest()
            with self.lock:
                self.delivered[key] += 1
                if self.delivered[key] > 1:
                    self.repeats.append(key)
                self.first.setdefault(key, time.monotonic())
                self.answers += 1
                self.last_answer = time.monotonic()
        return out

    @property
    def repeated(self) -> int:
        with self.lock:
            return sum(n - 1 for n in self.delivered.values())

    def repeated_after_cached(self, kills: list[float], grace_s: float = 2.0) -> int:
        """Repeats whose first answer left more than ``grace_s`` before the kill that ended
        its build: answers the build had received and cached, asked again (should be 0)."""
        out = 0
        for key in self.repeats:
            t1 = self.first[key]
            kill = next((k for k in kills if k >= t1), None)
            out += kill is None or kill - t1 > grace_s
        return out


class Readers(threading.Thread):
    """Reads the warehouse while builds publish: any registered snapshot must read whole."""

    def __init__(self, warehouse: Path) -> None:
        super().__init__(daemon=True)
        self.warehouse, self.stop = warehouse, threading.Event()
        self.checks = self.half = self.errors = 0

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                wh = Warehouse(self.warehouse)
                rows = wh.query("SELECT snapshot_id, n_triples, n_evidence FROM snapshots")
                if rows:
                    sid, n_triples, n_evidence = random.choice(rows)
                    got = wh.query(
                        "SELECT (SELECT count(*) FROM triples_at(?)), "
                        "(SELECT count(*) FROM evidence_at(?))",
                        [sid, sid],
                    )[0]
                    self.checks += 1
                    self.half += got != (n_triples, n_evidence)
            except Exception as exc:  # a catalog not created yet, or held past the wait
                self.errors += "no catalog" not in str(exc)
            self.stop.wait(0.05)


def build_cmd(url: str, warehouse: Path, years: str) -> list[str]:
    return [
        *common.CLI, "build", "--source", str(DALK / "by_year"),
        "--kg", "alzheimers", "--years", years, "--extractor", "generative",
        "--llm-base-url", url, "--llm-model", "dalk-replay", "--llm-concurrency", "16",
        "--llm-timeout", "2", "--embed-model", "none", "-w", str(warehouse),
    ]  # fmt: skip


ENV = common.cli_env(OPENAI_API_KEY="drill-key-never-stored", KGBUILD_LLM_MAX_RETRIES="8",
                     HF_HUB_OFFLINE="1")  # fmt: skip


def run_to_end(cmd: list[str], log: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=3600)
    log["tracebacks"] += proc.stderr.count("Traceback")
    if proc.returncode != 0:
        raise SystemExit(f"build failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


def temp_files(warehouse: Path) -> bool:
    return any(warehouse.glob("parts/*/.tmp-*")) or any(warehouse.glob("snapshots/.tmp-*"))


def kill_at(phase: str, cmd: list[str], llm: LoggingReplay, wh: Path, rng: random.Random,
            log: dict[str, Any]) -> str:  # fmt: skip
    """Start a build, kill it -9 in ``phase``; return where it really was ('done' if it ended
    first)."""
    start_answers = llm.answers
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=ENV)  # fmt: skip
    t0 = time.monotonic()
    target = rng.randint(30, 700)
    delay = rng.uniform(0.3, 1.2)
    where = ""
    while proc.poll() is None:
        new = llm.answers - start_answers
        quiet = time.monotonic() - llm.last_answer
        if phase == "parsing" and time.monotonic() - t0 >= delay:
            where = "parsing" if new == 0 else "llm"
        elif phase == "llm" and new >= target:
            where = "llm"
        elif phase == "resolution" and new > 0 and quiet > 0.25:
            where = "resolution"
        elif phase == "publishing" and new > 0 and temp_files(wh):
            where = "publishing"
        if where:
            proc.send_signal(signal.SIGKILL)
            log["kill_times"].append(time.monotonic())
            break
        time.sleep(0.002 if phase == "publishing" else 0.01)
    proc.wait()
    log["tracebacks"] += (proc.stderr.read() if proc.stderr else "").count("Traceback")
    return where or "done"


def heads(warehouse: Path) -> list[tuple[int, str]]:
    wh = Warehouse(warehouse)
    head = wh.resolve("latest")
    return wh.query(
        "SELECT s.as_of_year, s.content_hash FROM snapshot_lineage l JOIN snapshots s "
        "ON s.snapshot_id = l.ancestor_id WHERE l.snapshot_id = ? ORDER BY 1",
        [head],
    )


def scenario(name: str, kills: int, fault_rate: float, years: str, tmp: Path,
             reference: list[tuple[int, str]], log: dict[str, Any], seed: int) -> None:  # fmt: skip
    llm = LoggingReplay(DALK / "extracted", fault_rate=fault_rate, seed=seed,
                        retry_after_s=0.2, slow_s=3.0)  # fmt: skip
    wh = tmp / f"wh-{name}"
    readers = Readers(wh)
    readers.start()
    rng = random.Random(seed)
    plan = [PHASES[i % len(PHASES)] for i in range(kills)]
    with serve_llm(llm) as url:
        cmd = build_cmd(url, wh, years)
        t0 = time.perf_counter()
        for i, phase in enumerate(plan):
            where = kill_at(phase, cmd, llm, wh, rng, log)
            if where == "done":
                print(f"  {name} #{i + 1}: build finished before the {phase} kill")
                break
            log["kill_points"] += 1
            log["kills_by_phase"][where] += 1
            log["resumed_builds"] += 1
            published = len(Warehouse(wh).snapshots()) if (wh / "kg.duckdb").exists() else 0
            print(f"  {name} #{i + 1}: killed in {where:<10} ({published} snapshots published, "
                  f"{llm.answers:,} answers, {llm.repeated} repeated)", flush=True)  # fmt: skip
        run_to_end(cmd, log)
        wall = time.perf_counter() - t0
    readers.stop.set()
    readers.join()
    got = heads(wh)
    match = got == reference
    statuses = dict(
        Warehouse(wh).query("SELECT status, count(*) FROM extraction_status GROUP BY 1")
    )
    differ = [y for (y, h), (_, r) in zip(got, reference, strict=False) if h != r]
    usage = [json.loads(u or "{}") for (u,) in Warehouse(wh).query("SELECT llm_usage FROM builds")]
    log["hash_matches"] += match
    log["scenarios"][name] = {
        "same_hashes_as_clean_build": match,
        "first_differing_year": differ[0] if differ else None,
        "extraction_status": statuses,
        # attempts the clients retried (timeouts on a loaded machine, injected faults): a
        # timed-out request the server did answer is delivered twice without any kill
        "client_retries": sum(int(u.get("retries", 0)) for u in usage),
        "years": len(got),
        "answers_delivered": llm.answers,
        "repeated_llm_calls": llm.repeated,
        "faults": dict(llm.faults),
        "wall_s": round(wall, 1),
        "reader_checks": readers.checks,
        "reader_half_snapshots": readers.half,
        "reader_errors": readers.errors,
    }
    log["repeated_llm_calls"] += llm.repeated
    cached_again = llm.repeated_after_cached(log["kill_times"])
    log["scenarios"][name]["repeated_after_cached"] = cached_again
    log["repeated_after_cached"] += cached_again
    log["half_snapshots_seen"] += readers.half
    log["reader_checks"] += readers.checks
    print(f"{name}: {'same' if match else 'DIFFERENT'} hashes as the clean build; "
          f"{llm.repeated} repeated answers; readers {readers.checks} checks, "
          f"{readers.half} half snapshots", flush=True)  # fmt: skip


def bad_inputs(tmp: Path, log: dict[str, Any]) -> None:
    files = write_bad_corpus(tmp / "bad")
    wh = tmp / "wh-bad"
    proc = subprocess.run(
        [*common.CLI, "build", "--source", str(tmp / "bad"), "--kg",
         "bad", "-w", str(wh), "--extractor", "cooccurrence", "--embed-model", "none"],
        capture_output=True, text=True, env=ENV, timeout=600,
    )  # fmt: skip
    log["tracebacks"] += proc.stderr.count("Traceback")
    log["bad_inputs"] = len(files)
    if proc.returncode != 0:
        print(f"bad-input build failed: {proc.stderr[-1000:]}")
        return
    wh_ = Warehouse(wh)
    ok = 0
    for f in files:
        n = wh_.query("SELECT count(*) FROM doc_status WHERE source_file = ?", [f.name])[0][0]
        ok += n == f.records
        if n != f.records:
            print(f"  {f.name}: {n} statuses for {f.records} records")
    log["bad_inputs_with_status"] = ok
    log["bad_input_records"] = sum(f.records for f in files)
    log["bad_input_statuses"] = wh_.query("SELECT count(*) FROM doc_status")[0][0]
    print(f"bad inputs: {ok} of {len(files)} files have a status for every record")


SCENARIOS = ("kills", "bad-inputs", "hostile", "round3")
#: The trust drills: a module under bench/ per class of hostile case.
ROUND3 = ("trust_secrets", "trust_inputs", "trust_server", "trust_cache", "trust_sql")


def round3(tmp: Path) -> dict[str, int]:
    """The trust drills, each module's counts (all must be 0) merged into the log."""
    import importlib

    out: dict[str, int] = {}
    for name in ROUND3:
        t0 = time.perf_counter()
        (tmp / name).mkdir(parents=True)
        counts = importlib.import_module(f"bench.{name}").drill(tmp / name)
        print(f"{name}: {json.dumps(counts)} in {time.perf_counter() - t0:.0f}s", flush=True)
        counts.pop("seconds", None)  # each module's own wall time: per module, below
        out.update(counts)
        out[f"{name}_seconds"] = round(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kills", type=int, default=20, help="kill points per scenario")
    ap.add_argument("--fault-rate", type=float, default=0.2)
    ap.add_argument("--years", default="2011-2020")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help=f"which parts to run (comma-separated): {', '.join(SCENARIOS)}",
    )
    args = ap.parse_args()
    parts = set(args.scenarios.split(","))
    if parts - set(SCENARIOS):
        raise SystemExit(f"unknown scenarios: {sorted(parts - set(SCENARIOS))}")
    if "kills" in parts and not DALK.exists():
        raise SystemExit(f"needs DALK's corpus and recordings under {DALK}")
    log: dict[str, Any] = dict.fromkeys(
        ("kill_points", "resumed_builds", "hash_matches", "repeated_llm_calls",
         "half_snapshots_seen", "tracebacks", "reader_checks"), 0,
    )  # fmt: skip
    log.update(kills_by_phase=Counter(), scenarios={}, kill_times=[], repeated_after_cached=0)
    with tempfile.TemporaryDirectory(prefix="drill-") as d:
        tmp = Path(d)
        if "kills" in parts:
            t0 = time.perf_counter()
            ref = LoggingReplay(DALK / "extracted")
            with serve_llm(ref) as url:
                run_to_end(build_cmd(url, tmp / "wh-reference", args.years), log)
            reference = heads(tmp / "wh-reference")
            print(f"reference build: {len(reference)} years in {time.perf_counter() - t0:.0f}s",
                  flush=True)  # fmt: skip
            scenario("kills", args.kills, 0.0, args.years, tmp, reference, log, args.seed)
            scenario(f"kills+{args.fault_rate:.0%}faults", args.kills, args.fault_rate,
                     args.years, tmp, reference, log, args.seed + 1)  # fmt: skip
        if "bad-inputs" in parts:
            bad_inputs(tmp, log)
        if "hostile" in parts:
            (tmp / "hostile").mkdir()
            t0 = time.perf_counter()
            hostile = hostile_environment(tmp / "hostile")
            log["tracebacks"] += hostile.pop("tracebacks")
            log.update(hostile)
            print(f"hostile environment in {time.perf_counter() - t0:.0f}s", flush=True)
        if "round3" in parts:
            log.update(round3(tmp / "round3"))
    log["kills_by_phase"] = dict(log["kills_by_phase"])
    del log["kill_times"]
    log["scenarios_run"] = len(log["scenarios"])
    common.emit(log)


if __name__ == "__main__":
    main()
