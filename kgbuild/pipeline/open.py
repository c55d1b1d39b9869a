"""Turn a ``--source`` argument into a :class:`~kgbuild.sources.corpus.Corpus`."""

from __future__ import annotations

from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.settings import EUTILS_URL, MAX_DOCUMENT_CHARS, PUBTATOR_URL
from kgbuild.sources.corpus import Corpus, LocalCorpus


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
    eutils_url: str = EUTILS_URL,
    pubtator_url: str = PUBTATOR_URL,
    send_ncbi_key: bool = True,
) -> Corpus:
    """``pubmed`` → the live E-utilities corpus (query + years + annotator); else a local path.
    ``send_ncbi_key`` False: ``eutils_url`` came from a file, and gets no ``NCBI_API_KEY``."""
    if source != "pubmed":
        # the warehouse (``cache_dir``'s parent) is output: never read as input
        return LocalCorpus(Path(source), years, default_year, max_doc_chars, cache_dir.parent)
    if not query:
        raise InputError("--source pubmed needs --query (or a --domain with a query)")
    if not years:
        raise InputError("--source pubmed needs --years, e.g. 2011-2020")
    from kgbuild.annotate.apply import ANNOTATORS, make_annotator
    from kgbuild.sources import pubmed
    from kgbuild.sources.pubmed_corpus import PubMedCorpus

    if annotator not in ANNOTATORS:
        raise InputError("unknown annotator", annotator=annotator, known=", ".join(ANNOTATORS))
    model = scispacy_model or "en_ner_bc5cdr_md"
    described = {"annotator": annotator} | (
        {"scispacy_model": model} if annotator == "scispacy" else {}
    )
    return PubMedCorpus(
        query,
        years,
        annotator=described,
        make_annotator=lambda: make_annotator(
            annotator, model, cache_dir / "pubtator", pubtator_url
        ),
        eutils=pubmed.eutils_client(
            base_url=eutils_url, cache_dir=cache_dir / "pubmed", send_key=send_ncbi_key
        ),
        max_doc_chars=max_doc_chars,
    )
