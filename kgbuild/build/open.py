"""Turn a ``--source`` argument into a :class:`~kgbuild.build.corpus.Corpus`."""

from __future__ import annotations

from pathlib import Path

from kgbuild.build.corpus import Corpus, LocalCorpus
from kgbuild.errors import InputError
from kgbuild.sources.record import MAX_DOCUMENT_CHARS


def open_corpus(
    source: str,
    *,
    years: str | None = None,
    default_year: int | None = None,
    query: str | None = None,
    annotator: str = "pubtator",
    scispacy_model: str | None = None,
    cache_dir: Path = Path("warehouse/raw"),
    max_doc_chars: int = MAX_DOCUMENT_CHARS,
) -> Corpus:
    """``pubmed`` → the live E-utilities corpus (query + years + annotator); else a local path."""
    if source != "pubmed":
        return LocalCorpus(Path(source), years, default_year, max_doc_chars)
    if not query:
        raise InputError("--source pubmed needs --query (or a --domain with a query)")
    if not years:
        raise InputError("--source pubmed needs --years, e.g. 2011-2020")
    from kgbuild.sources.pubmed_corpus import PubMedCorpus

    return PubMedCorpus(
        query,
        years,
        annotator=annotator,
        scispacy_model=scispacy_model,
        cache_dir=cache_dir,
        max_doc_chars=max_doc_chars,
    )
