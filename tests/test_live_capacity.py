"""A hall of phones cannot take the chairs' pushes down (issue 27, item 3), on SQLite and PostgreSQL.

With the usual 1,024 open files, 1,100 idle board event streams once made the server refuse every
request, the chairs' pushes included. Now a server caps its open event streams and connections
(adjudicator/live/server/capacity.py): the newest anonymous stream or request past a cap gets 503 with
Retry-After, while a request with a valid token (a chair's push) always goes through. The floods here
are bounded (at most 300 connections, each answered within seconds) and stay on loopback.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server, wait_until
from processes import stop

from adjudicator.live.server.capacity import RESERVED_FILES, default_limits
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
ROUND = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}

each_store = pytest.mark.usefixtures("live_store")  # the test once on SQLite, once on PostgreSQL


def room_with_chair(http: httpx.Client, org: dict | None = None) -> str:
    """Tournament cup, round r1, room a (with the organiser's headers ``org``); returns the chair's token."""
    org = org or ORG
    assert http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=org).status_code == 201
    assert http.post("/api/tournaments/cup/rounds", json=ROUND, headers=org).status_code == 201
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "A", "negative": "N"}}, headers=org)
    assert r.status_code == 201
    return r.json()["chair_token"]


def open_stream(url: str, path: str = "/api/matches/cup.r1.a/events", token: str | None = None) -> socket.socket:
    """A connection that asked for ``path`` (its head sent whole); read its answer with :func:`status_of`."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=10)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n{auth}\r\n".encode())
    return sock


def status_of(sock: socket.socket, timeout_s: float = 10.0) -> tuple[int, str]:
    """(HTTP status, the answer's head) of a connection opened by :func:`open_stream`."""
    sock.settimeout(timeout_s)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head = data.split(b"\r\n\r\n")[0].decode("latin-1")
    return int(head.split()[1]), head


def test_the_defaults_follow_the_open_files_limit():
    assert default_limits(1024) == (1024 - RESERVED_FILES, (1024 - RESERVED_FILES) // 2) == (896, 448)
    assert default_limits(100) == (16, 8)  # never below a working minimum


@each_store
def test_a_private_boards_token_is_the_halls_and_waits_like_the_public(tmp_path):
    """A board token (issue 27, item 7) is shared by a hall of phones: past the cap it gets 503 like no
    token; a person's token (the chair's) is still served."""
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), max_streams=1)
    socks: list[socket.socket] = []
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            chair = room_with_chair(http)
            board = http.post("/api/tokens", json={"role": "board", "person": "hall", "tournament_id": "cup"}, headers=ORG).json()["token"]
            socks = [open_stream(server.url, token=board)]
            assert status_of(socks[0])[0] == 200
            socks.append(open_stream(server.url, token=board))
            assert status_of(socks[1])[0] == 503  # a valid token, but the hall's: not one that is always served
            socks.append(open_stream(server.url, token=chair))
            assert status_of(socks[2])[0] == 200
    finally:
        for s in socks:
            s.close()
        server.stop()


@each_store
def test_streams_past_the_cap_get_503_with_retry_after_and_a_chair_still_pushes(tmp_path):
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), max_streams=5)
    socks: list[socket.socket] = []
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            chair = room_with_chair(http)
            socks = [open_stream(server.url) for _ in range(5)]
            assert [status_of(s)[0] for s in socks] == [200] * 5
            late = open_stream(server.url)
            code, head = status_of(late)
            assert code == 503 and "retry-after: 10" in head.lower()  # before: 200, one more descriptor held
            late.close()
            r = http.post("/api/matches/cup.r1.a/stages", json=stage_body(M, 0), headers={"Authorization": f"Bearer {chair}"})
            assert r.status_code == 200, r.text  # the chair's write is never refused
            mine = open_stream(server.url, token=chair)
            assert status_of(mine)[0] == 200  # nor the chair's own board
            mine.close()
            assert http.get("/api/health").status_code == 200  # the cap is on streams: other reads go on
            socks.pop().close()  # a phone leaves: its place is free again
            wait_until(lambda: server.app.state.capacity.streams <= 4)
            again = open_stream(server.url)
            assert status_of(again)[0] == 200
            socks.append(again)
    finally:
        for s in socks:
            s.close()
        server.stop()


@each_store
def test_past_the_connection_cap_only_token_holders_are_served(tmp_path):
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), max_connections=20, max_streams=1000)
    socks: list[socket.socket] = []
    try:
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as http:
            chair = room_with_chair(http)
            socks = [open_stream(server.url) for _ in range(19)]  # with this client's own connection: 20, the cap
            assert [status_of(s)[0] for s in socks] == [200] * 19
            wait_until(lambda: server.app.state.capacity.connections == 20)
            with httpx.Client(base_url=server.url, timeout=30, trust_env=False) as anonymous:
                r = anonymous.get("/api/health")
                assert r.status_code == 503 and r.headers["retry-after"] == "10" and r.headers["connection"] == "close"
                assert "open connections, more than its limit of 20" in r.json()["detail"]
                assert anonymous.get("/api/health", headers={"Authorization": "Bearer not-a-token"}).status_code == 503  # a made-up token is no pass
            r = http.post("/api/matches/cup.r1.a/stages", json=stage_body(M, 0), headers={"Authorization": f"Bearer {chair}"})
            assert r.status_code == 200, r.text
            assert http.get("/api/tournaments/cup/rounds/r1", headers=ORG).status_code == 200
    finally:
        for s in socks:
            s.close()
        server.stop()


def _serve_with_open_files(state: Path, open_files: int, store: str | None) -> subprocess.Popen:
    """``live serve`` in a process whose soft limit on open files is ``open_files`` (the caps' defaults)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    cmd = [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state),
           "--context-factory", "live_fakes:logging_context", "--log-level", "warning"] + (["--store", "sqlite"] if store is None else [])
    if store is not None:
        env["ADJUDICATOR_LIVE_STORE"] = store

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)


@each_store
def test_a_flood_of_300_idle_boards_on_256_open_files_leaves_the_chairs_pushes_working(tmp_path, live_store):
    state = tmp_path / "state"
    proc = _serve_with_open_files(state, 256, live_store)
    socks: list[socket.socket] = []
    try:
        url = proc.stdout.readline().split()[1].split("/organiser")[0]  # "organiser: URL/organiser?token=..."
        org = {"Authorization": f"Bearer {json.loads((state / 'access.json').read_text())['token']}"}
        with httpx.Client(base_url=url, timeout=30, trust_env=False) as http:
            wait_until(lambda: http.get("/api/health").status_code == 200, timeout_s=60)
            chair = room_with_chair(http, org)
            codes = []
            for _ in range(300):
                s = open_stream(url)
                codes.append(status_of(s)[0])
                if codes[-1] == 200:
                    socks.append(s)
                else:
                    s.close()
            # the defaults on 256 open files: 128 connections, 64 streams
            assert codes.count(200) == 64 and codes.count(503) == 236, (codes.count(200), codes.count(503))
            started = time.monotonic()
            for i in range(4):  # before: the server had no descriptor left, and every push timed out
                r = http.post("/api/matches/cup.r1.a/stages", json=stage_body(M, i), headers={"Authorization": f"Bearer {chair}"})
                assert r.status_code == 200, r.text
            assert time.monotonic() - started < 30
            assert http.post("/api/matches/cup.r1.a/close", headers={"Authorization": f"Bearer {chair}"}).status_code == 200
    finally:
        for s in socks:
            s.close()
        stop(proc)
