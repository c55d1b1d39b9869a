"""A synthetic KG published as real snapshots (test and benchmark support, not a product path).

The records go through the same ``Warehouse.writer(kg).add(…)`` / ``.commit(…)`` the pipeline
uses, so the snapshot is indistinguishable from a built one for every reader (SQL, exports,
report): entities of the three DALK kinds plus unlinked ``free:`` nodes, triples with canonical
relations and metaedges, evidence from generative (LLM) and co-occurrence extraction, documents,
statuses and LLM accounting. ``tricky=True`` puts quotes, commas, pipes, semicolons, tabs,
newlines, backticks and non-ASCII letters into names, aliases and sentences, which every export
format must carry (or clean, as documented) without breaking a row.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

from kgbuild.llm.client import LLMSettings
from kgbuild.pipeline.build import build_kg
from kgbuild.pipeline.options import ExtractionOptions
from kgbuild.records import (
    DocStatus,
    Document,
    Entity,
    Evidence,
    ExtractionStatus,
    LLMCall,
    SnapshotCounts,
    Triple,
    stable_id,
)
from kgbuild.store.snapshots import Warehouse

KINDS = ("Gene", "Compound", "Disease")
PREFIX = {"Gene": "NCBIGene", "Compound": "MESH", "Disease": "MESH"}
#: (relation, head kind, tail kind, metaedge) — DALK Table 11 and open predicates.
RELATIONS = [
    ("treats", "Compound", "Disease", "CtD"), ("binds", "Compound", "Gene", "CbG"),
    ("upregulates", "Compound", "Gene", "CuG"), ("downregulates", "Compound", "Gene", "CdG"),
    ("associates", "Disease", "Gene", "DaG"), ("regulates", "Gene", "Gene", "Gr>G"),
    ("interacts", "Gene", "Gene", "GiG"), ("covaries", "Gene", "Gene", "GcG"),
    ("resembles", "Disease", "Disease", "DrD"), ("palliates", "Compound", "Disease", "CpD"),
    ("isa", "", "", None), ("part_of", "", "", None), ("biomarker_of", "", "Disease", None),
    ("related_to", "", "", None), ("associates", "", "", None),
]  # fmt: skip
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]
TRICKY = ['"quoted"', "a, b", "x|y", "p;q", "tab\there", "line\nbreak", "β-amyloid", "`tick`",
          "o'brien", "Ωmega ü"]  # fmt: skip


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def _entities(rng: random.Random, n_nodes: int, free_share: float, tricky: bool) -> list[Entity]:
    out = []
    for i in range(n_nodes):
        name = f"{_word(rng)} {_word(rng)}"
        if tricky and i % 7 == 0:
            name = f"{name} {TRICKY[i % len(TRICKY)]}"
        if rng.random() < free_share:
            norm = " ".join(name.lower().split())  # free ids are normalized names (one line)
            out.append(Entity(f"free:{norm} {i}", name, "", [name], 0))
            continue
        kind = KINDS[i % 3]
        aliases = [name, name.upper()] + ([TRICKY[(i + 3) % len(TRICKY)]] if tricky else [])
        out.append(Entity(f"{PREFIX[kind]}:{'D' if kind != 'Gene' else ''}{i}", name, kind,
                          aliases, 0))  # fmt: skip
    return out


def _triples(rng: random.Random, ents: list[Entity], n: int) -> Iterator[Triple]:
    by_kind = {k: [e for e in ents if e.type == k] for k in KINDS}
    by_kind[""] = ents
    seen: set[str] = set()
    while len(seen) < n:
        rel, hk, tk, metaedge = rng.choice(RELATIONS)
        head, tail = rng.choice(by_kind[hk]), rng.choice(by_kind[tk])
        if head.id == tail.id:
            continue
        tid = stable_id(head.id, rel, tail.id)
        if tid in seen:
            continue
        seen.add(tid)
        typed = head.type == hk and tail.type == tk and hk != ""
        yield Triple(tid, head.id, rel, tail.id, rel.replace("_", " "), "generative",
                     metaedge if typed else None)  # fmt: skip


def publish_synthetic(
    root: Path,
    n_triples: int,
    n_nodes: int,
    kg: str = "synthetic",
    years: tuple[int, ...] = (2020,),
    seed: int = 7,
    free_share: float = 0.2,
    tricky: bool = False,
    chunk: int = 100_000,
) -> list[str]:
    """Publish one snapshot per year (the triples spread over the years, cumulative); returns
    the snapshot ids, oldest first."""
    rng = random.Random(seed)
    wh = Warehouse(Path(root))
    writer = wh.writer(kg)
    ents = _entities(rng, n_nodes, free_share, tricky)
    all_triples = list(_triples(rng, ents, n_triples))
    per_year = -(-len(all_triples) // len(years))
    n_pmids = max(10, n_triples // 3)
    totals = dict.fromkeys(["documents", "llm_calls"], 0)
    nodes: set[str] = set()
    relations: set[str] = set()
    ids = []
    for y, year in enumerate(years):
        triples = all_triples[y * per_year : (y + 1) * per_year]
        first = {e.id: e for e in ents}
        for t in triples:
            for node in (t.head_id, t.tail_id):
                if node not in nodes:
                    nodes.add(node)
                    e = first[node]
                    writer.add("entities", [Entity(e.id, e.name, e.type, e.aliases, year)])
            relations.add(t.relation)
        for i in range(0, len(triples), chunk):
            part = triples[i : i + chunk]
            writer.add("triples", part)
            writer.add("evidence", list(_evidence(rng, part, year, n_pmids, tricky)))
        lo, hi = y * n_pmids // len(years), (y + 1) * n_pmids // len(years)
        docs = [Document(str(10_000_000 + p), year, f"Title {p}", f"Abstract {p}.", None, "syn")
                for p in range(lo, hi)]  # fmt: skip
        writer.add("documents", docs)
        writer.add("doc_status", [DocStatus(d.pmid, f"{year}.pubtator", i, year, "built", "", 2)
                                  for i, d in enumerate(docs)])  # fmt: skip
        status = ["done"] * 18 + ["partial", "failed"]
        writer.add("extraction_status", [
            ExtractionStatus(d.pmid, year, "generative", status[i % 20], "", 1, 3, 0, 900, 120,
                             0.0002, "synthetic-llm", "generative/v1") for i, d in enumerate(docs)
        ])  # fmt: skip
        writer.add("llm_calls", [
            LLMCall(d.pmid, year, "generative", 0, "synthetic-llm", "generative/v1",
                    "ok" if status[i % 20] != "failed" else "failed", 900, 120, 0.0002)
            for i, d in enumerate(docs)
        ])  # fmt: skip
        totals["documents"] += len(docs)
        totals["llm_calls"] += len(docs)
        n_ev = writer.tables["evidence"].rows
        counts = {
            "records": totals["documents"], "documents": totals["documents"], "duplicates": 0,
            "rejected": 0, "mentions": 0, "entities": len(nodes), "nodes": len(nodes),
            "relations": len(relations), "triples": writer.tables["triples"].rows,
            "evidence": n_ev, "problems": 0, "extraction_done": totals["documents"] * 18 // 20,
            "extraction_partial": totals["documents"] // 20,
            "extraction_failed": totals["documents"] // 20, "rejections": 0,
            "llm_calls": totals["llm_calls"], "llm_prompt_tokens": 900 * totals["llm_calls"],
            "llm_completion_tokens": 120 * totals["llm_calls"],
            "llm_cost_usd": round(0.0002 * totals["llm_calls"], 6),
        }  # fmt: skip
        info = writer.commit(year, f"synthetic-{seed}", {"extractor": "generative"},
                             f"synthetic:{seed}:{year}", "synthetic",
                             SnapshotCounts.from_dict(counts))  # fmt: skip
        ids.append(info.snapshot_id)
    return ids


def _evidence(
    rng: random.Random, triples: list[Triple], year: int, n_pmids: int, tricky: bool
) -> Iterator[Evidence]:
    for t in triples:
        for k in range(rng.choice((1, 1, 1, 2, 3))):
            pmid = str(10_000_000 + rng.randrange(n_pmids))
            method = "cooccurrence" if rng.random() < 0.3 else "generative"
            sentence = f"{t.relation_raw} in sentence {k} of {pmid}."
            if tricky and k == 0:
                sentence += " " + TRICKY[len(t.triple_id) % len(TRICKY)] + " " + t.triple_id[:4]
            yield Evidence(
                stable_id(t.triple_id, pmid, k), t.triple_id, pmid, year, sentence, 0,
                len(sentence), 0, 1, 2, 3, method, f"kgbuild.{method}/1",
                "synthetic-llm" if method == "generative" else None,
                "generative/v1" if method == "generative" else None, t.relation_raw,
                "head", "tail", 0.7 if method == "generative" else 0.3,
            )  # fmt: skip


def build_fixture_kgs(base: Path) -> dict[str, Warehouse]:
    """KGs the pipeline builds from the fixture corpora: ``cooc`` (co-occurrence, with input
    problems) and ``gen`` (generative through the replayed DALK LLM outputs, one unlinked node)."""
    from tests.conftest import FIXTURES
    from tests.support.replay_llm_server import ReplayLLM, serve_llm

    cooc = ExtractionOptions("cooccurrence", None, embed_model="none")
    build_kg(FIXTURES / "corpus", kg="cooc", warehouse=base / "cooc", extractor=cooc)
    with serve_llm(ReplayLLM(FIXTURES / "llm" / "recordings")) as url:
        settings = LLMSettings(model="dalk-replay", base_url=url, api_key="sk-x", backoff_s=0.05)
        opts = ExtractionOptions("generative", settings, "batched", 80, embed_model="none")
        build_kg(FIXTURES / "llm" / "corpus", kg="gen", extractor=opts, warehouse=base / "gen")
    return {k: Warehouse(base / k) for k in ("cooc", "gen")}
