"""Half-open connections cannot exhaust the live server (issue 26, item 7).

uvicorn waits for a request's head for ever, so ~20,000 connections that sent nothing held ~20,000 file
descriptors without a token. The server's protocol (``adjudicator.live.server.serving.deadline_protocol``) now
closes a connection whose head has not arrived in time, or whose body has not, and closes the oldest
waiting connection when too many wait at once; a request read whole (an event stream) is left alone.
The deadlines are shortened here so the test runs in seconds; the defaults are 10 s (head), 60 s (body)
and 256 waiting connections.
"""

from __future__ import annotations

import socket
import time

import httpx
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, header_body, online_match, stage_body

from adjudicator.live.server.app import create_app
from adjudicator.live.server.serving import BODY_TIMEOUT_S, HEAD_TIMEOUT_S, MAX_PENDING_HEADS, LiveServer, deadline_protocol
from adjudicator.workflow.context import AdjudicationContext

AUTH = {"Authorization": f"Bearer {TOKEN}"}


def server_with(tmp_path, **deadlines) -> LiveServer:
    app = create_app(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), TOKEN, store="sqlite")
    return LiveServer(app, protocol=deadline_protocol(**deadlines)).start()


def connect(server: LiveServer, first: bytes = b"") -> socket.socket:
    host, port = server.sock.getsockname()[:2]
    sock = socket.create_connection((host, port), timeout=5)
    if first:
        sock.sendall(first)
    return sock


def closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """True when the server closes ``sock`` (EOF, no reply) within ``within_s`` seconds."""
    sock.settimeout(within_s)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    finally:
        sock.close()


def open_connections(server: LiveServer) -> int:
    return len(server.server.server_state.connections)


def test_the_defaults_are_stated():
    assert (HEAD_TIMEOUT_S, BODY_TIMEOUT_S, MAX_PENDING_HEADS) == (10.0, 60.0, 256)


def test_a_connection_that_sends_no_head_or_half_a_head_is_closed(tmp_path):
    server = server_with(tmp_path, head_timeout_s=0.3)
    try:
        silent = connect(server)
        half = connect(server, b"GET /api/matches HTTP/1.1\r\nHost: x\r\n")  # the blank line never comes
        assert closed_by_server(silent, 5) and closed_by_server(half, 5)  # before: still open after 5 s
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as http:
            assert http.get("/api/matches").status_code == 200  # a real request is served as before
    finally:
        server.stop()


def test_a_body_that_stops_arriving_is_closed(tmp_path):
    server = server_with(tmp_path, head_timeout_s=5, body_timeout_s=0.3)
    try:
        head = b"POST /api/matches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"
        stalled = connect(server, head + b'{"motion": "')
        assert closed_by_server(stalled, 5)
    finally:
        server.stop()


def test_a_flood_of_silent_connections_holds_at_most_the_waiting_cap(tmp_path):
    server = server_with(tmp_path, head_timeout_s=30, max_pending=8)
    socks = []
    try:
        socks = [connect(server) for _ in range(40)]
        time.sleep(0.5)  # let the server accept them all
        assert open_connections(server) <= 8  # before: 40 (every one kept until its client left)
        assert closed_by_server(socks[0], 5)  # the oldest went first
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as http:
            assert http.get("/api/matches").status_code == 200
    finally:
        for s in socks:
            s.close()
        server.stop()


def test_a_kept_alive_client_and_an_event_stream_are_not_timed_out(tmp_path):
    server = server_with(tmp_path, head_timeout_s=0.3, body_timeout_s=0.3)
    match = online_match("m1", 2)
    try:
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False, headers=AUTH) as http, httpx.Client(base_url=server.url, timeout=10, trust_env=False) as board:
            mid = http.post("/api/matches", json=header_body(match)).json()["match_id"]
            with board.stream("GET", f"/api/matches/{mid}/events") as events:
                lines = (line for line in events.iter_lines() if line.startswith("data:"))
                next(lines)  # the board as it stands
                time.sleep(1.0)  # three head deadlines: the stream's request was read whole, so it stays
                assert http.post(f"/api/matches/{mid}/stages", json=stage_body(match, 0)).status_code in (200, 201, 202)
                assert '"s1"' in next(lines)  # the stream is still open and delivers the pushed stage
            time.sleep(0.5)
            assert http.get("/api/matches").status_code == 200  # the kept-alive client, a new request
    finally:
        server.stop()
