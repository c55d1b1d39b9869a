"""``kgbuild eval facts``: does the query side answer the questions a researcher asks?

A fact-retrieval benchmark built from a gold file's relations:

1. the file's abstracts are copied **without their relation lines** (the entity annotation
   lines stay: they are the mentions PubTator would give) and built into a KG with the default
   extractor through the same :class:`~kgbuild.pipeline.spec.BuildSpec` and
   :func:`~kgbuild.pipeline.build.build_kg` that ``kgbuild build`` uses — so nothing the build
   sees says which pairs are related;
2. the gold relations become questions, one per (entity asked about, question form): "Which
   chemicals induce {disease}?" for a BC5CDR CID, "Which genes are associated with
   {disease}?" for a BioRED gene–disease Association, … (:data:`FORMS`, a table); the entity is
   named by its most frequent gold mention text (a name as people write it) and the gold
   answers are the other endpoints (:mod:`.facts_questions`);
3. each question goes through :meth:`kgbuild.query.engine.QueryEngine.retrieve`, and the answer
   entities it ranks are scored: recall@10, MRR, hits@1 and "stated" (:mod:`.facts_score`),
   and shown (:mod:`.facts_report`).

The gold file is read by the gold readers (:mod:`kgbuild.evaluate.gold`), so the held-out test
splits go through unchanged.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbuild.errors import InputError
from kgbuild.evaluate.bootstrap import N_RESAMPLES, SEED
from kgbuild.evaluate.facts_questions import (
    Question,
    co_mention_ranking,
    interleave,
    make_questions,
    mention_texts,
)
from kgbuild.evaluate.facts_score import (
    Ranked,
    Scored,
    is_stated,
    ranks_of,
    score_questions,
    summarize,
)
from kgbuild.evaluate.gold import EVAL_YEAR, GoldCorpus, read_gold_corpus
from kgbuild.evaluate.run_re import scratch_dir, slice_gold
from kgbuild.store.snapshots import Warehouse

#: The KG name of the benchmark's build.
KG = "facts"


# ---- 1. the build, with the relation lines hidden -------------------------------------------
def _is_relation_line(line: str) -> bool:
    """A PubTator line that is neither a title/abstract line nor a mention (``PMID start end
    …``, offsets whole numbers): the relation lines (``PMID type id1 id2 […]``)."""
    head = line.split("|", 2)
    if len(head) == 3 and head[1] in ("t", "a") and "\t" not in head[0]:
        return False
    parts = line.split("\t")
    return len(parts) >= 3 and not parts[1].strip().isdigit()


def hide_relations(source: Path, fmt: str, folder: Path) -> Path:
    """A copy of ``source`` (a gold file as :func:`slice_gold` wrote it) without its relation
    lines (PubTator) or ``relations`` lists (BioC-JSON), in ``folder``; read back to make
    sure no relation is left (a build input that still held one would leak the answers)."""
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "bioc":
        out = folder / "abstracts.json"
        payload = json.loads(source.read_bytes())
        docs = payload["documents"] if isinstance(payload, dict) else payload
        for d in docs:
            if isinstance(d, dict):
                d.pop("relations", None)
                for p in d.get("passages") or []:
                    if isinstance(p, dict):
                        p.pop("relations", None)
        out.write_text(json.dumps(payload), encoding="utf-8")
    else:
        out = folder / "abstracts.pubtator"
        text = source.read_bytes().decode("utf-8", errors="surrogateescape")
        kept = [x for x in text.replace("\r\n", "\n").split("\n") if not _is_relation_line(x)]
        out.write_bytes("\n".join(kept).encode("utf-8", errors="surrogateescape"))
    if read_gold_corpus(out).relations:  # pragma: no cover - the copy above removes them all
        raise RuntimeError(f"relation lines left in {out}")
    return out


def on_hidden_build(doc: str | None,
                    measure: Callable[[Path, Path], dict[str, Any]]) -> None:  # fmt: skip
    """The command line of a measure over a gold file and its hidden build (``--gold``,
    ``--warehouse``): one JSON line of its figures."""
    import argparse

    p = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    p.add_argument("--gold", type=Path, required=True)
    p.add_argument("--warehouse", type=Path, required=True)
    a = p.parse_args()
    print(json.dumps(measure(a.gold, a.warehouse)))


def open_hidden(gold_path: Path, warehouse: Path) -> tuple[GoldCorpus, Any, Any, dict[str, str],
                                                           dict[str, str]]:  # fmt: skip
    """What a measure over a gold file's hidden build reads first: (the gold, a query engine on
    the build without embeddings, its index, the gold IDs → the build's nodes, each gold
    concept's most written mention)."""
    from kgbuild.evaluate.facts_questions import mention_names
    from kgbuild.query.engine import QueryEngine

    gold = _read(gold_path)
    eng = QueryEngine(warehouse, embeddings=False)
    index = eng.state().index
    return gold, eng, index, node_map(Warehouse(warehouse), index.snapshot_id), mention_names(gold)


def build_hidden(source: Path, warehouse: Path) -> tuple[Warehouse, str, dict[str, Any]]:
    """Build ``source`` as ``kgbuild build --source FILE --default-year 2000`` does (the
    default extractor; gold files carry no year, hence the evaluation year)."""
    from kgbuild.pipeline.build import build_kg
    from kgbuild.pipeline.spec import BuildSpec

    spec = BuildSpec.resolve(
        source=str(source), kg=KG, warehouse=str(warehouse), default_year=EVAL_YEAR
    )
    report = build_kg(spec.corpus(), kg=KG, extractor=spec.options(), warehouse=warehouse)
    if report.head is None:  # pragma: no cover - a gold file always has a document
        raise RuntimeError("the build published nothing")
    wh = Warehouse(warehouse)
    sid = report.head.snapshot_id
    config = wh.manifest(sid)["config"]
    return wh, sid, {"extractor": config.get("extractor"), "snapshot": sid}


# ---- 2. questions from the gold relations ---------------------------------------------------
# ---- 3. asking ------------------------------------------------------------------------------
def node_map(wh: Warehouse, sid: str) -> dict[str, str]:
    """Gold CURIE → the KG node its mentions were built as. The build may relink a mention
    (a mouse gene to its human ortholog, a mislinked ID); its mentions table keeps the ID the
    file gave (``annotator_id``) beside the one built, and only IDs that are nodes count.

    A gold ID built as several nodes (relinked in some mentions, not in others) maps to the
    one most of its mentions were built as (ties: the smaller ID), so a score is the same on
    every run: taking the first of an unordered ``DISTINCT`` moved BioRED Train's on-gold
    counts by 6 rows between two runs of one build."""
    rows = wh.query(
        "SELECT coalesce(m.annotator_id, m.concept_id) AS given, m.concept_id AS built "
        "FROM mentions_at(?) m JOIN entities_at(?) e ON e.id = m.concept_id "
        "GROUP BY ALL ORDER BY given, count(*) DESC, built",
        [sid, sid],
    )
    out: dict[str, str] = {}
    for given, built in rows:
        out.setdefault(given, built)
    for _, built in rows:
        out.setdefault(built, built)
    return out


def ranked_answers(r: Any) -> tuple[list[Ranked], str]:
    """Every answer entity a retrieval ranks, best first, and which path gave them:
    ``answers`` (the engine's own ranked answers) or ``triples`` (the other endpoints of the
    ranked triples that touch a question entity, in rank order, deduplicated)."""
    answers = getattr(r, "answers", None)
    if answers is not None:
        return [_answer(a) for a in answers], "answers"
    question = set(_question_ids(r))
    out: dict[str, Ranked] = {}
    for t in r.triples:
        for mine, other in ((t.head_id, t.tail_id), (t.tail_id, t.head_id)):
            if mine in question and other not in question and other not in out:
                ev = t.evidence[0] if t.evidence else None
                out[other] = Ranked(other, ev.sentence if ev else "", ev.pmid if ev else "")
    return list(out.values()), "triples"


def _question_ids(r: Any) -> list[str]:
    return [x.curie for x in r.links if x.where == "question" and x.node is not None]


def _get(obj: Any, name: str, default: Any = None) -> Any:
    return obj.get(name, default) if isinstance(obj, dict) else getattr(obj, name, default)


def _answer(a: Any) -> Ranked:
    """One of the engine's ranked answers (an object or a dict with an ``id``) with its shown
    sentence: ``sentence``/``pmid`` on it, else the first of its ``evidence``."""
    sentence, pmid = _get(a, "sentence") or "", _get(a, "pmid") or ""
    evidence = _get(a, "evidence") or []
    if not sentence and evidence:
        first = evidence[0]
        sentence, pmid = _get(first, "sentence") or "", _get(first, "pmid") or ""
    facts = _get(a, "facts")
    basis = str(_get(a, "basis") or ("fact" if facts is None or facts else "same_abstract"))
    return Ranked(str(_get(a, "id")), str(sentence), str(pmid), basis == "fact", basis)


# ---- 4. the whole run -----------------------------------------------------------------------
@dataclass(slots=True)
class _Snapshot:
    """What scoring needs of the built snapshot: gold ID → node, the nodes, the pairs a
    triple joins, and those a triple with served evidence joins (what the engine reads)."""

    nodes: dict[str, str]
    entities: set[str]
    pairs: set[frozenset[str]]
    served: set[frozenset[str]] = field(default_factory=set)

    @classmethod
    def read(cls, wh: Warehouse, sid: str) -> _Snapshot:
        entities = {i for (i,) in wh.query("SELECT id FROM entities_at(?)", [sid])}
        pairs = {
            frozenset(p) for p in wh.query("SELECT head_id, tail_id FROM triples_at(?)", [sid])
        }
        served = wh.query(
            "SELECT DISTINCT t.head_id, t.tail_id FROM triples_at(?) t "
            "JOIN served_evidence_at(?) e USING (triple_id)",
            [sid, sid],
        )
        return cls(node_map(wh, sid), entities, pairs, {frozenset(p) for p in served})


def score_one(
    q: Question,
    snap: _Snapshot,
    texts: dict[tuple[str, str], set[str]],
    ranked: list[Ranked],
    linked: set[str],
    path: str,
) -> Scored:
    """One question's ranks, stated flags and misses (gold answers counted as KG nodes: two
    gold IDs built as one node, a mouse gene and its human ortholog, are one answer)."""
    asked = snap.nodes.get(q.entity)
    behind: dict[str, list[str]] = {}
    for g in q.answers:
        behind.setdefault(snap.nodes.get(g, g), []).append(g)
    gold = list(behind)
    ids = [a.id for a in ranked]
    ranks = ranks_of(gold, ids) if asked else [None] * len(gold)
    stated, misses, without_fact, bases = [], Counter(), 0, []
    for node, rank in zip(gold, ranks, strict=True):
        if rank is not None:
            shown = ranked[rank - 1]
            without_fact += not shown.fact
            bases.append(shown.basis)
            pmids = set().union(*(q.answers[g] for g in behind[node]))
            answer_texts = set().union(*(texts.get((shown.pmid, g), set()) for g in behind[node]))
            stated.append(
                is_stated(
                    shown.sentence,
                    shown.pmid,
                    pmids,
                    texts.get((shown.pmid, q.entity), set()),
                    answer_texts,
                )
            )
        elif asked is None:
            misses["question_entity_not_in_kg"] += 1
        elif node not in snap.entities:
            misses["answer_not_in_kg"] += 1
        elif asked not in linked:
            misses["question_entity_not_linked"] += 1
        elif frozenset((asked, node)) not in snap.pairs:
            misses["pair_not_joined"] += 1
        elif frozenset((asked, node)) not in snap.served:
            misses["joined_not_served"] += 1
        elif node not in ids:
            misses["joined_not_ranked"] += 1
        else:
            misses["ranked_below_10"] += 1
    return Scored(
        q.form, q.text, q.entity, gold, ids, ranks, stated, dict(misses), path, without_fact, bases
    )  # fmt: skip


def _read(gold_path: Path) -> GoldCorpus:
    try:
        return read_gold_corpus(gold_path)
    except (OSError, UnicodeError, ValueError) as exc:
        raise InputError("cannot read the gold file", path=gold_path, error=str(exc)) from exc


def evaluate_facts(
    gold_path: Path,
    *,
    work: Path | None = None,
    docs: int | None = None,
    limit: int | None = None,
    embeddings: bool = False,
    all_evidence: bool = False,
    resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[dict[str, Any], list[Scored]]:
    """(report, per-question rows) for one gold file. ``docs``: build only the first N
    documents; ``limit``: ask only the first N questions (round-robin over the forms);
    ``work``: keep the build input and warehouse there (default: a temporary folder);
    ``all_evidence``: the engine serves every evidence row, not only asserted ones (as
    ``kgbuild ask --all-evidence``; the default is what ``ask`` serves)."""
    from kgbuild.query.engine import QueryEngine

    gold = _read(gold_path)
    if not gold.relations:
        raise InputError(
            "the gold file holds no relation lines: no question to ask", path=gold_path
        )
    t0 = time.perf_counter()
    with scratch_dir(work) as root:
        sliced = slice_gold(gold, docs, root / "input")
        if docs is not None:
            gold = read_gold_corpus(sliced)
        questions = interleave(make_questions(gold))
        if not questions:
            raise InputError(
                "no gold relation of the file matches a question form",
                types=",".join(sorted({r.rel_type for r in gold.relations})),
            )
        hidden = hide_relations(sliced, gold.fmt, root / "build-input")
        wh, sid, build = build_hidden(hidden, root / "warehouse")
        build["seconds"] = round(time.perf_counter() - t0, 2)
        snap = _Snapshot.read(wh, sid)
        if all_evidence:  # the engine serves every row: a joined pair is a served one
            snap.served = snap.pairs
        texts = mention_texts(gold)
        asked = questions[:limit] if limit else questions
        engine = QueryEngine(wh.root, sid, embeddings=embeddings, all_evidence=all_evidence)
        rows, paths = [], Counter()
        t1 = time.perf_counter()
        for q in asked:
            ranked, path, linked = [], "not asked: entity not in KG", set()
            if q.entity in snap.nodes:
                r = engine.retrieve(q.text)
                ranked, path = ranked_answers(r)
                linked = set(_question_ids(r))
            paths[path] += 1
            rows.append(score_one(q, snap, texts, ranked, linked, path))
        ask_s = time.perf_counter() - t1
    baseline = []
    for q, ranked in zip(asked, co_mention_ranking(gold, asked), strict=True):
        gold_ids = list(q.answers)
        ranks = ranks_of(gold_ids, ranked)
        found = [False] * sum(r is not None for r in ranks)
        baseline.append(Scored(q.form, q.text, q.entity, gold_ids, ranked, ranks, found))
    report = {
        "kind": "facts",
        "gold": {
            "file": gold_path.name,
            "format": gold.fmt,
            "digest": gold.digest,
            "documents": len(gold.documents),
            "relations": len(gold.relations),
            "types": dict(Counter(r.rel_type for r in gold.relations).most_common()),
        },
        "build": build,
        "engine": {"embeddings": embeddings, "all_evidence": all_evidence},
        "questions_generated": dict(Counter(q.form for q in questions)),
        "answers_from": dict(paths),
        "bootstrap": {"unit": "question", "resamples": resamples, "seed": seed, "level": 0.95},
        **score_questions(rows, resamples, seed),
        "co_mention_baseline": {
            k: v
            for k, v in summarize(baseline, resamples, seed).items()
            if k not in ("stated_share", "stated_share_ci", "misses", "stated")
        },
        "seconds": {
            "build": build.pop("seconds"),
            "ask": round(ask_s, 2),
            "per_question_ms": round(1000 * ask_s / max(len(asked), 1), 1),
        },
    }
    return report, rows
