"""Requests a full gate would turn away are answered 503 before their body is read."""

import asyncio
import sys
import threading

import orjson

from kgbuild.serve.gate import SERVE_SWITCH_INTERVAL_S, Gate, Limit, favour_the_event_loop
from kgbuild.serve.server import ShedWhenFull


def _scope(method: str, path: str) -> dict:
    return {"type": "http", "method": method, "path": path, "headers": [], "query_string": b""}


async def _call(app, scope) -> tuple[list[str], list[dict]]:
    read: list[str] = []
    sent: list[dict] = []

    async def receive() -> dict:
        read.append(scope["path"])
        return {"type": "http.request", "body": b"{not json", "more_body": False}

    async def send(msg: dict) -> None:
        sent.append(msg)

    await app(scope, receive, send)
    return read, sent


def test_a_full_gate_turns_a_post_away_unread_and_counts_it():
    reached: list[str] = []

    async def inner(scope, receive, send):  # the app behind: reads the body, answers 200
        await receive()
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def main() -> None:
        gate = Gate("retrieve", Limit(running=1, queued=0, wait_s=5.0))
        app = ShedWhenFull(inner, {"/retrieve": gate})
        release = threading.Event()
        holder = asyncio.create_task(gate.run(release.wait))
        while gate.load()["running"] < 1:
            await asyncio.sleep(0.01)
        assert gate.full()

        try:
            read, sent = await _call(app, _scope("POST", "/retrieve"))
            assert read == [] and reached == []  # neither the body nor the app was touched
            start, body = sent
            assert start["status"] == 503 and (b"retry-after", b"1") in start["headers"]
            assert (
                "server busy: retrieve requests at capacity" in orjson.loads(body["body"])["error"]
            )
            assert gate.load() == {"running": 1, "waiting": 0, "rejected": 1}

            # other routes and methods pass, full gate or not
            for method, path in (("GET", "/retrieve"), ("POST", "/entities"), ("POST", "/ask")):
                read, sent = await _call(app, _scope(method, path))
                assert read == [path] and sent[0]["status"] == 200
        finally:  # a failed check must not leave the slot's thread waiting for good
            release.set()
        await holder
        assert not gate.full()
        read, sent = await _call(app, _scope("POST", "/retrieve"))  # room again: it goes in
        assert read == ["/retrieve"] and sent[0]["status"] == 200
        assert gate.load()["rejected"] == 1

    asyncio.run(main())


def test_a_serving_process_hands_the_gil_over_sooner():
    before = sys.getswitchinterval()
    try:
        favour_the_event_loop()
        assert sys.getswitchinterval() == SERVE_SWITCH_INTERVAL_S < before
    finally:
        sys.setswitchinterval(before)
