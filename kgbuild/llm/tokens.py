"""Token arithmetic that needs no client: importing :mod:`kgbuild.llm.client` costs 0.4 s
(tenacity, asyncio, the settings model), which a ``kgbuild ask`` process that never calls an
LLM should not pay to size its context."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Rough token count for ``--estimate`` (OpenAI's rule of thumb: ~4 characters a token)."""
    return -(-len(text) // 4)
