"""How a build extracts relations: :class:`ExtractionOptions` and the LLM cache's file name.

They live here, below :mod:`kgbuild.pipeline.build`, :mod:`kgbuild.pipeline.runner` and
:mod:`kgbuild.pipeline.spec`, because all three need them: the spec makes the options, the build
uses them, and the Dask runner ships them to its workers, which make their extractors from
them. Kept beside the build, they made the runner import back up into the module that imports
the runner (an import circle); here every module that needs them imports down, none back up.
``from kgbuild.pipeline.build import ExtractionOptions`` keeps working (the build re-exports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kgbuild.errors import InputError
from kgbuild.extract.base import SliceExtractor
from kgbuild.extract.caps import CHUNK_SIZE
from kgbuild.extract.select import OFFLINE, choose_extractor, make_extractor
from kgbuild.extract.verify import VerifyingExtractor
from kgbuild.llm.client import LLMSettings

#: The LLM response cache lives beside the snapshots, so every build in a warehouse shares it.
LLM_CACHE = "llm_cache.sqlite"


@dataclass(slots=True)
class ExtractionOptions:
    """How relations are extracted: the method, the LLM endpoint, the pair-wise mode."""

    extractor: str = "auto"
    llm: LLMSettings | None = None
    pairwise_mode: str = "batched"
    chunk_size: int = CHUNK_SIZE
    #: Sentence-transformers model for the embedding steps of entity resolution: "default"
    #: (all-MiniLM-L6-v2, bundled), a name or path (e.g. SapBERT), or "none" to skip them.
    embed_model: str = "default"
    #: The LLM verification pass (:mod:`kgbuild.extract.verify`): one more call per abstract
    #: with a kept claim asks whether each evidence sentence states its stored triple.
    verify_claims: bool = False

    def settings(self) -> LLMSettings:
        return self.llm or LLMSettings.from_env()

    def make(self, warehouse: Path) -> tuple[str, SliceExtractor]:
        settings = self.settings()
        chosen = choose_extractor(self.extractor, settings)
        if self.verify_claims and chosen in OFFLINE:
            raise InputError(
                "--verify-claims needs an LLM extractor (generative or pairwise) and an LLM "
                "endpoint; the offline extractors (co-occurrence, classifier) have no LLM "
                "claims to verify",
                extractor=chosen,
            )
        made = make_extractor(
            chosen, settings, warehouse / LLM_CACHE, self.pairwise_mode, self.chunk_size
        )
        return chosen, VerifyingExtractor(made) if self.verify_claims else made
