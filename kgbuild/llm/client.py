"""The one LLM call: any OpenAI-compatible endpoint, cached, retrying, bounded, token-counted.

Every extractor goes through :meth:`LLMClient.complete_many` (nano-graphrag's single-function
seam): hash the request → cache → call with retries on transient errors only (429, 5xx,
timeouts, connection resets, malformed bodies), honouring ``Retry-After`` and capping both the
wait and the attempts. The ``openai`` package's own retries are switched off so that every
attempt is counted here; the retry policy itself is :mod:`kgbuild.retry`'s (tenacity), the same
one the literature sources use. Permanent errors (400, 401, 404…) fail at once with the reason.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tenacity import AsyncRetrying, RetryCallState

from kgbuild.config import redact_url
from kgbuild.errors import ConfigError, KgbuildError
from kgbuild.llm.cache import OPENAI_URL, ResponseCache, cache_key, endpoint_id
from kgbuild.redact import redact, register
from kgbuild.retry import Transient, is_transient_status, parse_retry_after, policy
from kgbuild.schema import read_tsv
from kgbuild.settings import Settings, load_settings

if TYPE_CHECKING:  # openai takes ~0.6 s to import: only builds that call an LLM pay for it
    import openai


#: What a client counts: requests sent (attempts), answers from the cache, retries, requests that
#: failed for good, answers cut off at max_tokens, and tokens actually paid for.
USAGE_KEYS = (
    "calls",
    "cache_hits",
    "retries",
    "failed",
    "truncated",
    "oversized",
    "prompt_tokens",
    "completion_tokens",
)


class LLMError(KgbuildError):
    """An LLM call that failed for good (permanent error, or retries exhausted)."""


#: An answer reported as cut off at max_tokens ("length") that holds fewer than this share of
#: max_tokens was cut by something else (a proxy, a dropped stream): retried as malformed, never
#: kept as the model's answer. A genuine cut-off uses (nearly) the whole budget.
CUT_OFF_SHARE = 0.9

#: Characters of answer kept per token of completion budget, and the least kept. A real answer
#: is ~4 characters a token; an endpoint that sends megabytes for a 1,024-token budget is not
#: answering. The rest is cut before anything is parsed, cached or stored, and the answer counts
#: as cut off (``oversized``; the document's extraction ends ``partial`` and says so).
ANSWER_CHARS_PER_TOKEN = 32
MIN_ANSWER_CHARS = 64 * 1024


def answer_cap(max_tokens: int) -> int:
    """Longest answer kept for a completion budget of ``max_tokens``."""
    return max(MIN_ANSWER_CHARS, ANSWER_CHARS_PER_TOKEN * max_tokens)


class MalformedResponse(Exception):
    """The endpoint answered 200 with a body that is not a chat completion (no choices, no
    message, content that is not text): retried like a transport failure."""


def read_completion(resp: Any) -> tuple[str, int, int, bool]:
    """(content, prompt tokens, completion tokens, cut off at max_tokens?) of a completion.

    The ``openai`` package builds its response objects without validating them, so a body of
    the wrong shape arrives as missing attributes; it is checked here, explicitly, so that only
    a malformed *body* is retried and a bug in our own code fails loud."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise MalformedResponse("no choices")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise MalformedResponse("choice without a message")
    content = getattr(message, "content", None)
    if content is not None and not isinstance(content, str):
        raise MalformedResponse("content is not text")
    usage = getattr(resp, "usage", None)
    pt, ct = getattr(usage, "prompt_tokens", 0) or 0, getattr(usage, "completion_tokens", 0) or 0
    if not isinstance(pt, int) or not isinstance(ct, int):
        raise MalformedResponse("token counts are not integers")
    return content or "", pt, ct, getattr(choices[0], "finish_reason", None) == "length"


@dataclass(frozen=True, slots=True)
class LLMSettings:
    """Endpoint and limits. ``api_key`` is never logged, cached or written to a manifest."""

    model: str = "gpt-4o-mini"
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    #: Whether the environment's key may go to ``base_url`` (False: a file named it), for a
    #: process that reads its own key (a Dask worker) — see :meth:`from_settings`.
    key_allowed: bool = True
    temperature: float = 0.0
    max_tokens: int = 1024
    concurrency: int = 8
    timeout_s: float = 60.0
    max_retries: int = 5
    #: Extra attempts when an answer is cut off at ``max_tokens`` (finish_reason "length").
    truncation_retries: int = 2
    backoff_s: float = 1.0
    backoff_cap_s: float = 60.0
    #: USD per million (prompt, completion) tokens, by model name (default: the shipped table).
    prices: dict[str, tuple[float, float]] = field(default_factory=lambda: default_prices())

    def __post_init__(self) -> None:
        """Limits that would hang (0 requests in flight) or make no sense are refused here,
        whichever of CLI, environment or config file they came from."""
        checks = (
            ("concurrency", self.concurrency >= 1, "at least 1"),
            ("timeout_s", self.timeout_s > 0, "positive"),
            ("max_tokens", self.max_tokens >= 1, "at least 1"),
            ("max_retries", self.max_retries >= 0, "0 or more"),
            ("truncation_retries", self.truncation_retries >= 0, "0 or more"),
            ("temperature", 0 <= self.temperature <= 2, "between 0 and 2"),
            ("backoff_s", self.backoff_s >= 0 and self.backoff_cap_s >= 0, "0 or more"),
        )
        for name, ok, what in checks:
            if not ok:
                raise ConfigError(f"LLM setting {name} must be {what}", value=getattr(self, name))
        if not self.model.strip():
            raise ConfigError("LLM model name is empty")
        endpoint_id(self.base_url)  # a base URL that is no URL is refused here, not mid-build
        register(self.api_key)  # masked in every answer and log line of this process

    @classmethod
    def from_settings(
        cls, settings: Settings, *, key_allowed: bool | None = None, **overrides: Any
    ) -> LLMSettings:
        """The endpoint of resolved :class:`~kgbuild.settings.Settings` (CLI > environment >
        ``kgbuild.toml`` > domain > defaults), ``overrides`` (``None`` = not given) on top;
        prices from ``data/llm_prices.tsv`` plus ``[llm.prices]``.

        The API key goes only to the endpoint it was configured with: a base URL given here
        (an explicit argument), one from the environment, or OpenAI's default. A base URL
        named by ``kgbuild.toml`` gets no key, so a file in a working folder cannot redirect
        it. ``key_allowed`` given: the caller knows already (a spec resolved elsewhere)."""
        s = settings
        if key_allowed is None:
            key_allowed = overrides.get("base_url") is not None or s.key_allowed("llm_base_url")
        prices = dict(default_prices())
        prices.update({k: (float(v[0]), float(v[1])) for k, v in s.llm_prices.items()})
        key = s.openai_api_key.get_secret_value() if s.openai_api_key else None
        values: dict[str, Any] = {
            "model": s.llm_model,
            "base_url": s.llm_base_url,
            "api_key": key if key_allowed else None,
            "key_allowed": key_allowed,
            "temperature": s.llm_temperature,
            "max_tokens": s.llm_max_tokens,
            "concurrency": s.llm_concurrency,
            "timeout_s": s.llm_timeout,
            "max_retries": s.llm_max_retries,
            "prices": prices,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """:meth:`from_settings` of the settings as the environment and ``kgbuild.toml`` give
        them (for callers with no build: the query side, evaluation)."""
        return cls.from_settings(load_settings(), **overrides)

    @property
    def endpoint_configured(self) -> bool:
        """True when a user pointed kgbuild at an endpoint (a base URL or an OpenAI key)."""
        return bool(self.base_url or self.api_key)

    def price(self) -> tuple[float, float]:
        return self.prices.get(self.model, (0.0, 0.0))

    def public(self) -> dict[str, Any]:
        """Settings safe to record in a manifest (no key)."""
        return {
            "model": self.model,
            "base_url": redact_url(self.base_url),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "usd_per_1m_tokens": list(self.price()),
        }


def default_prices() -> dict[str, tuple[float, float]]:
    """List prices shipped in ``data/llm_prices.tsv`` (USD per 1M prompt/completion tokens)."""
    return {
        r["model"]: (float(r["usd_per_1m_prompt"]), float(r["usd_per_1m_completion"]))
        for r in read_tsv("llm_prices.tsv")
    }


@dataclass(frozen=True, slots=True)
class LLMRequest:
    messages: list[dict[str, str]]
    prompt_version: str
    response_format: dict[str, Any] | None = None
    tag: str = ""  # e.g. the PMID, for per-document accounting
    #: A larger completion budget for this request (a batched question about many pairs).
    max_tokens: int | None = None


@dataclass(slots=True)
class LLMResult:
    content: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    attempts: int
    cost_usd: float
    tag: str = ""
    #: The answer was cut off at ``max_tokens`` on every attempt (kept; parse what is whole).
    truncated: bool = False


class LLMClient:
    def __init__(self, settings: LLMSettings, cache: ResponseCache | None = None) -> None:
        self.settings = settings
        self.cache = cache
        self.usage: Counter[str] = Counter(dict.fromkeys(USAGE_KEYS, 0))
        self.cost_usd = 0.0
        #: Structured-output dialect the endpoint accepts: 0 json_schema (OpenAI, vLLM),
        #: 1 json_object + schema (llama.cpp's server), 2 none (plain text, parsed leniently).
        self._format_level = 0
        #: Who answers (part of every cache key: another endpoint is another answer).
        self.endpoint = endpoint_id(settings.base_url)

    def _params(self, req: LLMRequest, level: int | None = None) -> dict[str, Any]:
        """Request parameters at a structured-output dialect ``level`` (default: the one the
        endpoint has shown it accepts)."""
        p: dict[str, Any] = {
            "temperature": self.settings.temperature,
            "max_tokens": max(self.settings.max_tokens, req.max_tokens or 0),
        }
        fmt = _degrade(req.response_format, self._format_level if level is None else level)
        if fmt:
            p["response_format"] = fmt
        return p

    def cost(self, prompt: int, completion: int) -> float:
        """USD for a call's tokens at this model's price (0 for unpriced local models)."""
        pin, pout = self.settings.price()
        return round((prompt * pin + completion * pout) / 1e6, 9)

    def cached(self, req: LLMRequest) -> tuple[str, int, int] | None:
        """The cached answer to ``req``, if any, without calling (for ``--estimate``)."""
        if self.cache is None:
            return None
        return self.cache.get(self._key(req))

    def _key(self, req: LLMRequest) -> str:
        """The request *as asked* (dialect 0) to this endpoint: an endpoint that needed a
        fallback dialect finds its answers again, and ``--estimate`` counts them, before it
        learns the fallback; another endpoint serving a model of the same name does not."""
        return cache_key(
            self.endpoint,
            self.settings.model,
            req.prompt_version,
            req.messages,
            self._params(req, level=0),
        )

    def close(self) -> None:
        """Close the cache (SQLite checkpoints its write-ahead log into the file)."""
        if self.cache is not None:
            self.cache.close()

    def complete_many(self, requests: Sequence[LLMRequest]) -> list[LLMResult | LLMError]:
        """Run requests with bounded concurrency; each slot holds a result or its error."""
        return asyncio.run(self._run_all(requests))

    async def _run_all(self, requests: Sequence[LLMRequest]) -> list[LLMResult | LLMError]:
        s = self.settings
        import openai

        client = openai.AsyncOpenAI(  # None would let openai read OPENAI_BASE_URL by itself
            base_url=s.base_url or OPENAI_URL,
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
        """One request: the cache, else the endpoint under the shared retry policy
        (:mod:`kgbuild.retry`); a permanent refusal or exhausted retries is an LLMError."""
        s = self.settings
        key = self._key(req)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.usage["cache_hits"] += 1
            oversized = len(hit[0]) >= answer_cap(self._params(req)["max_tokens"])
            return LLMResult(
                hit[0], hit[1], hit[2], True, 0, self.cost(hit[1], hit[2]), req.tag, oversized
            )
        sends = [0]
        retrying = AsyncRetrying(
            **policy(s.max_retries, s.backoff_s, s.backoff_cap_s, self._count_retry)
        )
        try:
            async for attempt in retrying:
                with attempt:
                    content, pt, ct, truncated = await self._send(client, req, sends)
        except Transient as exc:
            raise LLMError(
                f"LLM call failed after {sends[0]} attempts: {exc.reason}", tag=req.tag
            ) from None
        if self.cache is not None:  # a still-truncated answer is the endpoint's answer at
            self.cache.put(  # this max_tokens
                key, s.model, req.prompt_version, content, pt, ct, self.endpoint
            )
        return LLMResult(content, pt, ct, False, sends[0], self.cost(pt, ct), req.tag, truncated)

    async def _send(
        self, client: openai.AsyncOpenAI, req: LLMRequest, sends: list[int]
    ) -> tuple[str, int, int, bool]:
        """One attempt: (content, prompt tokens, completion tokens, truncated). Moving to the
        next structured-output dialect and re-asking a cut-off answer happen within it;
        transport and service failures and malformed bodies raise :class:`Transient`."""
        import openai

        s, truncations = self.settings, 0
        while True:
            sends[0] += 1
            self.usage["calls"] += 1
            level = self._format_level
            try:
                resp = await client.chat.completions.create(
                    model=s.model, messages=req.messages, **self._params(req)
                )  # type: ignore[arg-type]
            except openai.APIStatusError as exc:
                if (
                    exc.status_code in (400, 422, 500)
                    and "response_format" in str(exc)
                    and _degrade(req.response_format, level)
                ):  # the endpoint refused this dialect: this and later requests try the next
                    self._format_level = max(self._format_level, level + 1)
                    self.usage["format_fallbacks"] += 1
                    continue
                if not is_transient_status(exc.status_code):
                    raise LLMError(
                        f"LLM endpoint refused the request: HTTP {exc.status_code}", tag=req.tag
                    ) from exc
                retry_after = (
                    exc.response.headers.get("retry-after") if exc.response is not None else None
                )
                raise Transient(f"HTTP {exc.status_code}", parse_retry_after(retry_after)) from None
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                raise Transient(type(exc).__name__) from None
            except (openai.APIResponseValidationError, json.JSONDecodeError) as exc:
                raise Transient(f"malformed response ({type(exc).__name__})") from None
            try:
                content, pt, ct, truncated = read_completion(resp)
            except MalformedResponse as exc:
                raise Transient(f"malformed response ({exc})") from None
            budget = self._params(req)["max_tokens"]
            # before anything reads the answer: an endpoint that echoes the key gets it masked
            # (cache, claims, rejections, logs), and a flood is cut (see ANSWER_CHARS_PER_TOKEN)
            content = redact(content, (s.api_key,))
            if len(content) > (cap := answer_cap(budget)):
                self._account(pt, ct)
                self.usage["oversized"] += 1
                return content[:cap], pt, ct, True
            if truncated and 0 < ct < CUT_OFF_SHARE * budget:
                raise Transient(f"malformed response (cut off at {ct} of {budget} tokens)")
            self._account(pt, ct)  # a cut-off answer is still paid for
            if not truncated:
                return content, pt, ct, False
            self.usage["truncated"] += 1
            if truncations >= s.truncation_retries:
                return content, pt, ct, True
            truncations += 1

    def _count_retry(self, state: RetryCallState) -> None:
        self.usage["retries"] += 1

    def _account(self, prompt: int, completion: int) -> None:
        """What this client actually spent (cache hits cost nothing)."""
        self.usage["prompt_tokens"] += prompt
        self.usage["completion_tokens"] += completion
        self.cost_usd += self.cost(prompt, completion)


def _degrade(fmt: dict[str, Any] | None, level: int) -> dict[str, Any] | None:
    """The response format at a dialect level (see ``LLMClient._format_level``)."""
    if not fmt or level >= 2:
        return None
    if level == 1 and fmt.get("type") == "json_schema":
        return {"type": "json_object", "schema": fmt["json_schema"]["schema"]}
    return fmt
