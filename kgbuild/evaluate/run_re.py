"""``kgbuild eval re``: build a gold file's abstracts with an extractor, then score the triples.

The build is the real pipeline (:func:`kgbuild.pipeline.build.build_kg`, the same options as
``kgbuild build``) into a scratch warehouse, with the gold file's entity annotations as the
mentions (BioRED / BC5CDR subtask 1 setting: entities given, relations to find). LLM answers go
to a response cache that outlives the scratch warehouse (by default the user's warehouse's own
``llm_cache.sqlite``), so a re-run, or a run of the other extractor mode, pays only for what it
has not asked before.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgbuild.evaluate.bootstrap import N_RESAMPLES, SEED, resample_indices
from kgbuild.evaluate.ceilings import ceilings
from kgbuild.evaluate.gold import EVAL_YEAR, NOVEL, GoldCorpus, read_gold_corpus
from kgbuild.evaluate.mapping import Scheme, detect_scheme, get_scheme
from kgbuild.evaluate.relations import (
    PredictedTriple,
    gold_facts,
    predicted_facts,
    score_facts,
)
from kgbuild.evaluate.reports import run_id
from kgbuild.extract.base import SliceExtractor
from kgbuild.extract.select import OFFLINE, choose_extractor, make_extractor
from kgbuild.pipeline.build import build_kg, estimate_build
from kgbuild.pipeline.options import LLM_CACHE, ExtractionOptions
from kgbuild.sources.bioc import doc_pmid
from kgbuild.sources.corpus import CuratedAnnotations, LocalCorpus
from kgbuild.store.snapshots import Warehouse

KG = "eval"


@dataclass(slots=True)
class EvalExtraction(ExtractionOptions):
    """Build options whose LLM response cache lives at ``cache_path``, outside the scratch
    warehouse (everything else as :class:`ExtractionOptions`)."""

    cache_path: Path | None = None

    def make(self, warehouse: Path) -> tuple[str, SliceExtractor]:
        settings = self.settings()
        chosen = choose_extractor(self.extractor, settings)
        cache = self.cache_path or warehouse / LLM_CACHE
        return chosen, make_extractor(chosen, settings, cache, self.pairwise_mode, self.chunk_size)


@contextmanager
def scratch_dir(path: Path | None) -> Iterator[Path]:
    """``path`` (kept), or a temporary folder removed afterwards."""
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    tmp = Path(tempfile.mkdtemp(prefix="kgbuild-eval-"))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def slice_gold(gold: GoldCorpus, limit: int | None, folder: Path) -> Path:
    """The gold file, or its first ``limit`` documents in the same format, as a file the
    build reads (``<folder>/gold.pubtator`` / ``gold.json``: a suffix the reader knows)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / ("gold.json" if gold.fmt == "bioc" else "gold.pubtator")
    data = gold.path.read_bytes()
    if limit is not None and limit < len(gold.documents):
        keep = set(gold.pmids[:limit])
        wanted = {p.encode() for p in keep}
        if gold.fmt == "bioc":
            payload = json.loads(data)
            docs = payload["documents"] if isinstance(payload, dict) else payload
            kept = [d for d in docs if isinstance(d, dict) and doc_pmid(d) in keep]
            payload = {**payload, "documents": kept} if isinstance(payload, dict) else kept
            data = json.dumps(payload).encode()
        else:
            blocks = data.replace(b"\r\n", b"\n").split(b"\n\n")
            data = b"\n\n".join(
                b for b in blocks if b.strip() and b.strip().split(b"|", 1)[0] in wanted
            )
            data += b"\n\n"
    out.write_bytes(data)
    return out


def _predictions(wh: Warehouse, sid: str) -> list[PredictedTriple]:
    """The extractor's claims, whatever their status. The sentence reader's own rows (method
    ``reader``) are left out: this measures the document-level extractor, as BioRED and CDR
    annotate relations per document; the reader is measured on the judged sentence corpus
    (``kgbuild reader measure``)."""
    rows = wh.query(
        "SELECT e.pmid, t.head_id, t.relation, t.tail_id, count(*) FROM evidence_at(?) e "
        "JOIN triples_at(?) t USING (triple_id) WHERE e.method <> 'reader' "
        "GROUP BY ALL ORDER BY ALL",
        [sid, sid],
    )
    return [PredictedTriple(p, h, r, t, n) for p, h, r, t, n in rows]


def _build_facts(wh: Warehouse, sid: str) -> dict[str, Any]:
    """Per-document statuses and LLM accounting of the scratch build (every document must end
    with a status: the robustness half of an evaluation)."""
    docs = dict(wh.query("SELECT status, count(*) FROM doc_status_at(?) GROUP BY 1", [sid]))
    extraction = dict(
        wh.query("SELECT status, count(*) FROM extraction_status_at(?) GROUP BY 1", [sid])
    )
    calls = wh.query(
        "SELECT count(*), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0), "
        "coalesce(sum(cost_usd), 0) FROM llm_calls_at(?)",
        [sid],
    )[0]
    outcomes = dict(wh.query("SELECT outcome, count(*) FROM llm_calls_at(?) GROUP BY 1", [sid]))
    rejections = wh.query("SELECT count(*) FROM rejections_at(?)", [sid])[0][0]
    return {
        "documents": dict(sorted(docs.items())),
        "extraction": dict(sorted(extraction.items())),
        "rejected_claims": rejections,
        "llm_requests": calls[0],
        "llm_outcomes": dict(sorted(outcomes.items())),
        "prompt_tokens": int(calls[1]),
        "completion_tokens": int(calls[2]),
        "cost_usd": round(float(calls[3]), 6),
    }


def estimate_re(
    gold_path: Path, options: EvalExtraction, limit: int | None = None
) -> dict[str, Any]:
    """What ``eval re`` would send for this gold file, before spending anything: documents,
    LLM calls (answers already in the cache cost nothing), tokens (≈ characters/4) and cost."""
    gold = read_gold_corpus(gold_path)
    with scratch_dir(None) as root:
        source = slice_gold(gold, limit, root / "input")
        corpus = LocalCorpus(source, None, EVAL_YEAR)
        chosen, per_year = estimate_build(corpus, extractor=options, warehouse=root / "warehouse")
    total = {"extractor": chosen, "model": options.settings().model}
    for field in ("docs", "calls", "cached", "prompt_tokens", "completion_tokens", "cost_usd"):
        total[field] = sum(getattr(e, field) for e in per_year.values())
    total["cost_usd"] = round(total["cost_usd"], 4)
    return total


def evaluate_re(
    gold_path: Path,
    options: EvalExtraction,
    *,
    scratch: Path | None = None,
    scheme: str | None = None,
    novelty: str = NOVEL,
    limit: int | None = None,
    resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(report, run facts): the deterministic report written to the warehouse, and what this
    run alone did (seconds, calls actually sent, cache hits, the scratch location)."""
    gold = read_gold_corpus(gold_path)
    chosen_scheme: Scheme = (
        get_scheme(scheme) if scheme else detect_scheme({r.rel_type for r in gold.relations})
    )
    t0 = time.perf_counter()
    with scratch_dir(scratch) as root:
        source = slice_gold(gold, limit, root / "input")
        if limit is not None:
            gold = read_gold_corpus(source)
            gold.path = gold_path
        wh_path = root / "warehouse"
        report = build_kg(
            CuratedAnnotations(LocalCorpus(source, None, EVAL_YEAR)),
            kg=KG,
            extractor=options,
            warehouse=wh_path,
        )
        wh = Warehouse(wh_path)
        head = report.head
        if head is None:  # pragma: no cover - a gold file always has a document
            raise RuntimeError("scratch build published nothing")
        sid = head.snapshot_id
        triples = _predictions(wh, sid)
        build = _build_facts(wh, sid)
        chosen = wh.manifest(sid)["config"]
    seconds = time.perf_counter() - t0
    idx = resample_indices(len(gold.pmids), resamples, seed)
    pred, aside = predicted_facts(triples, gold, chosen_scheme, novelty)
    scored = score_facts(gold.pmids, gold_facts(gold.relations), pred, chosen_scheme, idx)
    settings = options.settings()
    extractor = {
        "requested": options.extractor,
        "chosen": chosen["extractor"],
        "extraction": chosen["extraction"],
        "embed_model": options.embed_model,
    }
    if chosen["extractor"] not in OFFLINE:
        extractor["llm"] = settings.public()
    out: dict[str, Any] = {
        "kind": "re",
        "gold": _gold_summary(gold, chosen_scheme, limit),
        "extractor": extractor,
        "novelty_assumed": novelty,
        "bootstrap": {"unit": "document", "resamples": resamples, "seed": seed, "level": 0.95},
        "measures": scored["measures"],
        "per_type": scored["per_type"],
        "per_kinds": scored["per_kinds"],
        "ceilings": ceilings(gold, chosen_scheme, novelty),
        "predictions": {"pairs_scored": len(pred), "triples": len(triples), **aside},
        "build": build,
        "per_document": {"pmids": gold.pmids, **scored["per_document"]},
    }
    out = {"run_id": run_id(out), **out}
    facts = {
        "seconds": round(seconds, 2),
        "llm_usage": report.llm_usage,
        "scratch": str(scratch) if scratch else None,
        "snapshot": sid,
    }
    return out, facts


def _gold_summary(gold: GoldCorpus, scheme: Scheme, limit: int | None) -> dict[str, Any]:
    return {
        "file": gold.path.name,
        "format": gold.fmt,
        "digest": gold.digest,
        "content_digest": gold.content_digest(),
        "scheme": scheme.name,
        "limit": limit,
        "documents": len(gold.documents),
        "relations": len(gold.relations),
        "types": dict(Counter(r.rel_type for r in gold.relations).most_common()),
        "novelty": dict(Counter(r.novelty for r in gold.relations if r.novelty).most_common()),
        "problems": dict(sorted(Counter(p.kind for p in gold.problems).items())),
    }
