"""An OpenAI-compatible server on 127.0.0.1 for the query stage's LLM steps, replaying DALK's
recorded question-entity outputs. For tests and benchmarks only, never a production path.

Recordings are ADQA items carrying DALK's recorded LLM answer of its entity step (``entity``: a
numbered list — ``../shared/data/dalk/adqa/*_ner.json``, or fixtures in that shape), indexed by
whitespace-collapsed question text. A request is answered by prompt kind
(``kgbuild/query/prompts``; from ``response_format.json_schema.name``, else the prompt text):

* ``question_entities`` — the recorded entity list of the question found in the prompt, as
  ``{"question_entities": [...], "choice_entities": []}`` or the recorded numbered list itself;
* ``rerank`` — keeps the first k facts in the order given (a recorded rerank does not exist);
* ``answer`` — a deterministic "reader": the option named by the highest-ranked fact of the
  context (a fact line sharing a word with the option; the first option on ties), citing that
  fact's first PMID. It never sees the gold answer, so its accuracy measures the retrieval's
  ranking, not the replay;
* ``answer_alone`` — the same question with no context: the first option (a reader that knows
  nothing), so ``eval adqa --llm``'s "without the KG" column is checkable.

Faults (429 + Retry-After, 500, slow, malformed, truncated) are injected at a seeded rate by the
same HTTP layer as ``tests/support/replay_llm_server.py``. ``python -m
tests.support.replay_qa_server --recordings FILE...`` prints ``READY <url>`` once listening.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.replay_llm_server import FAULT_KINDS, Reply, _text, normalize, serve_llm

TASKS = ("question_entities", "question_intent", "rerank", "answer", "answer_open",
         "answer_alone")  # fmt: skip
_QUESTION = re.compile(
    r"^Question: ?(.*?)\n(?:[A-J]\. |\n|Think|Keep|Extract|Name|Answer)", re.M | re.S
)
_OPTION = re.compile(r"^([A-J])\. (.*)$", re.M)
_FACT = re.compile(r"^\[\d+\] (.*)$", re.M)
_PMID = re.compile(r"PMID (\d+)")
_KEEP_K = re.compile(r"Keep at most (\d+) facts")
_NUMBERED = re.compile(r"^(\d+)\. ", re.M)
_WORD = re.compile(r"[a-z0-9]+")


def _key(question: str, choices: list[str]) -> str:
    return " || ".join(normalize(x) for x in [question, *choices])


def load_recordings(paths: Iterable[Path]) -> dict[str, dict[str, Any]]:
    """(question, choices) → recorded item (ADQA repeats some question stems with other
    choices, so the choices are part of the key; the first file that has it wins)."""
    from kgbuild.evaluate.adqa import parse_item

    index: dict[str, dict[str, Any]] = {}
    for path in paths:
        for pos, item in enumerate(json.loads(Path(path).read_text(encoding="utf-8"))):
            if item.get("entity"):
                q = parse_item(item, "replay", pos)
                index.setdefault(_key(q.question, q.choices), item)
    return index


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


class ReplayQA:
    """Recordings, fault settings and counters; the interface ``serve_llm`` drives."""

    def __init__(self, recordings: Iterable[Path], *, fault_rate: float = 0.0,
                 fault_kinds: Iterable[str] = FAULT_KINDS, seed: int | None = None,
                 retry_after_s: float = 1.0, slow_s: float = 5.0) -> None:  # fmt: skip
        self.index = load_recordings(recordings)
        self.fault_rate = float(fault_rate)
        self.fault_kinds = tuple(fault_kinds)
        self.retry_after_s = retry_after_s
        self.slow_s = slow_s
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counters: Counter[str] = Counter()
        self.faults: Counter[str] = Counter({k: 0 for k in FAULT_KINDS})

    def find(self, prompt: str) -> dict[str, Any] | None:
        """The recording of the question and options written in the prompt."""
        m = _QUESTION.search(prompt)
        if not m:
            return None
        options = [text for _, text in _OPTION.findall(prompt[m.end(1) :])]
        return self.index.get(_key(m.group(1), options))

    def reply(self, body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        prompt = "\n".join(_text(m.get("content")) for m in messages if m.get("role") == "user")
        fmt = body.get("response_format") or {}
        structured = fmt.get("type") in ("json_schema", "json_object")
        task = str((fmt.get("json_schema") or {}).get("name") or "")
        if task not in TASKS:
            if "Extract the biomedical entities" in prompt:
                task = "question_entities"
            elif "Knowledge graph facts, numbered" in prompt:
                task = "rerank"
            else:
                task = "answer"
        item = self.find(prompt) if task == "question_entities" else None
        if task == "question_entities":
            content = self._entities(item, structured)
        elif task == "question_intent":  # DALK recorded no reading of intent: nothing read
            content = "{}"
        elif task == "rerank":
            content = self._rerank(prompt, structured)
        else:
            content = self._answer(prompt, structured)
            item = {"answered": True}
        return Reply(task, content, item)

    @staticmethod
    def _entities(item: dict[str, Any] | None, structured: bool) -> str:
        raw = (item or {}).get("entity") or ""
        if not structured:
            return raw
        names = [re.sub(r"^\s*\d+\s*[.)]\s*", "", line).strip() for line in raw.splitlines()]
        return json.dumps({"question_entities": [n for n in names if n], "choice_entities": []})

    @staticmethod
    def _rerank(prompt: str, structured: bool) -> str:
        m = _KEEP_K.search(prompt)
        k = int(m.group(1)) if m else 5
        listing = prompt.split("Knowledge graph facts, numbered", 1)[-1]
        n = len(_NUMBERED.findall(listing.split("\n\nKeep", 1)[0]))
        keep = list(range(1, min(k, n) + 1))
        return json.dumps({"keep": keep}) if structured else ", ".join(map(str, keep))

    @staticmethod
    def _answer(prompt: str, structured: bool) -> str:
        context, _, rest = prompt.partition("Question:")
        blocks = re.split(r"^(?=\[\d+\] )", context, flags=re.M)
        facts = [b for b in blocks if _FACT.match(b)]
        options = _OPTION.findall(rest)
        best, cited = (options[0][0] if options else ""), []
        for fact in facts:
            head = _words(fact.splitlines()[0])
            hit = next((letter for letter, text in options if _words(text) & head), None)
            if hit is not None:
                best, cited = hit, _PMID.findall(fact)[:1]
                break
        reasoning = f"The highest-ranked fact that names an option names option {best}."
        if structured:
            return json.dumps({"reasoning": reasoning, "answer": best, "pmids": cited})
        return f"{reasoning} So the answer is: {best}.\nPMIDs: {', '.join(cited)}"

    def next_fault(self) -> str | None:
        with self.lock:
            hit = self.rng.random()
            pick = self.rng.randrange(len(self.fault_kinds))
        return self.fault_kinds[pick] if hit < self.fault_rate else None

    def count(self, name: str, by: Counter[str] | None = None) -> int:
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


@contextmanager
def serve_replay_qa(recordings: Iterable[Path], **options: Any) -> Iterator[tuple[str, ReplayQA]]:
    """Serve in a thread; yields (base URL, the ReplayQA, to read its counters)."""
    port = options.pop("port", 0)
    qa = ReplayQA(recordings, **options)
    with serve_llm(qa, port=port) as url:  # type: ignore[arg-type]
        yield url, qa


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.support.replay_qa_server", description=__doc__
    )
    ap.add_argument("--recordings", type=Path, nargs="+", required=True, help="*_ner.json files")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args(argv)
    qa = ReplayQA(args.recordings, fault_rate=args.fault_rate, seed=args.seed)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    with serve_llm(qa, port=args.port) as url:  # type: ignore[arg-type]
        print(f"READY {url}", flush=True)
        while not stop.wait(0.5):
            pass
    print(json.dumps(qa.stats()), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
