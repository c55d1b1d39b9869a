"""The one LLM call: any OpenAI-compatible endpoint, cached, retrying, bounded, token-counted.

Every extractor goes through :meth:`LLMClient.complete_many` (nano-graphrag's single-function
seam): hash the request → cache → call with retries on transient errors only (429, 5xx,
timeouts, connection resets, malformed bodies), honouring ``Retry-After`` and capping both the
wait and the attempts. The ``openai`` package's own retries are switched off so that every
attempt is counted here. Permanent errors (400, 401, 404…) fail at once with the reason.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from kgbuild.errors import KgbuildError
from kgbuild.llm.cache import ResponseCache, cache_key

_TRANSIENT_STATUS = {408, 409, 429, 500, 502, 503, 504}


class LLMError(KgbuildError):
    """An LLM call that failed for good (permanent error, or retries exhausted)."""


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Endpoint and limits. ``api_key`` is never logged, cached or written to a manifest."""

    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    max_tokens: int = 1024
    concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 5
    backoff_s: float = 1.0
    backoff_cap_s: float = 60.0
    #: USD per million (prompt, completion) tokens, by model name.
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        env = {
            "model": os.environ.get("KGBUILD_LLM_MODEL"),
            "base_url": os.environ.get("OPENAI_BASE_URL") or os.environ.get("KGBUILD_LLM_BASE_URL"),
            "api_key": os.environ.get("OPENAI_API_KEY"),
        }
        values = {k: v for k, v in env.items() if v}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def public(self) -> dict[str, Any]:
        """Settings safe to record in a manifest (no key)."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }


@dataclass(frozen=True, slots=True)
class LLMRequest:
    messages: list[dict[str, str]]
    prompt_version: str
    response_format: dict[str, Any] | None = None
    tag: str = ""  # e.g. the PMID, for per-document accounting


@dataclass(slots=True)
class LLMResult:
    content: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    attempts: int
    cost_usd: float
    tag: str = ""


class LLMClient:
    def __init__(self, settings: LLMSettings, cache: ResponseCache | None = None) -> None:
        self.settings = settings
        self.cache = cache
        self.usage: Counter[str] = Counter()
        self.cost_usd = 0.0
        self._structured = True

    def _params(self, req: LLMRequest) -> dict[str, Any]:
        p: dict[str, Any] = {
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
        }
        if req.response_format and self._structured:
            p["response_format"] = req.response_format
        return p

    def _cost(self, prompt: int, completion: int) -> float:
        pin, pout = self.settings.prices.get(self.settings.model, (0.0, 0.0))
        return (prompt * pin + completion * pout) / 1e6

    def complete_many(self, requests: Sequence[LLMRequest]) -> list[LLMResult | LLMError]:
        """Run requests with bounded concurrency; each slot holds a result or its error."""
        return asyncio.run(self._run_all(requests))

    async def _run_all(self, requests: Sequence[LLMRequest]) -> list[LLMResult | LLMError]:
        s = self.settings
        client = openai.AsyncOpenAI(
            base_url=s.base_url,
            api_key=s.api_key or "not-needed",
            timeout=s.timeout_s,
            max_retries=0,
        )
        gate = asyncio.Semaphore(s.concurrency)

        async def one(req: LLMRequest) -> LLMResult | LLMError:
            async with gate:
                try:
                    return await self._complete(client, req)
                except LLMError as exc:
                    self.usage["failed"] += 1
                    return exc

        try:
            return list(await asyncio.gather(*(one(r) for r in requests)))
        finally:
            await client.close()

    async def _complete(self, client: openai.AsyncOpenAI, req: LLMRequest) -> LLMResult:
        s = self.settings
        key = cache_key(s.model, req.prompt_version, req.messages, self._params(req))
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.usage["cache_hits"] += 1
            return LLMResult(hit[0], hit[1], hit[2], True, 0, 0.0, req.tag)
        attempt = 0
        while True:
            attempt += 1
            self.usage["calls"] += 1
            try:
                resp = await client.chat.completions.create(
                    model=s.model, messages=req.messages, **self._params(req)
                )  # type: ignore[arg-type]
                content = resp.choices[0].message.content or ""
                usage = resp.usage
                pt = usage.prompt_tokens if usage else 0
                ct = usage.completion_tokens if usage else 0
                break
            except openai.APIStatusError as exc:
                if (
                    exc.status_code == 400
                    and self._structured
                    and req.response_format
                    and "response_format" in str(exc)
                ):
                    self._structured = False  # endpoint lacks structured output: plain text
                    continue
                if exc.status_code not in _TRANSIENT_STATUS:
                    raise LLMError(
                        f"LLM endpoint refused the request: HTTP {exc.status_code}", tag=req.tag
                    ) from exc
                reason, retry_after = f"HTTP {exc.status_code}", _retry_after(exc)
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                reason, retry_after = type(exc).__name__, None
            except (
                openai.APIResponseValidationError,
                ValueError,
                IndexError,
                AttributeError,
            ) as exc:
                reason, retry_after = f"malformed response ({type(exc).__name__})", None
            if attempt > s.max_retries:
                raise LLMError(f"LLM call failed after {attempt} attempts: {reason}", tag=req.tag)
            self.usage["retries"] += 1
            backoff = min(s.backoff_cap_s, s.backoff_s * 2 ** (attempt - 1))
            wait = min(s.backoff_cap_s, retry_after) if retry_after is not None else backoff
            await asyncio.sleep(wait)
        cost = self._cost(pt, ct)
        self.usage["prompt_tokens"] += pt
        self.usage["completion_tokens"] += ct
        self.cost_usd += cost
        if self.cache is not None:
            self.cache.put(key, s.model, req.prompt_version, content, pt, ct)
        return LLMResult(content, pt, ct, False, attempt, cost, req.tag)


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after") if exc.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
