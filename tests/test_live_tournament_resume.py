"""A tournament round run with the organiser's commands against a real server process that is killed
with SIGKILL between confirm and release: after a restart every room, decision, override and log line
is as it was, and the round is released and exported as if nothing had happened. Also each organiser
command's --help, and their one-line errors.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from live_fakes import online_match, token_file, wait_until
from processes import stop
from tabbycat_shape import problems

from adjudicator.cli import main

REPO = Path(__file__).resolve().parents[1]
BASE = "https://tab.example.org/api/v1/tournaments/cup"


def _serve(state: Path, log: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), "LIVE_FAKE_LOG": str(log)}
    env.pop("LIVE_FAKE_BLOCK", None)
    return subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state),
         "--context-factory", "live_fakes:logging_context", "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _ready(state: Path, proc: subprocess.Popen) -> str:
    access = state / "access.json"

    def ok():
        assert proc.poll() is None, proc.stderr.read()
        try:
            info = json.loads(access.read_text())
            up = httpx.get(f"{info['url']}/api/health", timeout=2, trust_env=False).json()
        except (OSError, ValueError, KeyError, httpx.TransportError):
            return None
        return info["url"] if up["recovered"] else None

    return wait_until(ok, timeout_s=30)


def _run(capsys, *args: str) -> dict:
    """Run an ``adjudicate live`` command in-process; assert exit 0; return its stdout JSON."""
    code = main(["live", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _state(http: httpx.Client, token: str) -> dict:
    """Everything the organiser can read of round r1: the overview, each room's decision, the log."""
    auth = {"Authorization": f"Bearer {token}"}
    rnd = http.get("/api/tournaments/cup/rounds/r1", headers=auth).json()
    rooms = {r["room_id"]: http.get(r["api_url"], headers=auth).json()["decision"] for r in rnd["rooms"]}
    log = http.get("/api/tournaments/cup/log", headers=auth).json()["log"]
    return {"round": rnd, "decisions": rooms, "log": log}


def test_kill_9_between_confirm_and_release_loses_nothing(tmp_path, capsys):
    state, analyses = tmp_path / "state", tmp_path / "analyses.log"
    m = online_match("x", 2)
    match_file = tmp_path / "match.json"
    match_file.write_text(m.model_dump_json(), encoding="utf-8")
    proc = _serve(state, analyses)
    try:
        url = _ready(state, proc)
        org = ["--state-dir", str(state)]  # URL and organiser token from access.json
        _run(capsys, "tournament", "create", "cup", "--name", "Cup", "--tabbycat-url", BASE, *org)
        _run(capsys, "round", "create", "cup", "r1", "--from-match", str(match_file), "--name", "Round 1", "--tabbycat-round", "1", *org)
        chairs = {}
        for k, room in enumerate(("a", "b")):
            ids = tmp_path / f"{room}.tabbycat.json"
            ids.write_text(json.dumps({"debate": 10 + k, "teams": {"affirmative": 20 + k, "negative": 30 + k},
                                       "speakers": {"Affirmative Speaker 1": 40 + k, "Negative Speaker 1": 50 + k}}), encoding="utf-8")
            out = _run(capsys, "room", "create", "cup", "r1", room, "--affirmative-team", f"A{room}", "--negative-team", f"N{room}",
                       "--chair", f"Chair {room}", "--debater", "affirmative 1=Ann", "--tabbycat", str(ids), *org)
            assert out["match_id"] == f"cup.r1.{room}" and out["chair_url"] == f"{url}/board/cup.r1.{room}?token={out['chair_token']}"
            chairs[room] = out["chair_token"]
            for s in m.stages:
                _run(capsys, "push", f"cup.r1.{room}", str(match_file), "--stage-id", s.stage_id, "--url", url, "--token-file", token_file(out["chair_token"]))
            _run(capsys, "close", f"cup.r1.{room}", "--url", url, "--token-file", token_file(out["chair_token"]))
        view = _run(capsys, "confirm", "cup", "r1", "a", "--winner", "negative", "--score", "s2:negative=9", "--vote", "Negative Speaker 1=9",
                    "--note", "clear rebuttal", "--url", url, "--token-file", token_file(chairs["a"]))
        assert (view["winner"], view["overridden"], view["decision"]["confirmed_by"]["name"]) == ("negative", True, "Chair a")
        _run(capsys, "confirm", "cup", "r1", "b", "--by", "Deputy", *org)
        access = json.loads((state / "access.json").read_text())
        with httpx.Client(base_url=url, timeout=30, trust_env=False) as http:
            before = _state(http, access["token"])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(20)
    finally:
        stop(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL

    proc = _serve(state, analyses)
    try:
        url = _ready(state, proc)
        with httpx.Client(base_url=url, timeout=30, trust_env=False) as http:
            after = _state(http, access["token"])
            assert after == before  # every room, decision (with override and who) and log line survived
            assert [d["state"] for d in after["decisions"].values()] == ["confirmed", "confirmed"]
            assert after["decisions"]["a"]["automated"]["winner"] == "affirmative" and after["decisions"]["a"]["override"]["winner"] == "negative"
            # the chair tokens survived too (stored as digests)
            assert http.get("/api/tournaments/cup/rounds/r1/rooms/a", headers={"Authorization": f"Bearer {chairs['a']}"}).json()["viewer"] == "chair"
            org = ["--state-dir", str(state)]
            released = _run(capsys, "release", "cup", "r1", "--by", "Tab", *org)
            assert [r["verdict_state"] for r in released["rooms"]] == ["released", "released"]
            assert http.get("/api/matches/cup.r1.a").json()["verdict"]["winner"] == "negative"
            out_dir = tmp_path / "exports"
            written = _run(capsys, "export", "cup", "r1", "--out", str(out_dir), *org)
        assert sorted(Path(p).name for p in written["written"]) == ["cup.r1.a.tabbycat.json", "cup.r1.b.tabbycat.json", "cup.r1.log.csv", "cup.r1.results.csv"]
        for k, room in enumerate(("a", "b")):
            export = json.loads((out_dir / f"cup.r1.{room}.tabbycat.json").read_text(encoding="utf-8"))
            ids = {"debate": 10 + k, "teams": {"affirmative": 20 + k, "negative": 30 + k}, "speakers": {"Affirmative Speaker 1": 40 + k, "Negative Speaker 1": 50 + k}}
            assert problems(export, BASE, ids) == [] and export["submission"]["state"] == "released"
        csv_text = (out_dir / "cup.r1.results.csv").read_text(encoding="utf-8")
        assert csv_text.splitlines()[2].startswith("cup,r1,a,cup.r1.a,released,negative,Na,1,1,1,")
    finally:
        stop(proc, signal.SIGINT)
    # nothing was analysed twice: two stages per room, each once
    assert sorted(analyses.read_text().split("\n")[:-1]) == ["cup.r1.a s1", "cup.r1.a s2", "cup.r1.b s1", "cup.r1.b s2"]


@pytest.mark.parametrize("command", [
    ["tournament", "create"], ["tournament", "settings"], ["round", "create"], ["round", "show"], ["room", "create"], ["room", "token"],
    ["confirm"], ["release"], ["export"],
])
def test_every_organiser_command_has_help(command, capsys):
    assert main(["live", *command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: adjudicate live {' '.join(command)} [OPTIONS]") and "--url" in out and "--token-file" in out


def test_organiser_command_errors_are_one_line_with_exit_code_2(tmp_path, capsys):
    bad = [
        (["tournament", "create", "t", "--speaker-scale", "70-80"], "--speaker-scale: '70-80' is not LOW:HIGH or LOW:HIGH:STEP"),
        # before: the server's "field speaker_scale.speaker_scale: low (80.0) must be below high (70.0)"
        (["tournament", "settings", "t", "--speaker-scale", "80:70:0.5"], "--speaker-scale: '80:70:0.5': LOW (80) must be below HIGH (70)"),
        (["confirm", "t", "r", "a", "--score", "s2=8"], "--score: 's2=8' is not 'STAGE_ID:SIDE=SCORE'"),
        (["confirm", "t", "r", "a", "--vote", "Ann=9"], "--vote: 'Ann=9' is not 'POSITION LABEL=VOTES'"),
        (["room", "create", "t", "r", "a", "--affirmative-team", "A", "--negative-team", "N", "--debater", "Ann"], "--debater: 'Ann' is not 'SIDE POSITION=NAME'"),
        (["round", "create", "t", "r", "--format", "online-1v1"], "round create: no motion"),
        (["tournament", "create", "t", "--url", "http://127.0.0.1:9", "--token-file", token_file("x")], "cannot reach the live server at http://127.0.0.1:9"),
    ]
    for args, words in bad:
        assert main(["live", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.startswith("adjudicate: error: ") and words in err and err.count("\n") == 1, err
