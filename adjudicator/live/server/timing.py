"""How long the live server spent on each answer, in a ``Server-Timing`` header (an ASGI middleware,
:class:`ServerTiming`).

``Server-Timing: app;dur=12.3`` is the wall time in milliseconds from the request reaching the app to
its answer starting (W3C Server Timing; browsers' developer tools show it). It includes what a request
waits for inside the server (a room's lock, a worker thread, the interpreter lock), and excludes what it
waits for before the server reads it and on the wire: ``benchmarks/live_scale.py`` subtracts it from
the client's latency to tell queueing outside the server from time inside it.

Why a middleware of our own: Starlette ships none that writes this header; it is a few lines.
"""

from __future__ import annotations

import time
from typing import Any


class ServerTiming:
    """ASGI middleware adding ``Server-Timing: app;dur=<ms>`` to every HTTP answer."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()

        async def send_with_timing(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                dur = f"app;dur={(time.perf_counter() - t0) * 1e3:.1f}".encode()
                message = message | {"headers": [*message.get("headers", []), (b"server-timing", dur)]}
            await send(message)

        await self.app(scope, receive, send_with_timing)
