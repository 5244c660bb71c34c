"""Per-process bounds on open connections and board event streams, so that a hall of phones cannot
take the chairs' pushes down with it.

Every board holds one event stream (one connection, one file descriptor) for as long as it is open.
With the usual limit of 1,024 open files, 1,100 idle board streams once made the server refuse every
request, the chairs' pushes included: the kernel hands out no descriptor for a new connection. So:

- at most :attr:`Capacity.max_streams` event streams are open at once; the newest past the cap gets
  ``503`` with ``Retry-After`` (the board page waits that long and tries again);
- while more than :attr:`Capacity.max_connections` connections are open (counted by the server's
  protocol, :func:`adjudicator.live.server.serving.deadline_protocol`), a request without a valid token gets
  the same ``503`` and its connection is closed;
- a request carrying a valid token of a person (the organiser's, a tab-room person's, a chair's or a
  panellist's) is never refused by either cap: the chairs' writes and pages go through however full
  the hall is. A private board's board token is the hall's (every phone may hold it), so it counts as
  no token here (:func:`adjudicator.live.server.app.create_app` decides which tokens pass).

The defaults follow the process's limit on open files (:func:`default_limits`): the connections cap
leaves :data:`RESERVED_FILES` descriptors for the stores, the pools and the token holders' requests,
and the streams cap is half of it, so refused connections and waiting heads
(:data:`~adjudicator.live.server.serving.MAX_PENDING_HEADS`) always find a descriptor.

Why our own middleware: uvicorn's ``limit_concurrency`` refuses the newest request whoever sends it,
the chairs' included, and counts no streams apart.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

#: Descriptors kept out of the connections cap: the SQLite files or PostgreSQL pools, the event loop,
#: worker threads' pipes, and the requests of token holders that pass over the cap.
RESERVED_FILES = 128
#: Seconds a refused client is told to wait (``Retry-After``) before it tries again.
RETRY_AFTER_S = 10
#: The stream path's last part (``/api/matches/{id}/events``).
STREAM_SUFFIX = "/events"


def open_files_limit() -> int:
    """The process's soft limit on open files (``RLIMIT_NOFILE``); 1,024 where it cannot be read."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return 1024
    return 1024 if soft == resource.RLIM_INFINITY else int(soft)


def default_limits(open_files: int | None = None) -> tuple[int, int]:
    """``(max_connections, max_streams)`` for a process that may open ``open_files`` descriptors
    (default: its soft limit): the limit less :data:`RESERVED_FILES`, and half of that for streams,
    at least 16 and 8. With 1,024 open files: 896 connections, 448 streams."""
    n = open_files_limit() if open_files is None else open_files
    connections = max(16, n - RESERVED_FILES)
    return connections, max(8, connections // 2)


@dataclass
class Capacity:
    """The caps of one server and what is open now. ``connections`` is kept by the server's protocol
    (0 when the app runs under another server: then only the streams cap applies), ``streams`` by
    :class:`CapacityGuard`. Both change on the event loop's thread only."""

    max_connections: int
    max_streams: int
    connections: int = 0
    streams: int = 0
    refused: int = 0

    @classmethod
    def for_process(cls, max_connections: int | None = None, max_streams: int | None = None) -> Capacity:
        """The caps given, the others from :func:`default_limits`. Raises ValueError for a cap below 1."""
        conn, streams = default_limits()
        c = cls(max_connections if max_connections is not None else conn, max_streams if max_streams is not None else streams)
        if c.max_connections < 1 or c.max_streams < 1:
            raise ValueError("the connection and stream caps must be at least 1")
        return c


def is_stream(scope: dict[str, Any]) -> bool:
    """Whether the request opens a board event stream (``GET /api/matches/{id}/events``)."""
    path = scope.get("path") or ""
    return scope.get("method") == "GET" and path.startswith("/api/matches/") and path.endswith(STREAM_SUFFIX)


def _headers(scope: dict[str, Any]) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}


class CapacityGuard:
    """ASGI middleware applying :class:`Capacity` (module docstring). ``has_valid_token(headers)``
    says whether a request carries a token the server knows (asked only of requests over a cap)."""

    def __init__(self, app: Any, capacity: Capacity, has_valid_token: Callable[[dict[str, str]], Awaitable[bool]]) -> None:
        self.app = app
        self.capacity = capacity
        self.has_valid_token = has_valid_token

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = self.capacity
        stream = is_stream(scope)
        over = (stream and cap.streams >= cap.max_streams) or cap.connections > cap.max_connections
        if over and not await self.has_valid_token(_headers(scope)):
            cap.refused += 1
            what = (f"this server has {cap.streams} open board streams, its limit" if stream and cap.streams >= cap.max_streams
                    else f"this server has {cap.connections} open connections, more than its limit of {cap.max_connections}")
            await _refuse(send, what)
            return
        if not stream:
            await self.app(scope, receive, send)
            return
        cap.streams += 1
        try:
            await self.app(scope, receive, send)
        finally:
            cap.streams -= 1


async def _refuse(send: Any, what: str) -> None:
    """Answer ``503`` with ``Retry-After`` and close the connection."""
    body = json.dumps({"detail": f"{what}; retry in {RETRY_AFTER_S} s", "field": None}).encode()
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER_S).encode()), (b"connection", b"close"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
