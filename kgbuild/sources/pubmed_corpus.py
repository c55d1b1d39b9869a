"""PubMed as a corpus: E-utilities for the abstracts of each year, an annotator for the entities.

For each publication year the query is searched (``datetype=pdat``) and every record fetched
through the history server (:mod:`kgbuild.sources.pubmed`); records then get their mentions from
the PubTator3 API (typed, with concept IDs) or from scispaCy (typed, no IDs). Raw responses are
cached under the warehouse (``raw/``), so a re-run or a refresh re-reads them instead of
downloading, and the year's digest (PMIDs, texts, mentions) decides whether its snapshot can be
reused. Nothing is dropped: retraction notices and retracted papers are ``rejected`` with the
reason; a PMID PubTator3 does not know is built without mentions and says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kgbuild.records import stable_id
from kgbuild.sources import pubmed
from kgbuild.sources.http import HttpClient
from kgbuild.sources.local import YearSlice, make_slice, parse_years
from kgbuild.sources.record import MAX_DOCUMENT_CHARS, SourceRecord

#: Gives fetched records their mentions, in place (see :mod:`kgbuild.annotate.apply`).
Annotate = Callable[[list[SourceRecord]], None]


class PubMedCorpus:
    reusable = True

    def __init__(
        self,
        query: str,
        years: str,
        *,
        annotator: dict[str, Any],
        make_annotator: Callable[[], Annotate],
        eutils: HttpClient,
        max_doc_chars: int = MAX_DOCUMENT_CHARS,
    ) -> None:
        """``annotator``: what annotates (recorded in the snapshot config); ``make_annotator``
        builds it on first need (the pipeline combines a source with an annotator; this module
        knows neither PubTator3 nor scispaCy)."""
        self.max_doc_chars = max_doc_chars
        bounds = parse_years(years)
        assert bounds is not None
        self.query, self.annotator = query, dict(annotator)
        self._years = list(range(bounds[0], bounds[1] + 1))
        self.eutils = eutils
        self._make_annotator = make_annotator
        self._records: dict[int, list[SourceRecord]] = {}
        self._annotate: Annotate | None = None

    def config(self) -> dict[str, Any]:
        return {
            "source": "pubmed",
            "query": self.query,
            **self.annotator,
            "max_doc_chars": self.max_doc_chars,
        }

    def years(self) -> list[int]:
        return list(self._years)

    def digest(self, year: int) -> Any:
        return stable_id(
            *(
                (r.pmid, r.title, r.abstract, r.reject_reason,
                 [(m.start, m.end, m.source_type, m.concept_id) for m in r.mentions])
                for r in self.records(year)
            )
        )  # fmt: skip

    def slices(
        self, years: list[int], seen: dict[str, tuple[str, int, str]]
    ) -> Iterator[YearSlice]:
        for year in years:
            yield make_slice(year, [], self.records(year), seen, self.max_doc_chars)

    def records(self, year: int) -> list[SourceRecord]:
        """The year's records, fetched (or read from the raw cache) and annotated, once."""
        if year not in self._records:
            label = f"pubmed:{year}"
            recs = [
                pubmed.to_source_record(a, i, label)
                for i, a in enumerate(pubmed.fetch_year(self.eutils, self.query, year), 1)
            ]
            for r in recs:
                r.year = year
            if self._annotate is None:
                self._annotate = self._make_annotator()
            self._annotate(recs)
            self._records[year] = recs
        return self._records[year]
