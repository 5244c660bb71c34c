"""Restart and resume with a real SQLite file: nothing lost, nothing analysed twice.

Covers a crash between a push being stored and its analysis (in-process and with a real ``kill -9`` of
a server subprocess), a crash during the panel, and a restart in the middle of a real match with the
offline judge whose final verdict must equal the batch verdict of the same match.
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
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, PanelFault, header_body, online_match, stage_body, start_server, wait_until
from processes import stop

from adjudicator.api import adjudicate_with_context
from adjudicator.input.match_file import load_match
from adjudicator.live.rooms.tracking import LiveStore
from adjudicator.workflow.context import AdjudicationContext

AUTH = {"Authorization": f"Bearer {TOKEN}"}
REPO = Path(__file__).resolve().parents[1]


def _http(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30, trust_env=False)


def test_a_stage_stored_but_not_analysed_is_analysed_once_after_restart(tmp_path):
    state = tmp_path / "state"
    m = online_match("m", 4)
    b1 = RecordingBackend()
    server = start_server(state, AdjudicationContext.single(b1))
    try:
        with _http(server.url) as http:
            http.post("/api/matches", json=header_body(m), headers=AUTH)
            for i in range(2):
                assert http.post("/api/matches/m/stages", json=stage_body(m, i), headers=AUTH).status_code == 200
        # the crash window: s3 is committed to the checkpoint, its analysis never ran
        store = server.app.state.store
        assert store.receive("m", stage_body(m, 2)) == ("s3", False)
        assert store.pending("m") == ["s3"]
    finally:
        server.stop()
    assert [q.stage.stage_id for q in b1.stage_requests] == ["s1", "s2"]

    # what is on disk, read by a fresh store without recovery
    probe = LiveStore(state, AdjudicationContext.single(RecordingBackend()))
    try:
        assert probe.pending("m") == ["s3"] and probe.snapshot("m")["analysed"] == 2
    finally:
        probe.close()

    b2 = RecordingBackend()
    server = start_server(state, AdjudicationContext.single(b2))
    try:
        with _http(server.url) as http:
            wait_until(lambda: http.get("/api/matches/m").json()["analysed"] == 3)
            # only s3 was analysed after the restart, from the checkpointed ledger (c1 opened in s1, advanced in s2)
            assert [q.stage.stage_id for q in b2.stage_requests] == ["s3"]
            req = b2.stage_requests[0]
            assert [s.stage_id for s in req.previous] == ["s1", "s2"] and [e.stage_id for e in req.clashes["c1"].events] == ["s1", "s2"]
            assert http.post("/api/matches/m/stages", json=stage_body(m, 3), headers=AUTH).json()["analysed"] == 4
            verdict = http.post("/api/matches/m/close", headers=AUTH).json()
            snap = http.get("/api/matches/m").json()
    finally:
        server.stop()
    assert [q.stage.stage_id for q in b2.stage_requests] == ["s3", "s4"]
    assert [(e["stage_id"], e["kind"]) for e in snap["clashes"][0]["events"]] == [("s1", "opened"), ("s2", "advanced"), ("s3", "advanced"), ("s4", "advanced")]
    # identical to adjudicating the whole match in one batch run
    batch = adjudicate_with_context(m, AdjudicationContext.single(RecordingBackend()))
    assert verdict == json.loads(batch.model_dump_json())


def _serve(state: Path, log: Path, block: str | None = None) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent), "LIVE_FAKE_LOG": str(log)}
    env.pop("LIVE_FAKE_BLOCK", None)
    if block:
        env["LIVE_FAKE_BLOCK"] = block
    return subprocess.Popen(
        [sys.executable, "-m", "adjudicator.cli", "live", "serve", "--port", "0", "--state-dir", str(state),
         "--context-factory", "live_fakes:logging_context", "--log-level", "warning"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )


def _endpoint(state: Path, proc: subprocess.Popen) -> tuple[str, dict]:
    """(base URL, auth header) of the server subprocess, from its access file, once it answers."""
    access = state / "access.json"

    def ready():
        assert proc.poll() is None, proc.stderr.read()
        try:
            info = json.loads(access.read_text())
            ok = httpx.get(f"{info['url']}/api/health", timeout=2, trust_env=False).status_code == 200
        except (OSError, ValueError, KeyError, httpx.TransportError):
            return None
        return (info["url"], {"Authorization": f"Bearer {info['token']}"}) if ok else None

    return wait_until(ready, timeout_s=30)


def test_kill_9_during_an_analysis_then_restart_continues_without_repeating(tmp_path):
    state, log = tmp_path / "state", tmp_path / "analyses.log"
    m = online_match("k", 4)
    proc = _serve(state, log, block="s3")
    try:
        url, auth = _endpoint(state, proc)
        with _http(url) as http:
            assert http.post("/api/matches", json=header_body(m), headers=auth).status_code == 201
            for i in range(2):
                assert http.post("/api/matches/k/stages", json=stage_body(m, i), headers=auth).json()["analysed"] == i + 1
            r = http.post("/api/matches/k/stages", json=stage_body(m, 2), headers=auth, params={"wait": "false"})
            assert r.status_code == 202 and r.json()["pending"] == ["s3"]
        wait_until(lambda: Path(f"{log}.blocked").exists())  # the tracker is inside s3's analysis
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(20)
    finally:
        stop(proc, signal.SIGKILL)
    assert proc.returncode == -signal.SIGKILL

    probe = LiveStore(state, AdjudicationContext.single(RecordingBackend()))
    try:
        assert probe.pending("k") == ["s3"] and probe.snapshot("k")["received"] == 3
    finally:
        probe.close()

    proc = _serve(state, log)
    try:
        url2, auth2 = _endpoint(state, proc)
        assert auth2 == auth  # the token survives the restart
        with _http(url2) as http:
            wait_until(lambda: http.get("/api/matches/k").json()["analysed"] == 3)
            assert http.post("/api/matches/k/stages", json=stage_body(m, 3), headers=auth).json()["analysed"] == 4
            verdict = http.post("/api/matches/k/close", headers=auth).json()
            snap = http.get("/api/matches/k").json()
    finally:
        stop(proc, signal.SIGINT)
    # s1 and s2 were analysed once, before the kill; s3 started before the kill and again after; s4 once
    assert log.read_text().split("\n")[:-1] == ["k s1", "k s2", "k s3", "k s3", "k s4"]
    assert [s["stage_id"] for s in snap["stages"] if s["analysed"]] == ["s1", "s2", "s3", "s4"]
    assert [(e["stage_id"], e["kind"]) for e in snap["clashes"][0]["events"]] == [("s1", "opened"), ("s2", "advanced"), ("s3", "advanced"), ("s4", "advanced")]
    assert verdict["winner"] == "affirmative" and len(verdict["stage_scores"]) == 4


def test_an_interrupted_close_resumes_only_the_unfinished_judges(tmp_path):
    state = tmp_path / "state"
    m = online_match("p", 2)
    b1 = PanelFault()
    server = start_server(state, AdjudicationContext.single(b1))
    try:
        with _http(server.url) as http:
            http.post("/api/matches", json=header_body(m), headers=AUTH)
            for i in range(2):
                http.post("/api/matches/p/stages", json=stage_body(m, i), headers=AUTH)
            r = http.post("/api/matches/p/close", headers=AUTH)
            assert r.status_code == 502 and "the panel did not complete: RuntimeError: judge-2 lost its connection" in r.json()["detail"]
            assert http.get("/api/matches/p").json()["status"] == "closing"
    finally:
        server.stop()
    assert sorted(q.judge_id for q in b1.judge_requests) == ["judge-1", "judge-3"]  # judge-2 raised before recording

    b2 = RecordingBackend()
    server = start_server(state, AdjudicationContext.single(b2))
    try:
        with _http(server.url) as http:
            wait_until(lambda: http.get("/api/matches/p").json()["status"] == "closed")
            verdict = http.get("/api/matches/p/verdict").json()
    finally:
        server.stop()
    # judge-1 and judge-3 had finished; their ballots came from the checkpoint
    assert [q.judge_id for q in b2.judge_requests] == ["judge-2"] and b2.stage_requests == []
    assert sorted(b["judge_id"] for b in verdict["ballots"]) == ["judge-1", "judge-2", "judge-3"]
    assert (state / "reports" / "p.md").exists()


@pytest.mark.parametrize("path", ["adjudicator/data/matches/panelbench/debateart_0750.json"])
def test_offline_judge_live_with_a_restart_equals_the_batch_verdict(tmp_path, path):
    from adjudicator.judges.offline import OfflineBackend

    match = load_match(REPO / path)
    stages = [s.model_dump(mode="json") for s in match.stages]
    state = tmp_path / "state"
    half = len(stages) // 2
    server = start_server(state, AdjudicationContext.single(OfflineBackend()))
    try:
        with _http(server.url) as http:
            assert http.post("/api/matches", json=match.view().model_dump(mode="json", exclude={"stages"}), headers=AUTH).status_code == 201
            for body in stages[:half]:
                assert http.post(f"/api/matches/{match.match_id}/stages", json=body, headers=AUTH).status_code == 200
    finally:
        server.stop()
    server = start_server(state, AdjudicationContext.single(OfflineBackend()))
    try:
        with _http(server.url) as http:
            for body in stages[half:]:
                assert http.post(f"/api/matches/{match.match_id}/stages", json=body, headers=AUTH).status_code == 200
            verdict = http.post(f"/api/matches/{match.match_id}/close", headers=AUTH).json()
    finally:
        server.stop()
    batch = adjudicate_with_context(match, AdjudicationContext.single(OfflineBackend()))
    assert verdict == json.loads(batch.model_dump_json())
    assert verdict["provenance"]["model"] == "offline" and verdict["provenance"]["is_llm"] is False
