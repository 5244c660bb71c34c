"""A loopback OpenAI-compatible chat-completions server for tests, scripted per request.

Tests talk to it with the real litellm client (model ``openai/test-model``, ``api_base`` the
server's ``/v1`` URL, a dummy key), so every byte goes over real HTTP on 127.0.0.1 and nothing can
reach the network.

Script it with :meth:`FakeOpenAI.push` (a queue of :class:`Reply`, consumed one per request) or
:meth:`FakeOpenAI.respond_with` (a callable ``request_body -> Reply`` used when the queue is empty).
Every request body it received is kept in :attr:`FakeOpenAI.requests` (parsed JSON), with the
request headers in :attr:`FakeOpenAI.headers`. With neither a queued reply nor a responder it
answers 400 ``"fake server: no scripted reply left"`` (400 is not retried, so a test that forgot a
reply fails fast instead of sleeping through backoff).

Use the ``fake_openai`` pytest fixture defined here: ``from fake_openai import fake_openai`` in a
test module (pytest puts ``tests/`` on ``sys.path``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    """One scripted answer.

    ``content`` becomes ``choices[0].message.content`` of a 200 answer (None sends ``null``);
    ``status`` other than 200 sends an OpenAI-style error body with ``error_message``; ``headers``
    are extra response headers (e.g. ``{"Retry-After": "0.05"}``); ``delay_s`` sleeps before
    answering (to trip a client timeout); ``usage`` is (prompt_tokens, completion_tokens), or None
    to omit the usage block; ``body`` replaces the whole JSON body when given.
    """

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    usage: tuple[int, int] | None = (11, 7)
    finish_reason: str = "stop"
    refusal: str | None = None
    error_message: str = "scripted error"
    body: dict[str, Any] | None = None


def ok(content: str, **kw: Any) -> Reply:
    """A 200 reply carrying ``content``."""
    return Reply(content=content, **kw)


def error(status: int, message: str = "scripted error", **kw: Any) -> Reply:
    """An error reply with HTTP ``status``."""
    return Reply(content=None, status=status, error_message=message, **kw)


class FakeOpenAI:
    """The server on 127.0.0.1 (``port`` 0 = any free port). ``base_url`` is
    ``http://127.0.0.1:<port>/v1``; :meth:`close` stops it."""

    def __init__(self, port: int = 0) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.request_times: list[float] = []
        self._queue: deque[Reply] = deque()
        self._responder: Callable[[dict[str, Any]], Reply] | None = None
        self._lock = threading.Lock()
        self._closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparseable": raw.decode("utf-8", "replace")}
                reply = server._next(body, dict(self.headers))
                if reply.delay_s:
                    server._closing.wait(reply.delay_s)
                payload = server._payload(reply, body)
                data = json.dumps(payload).encode("utf-8")
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True)
        self._thread.start()

    # -- scripting ------------------------------------------------------------------------------

    def push(self, *replies: Reply | str) -> "FakeOpenAI":
        """Queue replies (a bare string is a 200 reply with that content), answered in order."""
        with self._lock:
            for r in replies:
                self._queue.append(ok(r) if isinstance(r, str) else r)
        return self

    def respond_with(self, fn: Callable[[dict[str, Any]], Reply | str] | None) -> "FakeOpenAI":
        """Answer with ``fn(request_body)`` whenever the queue is empty (None removes it)."""

        def wrap(body: dict[str, Any]) -> Reply:
            r = fn(body)  # type: ignore[misc]
            return ok(r) if isinstance(r, str) else r

        self._responder = wrap if fn is not None else None
        return self

    def reset(self) -> None:
        """Forget recorded requests and queued replies."""
        with self._lock:
            self.requests.clear()
            self.headers.clear()
            self.request_times.clear()
            self._queue.clear()

    @property
    def count(self) -> int:
        """Number of requests received so far."""
        return len(self.requests)

    def user_prompts(self) -> list[str]:
        """The user message of every request received, in order."""
        return [next((m["content"] for m in r.get("messages", []) if m.get("role") == "user"), "") for r in self.requests]

    # -- internals ------------------------------------------------------------------------------

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            self.request_times.append(time.monotonic())
            if self._queue:
                return self._queue.popleft()
        if self._responder is not None:
            return self._responder(body)
        return error(400, "fake server: no scripted reply left")

    def _payload(self, reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
        if reply.body is not None:
            return reply.body
        if reply.status != 200:
            return {"error": {"message": reply.error_message, "type": "scripted", "code": reply.status}}
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.refusal is not None:
            message["refusal"] = reply.refusal
        payload: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        }
        if reply.usage is not None:
            p, c = reply.usage
            payload["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        return payload

    def close(self) -> None:
        """Stop serving (wakes any delayed handler)."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh loopback server per test, closed afterwards."""
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted: ``python tests/fake_openai.py [--port N]``. Every request is answered
    with a valid tracker or judge answer read off the JSON schema the client sent (run the client
    with ``--json-mode object`` or ``schema``) and no usage block, so the client counts tokens
    offline; prints the base URL, and on SIGINT/SIGTERM the request count to stderr. For
    demonstrating the HTTP path without a model."""
    import argparse
    import signal
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from llm_helpers import schema_responder

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args(argv)
    server = FakeOpenAI(args.port)
    server.respond_with(lambda body: Reply(content=schema_responder(body), usage=None))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        print(f"{server.count} requests served", file=sys.stderr, flush=True)
        server.close()


if __name__ == "__main__":
    main()
