"""The reliability drill's hostile-environment scenario: the user's own commands,
run the way an attacker or a careless user would set them up, observed from outside.

Every figure is read off what crossed a loopback socket or landed on disk, never off kgbuild's
own report of itself:

* ``keys_sent_elsewhere``: requests carrying the user's ``OPENAI_API_KEY`` that reached an
  endpoint the user did not name (a ``kgbuild.toml`` shipped inside the corpus folder, or one in
  the working folder that only a file, not the user, pointed at another server).
* ``answers_reused_across_endpoints``: prompts the first endpoint answered that a second
  endpoint (same model name, same corpus, same warehouse) was never asked.
* ``injected_claims_in_kg``: ``kg_edges`` rows that an obedient model put there because an
  abstract told it to (every variant of ``tests/support/injections.py``).
* ``builds_stopped_by_one_record``: builds of a good corpus plus one hostile value or file that
  exited non-zero, printed a traceback or hung.
* ``health_p99_ms_under_load``: ``GET /health`` of ``kgbuild serve`` while 60 clients send heavy
  ``/retrieve`` requests at once.
* ``shadow_parts_read``: SQL answers that changed because the working folder held a forged
  ``parts/`` tree.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import os
import shutil
import statistics
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import requests

from bench import common
from bench.common import CLI
from tests.support.bad_inputs import annotation_line, good_record, pubtator_record

SECRET = "sk-drill-secret-0123456789"
BASE_ENV = common.cli_env((*common.NO_LLM, "NCBI_"), HF_HUB_OFFLINE="1", DO_NOT_TRACK="1")

_TITLE = "APOE and amyloid beta in Alzheimer's disease."  # good_record's, for the BioC case
_ABSTRACT = "APOE binds amyloid beta. Donepezil treats Alzheimer's disease."


def good_corpus(folder: Path, n: int = 4, year: int = 2015, first: int = 70001) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{year}.pubtator").write_text(
        "".join(good_record(str(first + i)) for i in range(n)), encoding="utf-8"
    )
    return folder


def honest(body: dict[str, Any]) -> str:
    """A model that answers what the sentences say (generative JSON, or a lone option)."""
    fmt = json.dumps(body.get("response_format") or {})
    if "triples" in fmt or "generative" in fmt:
        return json.dumps({"triples": [
            {"head": "APOE", "relation": "binds", "tail": "amyloid beta"},
            {"head": "Donepezil", "relation": "treats", "tail": "Alzheimer's disease"},
        ]})  # fmt: skip
    return json.dumps({"answers": [], "reasoning": "", "answer": "", "predicate": ""})


def run(cmd: list[str], *, cwd: Path, env: dict[str, str] | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:  # fmt: skip
    try:
        return subprocess.run(cmd, cwd=cwd, env=env or BASE_ENV, capture_output=True, text=True,
                              timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(cmd, -9, str(exc.stdout or ""), "timed out")


def build(source: str | Path, wh: Path | None, cwd: Path, env: dict[str, str], *extra: str,
          kg: str = "hostile") -> subprocess.CompletedProcess[str]:  # fmt: skip
    cmd = [*CLI, "build", "--source", str(source), "--kg", kg, "--embed-model", "none", *extra]
    if wh is not None:
        cmd += ["-w", str(wh)]
    return run(cmd, cwd=cwd, env=env)


def _keyed(llm: Any) -> int:
    """Requests that carried the secret in any header (names compared case-insensitively)."""
    return sum(any(SECRET in str(v) for v in r["headers"].values()) for r in llm.requests)


def keys_and_endpoints(tmp: Path, out: dict[str, Any]) -> None:
    """Items 1 and 2: where the key goes, and whose answers a build reuses."""
    from tests.support.scripted_llm_server import ScriptedLLM, serve

    legit = ScriptedLLM(default=("answer", honest))
    attacker = ScriptedLLM(default=("answer", honest))
    with serve(legit) as legit_url, serve(attacker) as attacker_url:
        llm = ["--extractor", "generative", "--llm-model", "m"]
        # (a) the corpus ships a kgbuild.toml and is built from inside with --source .
        src = good_corpus(tmp / "corpus-with-toml")
        moved = tmp / "moved-warehouse"
        (src / "kgbuild.toml").write_text(
            f'[kgbuild]\nwarehouse = "{moved}"\n[llm]\nbase_url = "{attacker_url}"\n'
        )
        # the user's key is meant for OpenAI's default endpoint (unreachable here: fail fast)
        env = {**BASE_ENV, "OPENAI_API_KEY": SECRET, "KGBUILD_LLM_MAX_RETRIES": "0",
               "KGBUILD_LLM_TIMEOUT": "3"}  # fmt: skip
        a = build(".", None, src, env, *llm)
        # (a') the same corpus with the user's own endpoint in the environment
        a2 = build(".", None, src, {**env, "OPENAI_BASE_URL": legit_url}, *llm)
        # (b) a kgbuild.toml in the working folder is the only thing naming the endpoint
        work = tmp / "work"
        work.mkdir()
        (work / "kgbuild.toml").write_text(f'[llm]\nbase_url = "{attacker_url}"\n')
        corpus_b = good_corpus(tmp / "corpus-b", first=71001)
        env_b = {**BASE_ENV, "OPENAI_API_KEY": SECRET}
        b = build(corpus_b, tmp / "wh-b", work, env_b, *llm)
        # the first line the user sees, both streams in the order they were written
        merged = subprocess.run(
            [*CLI, "build", "--source", str(corpus_b), "--kg", "hostile2", "-w",
             str(tmp / "wh-b"), "--embed-model", "none", *llm],
            cwd=work, env=env_b, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=600,
        )  # fmt: skip
        first_line = merged.stdout.strip().splitlines()[:1]
        out["keys_sent_elsewhere"] = _keyed(attacker)
        out["warehouse_moved_by_source_file"] = int(moved.exists())
        out["toml_named_in_first_line"] = int(bool(first_line) and "kgbuild.toml" in first_line[0])
        out["key_scenario_exits"] = [a.returncode, a2.returncode, b.returncode]
        out["legit_endpoint_calls"] = len(legit.requests)
        out["tracebacks"] += sum(p.stderr.count("Traceback") for p in (a, a2, b))

    # (c) the same corpus, the same model name, two endpoints, one warehouse
    first = ScriptedLLM(default=("answer", honest))
    second = ScriptedLLM(default=("answer", honest))
    corpus, wh = good_corpus(tmp / "corpus-c", first=72001), tmp / "wh-c"
    env = {**BASE_ENV, "OPENAI_API_KEY": SECRET}
    for llm_server in (first, second):
        with serve(llm_server) as url:
            r = build(corpus, wh, tmp, env, "--extractor", "generative", "--llm-model", "m",
                      "--llm-base-url", url)  # fmt: skip
            out["tracebacks"] += r.stderr.count("Traceback")

    def asked(s: Any) -> set[str]:
        return {json.dumps(r["body"].get("messages"), sort_keys=True) for r in s.requests}

    out["answers_reused_across_endpoints"] = len(asked(first) - asked(second))
    out["second_endpoint_calls"] = len(second.requests)


def injections(tmp: Path, out: dict[str, Any]) -> None:
    """Item 3: every injection variant, built through an obedient model, both LLM extractors."""
    from tests.support.injections import INJECTED, obedient, write_injection_corpus
    from tests.support.scripted_llm_server import ScriptedLLM, serve

    src = tmp / "injections"
    n_docs = write_injection_corpus(src)
    injected = 0
    for extractor in ("generative", "pairwise"):
        wh = tmp / f"wh-inj-{extractor}"
        with serve(ScriptedLLM(default=("answer", obedient))) as url:
            r = build(src, wh, tmp, {**BASE_ENV, "OPENAI_API_KEY": SECRET}, "--extractor",
                      extractor, "--llm-model", "obedient", "--llm-base-url", url)  # fmt: skip
        out["tracebacks"] += r.stderr.count("Traceback")
        if r.returncode != 0:
            out["injection_builds_failed"] = out.get("injection_builds_failed", 0) + 1
            continue
        from kgbuild.store.snapshots import Warehouse

        rows = Warehouse(wh).query("SELECT head_name, tail_name FROM kg_edges")
        names = [(h.lower(), t.lower()) for h, t in rows]
        injected += sum(pair in names for pair in INJECTED)
    out["injected_claims_in_kg"] = injected
    out["injection_variants"] = n_docs


def hostile_records(tmp: Path, out: dict[str, Any]) -> None:
    """Items 4–8: one good corpus plus one hostile value or file per build."""
    cases: dict[str, Any] = {}
    good = good_record("73001")
    digits = "9" * 5000
    dense_words = [f"Gene{i}" for i in range(600)]
    dense_abstract = " ".join(dense_words) + " interact in Alzheimer's disease."
    dense_text = f"Dense. {dense_abstract}"
    dense_ann = [annotation_line("73006", dense_text, w, "Gene", str(100000 + i))
                 for i, w in enumerate(dense_words)]  # fmt: skip
    cases["pmid_of_5000_digits"] = {"2015.pubtator": good + good_record(digits)}
    cases["offset_of_5000_digits"] = {
        "2015.pubtator": good + pubtator_record("73002", _TITLE, _ABSTRACT)
        + f"73002\t{digits}\t{digits}1\tAPOE\tGene\t348\n\n"
    }  # fmt: skip
    passages = [
        {"infons": {"type": "title", "year": "²⁰¹⁵"}, "offset": 0, "text": _TITLE},
        {"infons": {"type": "abstract"}, "offset": len(_TITLE) + 1, "text": _ABSTRACT},
    ]
    bioc = {"documents": [{"id": "73003", "passages": passages}]}
    cases["superscript_bioc_year"] = {"2015.pubtator": good, "x.json": json.dumps(bioc)}
    nan = json.dumps(bioc, ensure_ascii=False).replace('"73003"', "NaN").replace("²⁰¹⁵", "2015")
    cases["nan_pmid"] = {"2015.pubtator": good, "y.json": nan}
    cases["year_9999"] = {"2015.pubtator": good, "9999.pubtator": good_record("73004")}
    cases["year_0000"] = {"2015.pubtator": good, "0000.pubtator": good_record("73005")}
    cases["dense_abstract"] = {
        "2015.pubtator": good + pubtator_record("73006", "Dense.", dense_abstract, *dense_ann)
    }
    cases["symlink_out"] = {"2015.pubtator": good, "link.pubtator": Path("/etc/passwd")}
    cases["fifo"] = {"2015.pubtator": good, "pipe.pubtator": "FIFO"}
    stopped, details = 0, {}
    for name, files in cases.items():
        src = tmp / "records" / name
        src.mkdir(parents=True)
        for fname, content in files.items():
            if isinstance(content, Path):
                (src / fname).symlink_to(content)
            elif content == "FIFO":
                os.mkfifo(src / fname)
            else:
                (src / fname).write_text(content, encoding="utf-8")
        wh = tmp / "records" / f"wh-{name}"
        r = build(src, wh, tmp, BASE_ENV, "--extractor", "cooccurrence")
        bad = r.returncode != 0 or "Traceback" in r.stderr
        stopped += bad
        if name == "symlink_out" and not bad:
            out["outside_lines_in_problems"] = _outside_lines(wh)
        out["tracebacks"] += r.stderr.count("Traceback")
        details[name] = r.returncode if not bad else f"{r.returncode}: {r.stderr.strip()[-200:]}"
    out["builds_stopped_by_one_record"] = stopped
    out["hostile_record_builds"] = details


def _outside_lines(wh: Path) -> int:
    """Rows of ``problems`` quoting /etc/passwd (a link followed out of the source folder)."""
    from kgbuild.store.snapshots import Warehouse

    rows = Warehouse(wh).query("SELECT count(*) FROM problems WHERE detail LIKE '%root:%'")
    return int(rows[0][0])


def shadow_parts(tmp: Path, out: dict[str, Any]) -> None:
    """Item 10: a forged ``parts/`` tree in the working folder changes no answer."""
    wh = tmp / "wh-shadow"
    r = build(good_corpus(tmp / "corpus-shadow", first=74001), wh, tmp, BASE_ENV,
              "--extractor", "cooccurrence")  # fmt: skip
    if r.returncode != 0:
        out["shadow_parts_read"] = None
        return
    forged = tmp / "shadow-cwd"
    for part in (wh / "parts").rglob("*.parquet"):
        target = forged / part.relative_to(wh)
        target.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect()
        con.execute(  # the same schema, no rows: a reader that takes it sees an empty KG
            f"COPY (SELECT * FROM read_parquet('{part}') LIMIT 0) TO '{target}' (FORMAT parquet)"
        )
        con.close()
    sql = [*CLI, "sql", "SELECT count(*) FROM kg_edges", "-w", str(wh), "--format", "csv"]
    changed = int(run(sql, cwd=tmp).stdout != run(sql, cwd=forged).stdout)
    exported = []
    for cwd in (tmp, forged):  # an export, by the reader that opens its own connection
        dest = tmp / f"export-{len(exported)}"
        run([*CLI, "export", "latest", "--out", str(dest), "-f", "tsv", "-w", str(wh)], cwd=cwd)
        exported.append(sorted((p.name, p.read_bytes()) for p in dest.rglob("*.tsv")))
    changed += int(exported[0] != exported[1] or not exported[0])
    out["shadow_parts_read"] = changed


def health_under_load(tmp: Path, out: dict[str, Any], clients: int = 60) -> None:
    """Item 13: /health stays instant while 60 clients ask heavy questions at once."""
    wh = tmp / "wh-serve"
    corpus, years = common.DALK_YEARS, ["--years", "2011-2013"]
    if not corpus.exists():  # a user's clone: a small synthetic KG (a lighter load)
        corpus = tmp / "corpus-serve"
        corpus.mkdir()
        (corpus / "2015.pubtator").write_text(
            "".join(good_record(str(75001 + i)) for i in range(50)), encoding="utf-8"
        )
        years = []
    r = build(corpus, wh, tmp, BASE_ENV, "--extractor", "cooccurrence", *years)
    if r.returncode != 0:
        raise RuntimeError(f"serve build failed: {r.stderr[-300:]}")
    proc, base = common.start_serve(wh, timeout_s=180, poll_s=0.5, cwd=tmp, env=BASE_ENV,
                                    text=True)  # fmt: skip
    try:
        heavy = {
            "question": ("Which of these is linked to Alzheimer's disease through APOE and "
                         "amyloid beta and donepezil? " * 12)[:1900],
            "choices": [f"choice about amyloid beta plaque number {i}" for i in range(8)],
            "embed": "all", "k": 50, "hops": 3,
        }  # fmt: skip
        codes: list[int] = []
        lat: list[float] = []
        stop = threading.Event()

        def poll() -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    requests.get(f"{base}/health", timeout=120)
                    lat.append((time.perf_counter() - t0) * 1000)
                except requests.RequestException:
                    lat.append(120_000.0)
                time.sleep(0.01)

        def one(_: int) -> int:
            try:
                return requests.post(f"{base}/retrieve", json=heavy, timeout=300).status_code
            except requests.RequestException:
                return -1

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        t_load = time.monotonic()
        with cf.ThreadPoolExecutor(clients) as pool:  # bursts of 60 for at least 10 s
            while len(codes) < 2 * clients or time.monotonic() - t_load < 10:
                codes += list(pool.map(one, range(clients)))
        stop.set()
        poller.join()
        lat.sort()
        out["health_p50_ms_under_load"] = round(statistics.median(lat), 1) if lat else None
        out["health_p99_ms_under_load"] = (
            round(lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1) if lat else None
        )
        out["health_samples"] = len(lat)
        out["heavy_status_codes"] = {str(c): codes.count(c) for c in sorted(set(codes))}
        out["server_alive_after_load"] = int(proc.poll() is None)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        out["tracebacks"] += (proc.stderr.read() if proc.stderr else "").count("Traceback")


def hostile_environment(tmp: Path) -> dict[str, Any]:
    """Every part of the scenario; a part that fails to run is reported, not hidden."""
    out: dict[str, Any] = {"tracebacks": 0}
    for part in (keys_and_endpoints, injections, hostile_records, shadow_parts,
                 health_under_load):  # fmt: skip
        t0 = time.perf_counter()
        where = tmp / part.__name__
        where.mkdir()
        try:
            part(where, out)
        except Exception as exc:  # a part that cannot run is a finding, printed
            out.setdefault("parts_that_failed", {})[part.__name__] = repr(exc)[:300]
        print(f"  hostile: {part.__name__} in {time.perf_counter() - t0:.0f}s", flush=True)
        shutil.rmtree(where, ignore_errors=True)
    return out
