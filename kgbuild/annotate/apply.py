"""Give fetched PubMed records their mentions: from the PubTator3 API or from scispaCy.

PubTator3's offsets index PubTator3's own text, so a record it annotates takes that text (a
warning says when it differs from PubMed's). A PMID PubTator3 does not return, or whose batch
failed for good, is still built — without mentions, with a ``not_annotated`` problem row and a
warning in its status reason — never dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgbuild.sources.record import SourceRecord

Annotate = Callable[[list[SourceRecord]], None]
ANNOTATORS = ("pubtator", "scispacy")


def make_annotator(
    name: str, scispacy_model: str, cache_dir: Path, pubtator_url: str | None = None
) -> Annotate:
    """The annotator ``name`` (one of :data:`ANNOTATORS`)."""
    if name == "pubtator":
        return pubtator_annotator(cache_dir, pubtator_url)
    return scispacy_annotator(scispacy_model)


def pubtator_annotator(cache_dir: Path, base_url: str | None = None) -> Annotate:
    from kgbuild.annotate.pubtator_api import PUBTATOR_URL, annotate_pmids, pubtator_client

    client = pubtator_client(base_url=base_url or PUBTATOR_URL, cache_dir=cache_dir)

    def run(records: list[SourceRecord]) -> None:
        todo = [r for r in records if not r.reject_reason]
        result = annotate_pmids(client, [r.pmid for r in todo])
        found = {a.pmid: a for a in result.records}
        for r in todo:
            a = found.get(r.pmid)
            if a is None:
                why = result.errors.get(r.pmid) or "PubTator3 does not know this PMID"
                r.problem(0, "not_annotated", why)
                r.warnings.append(f"not annotated ({why})")
                continue
            if (a.title, a.abstract) != (r.title, r.abstract):
                r.warnings.append("text from PubTator3 (differs from PubMed's)")
            r.title, r.abstract = a.title, a.abstract
            r.mentions, r.relations = a.mentions, a.relations
            r.problems.extend(a.problems)

    return run


def scispacy_annotator(model: str) -> Annotate:
    from kgbuild.annotate.scispacy_annotator import SciSpacyAnnotator

    annotator = SciSpacyAnnotator(model)

    def run(records: list[SourceRecord]) -> None:
        todo = [r for r in records if not r.reject_reason]
        found = annotator.annotate_many([r.document(r.year or 0, r.source_file) for r in todo])
        for r in todo:
            r.mentions = found.get(r.pmid, [])

    return run
