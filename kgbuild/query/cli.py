"""``kgbuild ask`` (registered by kgbuild/cli/app.py; defined here so the query stage owns its
interface), and the options ``serve`` and ``eval adqa`` share with it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from kgbuild.errors import InputError, QueryError
from kgbuild.helptext import examples
from kgbuild.llm.options import BaseUrl, MaxTokens, Model, llm_settings
from kgbuild.query.entity_lists import LETTERS
from kgbuild.query.limits import DEFAULT_HOPS, DEFAULT_K, DEFAULT_TOKEN_BUDGET, NO_ENTITY
from kgbuild.query.llm import MAX_ANSWER_CHARS
from kgbuild.settings import warehouse_path
from kgbuild.store.cli_options import KgOpt, snapshot_ref
from kgbuild.store.sql_output import print_json

if TYPE_CHECKING:
    from kgbuild.query.engine import QueryEngine, Retrieval
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

#: The ``--help`` examples of the commands below (their epilogs, given where they are mounted).
ASK_EXAMPLES = examples(
    'kgbuild ask "Does APOE interact with APP in Alzheimer\'s disease?" --no-llm',
    'kgbuild ask "What is a risk factor of Alzheimer\'s?" --choices "APOE;APP"',
    'kgbuild ask "Does APOE regulate APP?" --no-llm --kind Gene --as-of 2015',
)


def _table(title: str, cols: list[str], rows: list[list[Any]]) -> Table:
    t = Table(title=title)
    for c in cols:
        t.add_column(c, overflow="fold")
    for r in rows:
        t.add_row(*("" if v is None else escape(str(v)) for v in r))
    return t


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
    settings = llm_settings(llm_base_url, llm_model, llm_max_tokens)
    use_llm = not no_llm and settings.endpoint_configured
    from kgbuild.query.engine import QueryEngine

    engine = QueryEngine(warehouse_path(warehouse), snapshot, index_dir)
    f = _filters(relation, kind, min_support, min_confidence, as_of, all_evidence)
    options = {"k": k, "hops": hops, "token_budget": token_budget, "embed": embed, "filters": f}
    if use_llm:
        from kgbuild.llm.options import make_client
        from kgbuild.query.answer import answer_question

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
        from kgbuild.corpus.unwritten import unwritten_note

        why = unwritten_note(engine.wh, r.snapshot_id, r.unlinked(), r.as_of_year)
        raise QueryError(NO_ENTITY + (f": {why}" if why else ""), snapshot=r.snapshot_id,
                         unlinked="; ".join(r.unlinked()))  # fmt: skip
    rdict = data["retrieval"] if a is not None else data
    dress_shown(engine, r, rdict, all_evidence)
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


def dress_shown(engine: QueryEngine, r: Retrieval, rdict: dict[str, Any],
                all_evidence: bool = False) -> None:  # fmt: skip
    """What ``ask`` shows beside the retrieval, added to its dict ``rdict``: the entity spans
    marked in each sentence, a yes/no pair's statuses, each fact's curations."""
    from kgbuild.corpus.marks import annotate
    from kgbuild.query.curated import add_curations
    from kgbuild.query.verdict import add_statuses, status_rows

    annotate(engine.for_year(r.as_of_year).state().index, rdict,
             "any" if all_evidence else "asserted")  # fmt: skip
    v = rdict.get("verdict")
    if v and v.get("pair") and len(v["pair"]) == 2:
        add_statuses(v, status_rows(engine.wh, r.snapshot_id, *v["pair"]))
    add_curations(engine.wh.root, rdict)  # each fact's curations (kgbuild.query.curated)


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
        read = rdict.get("choice_reading") or {}
        said = rdict.get("abstract_choice") or {}
        if kg is not None and said.get("choice") == kg:
            pmids = ", ".join(said["pmids"])
            return (
                f"KG-only answer {LETTERS[kg]}. {choices[kg]} — read from the abstracts that "
                f"best match the question, not KG facts (PMIDs {pmids})"
            )
        if kg is not None and read.get("choice") == kg:
            pmids = ", ".join(x["pmid"] for x in read["sentences"][kg])
            return (
                f"KG-only answer {LETTERS[kg]}. {choices[kg]} — read from sentences, not KG "
                f"facts (PMIDs {pmids})"
            )
        return (
            f"KG-only answer {LETTERS[kg]}. {choices[kg]}"
            if kg is not None
            else "no KG-only answer: the snapshot supports no choice over the others"
        )
    v = rdict.get("verdict")
    said = rdict.get("answering") or []
    if said and reader_leads(rdict):  # what the abstracts say, where nothing else answers
        best = said[0]
        return (f"{ANSWERING_LEAD}: {best['sentence']}  (PMID {best['pmid']}, {best['year']}; "
                "what the abstract writes, not a KG fact)")  # fmt: skip
    if v:
        return f"verdict: {v['line']}"
    shown = rdict.get("passages") or []
    if shown and not rdict.get("answers") and not rdict.get("links"):
        best = shown[0]
        return (f"from abstracts, not KG facts: {len(shown)} abstracts write most of the "
                f"question (best: PMID {best['pmid']}, {best['year']})")  # fmt: skip
    return None


def _print_reading(read: dict[str, Any] | None) -> None:
    """What the sentences say about options the facts do not separate
    (:mod:`kgbuild.corpus.choice_reading`): the why, and the deciding sentences with PMIDs."""
    if not read:
        return
    out.print(
        "sentence reading per choice: "
        + ", ".join(f"{LETTERS[i]} {s:+.2f}" for i, s in enumerate(read["scores"]))
        + f" — {read['why']}"
    )
    if read.get("choice") is None:
        return
    for x in read["sentences"][read["choice"]]:
        out.print(escape(f"  {x['sentence']}  PMID {x['pmid']} ({x['year']})"))


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


def _relations(a: dict[str, Any]) -> str:
    """The answer's relations column: the genes shared, for an answer reached through them."""
    if a.get("shared"):
        return str(a.get("why", ""))
    return ", ".join(a["relation"][:3]) or "—"


def _basis(answer: dict[str, Any]) -> str:
    """What an answer rests on, in words: an asserted fact, a fact whose evidence has another
    status (with the statuses), or only a shared sentence or abstract."""
    basis = answer.get("basis", "fact")
    if basis == "weaker_fact":
        said = {
            ev.get("status") for f in answer.get("facts") or [] for ev in f.get("evidence") or []
        }
        return "fact, " + ("/".join(sorted(s for s in said if s)) or "not asserted")
    if basis == "sentence":
        return "sentences only"
    if basis == "same_sentence":
        return "same sentence only"
    return "same abstract only" if basis == "same_abstract" else "asserted fact"


def _print_retrieval(r: Retrieval, rdict: dict[str, Any] | None = None,
                     line: str | None = None) -> None:  # fmt: skip
    """The retrieval for a person: linking, what the question asks, the answers or the
    yes/no verdict, the ranked facts, and each fact's best sentence with «head» and «tail»
    marked (``rdict``: the JSON with the marked evidence, :func:`kgbuild.corpus.marks.annotate`).
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
    led = bool(line and line.startswith(ANSWERING_LEAD + ":"))
    if led:  # the reader's next sentences beside its first, before what else was read
        _print_answering(rdict, line)
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
    if it.get("answer_note"):  # with answers: a caveat on them ("has only 1 asserted answer")
        said = "note" if rdict.get("answers") else "no answer"
        out.print(Text(f"{said}: {it['answer_note']}", style="bold"))
    verdict = rdict.get("verdict")
    if verdict:
        if line != "verdict: " + verdict["line"]:  # not already the answer line
            out.print(Text("verdict: " + verdict["line"], style="bold"))
        if verdict.get("pmids"):
            out.print(Text(f"  PMIDs: {', '.join(verdict['pmids'])}", style="dim"))
        for x in verdict.get("sentences") or []:  # a verdict read from sentences shows them
            said = f" [{x['reading']}]" if x["reading"] else ""
            out.print(Text(f"  PMID {x['pmid']} ({x['year']}){said}: {x['sentence']}"))
    if not led:
        _print_answering(rdict, line)
    if rdict.get("answers"):
        rows = [
            [i, a["name"], a["id"], _relations(a), _basis(a), a["support"],
             f"{a['score']:.3f}"]
            for i, a in enumerate(rdict["answers"][:10], 1)
        ]  # fmt: skip
        kind = it.get("answer_kind") or it.get("answer_type") or "any kind"
        title = f"answers ({kind}), best first"
        cols = ["#", "answer", "CURIE", "relations", "rests on", "PMIDs", "score"]
        out.print(_table(title, cols, rows))
        said = [(i, a) for i, a in enumerate(rdict["answers"][:10], 1)
                if a.get("basis") == "same_sentence" and a.get("sentence")]  # fmt: skip
        if said:
            out.print("same-sentence answers: the sentence naming both (not an extracted fact)")
        for i, a in said:
            line = Text(f"  #{i} ")
            line.append(a["sentence"])
            line.highlight_regex(r"«[^«»]*»", "bold cyan")
            line.append(f"  PMID {a['pmid']}", style="dim")
            out.print(line)
    _print_passages(rdict)
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
        _print_reading(r.choice_reading)
    out.print(Text(timing_line(r.timings), style="dim"))


#: How the answer line names a sentence the answer-sentence reader chose.
ANSWERING_LEAD = "read from the abstracts"
#: Verdicts that answer nothing themselves: they say which sentences were read, or that the
#: question's words were not found.
READING_VERDICTS = frozenset({"from sentences", "not found"})


def reader_leads(rdict: dict[str, Any]) -> bool:
    """Does the answer-sentence reader's best sentence answer an open question (no choices,
    not yes/no)? When no verdict answers it, or the verdict only reports the sentences a word
    or entity of the question is named in ("1,215 sentences name MAPT", "82 name 'Besides'")
    or that its words were not found. In walk 18 the judges named such verdicts above
    sentences that answered as what a newcomer takes away; a yes/no verdict or a pair's facts
    keep the line."""
    if rdict.get("choices") or (rdict.get("intent") or {}).get("yes_no"):
        return False
    v = rdict.get("verdict")
    return not v or v.get("answer") in READING_VERDICTS


def _print_answering(rdict: dict[str, Any], line: str | None) -> None:
    """The sentences that best answer an open question (:mod:`kgbuild.corpus.answer_reader`),
    after the verdict and before the facts' answers: the one already the answer line is not
    repeated. Untrusted text, never markup."""
    from rich.text import Text

    said = rdict.get("answering") or []
    lead = bool(line and line.startswith(ANSWERING_LEAD + ":"))
    rest = said[1:] if lead else said
    if not rest:
        return
    out.print(("also " if lead else "") + "the sentences that best answer it (read from the "
              "abstracts by a reader trained on blind-judged answers; not KG facts)")  # fmt: skip
    for x in rest:
        row = Text(f"  PMID {x['pmid']} ({x['year']}): ")
        row.append(x["sentence"])
        out.print(row)


#: Characters of a shown abstract's title printed.
MAX_TITLE = 100


def _print_passages(rdict: dict[str, Any]) -> None:
    """The abstracts that best match the question (:mod:`kgbuild.search.abstracts`), each by
    its sentence closest to the question (:mod:`kgbuild.corpus.answer_sentences`) or, without
    an encoder, the one that writes most of it; untrusted text, never markup."""
    from rich.text import Text

    shown = rdict.get("passages") or []
    if not shown:
        return
    n = (rdict.get("diagnostics") or {}).get("abstracts_indexed", 0)
    each = (", each by its sentence closest to the question in words and meaning"
            if "closeness" in shown[0] else "")  # fmt: skip
    out.print(f"abstracts that best match the question (BM25 over {n:,} abstracts{each}; what "
              "they write, not KG facts)")  # fmt: skip
    for x in shown:
        line = Text(f"  PMID {x['pmid']} ({x['year']}): ")
        line.append(x["sentence"])
        if x["sentence"] != x["title"]:
            cut = x["title"][:MAX_TITLE] + ("…" if len(x["title"]) > MAX_TITLE else "")
            line.append(f"  [{cut}]", style="dim")
        out.print(line)
        if x.get("closing"):
            out.print(Text("    closing: " + x["closing"]))


def timing_line(timings: dict[str, float]) -> str:
    """The retrieval's time, labelled, with its steps ("retrieval took 21.0 ms: link 3.1,
    explore 4.0, …"): a bare "21.0 ms" at the end of the output said nothing of what it timed."""
    steps = ", ".join(f"{k.removesuffix('_ms')} {v:.1f}" for k, v in timings.items()
                      if k != "total_ms")  # fmt: skip
    total = timings.get("total_ms", 0.0)
    return f"retrieval took {total:.1f} ms" + (f" ({steps} ms)" if steps else "")
