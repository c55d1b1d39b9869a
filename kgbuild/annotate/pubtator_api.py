"""PubTator3 annotations for PMIDs, from its export API.

PubTator3 (Wei et al., "PubTator 3.0: an AI-powered literature resource for unlocking biomedical
knowledge", NAR 2024; API at https://www.ncbi.nlm.nih.gov/research/pubtator3/api) serves
precomputed gene, chemical, disease, species, variant and cell-line mentions with normalized IDs,
the annotations DALK's KG is built on. ``publications/export/biocjson?pmids=1,2,3`` answers
``{"PubTator3": [BioC documents]}``; the API asks for at most 3 requests/s, and a few dozen to a
hundred PMIDs per request. Every request goes through :class:`~kgbuild.sources.http.HttpClient`
(rate limit, retries, cache); each document is read by the same
:func:`~kgbuild.sources.bioc.bioc_record` as local BioC files, so offsets are checked alike.

Nothing is lost silently: PMIDs PubTator3 does not return are listed in ``missing`` (too recent,
or not in PubMed), and a batch that fails for good -- still malformed after the retries, or an
HTTP error -- gives each of its PMIDs an entry in ``errors`` instead of stopping the run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgbuild import settings
from kgbuild.errors import SourceError
from kgbuild.sources.bioc import bioc_documents, bioc_record
from kgbuild.sources.http import HttpClient
from kgbuild.sources.record import SourceRecord

PUBTATOR_URL = settings.PUBTATOR_URL
EXPORT = "publications/export/biocjson"
PUBTATOR_RATE = 3.0  # requests/s PubTator3 allows
MAX_BATCH = 100  # PMIDs per export request
SOURCE_LABEL = "pubtator3-api"


@dataclass(slots=True)
class PubTatorResult:
    """Records PubTator3 returned, PMIDs it did not return, and PMIDs whose batch failed."""

    records: list[SourceRecord] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)


def pubtator_client(
    *, base_url: str = PUBTATOR_URL, cache_dir: Path | None = None, **options: Any
) -> HttpClient:
    """A client at PubTator3's rate (options as for :class:`HttpClient`, e.g. ``timeout_s``)."""
    options.setdefault("rate_per_s", PUBTATOR_RATE)
    return HttpClient(base_url, cache_dir=cache_dir, **options)


def parse_export(data: bytes) -> list[dict[str, Any]]:
    """The BioC documents of an export answer: ``{"PubTator3": [...]}``, a collection, a list,
    or one JSON document per line (PubTator Central's older form). An empty body is no documents;
    anything unparsable raises ValueError, which the client treats as malformed and retries."""
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if not text.strip():
        return []
    try:
        payloads = [json.loads(text)]
    except json.JSONDecodeError:
        payloads = [json.loads(line) for line in text.splitlines() if line.strip()]
    if any(not isinstance(p, dict | list) for p in payloads):
        raise ValueError("export answer is not BioC JSON")
    docs = [doc for p in payloads for doc in bioc_documents(p) if isinstance(doc, dict)]
    if not docs and not any(isinstance(p, dict) and "PubTator3" in p for p in payloads):
        raise ValueError("export answer holds no BioC documents")
    return docs


def annotate_pmids(
    client: HttpClient, pmids: Iterable[str | int], batch: int = MAX_BATCH
) -> PubTatorResult:
    """PubTator3's annotations of ``pmids`` as SourceRecords, ``batch`` PMIDs per request."""
    if not 1 <= batch <= MAX_BATCH:
        raise ValueError(f"batch must be 1..{MAX_BATCH}, got {batch}")
    ids = list(dict.fromkeys(str(p).strip() for p in pmids if str(p).strip()))
    result = PubTatorResult()
    for i in range(0, len(ids), batch):
        chunk = ids[i : i + batch]
        try:
            body = client.get(EXPORT, {"pmids": ",".join(chunk)}, validate=_validate)
        except SourceError as exc:
            result.errors.update(dict.fromkeys(chunk, str(exc)))
            continue
        returned: set[str] = set()
        for doc in parse_export(body):
            rec = bioc_record(doc, SOURCE_LABEL, len(result.records) + 1)
            returned.add(rec.pmid)
            result.records.append(rec)
        result.missing += [p for p in chunk if p not in returned]
    return result


def _validate(body: bytes) -> None:
    parse_export(body)
