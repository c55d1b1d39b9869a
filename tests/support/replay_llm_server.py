"""An OpenAI-compatible chat-completions server on 127.0.0.1 that replays DALK's real LLM outputs.

For tests and benchmarks only, never a production path. The LLM extractors are measured against
answers a real model gave, with no network and no cost, and they meet real failures: seeded
faults (429 with Retry-After, 500, a slow answer, a malformed body, an answer cut off at
``max_tokens``) exercise the client's retries and parsing.

Recordings are DALK's ``YEAR_s2s.json`` files: items ``{"title", "abstract", "triplet": [{"entity1":
{"entity_name"}, "entity2": {"entity_name"}, "relation"}]}``, indexed by whitespace-collapsed
abstract (by title when the abstract is empty; the earliest file wins). A request's document is
the recorded abstract found in its user message. The answer follows the prompt kind
(``kgbuild/extract/prompts``), from ``response_format.json_schema.name`` or else the prompt text:

* generative — the recorded triples, as ``{"triples": [...]}`` or ``head | relation | tail`` lines;
* pairwise / pairwise_batched — per pair, the option the recorded triples imply: the recorded
  relation when it is an option (``regulates`` read backwards is ``is regulated by``; symmetric
  relations read either way), ``others`` with the recorded relation as predicate, or
  ``no-relation`` when no recorded triple joins the two names.

A prompt with no recorded document gets an empty answer: ``{"triples": []}``, ``{"answers": []}``,
``{"reasoning": "", "answer": "", "predicate": ""}``, or ``""`` without a response_format.

Run ``python -m tests.support.replay_llm_server --recordings DIR`` to serve until SIGTERM; it
prints one line ``READY http://127.0.0.1:PORT/v1`` once listening.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

FAULT_KINDS = ("429", "500", "slow", "malformed", "truncated")
TASKS = ("generative", "pairwise", "pairwise_batched")
PREFIX = 48  # characters of a normalized abstract used to spot it inside a prompt
SYMMETRIC = frozenset({"covaries", "interacts", "resembles", "associates"})
MODEL_ID = "dalk-replay"

_WS = re.compile(r"\s+")
_ABSTRACT = re.compile(r"^Abstract: ?(.*?)(?:\n[ \t]*\n|\Z)", re.M | re.S)
_TITLE = re.compile(r"^Title: ?(.*)$", re.M)
_QUESTION = re.compile(
    r'predict the relationship between (.+?) entity "([^"]*)" and (.+?) entity "([^"]*)", '
    r"please choose from the following options:[ \t]*\n((?:[A-Z]\. [^\n]*(?:\n|$))+)"
)
_OPTION_LINE = re.compile(r"^([A-Z])\. (.*?)\s*$", re.M)
_PAIR_LINE = re.compile(
    r'^(\d+)\. "([^"]*)" \(([^)]*)\) and "([^"]*)" \(([^)]*)\): (.*?)\s*$', re.M
)
_OPTION_ITEM = re.compile(r"^([A-Z])\. (.*)$")
_ALIAS = re.compile(r"^(.*?)\s*\((.+)\)$")
_PUNCT = re.compile(r"[-‐‑‒–—'’‘`]")  # hyphens, dashes and apostrophes


def normalize(text: str) -> str:
    """Whitespace collapsed to single spaces, ends stripped: the index key of a recording."""
    return _WS.sub(" ", text).strip()


def load_recordings(folder: Path) -> dict[str, dict[str, Any]]:
    """Normalized abstract (title if the abstract is empty) → recorded item; first file wins."""
    index: dict[str, dict[str, Any]] = {}
    for path in sorted(Path(folder).glob("*_s2s.json")):
        for item in json.loads(path.read_text(encoding="utf-8")):
            key = normalize(item.get("abstract") or "") or normalize(item.get("title") or "")
            if key:
                index.setdefault(key, item)
    return index


@lru_cache(maxsize=200_000)
def _forms(name: str) -> tuple[frozenset[str], str]:
    """A name's comparable forms (whole, and X and Y of ``X (Y)``) and its fuzzy-match form."""
    spaced = normalize(_PUNCT.sub(" ", name.lower()))
    parts = [name]
    alias = _ALIAS.match(name.strip())
    if alias:
        parts += [alias.group(1), alias.group(2)]
    forms = set()
    for part in parts:
        lowered = part.lower()
        forms.add(normalize(_PUNCT.sub(" ", lowered)))
        forms.add(_WS.sub("", _PUNCT.sub("", lowered)))  # "IL-6" = "IL 6" = "IL6"
    forms.discard("")
    return frozenset(forms), spaced


def same_entity(a: str, b: str) -> bool:
    """Names equal after normalization, one an alias part of the other, or fuzzily equal."""
    forms_a, fuzzy_a = _forms(a)
    forms_b, fuzzy_b = _forms(b)
    if forms_a & forms_b:
        return True
    return bool(fuzzy_a and fuzzy_b) and fuzz.token_sort_ratio(fuzzy_a, fuzzy_b) >= 90


@dataclass(frozen=True, slots=True)
class Option:
    letter: str
    text: str

    @property
    def key(self) -> str:
        return normalize(self.text.lower())

    @property
    def is_others(self) -> bool:
        return self.key.startswith("others")

    @property
    def is_none(self) -> bool:
        return self.key in ("no-relation", "no relation", "none")


@dataclass(frozen=True, slots=True)
class Decision:
    letter: str
    predicate: str
    reasoning: str


@dataclass(frozen=True, slots=True)
class Reply:
    task: str
    content: str
    item: dict[str, Any] | None  # the recorded document, None when it is not recorded


def _triples(item: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
    for t in item.get("triplet") or []:
        head = ((t.get("entity1") or {}).get("entity_name") or "").strip()
        tail = ((t.get("entity2") or {}).get("entity_name") or "").strip()
        yield head, str(t.get("relation") or "").strip(), tail


def decide(item: dict[str, Any], head: str, tail: str, options: list[Option]) -> Decision:
    """The option the recorded triples of ``item`` give the pair (head, tail)."""
    by_key = {o.key: o for o in options if not (o.is_others or o.is_none)}
    others = next((o for o in options if o.is_others), None)
    none = next((o for o in options if o.is_none), None)
    for e1, relation, e2 in _triples(item):
        forward = same_entity(e1, head) and same_entity(e2, tail)
        backward = not forward and same_entity(e1, tail) and same_entity(e2, head)
        if not (forward or backward):
            continue
        rel = normalize(relation.lower())
        said = f"The abstract states that {e1} {relation} {e2}."
        chosen: Option | None = None
        predicate = " ".join(relation.split()[:5]) or "related to"
        if forward:
            chosen = by_key.get(rel)
        elif rel == "regulates":
            chosen = by_key.get("is regulated by")
            predicate = "is regulated by"
        elif rel == "is regulated by":
            chosen = by_key.get("regulates")
            predicate = "regulates"
        elif rel in SYMMETRIC:
            chosen = by_key.get(rel)
        if chosen is not None:
            return Decision(chosen.letter, "", said)
        if others is not None:
            return Decision(others.letter, predicate, said)
    fallback = none or (options[-1] if options else Option("", ""))
    return Decision(
        fallback.letter, "", f"The abstract states no relationship of {head} and {tail}."
    )


def _text(content: Any) -> str:
    """A message's text, whether a string or a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


class ReplayLLM:
    """The recordings index, the fault settings and the request counters of one server."""

    def __init__(
        self,
        recordings: Path,
        *,
        fault_rate: float = 0.0,
        fault_kinds: Iterable[str] = FAULT_KINDS,
        seed: int | None = None,
        retry_after_s: float = 1.0,
        slow_s: float = 5.0,
    ) -> None:
        self.index = load_recordings(recordings)
        self.prefixes: dict[str, list[str]] = {}
        self.short: list[str] = []  # keys shorter than PREFIX, checked one by one
        for key in self.index:
            if len(key) >= PREFIX:
                self.prefixes.setdefault(key[:PREFIX], []).append(key)
            else:
                self.short.append(key)
        self.fault_rate = float(fault_rate)
        self.fault_kinds = tuple(fault_kinds)
        unknown = set(self.fault_kinds) - set(FAULT_KINDS)
        if unknown or not self.fault_kinds:
            raise ValueError(f"fault kinds must be a non-empty subset of {FAULT_KINDS}")
        self.retry_after_s = retry_after_s
        self.slow_s = slow_s
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counters: Counter[str] = Counter()
        self.faults: Counter[str] = Counter({k: 0 for k in FAULT_KINDS})

    # -- finding the document -------------------------------------------------------------------

    def find(self, prompt: str) -> dict[str, Any] | None:
        """The recorded item whose normalized abstract (or title) the prompt contains."""
        abstract = _ABSTRACT.search(prompt)
        if abstract:
            key = normalize(abstract.group(1))
            if not key:
                title = _TITLE.search(prompt)
                key = normalize(title.group(1)) if title else ""
            if key in self.index:
                return self.index[key]
        text = normalize(prompt)
        for i in range(len(text) - PREFIX + 1):
            for key in self.prefixes.get(text[i : i + PREFIX], ()):
                if text.startswith(key, i):
                    return self.index[key]
        for key in self.short:
            if key in text:
                return self.index[key]
        return None

    # -- answering ------------------------------------------------------------------------------

    def reply(self, body: dict[str, Any]) -> Reply:
        """The task, answer content and recorded item for a request body (no side effects)."""
        messages = body.get("messages") or []
        users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
        prompt = "\n".join(users) or "\n".join(_text(m.get("content")) for m in messages)
        fmt = body.get("response_format") or {}
        structured = fmt.get("type") in ("json_schema", "json_object")
        task = str((fmt.get("json_schema") or {}).get("name") or "")
        if task not in TASKS:
            if "for every numbered entity pair" in prompt:
                task = "pairwise_batched"
            elif "Question: predict the relationship between" in prompt:
                task = "pairwise"
            else:
                task = "generative"
        item = self.find(prompt)
        if task == "generative":
            content = self._generative(item, structured)
        elif task == "pairwise":
            content = self._pairwise(item, prompt, structured)
        else:
            content = self._batched(item, prompt, structured)
        return Reply(task, content, item)

    def answer(self, body: dict[str, Any]) -> str:
        """The answer content for a request body."""
        return self.reply(body).content

    @staticmethod
    def _generative(item: dict[str, Any] | None, structured: bool) -> str:
        triples = list(_triples(item)) if item else []
        if structured:
            rows = [{"head": h, "relation": r, "tail": t} for h, r, t in triples]
            return json.dumps({"triples": rows})
        return "\n".join(f"{h} | {r} | {t}" for h, r, t in triples)

    @staticmethod
    def _pairwise(item: dict[str, Any] | None, prompt: str, structured: bool) -> str:
        question = _QUESTION.search(prompt)
        if item is None or question is None:
            empty = {"reasoning": "", "answer": "", "predicate": ""}
            return json.dumps(empty) if structured else ""
        options = [Option(m[1], m[2]) for m in _OPTION_LINE.finditer(question.group(5))]
        d = decide(item, question.group(2), question.group(4), options)
        if structured:
            return json.dumps(
                {"reasoning": d.reasoning, "answer": d.letter, "predicate": d.predicate}
            )
        choice = f"{d.letter}. {d.predicate}" if d.predicate else f"{d.letter}."
        return f"1. {d.reasoning} So the answer is: {choice}"

    @staticmethod
    def _batched(item: dict[str, Any] | None, prompt: str, structured: bool) -> str:
        answers: list[tuple[int, Decision]] = []
        if item is not None:
            for m in _PAIR_LINE.finditer(prompt):
                items = [_OPTION_ITEM.match(part.strip()) for part in m[6].split(";")]
                options = [Option(o[1], o[2].strip()) for o in items if o]
                answers.append((int(m[1]), decide(item, m[2], m[4], options)))
        if structured:
            rows = [{"pair": n, "answer": d.letter, "predicate": d.predicate} for n, d in answers]
            return json.dumps({"answers": rows})
        return "\n".join(
            f"{n}: {d.letter} ({d.predicate})" if d.predicate else f"{n}: {d.letter}"
            for n, d in answers
        )

    # -- faults and counters --------------------------------------------------------------------

    def next_fault(self) -> str | None:
        """This request's fault, if any: two seeded draws per request, so sequences reproduce."""
        with self.lock:
            hit = self.rng.random()
            pick = self.rng.randrange(len(self.fault_kinds))
        return self.fault_kinds[pick] if hit < self.fault_rate else None

    def count(self, name: str, by: Counter[str] | None = None) -> int:
        """Add one to a counter (``by`` defaults to the request counters); the new value."""
        with self.lock:
            counter = self.counters if by is None else by
            counter[name] += 1
            return counter[name]

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.counters["requests"],
                "answered_with_recording": self.counters["answered_with_recording"],
                "empty_answers": self.counters["empty_answers"],
                "tasks": {t: self.counters[f"task:{t}"] for t in TASKS},
                "faults": dict(self.faults),
                "recordings": len(self.index),
            }


def completion(body: dict[str, Any], content: str, *, finish: str = "stop", n: int = 0) -> bytes:
    """An OpenAI ``chat.completion`` with deterministic usage (4 characters a token)."""
    chars = sum(len(_text(m.get("content"))) for m in body.get("messages") or [])
    prompt_tokens = math.ceil(chars / 4)
    completion_tokens = math.ceil(len(content) / 4)
    return json.dumps(
        {
            "id": f"chatcmpl-replay-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or MODEL_ID,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": finish,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


def _error(message: str, kind: str, code: str) -> bytes:
    return json.dumps(
        {"error": {"message": message, "type": kind, "param": None, "code": code}}
    ).encode()


def make_server(llm: ReplayLLM, port: int = 0) -> ThreadingHTTPServer:
    """A keep-alive HTTP/1.1 server for ``llm`` bound to 127.0.0.1:``port`` (not yet serving)."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # one small response per request: no 40 ms ACK stalls

        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                models = {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]}
                self._send(200, json.dumps(models).encode())
            elif path in ("/stats", "/v1/stats"):
                self._send(200, json.dumps(llm.stats()).encode())
            else:
                self._send(404, _error(f"no route {self.path}", "invalid_request_error", "404"))

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path = self.path.split("?", 1)[0].rstrip("/")
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, _error(f"no route {self.path}", "invalid_request_error", "404"))
                return
            try:
                body = json.loads(raw)
                if not isinstance(body, dict):
                    raise ValueError("body is not a JSON object")
            except ValueError as exc:
                self._send(400, _error(f"bad JSON: {exc}", "invalid_request_error", "bad_json"))
                return
            n = llm.count("requests")
            fault = llm.next_fault()
            if fault is not None:
                llm.count(fault, llm.faults)
            try:
                self._complete(body, fault, n)
            except (BrokenPipeError, ConnectionResetError):  # a client that gave up waiting
                self.close_connection = True

        def _complete(self, body: dict[str, Any], fault: str | None, n: int) -> None:
            if fault == "429":
                headers = {"Retry-After": f"{llm.retry_after_s:g}"}
                msg = "Rate limit reached (injected fault); retry after the Retry-After delay."
                self._send(429, _error(msg, "rate_limit_error", "rate_limit_exceeded"), headers)
                return
            if fault == "500":
                msg = "The server had an error processing your request (injected fault)."
                self._send(500, _error(msg, "server_error", "internal_error"))
                return
            if fault == "slow":
                time.sleep(llm.slow_s)
            reply = llm.reply(body)
            llm.count(f"task:{reply.task}")
            llm.count("answered_with_recording" if reply.item is not None else "empty_answers")
            if fault == "truncated":
                cut = reply.content[: len(reply.content) // 2]
                self._send(200, completion(body, cut, finish="length", n=n))
            elif fault == "malformed":
                payload = completion(body, reply.content, n=n)
                self._send(200, payload[: len(payload) // 2])
            else:
                self._send(200, completion(body, reply.content, n=n))

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        block_on_close = False  # idle keep-alive connections must not hold up shutdown

        def handle_error(self, request: Any, client_address: Any) -> None:
            """A client killed mid-request (the reliability drill's kill -9) is expected."""
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)

    return Server(("127.0.0.1", port), Handler)


@contextmanager
def serve_replay(recordings: Path, *, port: int = 0, **fault_options: Any) -> Iterator[str]:
    """Serve ``recordings`` in a thread; yields ``http://127.0.0.1:PORT/v1``."""
    llm = ReplayLLM(recordings, **fault_options)
    with serve_llm(llm, port=port) as url:
        yield url


@contextmanager
def serve_llm(llm: ReplayLLM, *, port: int = 0) -> Iterator[str]:
    """Serve an existing ``ReplayLLM`` (to read its counters) in a thread; yields the base URL."""
    server = make_server(llm, port)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.support.replay_llm_server", description=__doc__
    )
    ap.add_argument("--recordings", type=Path, required=True, help="folder of YEAR_s2s.json")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--fault-rate", type=float, default=0.0, help="share of requests faulted")
    ap.add_argument("--fault-kinds", default=",".join(FAULT_KINDS), help="comma-separated")
    ap.add_argument("--seed", type=int, default=None, help="seed of the fault sequence")
    ap.add_argument("--retry-after", type=float, default=1.0, help="Retry-After of a 429, s")
    ap.add_argument("--slow", type=float, default=5.0, help="delay of a slow answer, s")
    args = ap.parse_args(argv)
    kinds = [k.strip() for k in args.fault_kinds.split(",") if k.strip()]
    llm = ReplayLLM(
        args.recordings,
        fault_rate=args.fault_rate,
        fault_kinds=kinds,
        seed=args.seed,
        retry_after_s=args.retry_after,
        slow_s=args.slow,
    )
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with serve_llm(llm, port=args.port) as url:
        print(f"READY {url}", flush=True)
        while not stop.wait(0.5):
            pass
    print(json.dumps(llm.stats()), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
