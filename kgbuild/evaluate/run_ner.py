"""``kgbuild eval ner``: annotate a gold file's documents with one or more NER models and score
each model's mentions per type, strict and overlapping, with bootstrap intervals.

Every row names the model that produced it. A model is scored only on the types its labels map
to (``data/scispacy_labels.tsv``): a chemistry model gets a Chemical row and a Disease row that
says it has no Disease label, instead of a Disease F1 of 0 that reads like a failure; its micro
row pools the types it labels. By default every installed model of :data:`KNOWN_MODELS` runs.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator, install_command, source_type
from kgbuild.errors import ConfigError
from kgbuild.evaluate.bootstrap import N_RESAMPLES, SEED, resample_indices, scores
from kgbuild.evaluate.gold import GoldCorpus, read_gold_corpus
from kgbuild.evaluate.ner import canonical_type, entity_type, ner_counts
from kgbuild.evaluate.reports import run_id

#: spaCy NER pipelines kgbuild knows how to read (their labels are in data/scispacy_labels.tsv).
KNOWN_MODELS = (
    "en_ner_bc5cdr_md",
    "en_chem_ner",
    "en_ner_bionlp13cg_md",
    "en_ner_craft_md",
    "en_ner_jnlpba_md",
)
#: Pipeline components whose labels are entity types.
_NER_FACTORIES = frozenset({"ner", "beam_ner", "entity_ruler", "span_ruler"})


def installed_models() -> list[str]:
    """The models of :data:`KNOWN_MODELS` installed in this environment."""
    import spacy

    return [m for m in KNOWN_MODELS if spacy.util.is_package(m)]


def default_models() -> list[str]:
    """Every installed known model; ConfigError naming the install commands when none is."""
    found = installed_models()
    if not found:
        raise ConfigError(
            "no NER model installed; install one: "
            + "; ".join(install_command(m) for m in ("en_chem_ner", "en_ner_bc5cdr_md"))
        )
    return found


def model_labels(annotator: SciSpacyAnnotator) -> list[str]:
    """Entity labels the annotator's pipeline can produce (NER and rulers)."""
    nlp = annotator.nlp
    labels: set[str] = set()
    for name, pipe in nlp.pipeline:
        if nlp.get_pipe_meta(name).factory in _NER_FACTORIES:
            labels.update(getattr(pipe, "labels", ()) or ())
    return sorted(labels)


def model_types(annotator: SciSpacyAnnotator) -> list[str]:
    """Scored types (Hetionet kind, else source type) the annotator's labels map to."""
    return sorted({canonical_type(source_type(label)) for label in model_labels(annotator)})


def _gold_types(gold: GoldCorpus) -> list[str]:
    return sorted({entity_type(m) for ms in gold.mentions.values() for m in ms})


def evaluate_ner(
    gold_path: Path,
    annotators: list[SciSpacyAnnotator],
    *,
    types: list[str] | None = None,
    limit: int | None = None,
    resamples: int = N_RESAMPLES,
    seed: int = SEED,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(report, run facts) for the annotators on the first ``limit`` gold documents."""
    gold = read_gold_corpus(gold_path)
    docs = gold.documents[:limit] if limit is not None else gold.documents
    pmids = [d.pmid for d in docs]
    gold_mentions = {p: gold.mentions[p] for p in pmids}
    wanted = list(dict.fromkeys(canonical_type(t) for t in types)) if types else None
    wanted = wanted or _gold_types(gold)
    idx = resample_indices(len(pmids), resamples, seed)
    rows: list[dict[str, Any]] = []
    per_document: dict[str, Any] = {"pmids": pmids}
    models: list[dict[str, Any]] = []
    seconds: dict[str, float] = {}
    for ann in annotators:
        t0 = time.perf_counter()
        predicted = ann.annotate_many(docs)
        seconds[ann.model] = round(time.perf_counter() - t0, 2)
        covered = [t for t in wanted if t in model_types(ann)]
        models.append(
            {
                "model": ann.model,
                "annotator": ann.annotator,
                "labels": model_labels(ann),
                "types": covered,
                "abbreviations": ann._detector is not None,
            }
        )
        counts = ner_counts(pmids, gold_mentions, predicted, covered)
        for t in wanted:
            row: dict[str, Any] = {"model": ann.model, "type": t}
            if t not in covered:
                n_gold = sum(1 for ms in gold_mentions.values() for m in ms if entity_type(m) == t)
                rows.append({**row, "n_gold": n_gold, "note": "the model has no label for it"})
                continue
            rows.append(_row(row, counts[t], idx, per_document))
        if covered:
            rows.append(
                _row({"model": ann.model, "type": "micro"}, counts["micro"], idx, per_document)
            )
    report: dict[str, Any] = {
        "kind": "ner",
        "gold": {
            "file": gold.path.name,
            "format": gold.fmt,
            "digest": gold.digest,
            "content_digest": gold.content_digest(pmids),
            "limit": limit,
            "documents": len(pmids),
            "mentions": dict(
                Counter(entity_type(m) for ms in gold_mentions.values() for m in ms).most_common()
            ),
            "problems": dict(sorted(Counter(p.kind for p in gold.problems).items())),
        },
        "types": wanted,
        "models": models,
        "bootstrap": {"unit": "document", "resamples": resamples, "seed": seed, "level": 0.95},
        "rows": rows,
        "per_document": per_document,
    }
    return {"run_id": run_id(report), **report}, {"seconds": seconds}


def _row(
    row: dict[str, Any], counts: dict[str, Any], idx: Any, per_document: dict[str, Any]
) -> dict[str, Any]:
    strict, overlap = scores(counts["strict"], idx), scores(counts["overlap"], idx)
    key = f"{row['model']}|{row['type']}"
    per_document[f"{key}|strict"] = counts["strict"].tolist()
    per_document[f"{key}|overlap"] = counts["overlap"].tolist()
    return {**row, "n_gold": strict["n_gold"], "n_predicted": strict["n_predicted"],
            "strict": strict, "overlap": overlap}  # fmt: skip
