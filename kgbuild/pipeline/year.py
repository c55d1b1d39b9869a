"""One year slice folded into the KG state in bounded batches (DALK §3.1 time slices).

The year is processed in three passes over its batches, so that memory holds one batch (plus
the KG's node and edge state) while the result is exactly what folding the whole slice at once
gives — the same rows, the same snapshot content hash:

1. **ingest** — each batch's records: statuses, annotator IDs checked against their concept's
   own names and mislinked ones removed (:func:`~kgbuild.resolve.mislinked.unlink_slice`),
   surface forms and kinds observed — a form becomes an alias only if its check passed
   (:func:`~kgbuild.resolve.idcheck.spreads`) — the document-side rows staged;
2. **extract** — each batch's documents go through the extractor as soon as they are ingested
   (here, or as tasks on a Dask cluster: :mod:`kgbuild.pipeline.runner`); the year's
   abbreviations, free nodes and open predicates are gathered in batch order and the claims
   spilled to the build's scratch folder;
3. **resolve and re-key** — the year's free nodes are resolved once, against every surface form
   of the year (as a whole slice was), then each batch's claims are re-keyed onto nodes and
   canonical relations and merged into the KG's triples.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from kgbuild.extract.base import ExtractionResult
from kgbuild.pipeline.batches import Spill, doc_batches
from kgbuild.records import Document, Mention, Resolution
from kgbuild.resolve.merge import resolve_slice
from kgbuild.resolve.mislinked import unlink_slice
from kgbuild.resolve.naming import form_owners
from kgbuild.resolve.orthologs import evidence_species, species_documents
from kgbuild.resolve.relations import canonical_relation
from kgbuild.sources.local import YearSlice

if TYPE_CHECKING:
    from kgbuild.pipeline.state import KGState

Batch = tuple[list[Document], dict[str, list[Mention]]]


class Sink(Protocol):
    """Where a year's rows go (a :class:`~kgbuild.store.snapshots.SnapshotWriter`)."""

    def add(self, table: str, records: list[Any]) -> None: ...

    def spill(self) -> None: ...


class Runner(Protocol):
    """Runs the extractor over batches; yields results in batch order."""

    def map(self, batches: Iterator[Batch]) -> Iterator[ExtractionResult]: ...


def fold_year(
    state: KGState,
    year: int,
    batches: Iterator[YearSlice],
    runner: Runner,
    sink: Sink,
    spill: Spill,
) -> None:
    """Fold one year's batches into ``state``, staging every new or changed row in ``sink``."""
    touched: set[str] = set()
    free: dict[str, str] = {}
    open_raws: dict[str, None] = {}
    species_docs: dict[str, list[Mention]] = {}  # documents with non-human gene IDs
    results = runner.map(_ingest(state, year, batches, sink, touched, species_docs))
    n_batches = 0
    for i, result in enumerate(results):  # pass 2: extract (pulls pass 1 batch by batch)
        n_batches += 1
        state.resolver.observe_abbreviations((a.short, a.long) for a in result.abbreviations)
        for e in result.free_nodes:
            free.setdefault(e.id, e.name)
        for t in result.triples:
            if canonical_relation(t.relation_raw).method == "open":
                open_raws.setdefault(t.relation_raw)
        for x in result.statuses:
            state.n[f"extraction_{x.status}"] += 1
        state.n.update(
            rejections=len(result.rejections),
            llm_calls=len(result.calls),
            llm_prompt_tokens=sum(c.prompt_tokens for c in result.calls),
            llm_completion_tokens=sum(c.completion_tokens for c in result.calls),
        )
        state.cost_usd += sum(c.cost_usd for c in result.calls)
        sink.add("extraction_status", result.statuses)
        sink.add("rejections", result.rejections)
        sink.add("llm_calls", result.calls)
        sink.add("abbreviations", result.abbreviations)
        for e in result.evidence:  # the species of a non-human gene endpoint
            if e.pmid in species_docs:
                spans = ((e.head_start, e.head_end), (e.tail_start, e.tail_end))
                e.species = evidence_species(species_docs[e.pmid], spans)
        spill.put("claims", i, result.triples, result.evidence)
        sink.spill()

    # pass 3: the year's free nodes and open predicates once, then each batch's claims
    resolutions: list[Resolution] = state.resolver.resolve(free, year)
    state.resolver.map_predicates(open_raws)
    for i in range(n_batches):
        triples, evidence = spill.take("claims", i)
        resolved = resolve_slice(
            ExtractionResult(triples=triples, evidence=evidence),
            state.resolver,
            state.kind_of,
            year,
        )
        new = [t for t in resolved.triples if t.triple_id not in state.triple_ids]
        for t in new:
            state.triple_ids.add(t.triple_id)
            state.nodes.update((t.head_id, t.tail_id))
            state.relations.add(t.relation)
        state.n.update(evidence=len(resolved.evidence), rejections=len(resolved.rejections))
        sink.add("triples", new)
        sink.add("evidence", resolved.evidence)
        sink.add("rejections", resolved.rejections)
        sink.spill()

    free_changed = state._observe_free(resolutions)
    state._owners = form_owners(state.forms, {c: state.kind_of(c) or "" for c in state.forms})
    sink.add("resolutions", resolutions)
    sink.add(
        "entities",
        [state.entity(e) for e in sorted(touched)]
        + [state.free_entity(e) for e in sorted(free_changed)],
    )


def _ingest(
    state: KGState,
    year: int,
    batches: Iterator[YearSlice],
    sink: Sink,
    touched: set[str],
    species_docs: dict[str, list[Mention]],
) -> Iterator[Batch]:
    """Pass 1, batch by batch, handing each batch's documents on to extraction (which needs
    nothing of the state, so it may run while later batches are still being read)."""
    for ys in batches:
        ys = unlink_slice(ys, gene_forms=state.gene_forms)  # annotator IDs checked
        state.observe_gene_forms(ys.mentions)  # the ortholog vote's tally, as stored
        species_docs.update(species_documents(ys.mentions))
        for m in ys.mentions:
            if m.hetionet_type and m.concept_id:
                state._observe(m, year)
                touched.add(m.concept_id)
        for s in ys.statuses:
            state.n[s.status] += 1
        state.n.update(
            records=len(ys.statuses), mentions=len(ys.mentions), problems=len(ys.problems)
        )
        for table, rows in (
            ("documents", ys.documents),
            ("mentions", ys.mentions),
            ("doc_status", ys.statuses),
            ("problems", ys.problems),
            ("source_relations", ys.relations),
        ):
            sink.add(table, rows)
        sink.spill()
        yield from doc_batches(ys.documents, ys.mentions)


class LocalRunner:
    """The extractor run here, one batch after another."""

    def __init__(self, extractor: Any) -> None:
        self.extractor = extractor

    def map(self, batches: Iterator[Batch]) -> Iterator[ExtractionResult]:
        from kgbuild.reader.apply import read_result

        for docs, by_doc in batches:
            result = self.extractor.extract(docs, by_doc)
            yield read_result(self.extractor.method, result, docs, by_doc)
