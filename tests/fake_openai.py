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
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from prompt_cache import PromptCache


@dataclass
class Reply:
    """One scripted answer.

    ``content`` becomes ``choices[0].message.content`` of a 200 answer (None sends ``null``);
    ``status`` other than 200 sends an OpenAI-style error body with ``error_message``; ``headers``
    are extra response headers (e.g. ``{"Retry-After": "0.05"}``); ``delay_s`` sleeps before
    answering (to trip a client timeout); ``usage`` is (prompt_tokens, completion_tokens), or None
    to omit the usage block; ``body`` replaces the whole JSON body when given; ``reasoning_content``
    is sent beside the content (as DeepSeek's and vLLM's reasoning parsers do) and ``reasoning_tokens``
    as ``usage.completion_tokens_details.reasoning_tokens``; ``logprobs`` becomes
    ``choices[0].logprobs.content`` (a list of ``{"token", "logprob", "top_logprobs"}``).
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
    reasoning_content: str | None = None
    reasoning_tokens: int | None = None
    logprobs: list[dict[str, Any]] | None = None


def ok(content: str, **kw: Any) -> Reply:
    """A 200 reply carrying ``content``."""
    return Reply(content=content, **kw)


def error(status: int, message: str = "scripted error", **kw: Any) -> Reply:
    """An error reply with HTTP ``status``."""
    return Reply(content=None, status=status, error_message=message, **kw)


class FakeOpenAI:
    """The server on 127.0.0.1 (``port`` 0 = any free port). ``base_url`` is
    ``http://127.0.0.1:<port>/v1``; :meth:`close` stops it.

    Every response (status line, headers and body) leaves in one socket write with ``TCP_NODELAY``
    set, so a reply costs the loopback round trip and nothing more: no delayed-ACK stall between a
    separately written header block and body (about 40 ms a request on Linux). ``latency_s`` (>= 0,
    seconds) is added before every reply, to stand in for a model's time in benchmarks; a reply's
    own ``delay_s`` adds to it. ``prompt_cache`` (``"openai"`` or ``"deepseek"``; None: none) emulates
    that provider's prompt cache (:mod:`prompt_cache`): every 200 reply then reports the usage that
    provider would bill, counted by the emulation (prompt, cached and completion tokens), instead of
    the reply's scripted ``usage``; :attr:`prompt_cache` ``.billed`` keeps each request's counts.
    """

    def __init__(self, port: int = 0, *, latency_s: float = 0.0, prompt_cache: str | None = None) -> None:
        if latency_s < 0:
            raise ValueError(f"latency_s must be >= 0, got {latency_s}")
        self.latency_s = float(latency_s)
        self.prompt_cache = PromptCache(prompt_cache) if prompt_cache is not None else None  # type: ignore[arg-type]
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
            disable_nagle_algorithm = True  # TCP_NODELAY: a reply is not held back waiting for an ACK

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
                wait_s = reply.delay_s + server.latency_s
                if wait_s:
                    server._closing.wait(wait_s)
                payload = server._payload(reply, body)
                billed = None
                if server.prompt_cache is not None and reply.status == 200 and reply.body is None:
                    billed = server.prompt_cache.bill(body, reply.content or "")
                    payload["usage"] = billed[0].usage_block(server.prompt_cache.rule)
                data = json.dumps(payload).encode("utf-8")
                if any(k.lower() == "connection" and v.lower() == "close" for k, v in reply.headers.items()):
                    self.close_connection = True
                try:
                    self.wfile.write(_response_bytes(reply.status, {"Content-Type": "application/json", **reply.headers}, data))
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass
                if billed is not None and server.prompt_cache is not None:  # answered: its prefixes serve later requests
                    server.prompt_cache.answered(billed[1], billed[2])

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
        if reply.reasoning_content is not None:
            message["reasoning_content"] = reply.reasoning_content
        payload: dict[str, Any] = {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", "test-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        }
        if reply.logprobs is not None:
            payload["choices"][0]["logprobs"] = {"content": reply.logprobs}
        if reply.usage is not None:
            p, c = reply.usage
            payload["usage"] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
            if reply.reasoning_tokens is not None:
                payload["usage"]["completion_tokens_details"] = {"reasoning_tokens": reply.reasoning_tokens}
        return payload

    def close(self) -> None:
        """Stop serving (wakes any delayed handler)."""
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()


def _response_bytes(status: int, headers: dict[str, str], body: bytes) -> bytes:
    """A whole HTTP/1.1 response as one byte string: status line, ``headers`` plus Content-Length,
    blank line, ``body`` (so it can be sent in a single write)."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = ""
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{k}: {v}" for k, v in headers.items()), f"Content-Length: {len(body)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A fresh loopback server per test, closed afterwards."""
    server = FakeOpenAI()
    try:
        yield server
    finally:
        server.close()


def main(argv: list[str] | None = None) -> None:
    """Serve until interrupted: ``python tests/fake_openai.py [--port N] [--latency-s S] [--usage]``.

    Every request is answered with a valid tracker or judge answer read off the JSON schema the
    client sent (run the client with ``--json-mode object`` or ``schema``), after ``--latency-s``
    seconds (default 0). Without ``--usage`` the reply has no usage block, so the client counts tokens
    offline; with it, the reply reports the request body's and the answer's lengths in bytes divided
    by four as prompt and completion tokens (a stand-in, as a provider's usage block would be). Prints
    the base URL on stdout, and on SIGINT/SIGTERM the request count to stderr. For demonstrating the
    HTTP path without a model and for ``benchmarks/overhead.py``."""
    import argparse
    import signal
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from llm_helpers import schema_responder

    ap = argparse.ArgumentParser(description=(main.__doc__ or "").split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency-s", type=float, default=0.0, help="seconds to wait before every reply (default 0)")
    ap.add_argument("--usage", action="store_true", help="report a usage block (bytes / 4) with every reply")
    args = ap.parse_args(argv)
    if args.latency_s < 0:
        ap.error("--latency-s must be >= 0")
    server = FakeOpenAI(args.port, latency_s=args.latency_s)

    def answer(body: dict[str, Any]) -> Reply:
        text = schema_responder(body)
        usage = (len(json.dumps(body.get("messages", []))) // 4, len(text) // 4) if args.usage else None
        return Reply(content=text, usage=usage)

    server.respond_with(answer)
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
