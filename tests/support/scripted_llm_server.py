"""A real HTTP server on 127.0.0.1 speaking OpenAI chat-completions, with scripted faults.

Each request takes the next step of ``script`` (then ``default``): ``("ok", text)``,
``("status", code, retry_after[, message])``, ``("sleep", seconds, text)``, ``("garbage",)`` or
``("answer", fn)`` (``fn(request_body) -> text``: a model that reads its prompt) or
``("raw", bytes)`` (a 200 with exactly that body).
It records
every request's time, body and headers, and the most requests it had in flight at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedLLM:
    def __init__(
        self, script: list[tuple[Any, ...]] | None = None, default: tuple[Any, ...] = ("ok", "fine")
    ) -> None:
        self.script = list(script or [])
        self.default = default
        self.finish_reason = "stop"  # "length": every answer reads as cut off at max_tokens
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()

    def next_step(self) -> tuple[Any, ...]:
        with self.lock:
            return self.script.pop(0) if self.script else self.default


def _completion(text: str, body: dict[str, Any], finish_reason: str = "stop") -> bytes:
    prompt = sum(len(m.get("content", "").split()) for m in body.get("messages", []))
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish_reason,
                    "message": {"role": "assistant", "content": text},
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": len(text.split()),
                "total_tokens": prompt + len(text.split()),
            },
        }
    ).encode()


@contextmanager
def serve(llm: ScriptedLLM) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with llm.lock:
                llm.requests.append(
                    {"t": time.monotonic(), "body": body, "headers": dict(self.headers)}
                )
                llm.in_flight += 1
                llm.max_in_flight = max(llm.max_in_flight, llm.in_flight)
            try:
                step = llm.next_step()
                if step[0] == "sleep":
                    time.sleep(step[1])
                    step = ("ok", step[2])
                if step[0] == "answer":
                    step = ("ok", step[1](body))
                if step[0] == "status":
                    self.send_response(step[1])
                    if step[2] is not None:
                        self.send_header("Retry-After", str(step[2]))
                    message = step[3] if len(step) > 3 else f"status {step[1]}"
                    payload = json.dumps({"error": {"message": message}}).encode()
                elif step[0] == "garbage":
                    self.send_response(200)
                    payload = b'{"choices": [ {"message": '
                elif step[0] == "raw":
                    self.send_response(200)
                    payload = step[1]
                else:
                    self.send_response(200)
                    payload = _completion(step[1], body, llm.finish_reason)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                with llm.lock:
                    llm.in_flight -= 1

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
