"""prefect.yaml end to end on a real Prefect server: `prefect server start`, a process work pool,
`prefect deploy --all`, `prefect worker start`, and the `domain-build` deployment run to
Completed on the fixture corpus. Everything runs as subprocesses with their own PREFECT_HOME on
127.0.0.1; the test is bounded (about 6 minutes at worst) and prints its timings."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, ROOT

pytestmark = pytest.mark.slow  # a real Prefect server, deployment and worker

PREFECT = Path(sys.executable).parent / "prefect"
DEADLINE_S = 360
TERMINAL = {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc, first=signal.SIGINT, wait_s=20.0):
    """Stop a process group we started: ``first``, again, then SIGKILL."""
    for sig in (first, first, signal.SIGKILL):
        if proc.poll() is not None:
            return
        os.killpg(proc.pid, sig)
        try:
            proc.wait(wait_s if sig != signal.SIGKILL else 10)
        except subprocess.TimeoutExpired:
            continue


@pytest.mark.skipif(not PREFECT.exists(), reason=f"no prefect CLI at {PREFECT}")
def test_domain_build_deployment_runs_on_a_process_worker(tmp_path):
    t0 = time.monotonic()
    timings = {}
    port = free_port()
    api = f"http://127.0.0.1:{port}/api"
    wh = tmp_path / "warehouse"
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path / "prefect-home"),
        "PREFECT_API_URL": api,
        "PREFECT_UI_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_WORKER_QUERY_SECONDS": "2",
        "PREFECT_WORKER_PREFETCH_SECONDS": "2",
        "PYTHONPATH": str(ROOT),
        "KGBUILD_HOME": str(ROOT),
        "KGBUILD_EMBED_MODEL": "none",
    }

    def left():
        return max(5.0, DEADLINE_S - (time.monotonic() - t0))

    def cli(*args, timeout=120):
        out = subprocess.run([str(PREFECT), *args], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=min(timeout, left()))  # fmt: skip
        assert out.returncode == 0, f"prefect {' '.join(args)}:\n{out.stdout}\n{out.stderr}"
        return out.stdout

    logs = {n: open(tmp_path / f"{n}.log", "w") for n in ("server", "worker")}  # noqa: SIM115
    server = worker = None
    try:
        server = subprocess.Popen(
            [str(PREFECT), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            cwd=tmp_path, env=env, stdout=logs["server"], stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        while True:
            assert server.poll() is None, (tmp_path / "server.log").read_text()[-3000:]
            try:
                if requests.get(f"{api}/health", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            assert time.monotonic() - t0 < 150, "server not healthy after 150 s"
            time.sleep(0.5)
        timings["server_healthy_s"] = time.monotonic() - t0

        t = time.monotonic()
        cli("work-pool", "create", "kgbuild-process", "--type", "process")
        cli("--no-prompt", "deploy", "--all", timeout=180)
        timings["pool_and_deploy_s"] = time.monotonic() - t

        t = time.monotonic()
        worker = subprocess.Popen(
            [str(PREFECT), "worker", "start", "--pool", "kgbuild-process"],
            cwd=ROOT, env=env, stdout=logs["worker"], stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        params = {"source": str(FIXTURES / "corpus"), "kg": "servertest",
                  "warehouse": str(wh), "extractor": "cooccurrence"}  # fmt: skip
        out = cli("deployment", "run", "build-kg/domain-build",
                  *(x for k, v in params.items() for x in ("--param", f"{k}={v}")))  # fmt: skip
        run_id = re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)
        state = None
        while state not in TERMINAL:
            assert time.monotonic() - t0 < DEADLINE_S - 30, f"flow run stuck in {state}"
            assert worker.poll() is None, (tmp_path / "worker.log").read_text()[-3000:]
            time.sleep(1)
            body = requests.get(f"{api}/flow_runs/{run_id}", timeout=10).json()
            state = body["state"]["type"]
        timings["worker_start_to_completed_s"] = time.monotonic() - t
        assert state == "COMPLETED", (tmp_path / "worker.log").read_text()[-5000:]
        assert body["parameters"]["kg"] == "servertest"

        deployments = requests.post(f"{api}/deployments/filter", json={}, timeout=10).json()
        by_name = {d["name"]: d for d in deployments}
        assert set(by_name) == {"alzheimers-weekly-refresh", "domain-build"}
        weekly = by_name["alzheimers-weekly-refresh"]
        assert weekly["schedules"][0]["schedule"]["cron"] == "0 3 * * 1"
        assert weekly["parameters"]["domain"] == "alzheimers"
    finally:
        t = time.monotonic()
        if worker is not None:  # the worker first, while its server is still there
            stop(worker)
        if server is not None:
            stop(server, signal.SIGTERM)
        timings["shutdown_s"] = time.monotonic() - t
        for fh in logs.values():
            fh.close()
    snaps = Warehouse(wh).snapshots("servertest")
    assert sorted(s["as_of_year"] for s in snaps) == [2019, 2020]
    assert (wh / "reports" / "servertest" / "report.html").exists()
    timings["total_s"] = time.monotonic() - t0
    print(json.dumps({k: round(v, 1) for k, v in timings.items()}))
