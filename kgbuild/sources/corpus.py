"""What a build reads: a corpus hands out year slices and says what identifies each year's inputs.

The year loop (:mod:`kgbuild.pipeline.build`) needs three things from a source: the years it
covers, a digest of one year's inputs (to reuse an already published snapshot built from exactly
these inputs) and the year slices themselves, with cross-year dedupe. A local folder of files
(:class:`LocalCorpus`) and PubMed (:mod:`kgbuild.sources.pubmed_corpus`) both provide them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from kgbuild.errors import InputError
from kgbuild.records import Mention
from kgbuild.sources.local import SourceFile, YearSlice, discover, parse_years, read_slices
from kgbuild.sources.record import MAX_DOCUMENT_CHARS
from kgbuild.sources.values import year_problem


@runtime_checkable
class Corpus(Protocol):
    #: Whether :meth:`digest` is known before reading (else every build reads everything).
    reusable: bool

    def config(self) -> dict[str, Any]:
        """What of the source belongs in the snapshot config (never secrets)."""
        ...

    def years(self) -> list[int]: ...

    def digest(self, year: int) -> Any:
        """JSON-able identity of one year's inputs."""
        ...

    def slices(
        self, years: list[int], seen: dict[str, tuple[str, int, str]]
    ) -> Iterator[YearSlice]: ...


class LocalCorpus:
    """A folder of per-year PubTator / BioC-JSON / BioC XML files (or one file).

    ``warehouse``: the build's warehouse, never read as input even when it sits inside
    ``source`` (``--source .`` with the default ``./warehouse``); any other folder that looks
    like a warehouse is skipped too. Files whose records are rejected whatever year they are
    read in (a refused FIFO or link, a file of no corpus format, a folder named ``2018.pubtator``,
    ``0000.pubtator``) are read with the corpus's first year (a ``--years`` range without it reads
    none of them), so they make no year of their own, leave the corpus's years known before
    reading, a build split into runs equals one go, and an unchanged re-run publishes nothing.
    """

    def __init__(
        self,
        source: Path,
        years: str | None,
        default_year: int | None,
        max_doc_chars: int = MAX_DOCUMENT_CHARS,
        warehouse: Path | None = None,
    ) -> None:
        self.source, self.bounds, self.default_year = source, parse_years(years), default_year
        if max_doc_chars < 1:
            raise InputError("--max-doc-chars must be at least 1", max_doc_chars=max_doc_chars)
        if default_year is not None and (why := year_problem(default_year)):
            raise InputError(f"--default-year: {why}", default_year=default_year)
        self.max_doc_chars = max_doc_chars
        everything = discover(source, [warehouse] if warehouse else [])
        files = everything
        if self.bounds:
            lo, hi = self.bounds
            files = [f for f in files if f.year is None or lo <= f.year <= hi]
            if not files:
                have = sorted({f.year for f in everything if f.year})
                raise InputError(
                    "no input files for the requested years",
                    years=years,
                    available=f"{have[0]}-{have[-1]}" if have else "none",
                )
        self.yearless = [f for f in files if f.year is None and not f.rejected_anyway]
        self.by_year: dict[int, list[SourceFile]] = {}
        for f in files:
            if f.year is not None and not f.rejected_anyway:
                self.by_year.setdefault(f.year, []).append(f)
        # Riders go with the corpus's first year whatever --years says (a year of their own
        # name, as pmid-2016.txt, is no reason to move them), so the first year's snapshot is
        # the same in a full build and in one split into runs; a run without that year has none.
        riders = [f for f in everything if f.rejected_anyway]
        first = min((f.year for f in everything if f.year is not None and not f.rejected_anyway),
                    default=None)  # fmt: skip
        if first is not None and first in self.by_year:
            self.by_year[first].extend(riders)
        elif not self.by_year:
            self.yearless.extend(riders)
        self.reusable = not self.yearless  # year-less files: years known only after parsing
        self._digests: dict[SourceFile, str] = {}

    def config(self) -> dict[str, Any]:
        return {"default_year": self.default_year, "max_doc_chars": self.max_doc_chars}

    def years(self) -> list[int]:
        return sorted(self.by_year)

    def digest(self, year: int) -> Any:
        files = self.by_year.get(year, []) + self.yearless
        for f in files:
            if f not in self._digests:
                self._digests[f] = f.digest()
        root = self.source
        return sorted(
            (str(f.path.relative_to(root)) if root.is_dir() else f.path.name, self._digests[f])
            for f in files
        )

    def slices(
        self, years: list[int], seen: dict[str, tuple[str, int, str]]
    ) -> Iterator[YearSlice]:
        # Only the requested years' files are read; bounds still filter year-less records.
        remaining = [f for y in years for f in self.by_year[y]] + self.yearless
        yield from read_slices(
            self.source, self.bounds, self.default_year, seen, remaining, self.max_doc_chars
        )


class MentionRewrite:
    """A corpus whose mentions are rewritten on the way out (:meth:`rewrite`, one mention at a
    time), with what it changes added to the config (so the fingerprint tells builds apart);
    everything else is the wrapped corpus's."""

    def __init__(self, inner: Corpus) -> None:
        self.inner = inner
        self.reusable = inner.reusable

    def config(self) -> dict[str, Any]:
        return {**self.inner.config(), **self.changes()}

    def changes(self) -> dict[str, Any]:
        raise NotImplementedError

    def rewrite(self, m: Mention) -> None:
        raise NotImplementedError

    def years(self) -> list[int]:
        return self.inner.years()

    def digest(self, year: int) -> Any:
        return self.inner.digest(year)

    def slices(
        self, years: list[int], seen: dict[str, tuple[str, int, str]]
    ) -> Iterator[YearSlice]:
        for ys in self.inner.slices(years, seen):
            for m in ys.mentions:
                self.rewrite(m)
            yield ys


class KeptKinds(MentionRewrite):
    """A corpus whose mentions of kinds outside ``keep`` stay mentions, not KG nodes (a domain's
    ``[kg_types] keep``)."""

    def __init__(self, inner: Corpus, keep: tuple[str, ...]) -> None:
        super().__init__(inner)
        self.keep = keep

    def changes(self) -> dict[str, Any]:
        return {"keep_kinds": list(self.keep)}

    def rewrite(self, m: Mention) -> None:
        if m.hetionet_type and m.hetionet_type not in self.keep:
            m.hetionet_type = None


#: The annotator name of mentions a person linked (gold files read by ``kgbuild eval``).
CURATED = "curated"


class CuratedAnnotations(MentionRewrite):
    """A corpus whose annotations were made by curators (the gold files ``kgbuild eval`` reads):
    every mention's ``annotator`` is :data:`CURATED`, so the vocabulary check of annotator IDs
    and the ortholog step, which exist because a *tagger's* IDs cannot be taken on
    trust, leave them as the curators linked them — an evaluation measures extraction against
    the gold entities, not a second opinion on them."""

    def changes(self) -> dict[str, Any]:
        return {"annotator": CURATED}

    def rewrite(self, m: Mention) -> None:
        m.annotator = CURATED
