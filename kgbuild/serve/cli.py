"""``kgbuild serve``: the JSON API and the explorer over one snapshot, on uvicorn (registered by
kgbuild/cli/app.py); its options are the query commands' (kgbuild/query/cli.py)."""

from __future__ import annotations

import json
import os
import time
from typing import Annotated

import typer

from kgbuild.errors import InputError
from kgbuild.helptext import examples
from kgbuild.llm.options import BaseUrl, MaxTokens, Model, llm_settings
from kgbuild.query.cli import (
    AllEvidence,
    IndexDir,
    Snapshot,
    Warehouse,
    err,
)
from kgbuild.serve.connections import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, IDLE_TIMEOUT_S
from kgbuild.settings import warehouse_path
from kgbuild.store.cli_options import KgOpt, snapshot_ref

SERVE_EXAMPLES = examples(
    "kgbuild serve --port 8000",
    "kgbuild serve --snapshot alzheimers@2020 --host 0.0.0.0 --workers 2",
)


def serve(
    snapshot: Snapshot = "latest",
    kg: KgOpt = None,
    host: Annotated[str, typer.Option(help="Interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port")] = 8000,
    embed: Annotated[bool, typer.Option(help="Load the embedding fallback")] = True,
    workers: Annotated[int, typer.Option(help="Server processes (each holds the index)")] = 1,
    all_evidence: AllEvidence = False,
    max_connections: Annotated[
        int | None,
        typer.Option(
            help="Most open connections per worker (at it, the longest idle are closed)",
            show_default="the descriptor limit less headroom",
        ),
    ] = None,
    idle_timeout: Annotated[
        float, typer.Option(help="Seconds a connection may send nothing (new or keep-alive)")
    ] = IDLE_TIMEOUT_S,
    header_timeout: Annotated[
        float, typer.Option(help="Seconds until a request's headers are complete")
    ] = HEADER_TIMEOUT_S,
    body_timeout: Annotated[
        float, typer.Option(help="Seconds from the headers until the body is complete")
    ] = BODY_TIMEOUT_S,
    llm_base_url: BaseUrl = None,
    llm_model: Model = None,
    llm_max_tokens: MaxTokens = None,
    index_dir: IndexDir = None,
    warehouse: Warehouse = None,
) -> None:
    """Serve a read-only JSON API: POST /retrieve, POST /ask, GET /entities?q=, GET /health."""
    t0 = time.perf_counter()

    def progress(step: str) -> None:  # what start-up is doing, as it does it
        err.print(f"kgbuild serve: [{time.perf_counter() - t0:.1f}s] {step}", markup=False,
                  highlight=False, soft_wrap=True)  # fmt: skip

    snapshot = snapshot_ref(warehouse, snapshot, kg)  # --kg: that KG's (one line if they differ)
    import uvicorn

    from kgbuild.query.engine import QueryEngine
    from kgbuild.serve.connections import Guard, GuardedConfig
    from kgbuild.serve.gate import favour_the_event_loop
    from kgbuild.serve.server import SERVE_ENV, create_app
    from kgbuild.store.snapshots import Warehouse as StoreWarehouse

    if not 0 < port < 65536:
        raise InputError("port must be between 1 and 65535", port=port)
    if not 1 <= workers <= 16:
        raise InputError("workers must be between 1 and 16", workers=workers)
    try:
        guard = Guard(max_connections, idle_timeout, header_timeout, body_timeout)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    # resolved once, to one KG for good: a KG built into this warehouse later is never served
    ref = StoreWarehouse(warehouse_path(warehouse)).pin(snapshot)
    progress(f"opening snapshot {ref} (its query index is built on the first open, then read)")
    engine = QueryEngine(warehouse_path(warehouse), ref, index_dir, embeddings=embed,
                         background_reload=True, all_evidence=all_evidence)  # fmt: skip
    idx = engine.state().index
    progress(f"index {'read' if 'load_s' in idx.timings else 'built'}: {idx.kg}@"
             f"{idx.as_of_year}, {idx.n_nodes:,} nodes, {idx.n_edges:,} triples, "
             f"{len(idx.sentences['pmid']):,} sentences")  # fmt: skip
    engine.prepare(progress)
    settings = llm_settings(llm_base_url, llm_model, llm_max_tokens)
    if workers == 1:
        config = GuardedConfig(create_app(engine, settings), guard=guard, host=host, port=port,
                               log_level="warning", access_log=False)  # fmt: skip
    else:
        llm = {"base_url": llm_base_url, "model": llm_model, "max_tokens": llm_max_tokens}
        from kgbuild.serve.explorer.curate import TOKEN_ENV, new_token

        os.environ[TOKEN_ENV] = new_token()  # one curation token for every worker
        os.environ[SERVE_ENV] = json.dumps({
            "warehouse": str(engine.wh.root), "snapshot": ref, "embed": embed,
            "index_dir": str(engine.index_dir), "llm": {k: v for k, v in llm.items() if v},
            "all_evidence": all_evidence,
        })  # fmt: skip
        config = GuardedConfig("kgbuild.serve.server:app_from_env", guard=guard, factory=True,
                               host=host, port=port, workers=workers, log_level="warning",
                               access_log=False)  # fmt: skip
    sock = config.listening_socket()  # before "ready" is said: clients can connect at once
    idx = engine.state().index
    err.print(f"kgbuild serve: {idx.kg}@{idx.as_of_year} snapshot {idx.snapshot_id} "
              f"(follows {ref}; {idx.n_nodes:,} nodes, {idx.n_edges:,} triples) ready in "
              f"{time.perf_counter() - t0:.1f}s on http://{host}:{port} "
              f"(LLM: {'on' if settings.endpoint_configured else 'off'}, "
              f"{workers} worker{'s' if workers > 1 else ''})", highlight=False,
              soft_wrap=True)  # fmt: skip
    if workers == 1:
        favour_the_event_loop()
        uvicorn.Server(config).run(sockets=[sock])
        return
    from uvicorn.supervisors import Multiprocess

    del engine  # the workers open their own (from the index this process cached)
    Multiprocess(config, sockets=[sock]).run()
