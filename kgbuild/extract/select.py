"""Choosing and constructing the relation extractor of a build.

``auto`` means an LLM method (generative) when an endpoint is configured — a base URL or an
``OPENAI_API_KEY`` — else the trained relation verifier (``classifier``,
:mod:`kgbuild.extract.classifier`); ``cooccurrence`` stays available as the baseline. The
snapshot manifest records both the request and the choice.
"""

from __future__ import annotations

from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.extract.base import SliceExtractor
from kgbuild.extract.classifier import ClassifierExtractor
from kgbuild.extract.cooccurrence import CooccurrenceExtractor
from kgbuild.extract.generative import GenerativeExtractor
from kgbuild.extract.pairwise import CHUNK_SIZE, PairwiseExtractor
from kgbuild.llm.cache import ResponseCache
from kgbuild.llm.client import LLMClient, LLMSettings

EXTRACTORS = ("classifier", "cooccurrence", "generative", "pairwise")
#: The extractors that call no LLM.
OFFLINE = frozenset({"classifier", "cooccurrence"})


def choose_extractor(name: str, settings: LLMSettings | None = None) -> str:
    if name == "auto":
        return "generative" if settings and settings.endpoint_configured else "classifier"
    if name not in EXTRACTORS:
        raise InputError(
            "unknown extractor", extractor=name, known=", ".join(["auto", *EXTRACTORS])
        )
    return name


def make_extractor(
    name: str,
    settings: LLMSettings,
    cache_path: Path,
    pairwise_mode: str = "batched",
    chunk_size: int = CHUNK_SIZE,
) -> SliceExtractor:
    """The extractor ``name`` (already chosen); LLM ones share the warehouse's response cache."""
    if chunk_size < 1:
        raise InputError("chunk size must be at least 1 pair per call", chunk_size=chunk_size)
    if name == "cooccurrence":
        return CooccurrenceExtractor()
    if name == "classifier":
        return ClassifierExtractor()
    client = LLMClient(settings, ResponseCache(cache_path))
    if name == "generative":
        return GenerativeExtractor(client)
    return PairwiseExtractor(client, pairwise_mode, chunk_size)
