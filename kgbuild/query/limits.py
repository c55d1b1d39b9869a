"""Defaults and hard limits of a query, in one light module (the CLI imports it at start-up;
the heavy modules load only when a command runs)."""

from __future__ import annotations

#: Triples in a context by default (the issue's top-k; DALK kept ≤ 5 after its rerank) and the
#: hard context budget in tokens (≈ characters / 4, the LLM client's estimate).
DEFAULT_K = 10
DEFAULT_TOKEN_BUDGET = 1500
DEFAULT_HOPS = 3
#: Input limits: a question is a paragraph, not a document.
MAX_QUESTION_CHARS = 4000
MAX_CHOICES = 10
MAX_CHOICE_CHARS = 500
MAX_K = 50
#: Paths are searched up to 3 hops (HyKGE's limit: chains explode past it; DALK used 5).
MAX_HOPS = 3
MIN_TOKEN_BUDGET = 100
MAX_TOKEN_BUDGET = 16000
NO_ENTITY = "no entity of this snapshot found in the question"
