"""``kgbuild ask``, ``kgbuild serve`` and ``kgbuild eval adqa`` (registered by kgbuild/cli.py and
kgbuild/annotate/eval_cli.py; defined here so the query stage owns its interface)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgbuild.errors import InputError, QueryError, StoreError
from kgbuild.helptext import examples
from kgbuild.llm.client import LLMSettings
from kgbuild.query.adqa import LETTERS
from kgbuild.query.cli_options import KgOpt, snapshot_ref
from kgbuild.query.connections import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, IDLE_TIMEOUT_S
from kgbuild.query.limits import DEFAULT_HOPS, DEFAULT_K, DEFAULT_TOKEN_BUDGET, NO_ENTITY
from kgbuild.query.llm import MAX_ANSWER_CHARS
from kgbuild.settings import warehouse_path
from kgbuild.store.sql_output import print_json

if TYPE_CHECKING:
    from kgbuild.query.engine import Retrieval
    from kgbuild.query.explore import Filters

out = Console(width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True)

Warehouse = Annotated[Path | None, typer.Option("--warehouse", "-w", help="Warehouse folder")]
Snapshot = Annotated[
    str, typer.Option("--snapshot", "-s", help="id, prefix, KG@YEAR or latest; YEAR with --kg")
]
IndexDir = Annotated[
    Path | None,
    typer.Option(help="Where query indexes are cached [default: <warehouse>/index]"),
]
K = Annotated[int, typer.Option("--k", "-k", help="Triples in the context")]
Hops = Annotated[int, typer.Option(help="Path length limit (1-3)")]
Embed = Annotated[str, typer.Option(help="Embedding fallback: mentions | all | off")]
AllEvidence = Annotated[
    bool,
    typer.Option("--all-evidence", help="Use every evidence row (hypotheses, negated, "
                 "background…), not only asserted ones"),
]  # fmt: skip
BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint")]
Model = Annotated[str | None, typer.Option(help="LLM model")]
MaxTokens = Annotated[int | None, typer.Option(help="Completion token cap")]

#: The ``--help`` examples of the commands below (their epilogs, given where they are mounted).
ASK_EXAMPLES = examples(
    'kgbuild ask "Does APOE interact with APP in Alzheimer\'s disease?" --no-llm',
    'kgbuild ask "What is a risk factor of Alzheimer\'s?" --choices "APOE;APP"',
    'kgbuild ask "Does APOE regulate APP?" --no-llm --kind Gene --as-of 2015',
)
SERVE_EXAMPLES = examples(
    "kgbuild serve --port 8000",
    "kgbuild serve --snapshot alzheimers@2020 --host 0.0.0.0 --workers 2",
)
ADQA_EXAMPLES = examples(
    "kgbuild eval adqa ../shared/data/dalk/adqa/medqa_ner.json --limit 50",
    "kgbuild eval adqa ../shared/data/dalk/adqa/medqa_ner.json --years 2019-2020",
)


def _table(title: str, cols: list[str], rows: list[list[Any]]) -> Table:
    t = Table(title=title)
    for c in cols:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*("" if v is None else escape(str(v)) for v in r))
    return t


def _settings(base_url: str | None, model: str | None, max_tokens: int | None) -> LLMSettings:
    return LLMSettings.from_env(base_url=base_url, model=model, max_tokens=max_tokens)


def _filters(
    relation: list[str] | None,
    kind: list[str] | None,
    min_support: int,
    min_confidence: float,
    as_of: int | None,
    all_evidence: bool = False,
) -> Filters:
    from kgbuild.query.explore import Filters

    return Filters(
        frozenset(relation or ()), frozenset(kind or ()), min_support, min_confidence, as_of,
        all_evidence,
    )  # fmt: skip


def ask(
    question: Annotated[str, typer.Argument(help="The question")],
    choices: Annotated[str | None, typer.Option(help='Choices separated by ";": "A;B;C;D"')] = None,
    snapshot: Snapshot = "latest",
    kg: KgOpt = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Retrieval only")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    k: K = DEFAULT_K,
    hops: Hops = DEFAULT_HOPS,
    token_budget: Annotated[
        int, typer.Option(help="Hard context limit (tokens)")
    ] = DEFAULT_TOKEN_BUDGET,
    embed: Embed = "mentions",
    relation: Annotated[list[str] | None, typer.Option(help="Only these relations")] = None,
    kind: Annotated[list[str] | None, typer.Option(help="Only these node kinds")] = None,
    min_support: Annotated[int, typer.Option(help="Least distinct PMIDs per triple")] = 0,
    min_confidence: Annotated[float, typer.Option(help="Least confidence per triple")] = 0.0,
    as_of: Annotated[
        int | None,
        typer.Option(help="Answer with the KG as it stood in this year (its snapshot's belief)"),
    ] = None,
    all_evidence: AllEvidence = False,
    llm_base_url: BaseUrl = None,
    llm_model: Model = None,
    llm_max_tokens: MaxTokens = None,
    index_dir: IndexDir = None,
    warehouse: Warehouse = None,
) -> None:
    """Answer a question from a snapshot: ranked facts with PMIDs, and an LLM's cited answer.

    Prints the linking (surface → CURIE → name), the ranked triples with their PMIDs, the KG
    support per choice and, with an LLM endpoint, the answer citing the context's PMIDs."""
    snapshot = snapshot_ref(warehouse, snapshot, kg)  # --kg: that KG's (one line if they differ)
    opts = choices.split(";") if choices else []
    if choices is not None and not all(c.strip() for c in opts):
        raise InputError('empty choice in --choices (separate choices with ";")')
    settings = _settings(llm_base_url, llm_model, llm_max_tokens)
    use_llm = not no_llm and settings.endpoint_configured
    from kgbuild.query.engine import QueryEngine

    engine = QueryEngine(warehouse_path(warehouse), snapshot, index_dir)
    f = _filters(relation, kind, min_support, min_confidence, as_of, all_evidence)
    options = {"k": k, "hops": hops, "token_budget": token_budget, "embed": embed, "filters": f}
    if use_llm:
        from kgbuild.query.answer import answer_question, make_client

        client = make_client(settings, engine.wh.root)
        try:
            a = answer_question(engine, client, question, opts, **options)
        finally:
            client.close()
        r, data = a.retrieval, a.to_dict()
    else:
        r = engine.retrieve(question, opts, **options)
        a, data = None, r.to_dict()
    if not r.found:
        raise QueryError(NO_ENTITY, snapshot=r.snapshot_id, unlinked="; ".join(r.unlinked()))
    from kgbuild.query.marks import annotate
    from kgbuild.query.verdict import add_statuses, status_rows

    # the evidence shown: entity spans marked in each sentence; a yes/no pair's statuses
    rdict = data["retrieval"] if a is not None else data
    annotate(engine.for_year(r.as_of_year).state().index, rdict,
             "any" if all_evidence else "asserted")  # fmt: skip
    v = rdict.get("verdict")
    if v and v.get("pair") and len(v["pair"]) == 2:
        add_statuses(v, status_rows(engine.wh, r.snapshot_id, *v["pair"]))
    from kgbuild.query.curated import add_curations

    add_curations(engine.wh.root, rdict)  # each fact's curations (kgbuild.query.curated)
    line = answer_line(rdict, opts, a.choice if a is not None else None, a is not None)
    data["answer_line"] = line
    if as_json:
        print_json(data)
        return
    _print_retrieval(r, rdict, line)
    if a is None:
        if not no_llm:
            out.print("[dim](no LLM endpoint configured: retrieval only; see --llm-base-url)[/dim]")
        _repeat(line)
        return
    answer = data["answer"]
    if opts:
        answer = f"{a.letter}. {opts[a.choice]}" if a.choice is not None else "(no readable choice)"
    out.print(f"[bold]answer:[/bold] {escape(excerpt(str(answer)))}")
    if a.text and opts:
        out.print(escape(excerpt(a.text)))
    out.print(
        f"cited PMIDs: {', '.join(a.cited) or '(none)'}"
        + (
            f"  [yellow]not in the context: {', '.join(a.invalid_citations)}[/yellow]"
            if a.invalid_citations
            else ""
        )
    )
    u = a.usage
    out.print(
        f"[dim]LLM: {u.calls} calls ({u.cached} cached, {u.failed} failed), "
        f"{u.prompt_tokens}+{u.completion_tokens} tokens, ${u.cost_usd:.4f}[/dim]"
    )
    if u.cut:
        out.print(
            f"[yellow]truncated: {u.cut} LLM answer(s) over {MAX_ANSWER_CHARS:,} characters "
            "were cut; the rest was not read[/yellow]"
        )
    _repeat(line)


def answer_line(rdict: dict[str, Any], choices: list[str], choice: int | None,
                llm: bool) -> str | None:  # fmt: skip
    """The one line that answers the question — a yes/no verdict, the LLM's choice or the
    KG-only choice — printed first (right after the linking) and again last, where a reader
    of long tables looks; None for a question that has neither (a "which X" list)."""
    if choices:
        if llm:
            picked = f"{LETTERS[choice]}. {choices[choice]}" if choice is not None else None
            return f"answer (LLM): {picked or '(no readable choice)'}"
        kg = rdict.get("kg_answer")
        return (
            f"KG-only answer {LETTERS[kg]}. {choices[kg]}"
            if kg is not None
            else "no KG-only answer: the snapshot supports no choice over the others"
        )
    v = rdict.get("verdict")
    return f"verdict: {v['line']}" if v else None


def _repeat(line: str | None) -> None:
    """The answer line again, at the very end of the output."""
    from rich.text import Text

    if line:
        out.print(Text(line, style="bold"))


#: Characters of an LLM's answer printed (``--json`` gives the whole answer read).
MAX_PRINTED_ANSWER = 2_000


def excerpt(text: str, limit: int = MAX_PRINTED_ANSWER) -> str:
    """``text``, or its first ``limit`` characters and how many more there are."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … ({len(text) - limit:,} more characters; --json shows them)"


def _basis(answer: dict[str, Any]) -> str:
    """What an answer rests on, in words: an asserted fact, a fact whose evidence has another
    status (with the statuses), or only a shared abstract."""
    basis = answer.get("basis", "fact")
    if basis == "weaker_fact":
        said = {
            ev.get("status") for f in answer.get("facts") or [] for ev in f.get("evidence") or []
        }
        return "fact, " + ("/".join(sorted(s for s in said if s)) or "not asserted")
    return "same abstract only" if basis == "same_abstract" else "asserted fact"


def _print_retrieval(r: Retrieval, rdict: dict[str, Any] | None = None,
                     line: str | None = None) -> None:  # fmt: skip
    """The retrieval for a person: linking, what the question asks, the answers or the
    yes/no verdict, the ranked facts, and each fact's best sentence with «head» and «tail»
    marked (``rdict``: the JSON with the marked evidence, :func:`kgbuild.query.marks.annotate`).
    Sentences and names are untrusted text: shown as rich ``Text``/escaped, never as markup."""
    from rich.text import Text

    rdict = rdict if rdict is not None else r.to_dict()
    out.print(f"snapshot {r.snapshot_id} ({r.kg}@{r.as_of_year})")
    rows = [
        [x.where, x.surface, x.curie, x.name, x.method, x.score]
        for x in r.links
        if x.node is not None
    ]
    out.print(
        _table(
            "linking (surface → CURIE → name)",
            ["where", "surface", "CURIE", "name", "how", "score"],
            rows,
        )
    )
    if r.unlinked():
        out.print(f"unlinked: {escape('; '.join(r.unlinked()))}")
    if line:  # the answer first: a reader of the long tables below should not miss it
        out.print(Text(line, style="bold"))
    it = rdict.get("intent") or {}
    if it.get("asked") or it.get("answer_type") or it.get("yes_no"):
        parts = []
        if it.get("asked"):
            parts.append(f"relation {', '.join(it['asked'])} (KG: {', '.join(it['relations'])})")
        if it.get("answer_kind"):
            parts.append(f"answers that are {it['answer_kind']}s")
        elif it.get("answer_type"):
            parts.append(f"answers of kind {it['answer_type']}")
        if it.get("yes_no"):
            parts.append("yes/no")
        out.print(Text("asks: " + "; ".join(parts)))
    if it.get("answer_note"):
        out.print(Text(f"no answer: {it['answer_note']}", style="bold"))
    verdict = rdict.get("verdict")
    if verdict:
        if line != "verdict: " + verdict["line"]:  # not already the answer line
            out.print(Text("verdict: " + verdict["line"], style="bold"))
        if verdict.get("pmids"):
            out.print(Text(f"  PMIDs: {', '.join(verdict['pmids'])}", style="dim"))
    if rdict.get("answers"):
        rows = [
            [i, a["name"], a["id"], ", ".join(a["relation"][:3]) or "—", _basis(a), a["support"],
             f"{a['score']:.3f}"]
            for i, a in enumerate(rdict["answers"][:10], 1)
        ]  # fmt: skip
        kind = it.get("answer_kind") or it.get("answer_type") or "any kind"
        title = f"answers ({kind}), best first"
        cols = ["#", "answer", "CURIE", "relations", "rests on", "PMIDs", "score"]
        out.print(_table(title, cols, rows))
    rows = [
        [
            t.rank,
            t.head,
            t.relation,
            t.tail,
            t.support,
            f"{t.confidence:.2f}",
            f"{t.belief:.2f}" + (f" CONTESTED ({t.contested})" if t.contested else ""),
            f"{t.first_year}-{t.last_year}",
            ", ".join(t.pmids),
        ]
        for t in r.triples
    ]
    out.print(
        _table(
            f"ranked triples (belief as of {r.as_of_year}; contested: papers disagree, "
            "`kgbuild conflicts`)",
            ["#", "head", "relation", "tail", "support", "conf", "belief", "years", "PMIDs"],
            rows,
        )
    )
    from kgbuild.query.curated import curation_lines

    shown = [t for t in rdict.get("triples") or [] if t.get("evidence")]
    if shown:
        out.print("evidence (best served sentence per fact, «head» … «tail» marked)")
    for t in shown:
        ev = t["evidence"][0]
        line = Text(f"[{t['rank']}] ")
        line.append(ev.get("excerpt") or ev["sentence"])
        line.highlight_regex(r"«[^«»]*»", "bold cyan")
        line.append(f"  PMID {ev['pmid']} ({ev['year']}), {ev.get('status', 'asserted')}, "
                    f"confidence {t['confidence']:.2f}", style="dim")  # fmt: skip
        out.print(line)
        for said in curation_lines(t):
            out.print(Text("    " + said, style="yellow"))
    if r.choices:
        rows = [
            [
                chr(65 + cs["choice"]),
                r.choices[cs["choice"]][:40],
                "—" if cs["score"] is None else f"{cs['score']:+.2f}",
                "; ".join(cs["reasons"][:2])[:110],
                ", ".join(dict.fromkeys(x["pmid"] for x in cs["sentences"])) or "—",
            ]
            for cs in r.choice_scores
        ]
        out.print(
            _table(
                "what the snapshot says about each choice",
                ["", "choice", "score", "why", "sentences (PMIDs)"],
                rows,
            )
        )
        ans = r.kg_answer
        out.print(
            "KG support per choice: "
            + ", ".join(f"{chr(65 + i)} {s:.2f}" for i, s in enumerate(r.choice_support))
            + (f" → KG-only answer {chr(65 + ans)}" if ans is not None else " → no KG-only answer")
        )
    out.print(Text(timing_line(r.timings), style="dim"))


def timing_line(timings: dict[str, float]) -> str:
    """The retrieval's time, labelled, with its steps ("retrieval took 21.0 ms: link 3.1,
    explore 4.0, …"): a bare "21.0 ms" at the end of the output said nothing of what it timed."""
    steps = ", ".join(f"{k.removesuffix('_ms')} {v:.1f}" for k, v in timings.items()
                      if k != "total_ms")  # fmt: skip
    total = timings.get("total_ms", 0.0)
    return f"retrieval took {total:.1f} ms" + (f" ({steps} ms)" if steps else "")


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

    def progress(step: str) -> None:  # what start-up is doing, as it does it (issue 41)
        err.print(f"kgbuild serve: [{time.perf_counter() - t0:.1f}s] {step}", markup=False,
                  highlight=False, soft_wrap=True)  # fmt: skip

    snapshot = snapshot_ref(warehouse, snapshot, kg)  # --kg: that KG's (one line if they differ)
    import uvicorn

    from kgbuild.query.connections import Guard, GuardedConfig
    from kgbuild.query.engine import QueryEngine
    from kgbuild.query.server import SERVE_ENV, create_app
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
    settings = _settings(llm_base_url, llm_model, llm_max_tokens)
    if workers == 1:
        config = GuardedConfig(create_app(engine, settings), guard=guard, host=host, port=port,
                               log_level="warning", access_log=False)  # fmt: skip
    else:
        llm = {"base_url": llm_base_url, "model": llm_model, "max_tokens": llm_max_tokens}
        from kgbuild.query.explorer.curate import TOKEN_ENV, new_token

        os.environ[TOKEN_ENV] = new_token()  # one curation token for every worker
        os.environ[SERVE_ENV] = json.dumps({
            "warehouse": str(engine.wh.root), "snapshot": ref, "embed": embed,
            "index_dir": str(engine.index_dir), "llm": {k: v for k, v in llm.items() if v},
            "all_evidence": all_evidence,
        })  # fmt: skip
        config = GuardedConfig("kgbuild.query.server:app_from_env", guard=guard, factory=True,
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
        uvicorn.Server(config).run(sockets=[sock])
        return
    from uvicorn.supervisors import Multiprocess

    del engine  # the workers open their own (from the index this process cached)
    Multiprocess(config, sockets=[sock]).run()


def adqa(
    files: Annotated[list[Path], typer.Argument(help="ADQA files: MedQA, MedMCQA, MMLU, QA4MRE")],
    snapshot: Snapshot = "latest",
    years: Annotated[str | None, typer.Option(help="Every yearly snapshot, e.g. 2011-2020")] = None,
    kg: KgOpt = None,
    k: K = DEFAULT_K,
    hops: Hops = DEFAULT_HOPS,
    embed: Embed = "mentions",
    llm: Annotated[bool, typer.Option("--llm", help="Answer with the LLM (accuracy)")] = False,
    llm_entities: Annotated[bool, typer.Option(help="LLM names question entities")] = True,
    rerank: Annotated[bool, typer.Option(help="LLM reranks the triples (DALK)")] = True,
    llm_base_url: BaseUrl = None,
    llm_model: Model = None,
    llm_max_tokens: MaxTokens = None,
    replay_entities: Annotated[
        bool,
        typer.Option(
            "--replay-entities",
            help="Retrieve from the recorded question entities (DALK's *_ner.json 'entity' "
            "field) instead of linking the question text",
        ),
    ] = False,
    limit: Annotated[int | None, typer.Option(help="First N questions of each file")] = None,
    out_dir: Annotated[
        Path | None, typer.Option("--out", help="Write JSON, TSV and PNG here")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
    index_dir: IndexDir = None,
    warehouse: Warehouse = None,
) -> None:
    """ADQA (DALK): retrieval figures per subset without an LLM, accuracy with one (--llm),
    against one snapshot or each yearly snapshot (--years: DALK Figure 3)."""
    from kgbuild.query.adqa import read_questions
    from kgbuild.query.answer import make_client
    from kgbuild.query.engine import QueryEngine
    from kgbuild.query.evaluate import DALK_REPORTED, RETRIEVAL_FIGURES, evaluate, year_chart
    from kgbuild.store.snapshots import Warehouse as StoreWarehouse

    questions = []
    for f in files:
        qs = read_questions(f)
        questions += qs[:limit] if limit is not None else qs
    wh = StoreWarehouse(warehouse_path(warehouse)).require().root  # before the LLM cache opens
    client = None
    if llm:
        settings = _settings(llm_base_url, llm_model, llm_max_tokens)
        if not settings.endpoint_configured:
            raise InputError(
                "--llm needs an endpoint: --llm-base-url or OPENAI_BASE_URL / OPENAI_API_KEY"
            )
        client = make_client(settings, wh)
    refs = [snapshot_ref(warehouse, snapshot, kg)]  # --kg: that KG's; with --years, its years
    if years:
        lo, _, hi = years.partition("-")
        hi = hi or lo
        if not all(y.isascii() and y.isdigit() and len(y) == 4 for y in (lo, hi)) or lo > hi:
            raise InputError("use --years FROM-TO, e.g. 2011-2020", years=years)
        name = QueryEngine.kg_of(wh, refs[0])
        refs = [f"{name}@{y}" for y in range(int(lo), int(hi or lo) + 1)]
    results, rows = [], []
    try:
        for ref in refs:
            try:
                engine = QueryEngine(wh, ref, index_dir)
            except StoreError as exc:  # a year after the newest snapshot
                if not years:
                    raise
                err.print(f"{ref}: {exc}; skipped", markup=False, highlight=False)
                continue
            idx = engine.state().index
            if years and str(idx.as_of_year) != ref.rsplit("@", 1)[1]:
                err.print(
                    f"{ref}: no snapshot of that year (nearest earlier: {idx.as_of_year}); skipped"
                )
                continue
            t0 = time.perf_counter()
            res = evaluate(
                engine,
                questions,
                k=k,
                hops=hops,
                embed=embed,
                client=client,
                llm_entities=llm_entities,
                rerank=rerank,
                replay_entities=replay_entities,
            )
            res.update(year=idx.as_of_year, kg=idx.kg, seconds=round(time.perf_counter() - t0, 2))
            results.append(res)
            for s, fig in res["subsets"].items():
                rows.append({"year": idx.as_of_year, "subset": s, **fig})
            if not as_json:
                _print_eval(res, RETRIEVAL_FIGURES, DALK_REPORTED if client else None)
    finally:
        if client is not None:
            client.close()
    report = {"runs": results} if years else results[0]
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "adqa.json").write_text(json.dumps(report, indent=1, sort_keys=True))
        llm_cols = ["accuracy", "accuracy_without_kg", "unparsed"] if client else []
        cols = ["year", "subset", *RETRIEVAL_FIGURES, *llm_cols]
        lines = ["\t".join(cols)] + [
            "\t".join("" if r.get(c) is None else str(r.get(c)) for c in cols) for r in rows
        ]
        (out_dir / "adqa_by_year.tsv").write_text("\n".join(lines) + "\n")
        if years:
            figs = ("hit_gold", "hit_wrong", "kg_accuracy",
                    *(["accuracy", "accuracy_without_kg"] if client else []))  # fmt: skip
            year_chart(rows, out_dir / "adqa_by_year.png", figs)
        err.print(f"wrote {out_dir}")
    if as_json:
        print_json(report)


def _print_eval(
    res: dict[str, Any], figures: tuple[str, ...], reported: dict[str, dict[str, float]] | None
) -> None:
    subsets = list(res["subsets"])
    cols = ["figure", *subsets]
    rows = [[f, *(res["subsets"][s].get(f) for s in subsets)] for f in figures]
    if reported is not None:
        cols.append("AVG")
        rows = [[*r, ""] for r in rows]
        rows.append(
            [
                "accuracy with the KG (ours)",
                *(res["subsets"][s].get("accuracy") for s in subsets),
                res.get("AVG"),
            ]
        )
        rows.append(
            [
                "accuracy, same LLM alone",
                *(res["subsets"][s].get("accuracy_without_kg") for s in subsets),
                res.get("AVG_without_kg"),
            ]
        )
        rows.append(
            ["unparsed (counted wrong)", *(res["subsets"][s].get("unparsed") for s in subsets), ""]
        )
        for name, figs in reported.items():
            rows.append([f"{name} (reported)", *(figs.get(s) for s in subsets), figs["AVG"]])
    out.print(
        _table(
            f"ADQA on {res['kg']}@{res['year']} ({res['snapshot']}), k={res['k']}, "
            f"hops={res['hops']}, embed={res['embed']}"
            f"{', replayed entities' if res.get('replay_entities') else ''}, {res['seconds']}s",
            cols,
            rows,
        )
    )
