"""A fault-injecting HTTP proxy in front of an OpenAI-compatible server (issue 10's chaos run).

Each ``POST .../chat/completions`` it receives gets, with the probabilities in ``rates`` (drawn from
one seeded generator, so a run is repeatable up to thread timing), one of:

- ``"429"``: answered by the proxy with 429 and ``Retry-After: 0`` (not forwarded);
- ``"500"``: answered by the proxy with 500 (not forwarded);
- ``"truncate"``: forwarded; the answer's content is cut to its first half and its
  ``finish_reason`` set to ``length``, as a provider cut off at the completion budget does;
- ``"garbage"``: forwarded; the content replaced by prose that holds no JSON;
- ``"fence"``: forwarded; the content wrapped in a Markdown code fence (still readable);
- ``"corrupt"``: forwarded; one field broken inside the JSON while the reply still ends normally
  (``finish_reason: stop``): in a tracker answer with clash updates, the first update's note gets an
  unescaped quote or the update loses its closing brace (alternately); in any other answer the first
  text value gets an unescaped quote. A reader must then list what it could not read, never drop it;

else it is forwarded unchanged. ``counts`` says how many requests the proxy received (what the
client's ledger must equal), forwarded, and faulted by kind.

    python tests/chaos_proxy.py UPSTREAM_BASE_URL [--port N] [--rate 0.12] [--seed 7]
"""

from __future__ import annotations

import http.client
import json
import random
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

KINDS = ("429", "500", "truncate", "garbage", "fence", "corrupt")


class ChaosProxy:
    """The proxy on 127.0.0.1 (``port`` 0 = a free port) forwarding to ``upstream`` (a base URL such
    as ``http://127.0.0.1:PORT/v1``); ``base_url`` is its own base URL with the same path; ``rates``
    maps a kind of :data:`KINDS` to its probability (they must sum to at most 1). :meth:`close` stops it."""

    def __init__(self, upstream: str, rates: dict[str, float], *, seed: int = 7, port: int = 0) -> None:
        if any(k not in KINDS for k in rates) or sum(rates.values()) > 1 or any(v < 0 for v in rates.values()):
            raise ValueError(f"rates: kinds {KINDS}, each >= 0, summing to at most 1")
        up = urlsplit(upstream)
        self._up_host, self._up_port, self._up_path = up.hostname or "127.0.0.1", up.port or 80, up.path.rstrip("/")
        self.rates = dict(rates)
        self.counts: Counter[str] = Counter()
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except (ConnectionResetError, BrokenPipeError):  # a client killed mid-request
                    pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                kind = proxy._draw()
                if kind in ("429", "500"):
                    body = json.dumps({"error": {"message": f"chaos {kind}", "type": "chaos"}}).encode()
                    self._send(int(kind), body, {"Retry-After": "0"} if kind == "429" else {})
                    return
                status, body = proxy._forward(self.path, raw, dict(self.headers))
                if status == 200 and kind is not None:
                    body = _mutate(body, kind, proxy._flip())
                self._send(status, body, {})

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                head = [f"HTTP/1.1 {status} X", "Content-Type: application/json", *(f"{k}: {v}" for k, v in headers.items()), f"Content-Length: {len(body)}"]
                try:
                    self.wfile.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}{self._up_path}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="chaos-proxy", daemon=True)
        self._thread.start()

    def _draw(self) -> str | None:
        """Count a received request and draw its fault (None: forward unchanged)."""
        with self._lock:
            self.counts["received"] += 1
            x, acc = self._rng.random(), 0.0
            for kind in KINDS:
                acc += self.rates.get(kind, 0.0)
                if x < acc:
                    self.counts[kind] += 1
                    return kind
            return None

    def _flip(self) -> bool:
        """A coin from the seeded generator (which way a ``corrupt`` fault breaks an update)."""
        with self._lock:
            return self._rng.random() < 0.5

    def _forward(self, path: str, raw: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        with self._lock:
            self.counts["forwarded"] += 1
        conn = http.client.HTTPConnection(self._up_host, self._up_port, timeout=120)
        try:
            keep = {k: v for k, v in headers.items() if k.lower() in ("content-type", "authorization")}
            conn.request("POST", path, body=raw, headers=keep)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


_NOTE = re.compile(r'("note"\s*:\s*")([^"\\]*)"')
_TEXT = re.compile(r'(:\s*")([^"\\]{2,})"')


def corrupt(text: str, drop_brace: bool) -> str:
    """``text`` (a JSON answer) with one field broken (the ``corrupt`` fault): in the first clash update
    (after ``"clash_updates"``) an unescaped quote inside its note, or, with ``drop_brace``, the update's
    closing brace removed; without a clash update, an unescaped quote inside the first text value of
    two characters or more. Unchanged when there is nothing to break."""
    at = text.find('"clash_updates"')
    start = text.find("{", at) if at >= 0 else -1
    if start >= 0:
        if drop_brace:
            end = text.find("}", start)
            return text[:end] + text[end + 1 :] if end >= 0 else text
        m = _NOTE.search(text, start)
        if m is not None:
            return text[: m.start(2)] + 'said "this" ' + text[m.start(2) :]
    m = _TEXT.search(text)
    return text if m is None else text[: m.start(2)] + 'a "quoted" ' + text[m.start(2) :]


def _mutate(body: bytes, kind: str, flip: bool = False) -> bytes:
    """The upstream's 200 answer ``body`` with fault ``kind`` applied to its first choice (``flip``:
    which way a ``corrupt`` fault breaks a clash update)."""
    data = json.loads(body)
    choice = data["choices"][0]
    text = choice["message"].get("content") or ""
    if kind == "corrupt":
        choice["message"]["content"] = corrupt(text, flip)
    elif kind == "truncate":
        choice["message"]["content"] = text[: len(text) // 2]
        choice["finish_reason"] = "length"
    elif kind == "garbage":
        choice["message"]["content"] = "I am not sure what you want me to say here; let me think about the debate more."
    elif kind == "fence":
        choice["message"]["content"] = f"Here is my answer:\n```json\n{text}\n```"
    return json.dumps(data).encode()


def main(argv: list[str] | None = None) -> None:
    import argparse

    ap = argparse.ArgumentParser(description="a fault-injecting proxy in front of an OpenAI-compatible server")
    ap.add_argument("upstream")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0.12, help="probability of each of the six faults (default 0.12)")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    proxy = ChaosProxy(args.upstream, {k: args.rate for k in KINDS}, seed=args.seed, port=args.port)
    print(proxy.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        print(json.dumps(dict(proxy.counts)), flush=True)
        proxy.close()


if __name__ == "__main__":
    main()
