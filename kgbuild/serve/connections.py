"""Connection hygiene for ``kgbuild serve``: every connection has a deadline
for what its client owes next, and a process never holds more connections than it has file
descriptors for.

Left to itself, uvicorn (h11) closes a connection only after a response, when keep-alive runs
out: a client that connects and sends nothing, or sends its headers or body a byte at a time,
holds a descriptor for good. And asyncio accepts whatever the kernel queued: once descriptors
run out, ``accept()`` fails with EMFILE, asyncio logs a traceback for each failure (up to
``backlog`` of them per wake-up) and ``/health`` is never reached again.

Three uvicorn extension points, nothing patched:

* :class:`GuardedH11Protocol` (``Config.http``): uvicorn's h11 protocol, with one timer per
  connection for the phase its client is in — *idle* (nothing of a request yet:
  :data:`IDLE_TIMEOUT_S` after the connection opened or the last response), *headers* (request
  line and headers complete within :data:`HEADER_TIMEOUT_S` of the same start) and *body* (the
  whole body within :data:`BODY_TIMEOUT_S` of the headers). The connection is closed when the
  timer fires. While the app works on a complete request there is no deadline: the
  :mod:`gates <kgbuild.serve.gate>` bound that. (The size of the headers is h11's to bound:
  over 16 KB is a 400.)
* :class:`GuardedLoop` (the loop factory of :class:`GuardedConfig`): a listening socket given
  to ``create_server`` is accepted from by :meth:`Guard.accept` instead of asyncio. A connection
  is accepted only while fewer than :attr:`Guard.cap` are open (the descriptor limit less those
  already open and :data:`FD_HEADROOM`), so ``accept()`` never meets EMFILE on their account. At
  the cap, the connections that have waited longest for their client (idle, or trickling
  headers or a body) are closed to admit new ones: a flood of idle connections pushes out its
  own oldest members, and a ``/health`` probe gets in.
* One log line when a condition begins and one when it is over (:class:`_Episode`), never one
  per connection: the cap, accept errors, and uvicorn's per-request warnings (``Invalid HTTP
  request received.``) while they repeat.

uvicorn's ``limit_concurrency`` does not help here: it answers 503 once enough connections are
open, but still accepts them, idle ones included.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import resource
import socket
from collections.abc import Callable
from itertools import islice
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection may send nothing of a request (a new one, or keep-alive between two).
IDLE_TIMEOUT_S = 5.0
#: Seconds from that same start until the request line and every header have arrived.
HEADER_TIMEOUT_S = 10.0
#: Seconds from the end of the headers until the whole body has arrived (the largest body the
#: server reads, 64 KB, at 2 KB/s).
BODY_TIMEOUT_S = 30.0
#: Descriptors kept free of connections for what serving opens after startup: DuckDB and parquet
#: files on a reload, the LLM client's sockets, the model, logs (a quarter of a smaller limit).
FD_HEADROOM = 256
#: The soft limit taken when RLIMIT_NOFILE is unlimited.
UNLIMITED_FDS = 1 << 20
#: Connections accepted per wake-up of a listening socket (the loop's other work runs between).
ACCEPT_BATCH = 128
#: Most connections closed at once to admit new ones at the cap (or a quarter of the cap, if
#: more): a burst queued in the kernel behind the cap drains in a few rounds, not dozens.
EVICT_BATCH = 64
#: How long accepting pauses at the cap with nothing idle to close, or after an accept error.
ACCEPT_RETRY_S = 0.1
#: A connection younger than this is never evicted: its request may be in the kernel's buffer,
#: not yet read (a ``/health`` probe accepted amid a burst of idle connections was closed before
#: its first read). Older waiters are closed first; at the cap with only young ones, accepting
#: pauses for :data:`ACCEPT_RETRY_S`.
MIN_EVICT_AGE_S = 0.25
#: A condition is over (and its summary logged) once it has not recurred for this long.
QUIET_S = 10.0

log = logging.getLogger("kgbuild.serve")


def open_fds() -> int:
    """Descriptors this process has open (0 where the system cannot list them)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return 0


def connection_cap(requested: int | None = None) -> int:
    """Connections this process may hold: its soft RLIMIT_NOFILE less the descriptors already
    open and :data:`FD_HEADROOM` — or ``requested``, when that is lower. At least one."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        soft = UNLIMITED_FDS
    cap = max(1, soft - open_fds() - min(FD_HEADROOM, soft // 4))
    return min(cap, requested) if requested else cap


def no_delay(conn: socket.socket) -> None:
    """Turn Nagle's algorithm off for an accepted TCP connection. Why: asyncio sets
    ``TCP_NODELAY`` only on sockets whose ``proto`` is ``IPPROTO_TCP``, and uvicorn's listening
    socket (``socket.socket(family)``) has proto 0, as has every socket accepted from it. h11
    writes a response's headers and body separately; with Nagle on, the body waited for the
    client's delayed ACK (40 ms on Linux) once the connection had left quick-ACK mode. Measured
    here: in runs of sixty heavy requests, ``/health`` p50 went 2 ms → 45 ms in two of five
    runs, with one delayed ACK per probe (``DelayedACKs`` in /proc/net/netstat, 260 against 55)."""
    if conn.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # reset by the client already: its read will say
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _Episode:
    """A condition logged twice however often it occurs: when it begins, and once it has not
    recurred for :data:`QUIET_S`, with how many times it did (a flood is two lines)."""

    def __init__(self, begin: str, end: str) -> None:
        self.begin, self.end = begin, end
        self.hits = 0
        self.first = self.last = 0.0
        self._check: asyncio.TimerHandle | None = None

    def hit(self, loop: asyncio.AbstractEventLoop, n: int = 1, **values: Any) -> None:
        now = loop.time()
        if self._check is None:
            self.hits, self.first = 0, now
            log.warning(self.begin, values)
            self._check = loop.call_later(QUIET_S, self._maybe_over, loop)
        self.hits += n
        self.last = now

    def _maybe_over(self, loop: asyncio.AbstractEventLoop) -> None:
        quiet = loop.time() - self.last
        if quiet < QUIET_S:
            self._check = loop.call_later(QUIET_S - quiet, self._maybe_over, loop)
            return
        self._check = None
        log.warning(self.end, {"hits": self.hits, "secs": self.last - self.first})


class _Repeats(logging.Filter):
    """Lets a warning (without a traceback) through once per :data:`QUIET_S`; the next one to
    pass says how many were held back: uvicorn warns once per hostile request."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or record.exc_info:
            return True
        key = str(record.msg)
        passed, held = self.seen.get(key, (0.0, 0))
        if record.created - passed < QUIET_S:
            self.seen[key] = (passed, held + 1)
            return False
        if len(self.seen) > 1000:  # templates are few; a message with values in it is not
            self.seen.clear()
        self.seen[key] = (record.created, 0)
        if held:
            record.msg = f"{record.msg} (and {held} more like it since the last one logged)"
        return True


_REPEATS = _Repeats()


class Guard:
    """One process's connections: their deadlines, the cap, and the accept loop that keeps to
    it. ``max_connections`` lowers the cap derived from the descriptor limit."""

    def __init__(
        self,
        max_connections: int | None = None,
        idle_s: float = IDLE_TIMEOUT_S,
        header_s: float = HEADER_TIMEOUT_S,
        body_s: float = BODY_TIMEOUT_S,
    ) -> None:
        if max_connections is not None and max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        if not all(0 < t < math.inf for t in (idle_s, header_s, body_s)):  # NaN too
            raise ValueError("connection timeouts must be positive numbers of seconds")
        self.max_connections = max_connections
        self.idle_s, self.header_s, self.body_s = idle_s, header_s, body_s
        #: Set when the first listening socket is served (the descriptors open by then count).
        self.cap = 0
        self.open: set[GuardedH11Protocol] = set()
        #: Connections whose client owes the next bytes, longest waiting first (the evictable).
        self.waiting: dict[GuardedH11Protocol, None] = {}
        #: Accepted sockets whose protocol is not made yet (they hold descriptors too).
        self.pending = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listeners: list[tuple[socket.socket, Callable[[], asyncio.Protocol], Any]] = []
        self._paused = False
        self._retry: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._capped = _Episode(
            "kgbuild serve: connection cap reached (%(open)d open, cap %(cap)d): closing the "
            "connections idle longest to admit new ones",
            "kgbuild serve: connection cap episode over: %(hits)d idle connections closed to "
            "admit new ones in %(secs).0f s",
        )
        self._accept_failed = _Episode(
            "kgbuild serve: accept() failed: %(error)s (%(open)d connections open): closing idle "
            "connections and retrying every %(retry)s s",
            "kgbuild serve: accept() failures over: %(hits)d in %(secs).0f s",
        )
        self._unguarded_warned = False

    # ---- accepting ---------------------------------------------------------------------
    def serve(
        self,
        loop: asyncio.AbstractEventLoop,
        sock: socket.socket,
        factory: Callable[[], asyncio.Protocol],
        ssl: Any = None,
    ) -> None:
        """Accept connections on the listening ``sock`` through :meth:`accept` from now on."""
        if self._loop is None:
            self._loop = loop
            self.cap = connection_cap(self.max_connections)
            logging.getLogger("uvicorn.error").addFilter(_REPEATS)  # once per process
        sock.setblocking(False)
        self._listeners.append((sock, factory, ssl))
        if not self._paused:
            loop.add_reader(sock.fileno(), self.accept, sock, factory, ssl)

    def full(self) -> bool:
        return len(self.open) + self.pending >= self.cap

    def accept(
        self, sock: socket.socket, factory: Callable[[], asyncio.Protocol], ssl: Any
    ) -> None:
        """What a readable listening socket calls: accept up to :data:`ACCEPT_BATCH` clients
        while under the cap; at the cap, close the longest-waiting connections and pause until
        their descriptors are free."""
        assert self._loop is not None
        for _ in range(ACCEPT_BATCH):
            if self.full():
                closed = self.evict()
                self._capped.hit(self._loop, closed, open=len(self.open) + self.pending,
                                 cap=self.cap)  # fmt: skip
                self._pause()
                return
            try:
                conn, _ = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return  # nothing (more) queued
            except OSError as exc:  # EMFILE, ENFILE, ENOBUFS…: descriptors spent elsewhere
                self.evict()
                self._accept_failed.hit(self._loop, error=exc.strerror or repr(exc),
                                        open=len(self.open) + self.pending,
                                        retry=ACCEPT_RETRY_S)  # fmt: skip
                self._pause()
                return
            conn.setblocking(False)
            no_delay(conn)
            self.pending += 1
            task = self._loop.create_task(self._connect(conn, factory, ssl))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _connect(
        self, conn: socket.socket, factory: Callable[[], asyncio.Protocol], ssl: Any
    ) -> None:
        assert self._loop is not None
        try:
            await self._loop.connect_accepted_socket(factory, conn, ssl=ssl)
        except Exception:  # the client left already, or its TLS handshake failed
            conn.close()
        finally:
            self.pending -= 1
            self._maybe_resume()

    def evict(self) -> int:
        """Close up to :data:`EVICT_BATCH` connections, those waiting longest for their client
        first, none younger than :data:`MIN_EVICT_AGE_S`; how many. Their descriptors are free
        once the loop has closed them."""
        n = min(max(EVICT_BATCH, self.cap // 4), len(self.waiting))
        assert self._loop is not None
        old_enough = self._loop.time() - MIN_EVICT_AGE_S
        chosen = [p for p in islice(self.waiting, n) if p._since <= old_enough]
        for proto in chosen:
            proto.expire("evicted")
        return len(chosen)

    def _pause(self) -> None:
        """Stop reading the listening sockets (the kernel queues new clients) until a
        connection closes, or :data:`ACCEPT_RETRY_S` has passed."""
        assert self._loop is not None
        if not self._paused:
            self._paused = True
            for sock, *_ in self._listeners:
                if sock.fileno() >= 0:
                    self._loop.remove_reader(sock.fileno())
        if self._retry is None:
            self._retry = self._loop.call_later(ACCEPT_RETRY_S, self._resume)

    def _resume(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None
        if not self._paused or self._loop is None:
            return
        self._paused = False
        for sock, factory, ssl in self._listeners:
            if sock.fileno() >= 0:  # -1 once uvicorn has closed it (shutdown)
                self._loop.add_reader(sock.fileno(), self.accept, sock, factory, ssl)

    def _maybe_resume(self) -> None:
        if self._paused and not self.full():
            self._resume()

    # ---- what connections report -------------------------------------------------------
    def opened(self, proto: GuardedH11Protocol) -> None:
        self.open.add(proto)
        if self._loop is None and not self._unguarded_warned:
            self._unguarded_warned = True
            log.warning("kgbuild serve: connections are not capped (uvicorn accepted them "
                        "itself: it is older than 0.36 or ran without this loop)")  # fmt: skip

    def forget(self, proto: GuardedH11Protocol) -> None:
        self.open.discard(proto)
        self.waiting.pop(proto, None)
        self._maybe_resume()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline for whatever the client owes next (see the
    module's docstring), registered with its process's :class:`Guard` (``config.guard``)."""

    def __init__(
        self,
        config: GuardedConfig,
        server_state: Any,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.guard: Guard = config.guard
        self.phase = "new"
        self._since = 0.0  # when the current request was first awaited
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.guard.opened(self)
        self._await_request()

    def data_received(self, data: bytes) -> None:
        if self.phase == "idle":
            self._enter("headers", self._since + self.guard.header_s)
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start a pipelined request
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._await_request()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._enter("closed", None)
        self.guard.forget(self)
        super().connection_lost(exc)

    def _should_upgrade(self) -> bool:
        # No WebSocket routes: an Upgrade header is served as plain HTTP, so the connection
        # stays with this protocol (and its count) and uvicorn warns nothing per request.
        return False

    def expire(self, why: str) -> None:
        """Close the connection: its deadline ``why`` passed, or the guard needs its slot. A
        client that reads nothing cannot hold it open with unsent bytes (abort, not close)."""
        self._enter(why, None)
        if self.transport.is_closing():
            return
        if self.transport.get_write_buffer_size():
            self.transport.abort()
        else:
            self.transport.close()

    def _await_request(self) -> None:
        """A new request is awaited (first, or after a response): the youngest waiter."""
        self._since = self.loop.time()
        self.guard.waiting.pop(self, None)
        self.guard.waiting[self] = None
        self._enter("idle", self._since + self.guard.idle_s)

    def _enter(self, phase: str, deadline: float | None) -> None:
        self.phase = phase
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if deadline is not None:
            self._timer = self.loop.call_at(deadline, self.expire, phase)
            self.guard.waiting.setdefault(self, None)  # where it was, if it was waiting
        else:  # the client owes nothing now: not a candidate for eviction
            self.guard.waiting.pop(self, None)

    def _follow(self) -> None:
        """Move the deadline to what h11 says the client owes now. Phases only move forward
        within a request, so bytes that complete nothing (blank lines) never restart a timer."""
        if self.transport.is_closing():
            self._enter("closing", None)
            return
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if self.phase != "body":
                self._enter("body", self.loop.time() + self.guard.body_s)
        elif state is h11.IDLE:
            if self.phase == "idle" and self.conn.trailing_data[0]:
                self._enter("headers", self._since + self.guard.header_s)
        elif self.phase != "busy":  # the request is in: the app answers it (gates bound that)
            self._enter("busy", None)


class GuardedLoop(asyncio.SelectorEventLoop):
    """asyncio's selector loop, except that a listening socket handed to ``create_server``
    (uvicorn always hands one to ``Server.run(sockets=…)``) is accepted from by ``guard``."""

    def __init__(self, guard: Guard) -> None:
        super().__init__()
        self.guard = guard

    async def create_server(  # type: ignore[override]
        self,
        protocol_factory: Callable[[], asyncio.Protocol],
        host: Any = None,
        port: Any = None,
        *,
        sock: socket.socket | None = None,
        ssl: Any = None,
        start_serving: bool = True,
        **kwargs: Any,
    ) -> asyncio.Server:
        guarded = sock is not None and start_serving
        server = await super().create_server(
            protocol_factory, host, port, sock=sock, ssl=ssl,
            start_serving=start_serving and not guarded, **kwargs,
        )  # fmt: skip
        if guarded:
            assert sock is not None
            # The listen() asyncio does when it starts serving (uvicorn's bind_socket() only
            # binds); the backlog is the kernel's queue while accepting is paused.
            sock.listen(kwargs.get("backlog", 100))
            self.guard.serve(self, sock, protocol_factory, ssl)
        return server


class GuardedConfig(uvicorn.Config):
    """uvicorn's Config with the guard wired in: its protocol (h11, no WebSockets), its loop,
    and keep-alive at the idle timeout. Pass sockets to ``Server.run`` (``listening_socket()``)."""

    def __init__(self, app: Any, *, guard: Guard | None = None, **kwargs: Any) -> None:
        self.guard = guard or Guard()
        keep_alive = max(1, math.ceil(self.guard.idle_s))  # our timer is the exact one
        super().__init__(app, http=GuardedH11Protocol, ws="none", loop="asyncio",
                         timeout_keep_alive=keep_alive, **kwargs)  # fmt: skip

    def listening_socket(self) -> socket.socket:
        """The server's socket, bound *and listening*, so that whoever reads "ready" can connect
        at once (the kernel queues the connection until the loop accepts) and scripts need no
        retry loop. uvicorn's ``bind_socket`` only binds; ``listen`` came later, in the event
        loop: between the two a connect was refused (the docs' ``curl`` after ``serve … &``
        failed so under CI load, exit 7)."""
        sock = self.bind_socket()
        sock.listen(self.backlog)
        return sock

    def get_loop_factory(self) -> Callable[[], asyncio.AbstractEventLoop]:
        guard = self.guard
        return lambda: GuardedLoop(guard)
