"""The Prefect flows under a real (ephemeral) Prefect API: one task run per year, caching against
the warehouse, global concurrency limits, retries of incomplete years, artifacts, the refresh
no-op, a two-worker Dask cluster, and a resume after the flow's process is killed."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from prefect import flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import GlobalConcurrencyLimitUpdate
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterKey,
    FlowRunFilter,
    FlowRunFilterId,
    FlowRunFilterParentFlowRunId,
)
from prefect.settings import PREFECT_API_URL

import flows.build_kg as build_module
import flows.common as common
from flows.build_kg import build_kg_flow
from flows.common import LLM_LIMIT, NCBI_LIMIT, slots
from flows.refresh import refresh_flow
from kgbuild.store.snapshots import Warehouse
from tests.conftest import FIXTURES, ROOT
from tests.pipeline.test_refresh import EXTRA_DOC
from tests.support.eutils_server import FakeNCBI, serve
from tests.support.replay_llm_server import ReplayLLM, serve_llm

pytestmark = pytest.mark.slow  # Prefect API, flows in processes, a Dask cluster

LLM_CORPUS = FIXTURES / "llm" / "corpus"
RECORDINGS = FIXTURES / "llm" / "recordings"
#: The global concurrency limits the flows use, as a server would have them.
LIMITS = {LLM_LIMIT: 4, NCBI_LIMIT: 1}
OFFLINE = {
    "DO_NOT_TRACK": "1",
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
}


@pytest.fixture(scope="session")
def prefect_api():
    """One ephemeral Prefect API for the session (its migrations take ~30 s here), with the
    global concurrency limits the flows hold; yields its URL."""
    # imported here, not at the top: it loads Prefect's whole server (~5 s of CPU), which every
    # xdist worker would otherwise pay to collect this module, run here or not
    from prefect.testing.utilities import prefect_test_harness

    for k, v in OFFLINE.items():
        os.environ.setdefault(k, v)
    with prefect_test_harness(server_startup_timeout=180):
        with get_client(sync_client=True) as client:
            for name, limit in LIMITS.items():
                client.upsert_global_concurrency_limit_by_name(name, limit)
        yield PREFECT_API_URL.value()


@pytest.fixture(autouse=True)
def no_embeddings(monkeypatch):
    """Resolution's embedding step (tested elsewhere) is off: no model to load per build."""
    monkeypatch.setenv("KGBUILD_EMBED_MODEL", "none")


def task_states(state):
    """Task-run state names of a flow run (and its subflows), by task name, in start order."""
    run_id = state.state_details.flow_run_id
    with get_client(sync_client=True) as client:
        children = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(parent_flow_run_id=FlowRunFilterParentFlowRunId(
                any_=[run_id])))  # fmt: skip
        ids = [run_id, *(c.id for c in children)]
        runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=ids)))
    out = {}
    for r in sorted(runs, key=lambda r: r.expected_start_time):
        if r.state.name != "RolledBack":
            out.setdefault(r.task_key.rsplit("-", 1)[0], []).append(r.state.name)
    return {k.split(".")[-1]: v for k, v in out.items()}, runs


def artifacts(*keys):
    with get_client(sync_client=True) as client:
        found = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(
            any_=list(keys))))  # fmt: skip
    return {a.key: a for a in sorted(found, key=lambda a: a.created)}  # the latest of each key


def test_build_flow_one_task_per_year_cached_rerun_and_artifacts(
    prefect_api, corpus, warehouse, monkeypatch
):
    state = build_kg_flow(source=str(corpus), kg="flowtest", warehouse=str(warehouse),
                          return_state=True)  # fmt: skip
    ids = state.result()
    assert len(ids) == 2
    rows = Warehouse(warehouse).query("SELECT snapshot_id FROM snapshots ORDER BY as_of_year")
    assert [r[0] for r in rows] == ids
    states, _ = task_states(state)
    assert states == {"read_source": ["Completed"] * 2, "build_year": ["Completed"] * 2,
                      "make_ready_task": ["Completed"],
                      "publish_report": ["Completed"]}  # fmt: skip
    index = warehouse / "index"  # the query caches, made as the CLI's build makes them
    assert all(any(index.glob(f"{sid}-*/meta.json")) for sid in ids), sorted(index.iterdir())

    again = build_kg_flow(source=str(corpus), kg="flowtest", warehouse=str(warehouse),
                          return_state=True)  # fmt: skip
    assert again.result() == ids
    assert task_states(again)[0]["build_year"] == ["Cached", "Cached"]
    assert (warehouse / "prefect").is_dir()  # Prefect's cache lives in the warehouse

    # New code: Prefect's cache misses, the warehouse (the durable cache) reuses both years.
    monkeypatch.setattr(common, "code_version", lambda: "0.0.0+other")
    third = build_kg_flow(source=str(corpus), kg="flowtest", warehouse=str(warehouse),
                          return_state=True)  # fmt: skip
    assert third.result() == ids
    assert task_states(third)[0]["build_year"] == ["Completed", "Completed"]
    assert len(Warehouse(warehouse).snapshots("flowtest")) == 2

    page = warehouse / "reports" / "flowtest" / "report.html"
    assert "data:image/png;base64," in page.read_text()  # the kgbuild report page
    charts = ["size", "added", "relations", "relation-share", "kinds", "documents", "problems",
              "support", "confidence", "hubs"]  # co-occurrence: no LLM charts  # fmt: skip
    keys = ["kg-stats-flowtest", "kg-growth-flowtest", *(f"kg-chart-{c}-flowtest" for c in charts)]
    found = artifacts(*keys, "kg-chart-llm-flowtest")
    assert set(found) == set(keys)
    table = found["kg-growth-flowtest"].data
    table = json.loads(table) if isinstance(table, str) else table
    assert [r["year"] for r in table] == [2019, 2020] and table[1]["snapshot"] == ids[1]
    assert "| year | snapshot | corpus |" in found["kg-stats-flowtest"].data
    for c in charts:
        assert "data:image/png;base64,iVBORw0KGgo" in found[f"kg-chart-{c}-flowtest"].data


def test_a_corpus_whose_years_are_known_only_after_reading_builds_in_one_task(
    prefect_api, warehouse
):
    source = FIXTURES / "pubtator3_small.json"  # BioC-JSON: each record carries its year
    state = build_kg_flow(source=str(source), kg="yearless", warehouse=str(warehouse),
                          extractor="cooccurrence", return_state=True)  # fmt: skip
    ids = state.result()
    assert len(ids) == 1 and Warehouse(warehouse).manifest(ids[0])["as_of_year"] == 2018
    assert task_states(state)[0] == {"build_year": ["Completed"],
                                     "make_ready_task": ["Completed"],
                                     "publish_report": ["Completed"]}  # fmt: skip


def test_refresh_flow_builds_only_what_is_new_and_is_a_no_op_otherwise(prefect_api, tmp_path):
    src, wh = tmp_path / "src", tmp_path / "wh"
    src.mkdir()
    shutil.copy(FIXTURES / "corpus" / "2019.pubtator", src)

    def refresh():
        return refresh_flow(domain="alzheimers", source=str(src), warehouse=str(wh),
                            extractor="cooccurrence")  # fmt: skip

    def n_snapshots():
        return len(Warehouse(wh).snapshots("alzheimers"))

    first = refresh()
    assert first["status"] == "built" and len(first["snapshots"]) == 1
    noop = refresh()
    assert (noop["status"], noop["snapshots"], n_snapshots()) == ("no-op", [], 1)

    shutil.copy(FIXTURES / "corpus" / "2020.pubtator", src)  # a new year
    grown = refresh()
    assert [(y["year"], y["action"], y["reason"]) for y in grown["years"]] == [
        (2019, "reuse", "published"), (2020, "build", "new")]  # fmt: skip
    assert grown["snapshots"][0] == first["snapshots"][0] and n_snapshots() == 2

    with (src / "2020.pubtator").open("a") as fh:  # new PMIDs in the current year
        fh.write(EXTRA_DOC)
    changed = refresh()
    assert [y["reason"] for y in changed["years"]] == ["published", "inputs changed"]
    assert changed["snapshots"][1] != grown["snapshots"][1] and n_snapshots() == 3
    assert refresh()["status"] == "no-op" and n_snapshots() == 3
    assert "no-op" in artifacts("refresh-alzheimers")["refresh-alzheimers"].data


def test_weekly_pubmed_refresh_finds_new_pmids_of_the_current_year(prefect_api, tmp_path,
                                                                    monkeypatch):  # fmt: skip
    fake = FakeNCBI()
    with serve(fake):
        monkeypatch.setenv("KGBUILD_EUTILS_URL", fake.eutils_url)
        monkeypatch.setenv("KGBUILD_PUBTATOR_URL", fake.pubtator_url)

        def refresh():
            wh = str(tmp_path / "wh")
            return refresh_flow(domain="alzheimers", source="pubmed", years="2015", warehouse=wh,
                                extractor="cooccurrence")  # fmt: skip

        first = refresh()
        assert first["status"] == "built" and len(first["snapshots"]) == 1
        n = len(fake.requests)
        assert refresh()["status"] == "no-op"
        assert {r["route"].rsplit("/", 1)[1] for r in fake.requests[n:]} == {"esearch.fcgi"}
        pmid, new = "99000001", "99000099"  # a new 2015 record appears in PubMed
        fake.articles[new] = fake.articles[pmid].replace(f">{pmid}<", f">{new}<")
        fake.dates[new] = fake.dates[pmid]
        grown = refresh()
        # nothing new, but PubMed now marks a paper of the head retracted: the year is built
        # again to record it (a new build-year run: the retracted PMIDs are in its cache key)
        fake.retracted.add(pmid)
        retracted = refresh()
        quiet = refresh()
    assert [(y["year"], y["reason"]) for y in grown["years"]] == [(2015, "inputs changed")]
    assert grown["rechecked"] == {2015: 12} and grown["snapshots"] != first["snapshots"]
    wh = Warehouse(tmp_path / "wh")
    head = wh.manifest(grown["snapshots"][-1])
    assert head["counts"]["records"] == 12
    assert (retracted["status"], retracted["retracted"], retracted["rebuild_from"]) == (
        "built", [pmid], 2015)  # fmt: skip
    assert [(y["year"], y["reason"]) for y in retracted["years"]] == [(2015, "papers retracted")]
    new = retracted["snapshots"][-1]
    assert new != grown["snapshots"][-1]
    assert wh.query("SELECT pmid FROM retractions_at(?)", [new]) == [(pmid,)]
    assert wh.query("SELECT pmid FROM retractions_at(?)", [grown["snapshots"][-1]]) == []
    assert (quiet["status"], quiet["retracted"]) == ("no-op", [])  # recorded: nothing left


def test_global_concurrency_limits_are_held_and_clamped(prefect_api):
    seen = {}

    def active(name):
        with get_client(sync_client=True) as client:
            return client.read_global_concurrency_limit_by_name(name).active_slots

    @flow
    def probe():
        with slots(LLM_LIMIT, 8) as held:  # more than the limit allows: clamped to it
            seen["llm"] = (held, active(LLM_LIMIT))
        with slots(NCBI_LIMIT, 1) as held:
            seen["ncbi"] = (held, active(NCBI_LIMIT))
        with slots("kgbuild-no-such-limit", 3) as held:  # Prefect warns and skips
            seen["missing"] = held
        with slots(LLM_LIMIT, 0) as held:  # co-occurrence: no LLM, no slot
            seen["none"] = (held, active(LLM_LIMIT))

    probe()
    assert seen == {"llm": (4, 4), "ncbi": (1, 1), "missing": 3, "none": (0, 0)}
    assert active(LLM_LIMIT) == active(NCBI_LIMIT) == 0


class FlakyLLM(ReplayLLM):
    """The replay server, failing its first ``failures`` requests with a 500."""

    def __init__(self, *args, failures=0, **kw):
        super().__init__(*args, **kw)
        self.failures = failures

    def next_fault(self):
        with self.lock:
            self.failures -= 1
            return "500" if self.failures >= 0 else None


def llm_build(url, wh, kg, **kw):
    return build_kg_flow(source=str(LLM_CORPUS), kg=kg, extractor="generative",
                         llm_model="dalk-replay", llm_base_url=url, warehouse=str(wh),
                         return_state=True, **kw)  # fmt: skip


def test_incomplete_years_are_retried_by_prefect_and_never_cached(prefect_api, tmp_path,
                                                                  monkeypatch):  # fmt: skip
    monkeypatch.setenv("KGBUILD_LLM_MAX_RETRIES", "0")  # a 500 fails the document at once
    task = build_module.build_year
    monkeypatch.setattr(build_module, "build_year",
                        task.with_options(retries=1, retry_delay_seconds=0))  # fmt: skip
    llm = FlakyLLM(RECORDINGS, failures=1)
    with serve_llm(llm) as url:
        state = llm_build(url, tmp_path / "a", "flaky", years="2019")
        _, runs = task_states(state)
        (year,) = [r for r in runs if r.task_key.startswith("build_year")]
        assert (year.state.name, year.run_count) == ("Completed", 2)  # retried once, then done
        head = Warehouse(tmp_path / "a").manifest(state.result()[-1])
        assert head["counts"]["extraction_failed"] == 0

        # No retries left: the year is published incomplete, not cached; the next run retries.
        monkeypatch.setattr(build_module, "build_year", task.with_options(retries=0))
        llm.failures = 1
        first = llm_build(url, tmp_path / "b", "flaky", years="2019")
        sid = first.result()[-1]
        assert Warehouse(tmp_path / "b").manifest(sid)["counts"]["extraction_failed"] == 1
        second = llm_build(url, tmp_path / "b", "flaky", years="2019")
        assert task_states(second)[0]["build_year"] == ["Completed"]  # not "Cached"
        fixed = second.result()[-1]
        assert fixed != sid
        assert Warehouse(tmp_path / "b").manifest(fixed)["counts"]["extraction_failed"] == 0
        assert task_states(llm_build(url, tmp_path / "b", "flaky", years="2019"))[0][
            "build_year"] == ["Cached"]  # fmt: skip


def test_build_flow_on_a_two_worker_dask_cluster(prefect_api, corpus, tmp_path, monkeypatch):
    from distributed import Client, LocalCluster

    # Worker processes import the flows' modules and talk to this API.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("PREFECT_API_URL", prefect_api)
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:  # fmt: skip
        started = time.perf_counter() - t0
        address = cluster.scheduler_address
        state = build_kg_flow(source=str(corpus), kg="dasktest", warehouse=str(tmp_path / "d"),
                              dask_address=address, return_state=True)  # fmt: skip
        ran = time.perf_counter() - t0 - started
        with Client(cluster) as client:
            executed = client.run(lambda dask_worker: dask_worker.state.executed_count)
    ids = state.result()
    assert len(ids) == 2 and len(executed) == 2
    assert sum(executed.values()) == 6  # 2 reads + 2 year builds + each year's extraction
    # batch (a year is built in bounded batches) on the workers (the report task is called, not
    # submitted: it runs in the flow's process)
    states, _ = task_states(state)
    assert states["build_year"] == ["Completed", "Completed"]
    local = build_kg_flow(source=str(corpus), kg="dasktest", warehouse=str(tmp_path / "l"))
    assert local == ids  # same snapshots (same content) as without Dask
    print(f"dask: cluster up {started:.1f}s, flow {ran:.1f}s, tasks per worker {executed}")


class GatedLLM(ReplayLLM):
    """The replay server, recording which document each request is for and holding every
    request for the document titled ``hold`` until ``gate`` is set."""

    def __init__(self, *args, hold, **kw):
        super().__init__(*args, **kw)
        self.hold, self.gate, self.held = hold, threading.Event(), threading.Event()
        self.asked = []

    def reply(self, body):
        prompt = "\n".join(str(m.get("content")) for m in body.get("messages", []))
        title = re.search(r"^Title: ?(.*)$", prompt, re.M)
        title = title.group(1).strip() if title else "?"
        with self.lock:
            self.asked.append(title)
        if title == self.hold:
            self.held.set()
            self.gate.wait(120)
        return super().reply(body)


RESUME = """
import sys
from flows.build_kg import build_kg_flow
state = build_kg_flow(source=sys.argv[1], kg="resume", extractor="generative",
                      llm_model="dalk-replay", llm_base_url=sys.argv[2], warehouse=sys.argv[3],
                      return_state=True)
print("RUN", state.state_details.flow_run_id, ",".join(state.result()), flush=True)
"""


def test_killed_flow_resumes_without_repeating_finished_llm_calls(prefect_api, tmp_path):
    wh = tmp_path / "killed"
    env = {**os.environ, **OFFLINE, "PREFECT_API_URL": prefect_api, "PYTHONPATH": str(ROOT),
           "KGBUILD_EMBED_MODEL": "none"}  # fmt: skip
    llm = GatedLLM(RECORDINGS, hold="Donepezil palliates dementia.")  # the 2020 document
    with serve_llm(llm) as url:
        cmd = [sys.executable, "-c", RESUME, str(LLM_CORPUS), url, str(wh)]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)  # fmt: skip
        try:
            assert llm.held.wait(180), "the flow never reached 2020's LLM call"
            published = sorted(p.stem for p in (wh / "snapshots").glob("[!.]*.json"))
            os.kill(proc.pid, signal.SIGKILL)  # mid-run: 2019 published, 2020 in flight
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(30)
        killed_at = time.perf_counter() - t0
        before = list(llm.asked)
        llm.gate.set()
        with get_client(sync_client=True) as client:
            # The killed run still holds its LLM slots: a server's repossessor frees them when
            # their lease lapses (60 s); this ephemeral API has none, so do what it would do.
            leaked = client.read_global_concurrency_limit_by_name(LLM_LIMIT).active_slots
            client.update_global_concurrency_limit(LLM_LIMIT, GlobalConcurrencyLimitUpdate(
                active_slots=0))  # fmt: skip
        assert leaked == LIMITS[LLM_LIMIT]
        t1 = time.perf_counter()
        rerun = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                               timeout=180)  # fmt: skip
        resumed_in = time.perf_counter() - t1
        assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
        after = llm.asked[len(before) :]
        t2 = time.perf_counter()
        fresh = llm_build(url, tmp_path / "fresh", "resume")
        fresh_in = time.perf_counter() - t2
    run_id, ids = re.search(r"^RUN (\S+) (\S+)$", rerun.stdout, re.M).groups()
    ids = ids.split(",")
    assert len(published) == 1 and ids[0] == published[0]  # 2019's snapshot survived the kill
    finished = [t for t in before if t != llm.hold]
    assert sorted(finished) == sorted(set(finished)) and len(finished) == 2  # 2019's documents
    assert after == [llm.hold]  # resumed: only the unanswered 2020 document is asked again
    assert not set(after) & set(finished)  # 0 repeated LLM calls for finished documents
    resumed_head = Warehouse(wh).manifest(ids[-1])
    fresh_head = Warehouse(tmp_path / "fresh").manifest(fresh.result()[-1])
    assert resumed_head["content_hash"] == fresh_head["content_hash"]
    assert ids == fresh.result()
    with get_client(sync_client=True) as client:
        runs = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(
            any_=[run_id])))  # fmt: skip
    years = sorted((r.expected_start_time, r.state.name) for r in runs
                   if r.task_key.startswith("build_year"))  # fmt: skip
    assert [s for _, s in years] == ["Cached", "Completed"]  # 2019 from Prefect's cache
    print(json.dumps({"killed_after_s": round(killed_at, 1), "llm_requests_before_kill":
                      len(before), "llm_requests_after_restart": len(after),
                      "repeated_for_finished_documents": len(set(after) & set(finished)),
                      "resume_s": round(resumed_in, 1), "uninterrupted_s": round(fresh_in, 1),
                      "head_content_hash": resumed_head["content_hash"]}))  # fmt: skip
