"""Retrieval-augmented answering over a snapshot (read-only): link, explore, rank, context.

Python API::

    from kgbuild.query import retrieve, answer, QueryEngine, Filters
    r = retrieve("Which gene is the main genetic risk factor of Alzheimer's disease?",
                 ["APOE", "APP", "PSEN1", "MAPT"], snapshot="alzheimers@2020")
    print(r.context)          # top-k triples with PMIDs and evidence sentences
    a = answer(r.question, r.choices)   # with the LLM endpoint of the environment

Names load on first use, so ``import kgbuild.query`` (the CLI does) costs nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Answer": "kgbuild.query.answer",
    "answer": "kgbuild.query.answer",
    "QueryEngine": "kgbuild.query.engine",
    "Retrieval": "kgbuild.query.engine",
    "retrieve": "kgbuild.query.engine",
    "Filters": "kgbuild.query.explore",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(name)
