"""The live state folder (issue 10, items 11 and 12): one server process per folder, private files,
and a client that says the server died (exit code 1) instead of blaming the input (exit code 2)."""

from __future__ import annotations

import os
import stat

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, header_body, online_match, stage_body, start_server, token_file

from adjudicator.cli import main
from adjudicator.live.client.connection import LiveClient, ServerLost
from adjudicator.live.client.replay import replay
from adjudicator.live.errors import StateFolderBusy
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.workflow.context import AdjudicationContext


def context() -> AdjudicationContext:
    return AdjudicationContext.single(RecordingBackend())


def mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_a_second_store_on_one_state_folder_is_refused_until_the_first_closes(tmp_path):
    first = LiveStore(tmp_path / "state", context())
    try:
        with pytest.raises(StateFolderBusy) as err:
            LiveStore(tmp_path / "state", context())
        assert err.value.exit_code == 2
        assert f"is in use by process {os.getpid()} (another `adjudicate live serve`)" in err.value.one_line()
    finally:
        first.close()
    LiveStore(tmp_path / "state", context()).close()  # released: the next server may start


def test_a_second_live_serve_exits_2_with_one_line(tmp_path, capsys):
    server = start_server(tmp_path / "state", context())
    try:
        code = main(["live", "serve", "--port", "0", "--state-dir", str(tmp_path / "state"), "--context-factory", "live_fakes:logging_context"])
        out, err = capsys.readouterr()
        assert code == 2 and err.count("\n") == 1
        assert f"is in use by process {os.getpid()}" in err and "one server process per SQLite state folder" in err
        # the running server's access is untouched and it still answers
        with httpx.Client(base_url=server.url, timeout=10, trust_env=False) as http:
            assert http.get("/api/health").status_code == 200
    finally:
        server.stop()


def test_state_files_are_private(tmp_path):
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    server = start_server(state, context())
    try:
        match = online_match("m1", 2)
        with httpx.Client(base_url=server.url, timeout=30, trust_env=False, headers={"Authorization": f"Bearer {TOKEN}"}) as http:
            assert http.post("/api/matches", json=header_body(match)).status_code == 201
            for i in range(2):
                assert http.post("/api/matches/m1/stages", json=stage_body(match, i)).status_code == 200
            assert http.post("/api/matches/m1/close").status_code == 200
    finally:
        server.stop()
    assert mode(state) == 0o700  # tightened from 0755
    files = [p for p in state.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"live.sqlite", "tournaments.sqlite", "live.lock", "m1.json", "m1.md"}
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}


def test_a_server_that_dies_mid_replay_is_exit_1_naming_the_cause(tmp_path):
    server = start_server(tmp_path / "state", context())
    match = online_match("r1", 3)
    stopped = []

    def progress(line: str) -> None:
        if ": s" in line and not stopped:  # after the first stage's push line: the server goes away
            server.stop()
            stopped.append(line)

    with LiveClient(server.url, TOKEN) as client:
        with pytest.raises(ServerLost) as err:
            replay(client, match, 0, progress=progress)
    assert stopped and err.value.exit_code == 1
    line = err.value.one_line()
    assert line.startswith(f"the live server at {server.url} stopped answering during POST /api/matches/r1/stages (ConnectError")


def test_a_server_never_reached_is_still_bad_usage(capsys):
    assert main(["live", "close", "x1", "--url", "http://127.0.0.1:9", "--token-file", token_file()]) == 2
    assert "cannot reach the live server at http://127.0.0.1:9" in capsys.readouterr().err
