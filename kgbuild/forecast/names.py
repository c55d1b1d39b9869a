"""The name feature: the cosine of two nodes' display names embedded by all-MiniLM-L6-v2.

A shared context that the graph of Y may not show yet (Swanson's ABC; AGATHA, Sybrandt et al.
2020, scores pairs by learned embeddings) — but one learnt **outside the time split**: MiniLM
(Wang et al. 2020; sentence-transformers, Reimers & Gurevych 2019) was fine-tuned in 2021 on about
a billion sentence pairs — citation pairs, titles and abstracts of S2ORC papers among them —
written after every year a DALK forecast is made from, so two names it places close together may
be close because later papers linked them. It was the
strongest single family in the ablation (docs/evaluation.md). The forecast therefore leaves it
out by default (``embed=None``) and reports the figures with it apart; only the nodes of the
snapshot being featurised are embedded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: Texts → unit-length float32 rows (one per text): how node names are embedded.
NameEmbedder = Callable[[Sequence[str]], np.ndarray]
#: The feature the name embeddings give a pair.
NAME_FEATURE = "name_cosine"


@functools.lru_cache(maxsize=1)
def _minilm() -> Any:
    from kgbuild.resolve.embed import DEFAULT_MODEL, Embedder

    # Pinned to MiniLM (not the settings' resolution model) so that a forecast's features do not
    # depend on local configuration; in-memory cache: ~5k names encode in seconds on 2 cores.
    return Embedder(DEFAULT_MODEL)


def embed_names(names: Sequence[str]) -> np.ndarray:
    """The :data:`NameEmbedder` of the name feature: all-MiniLM-L6-v2, bundled offline with the
    project (``kgbuild.resolve.embed``); the model loads once per process."""
    return _minilm().embed(list(names))
