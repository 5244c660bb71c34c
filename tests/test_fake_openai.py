"""The loopback test server itself: one write per response, keep-alive, simulated latency."""

from __future__ import annotations

import json
import socket
import time

import pytest
from fake_openai import FakeOpenAI, _response_bytes


def _raw_post(sock: socket.socket, body: bytes) -> None:
    sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)


def _recv_response(sock: socket.socket) -> tuple[bytes, int]:
    """(whole response, number of recv calls it took)."""
    data = b""
    calls = 0
    while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + int(data.split(b"Content-Length: ")[1].split(b"\r\n")[0]):
        chunk = sock.recv(65536)
        calls += 1
        if not chunk:
            break
        data += chunk
    return data, calls


def test_response_bytes_is_a_complete_http_response():
    raw = _response_bytes(429, {"Retry-After": "1"}, b'{"a":1}')
    # status line, the header, Content-Length 7 (len('{"a":1}')), blank line, body
    assert raw == b'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 7\r\n\r\n{"a":1}'


def test_each_response_arrives_whole_and_the_connection_is_kept_alive():
    server = FakeOpenAI()
    server.respond_with(lambda body: "hello")
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(5)
            for _ in (1, 2):  # two requests on the same connection
                _raw_post(sock, json.dumps({"model": "m", "messages": []}).encode())
                data, calls = _recv_response(sock)
                head, body = data.split(b"\r\n\r\n", 1)
                assert head.startswith(b"HTTP/1.1 200 OK")
                assert json.loads(body)["choices"][0]["message"]["content"] == "hello"
                assert calls == 1  # one write on the server side: the first recv holds everything
        assert server.count == 2
    finally:
        server.close()


def test_latency_s_delays_every_reply():
    server = FakeOpenAI(latency_s=0.2)
    server.respond_with(lambda body: "late")
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.settimeout(5)
            t0 = time.monotonic()
            _raw_post(sock, b"{}")
            _recv_response(sock)
            assert time.monotonic() - t0 >= 0.2
    finally:
        server.close()
    with pytest.raises(ValueError, match="latency_s"):
        FakeOpenAI(latency_s=-1)
