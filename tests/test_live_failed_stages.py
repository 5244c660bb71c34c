"""A stage whose analysis failed (issue 10, item 9) is shown as failed everywhere -- push reply, push
line, board -- never with an earlier stage's scores; it is retried on the next push and with
``live retry``; ``close`` refuses while one is still failed; a retried stage's failure is superseded."""

from __future__ import annotations

import json

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, header_body, online_match, stage_body, start_server, token_file

from adjudicator.cli import main
from adjudicator.judges.base import NodeResult
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.workflow.context import AdjudicationContext

AUTH = {"Authorization": f"Bearer {TOKEN}"}


class FlakyTracker(RecordingBackend):
    """RecordingBackend whose tracker fails stage ``sid`` the next ``failures[sid]`` times it is asked."""

    def __init__(self, failures: dict[str, int]):
        super().__init__()
        self.failures = dict(failures)

    def analyse_stage(self, request):
        sid = request.stage.stage_id
        if self.failures.get(sid, 0) > 0:
            self.failures[sid] -= 1
            with self._lock:
                self.stage_requests.append(request)
            failure = NodeFailure(node="track_stage", key=sid, kind=FailureKind.UNPARSEABLE, reason="scripted garbage", raw_outputs=["garbage"])
            return NodeResult(value=None, calls=[CallRecord(node="track_stage", key=sid, model=self.name)], failure=failure)
        return super().analyse_stage(request)


@pytest.fixture
def flaky(tmp_path):
    backend = FlakyTracker({"s2": 1, "s4": 3})
    server = start_server(tmp_path / "state", AdjudicationContext.single(backend))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False, headers=AUTH)
    try:
        yield server, http, backend
    finally:
        http.close()
        server.stop()


def cli(server, *args) -> list[str]:
    return ["live", *args, "--url", server.url, "--token-file", token_file()]


def test_failed_stage_is_failed_everywhere_retried_and_blocks_close(flaky, tmp_path, capsys):
    server, http, backend = flaky
    match = online_match("m1", 4)
    assert http.post("/api/matches", json=header_body(match)).status_code == 201
    assert http.post("/api/matches/m1/stages", json=stage_body(match, 0)).json()["status"] == "analysed"

    # s2's analysis fails: the push says so, with no scores (s1's 7s are not passed off as s2's), exit 1
    (tmp_path / "s2.json").write_text(json.dumps(stage_body(match, 1)), encoding="utf-8")
    assert main(cli(server, "push", "m1", str(tmp_path / "s2.json"))) == 1
    out, err = capsys.readouterr()
    reply = json.loads(out)
    assert (reply["status"], reply["latest"], reply["failed"]) == ("failed", None, ["s2"])
    assert err.splitlines()[0] == "m1: s2 failed; 1/2 analysed; failed: s2"
    assert "analysis of stage s2 failed" in err.splitlines()[1]
    board = http.get("/api/matches/m1").json()
    assert board["failed"] == ["s2"]
    assert [(s["stage_id"], s["analysed"], s["failed"]) for s in board["stages"]] == [("s1", True, False), ("s2", False, True)]
    assert http.get("/api/matches").json()["matches"][0]["failed"] == 1

    # the next push retries s2 first (it succeeds now), then analyses s3, in stage order
    r = http.post("/api/matches/m1/stages", json=stage_body(match, 2)).json()
    assert (r["status"], r["failed"], r["latest"]["stage_id"]) == ("analysed", [], "s3")
    assert [q.stage.stage_id for q in backend.stage_requests] == ["s1", "s2", "s2", "s3"]
    board = http.get("/api/matches/m1").json()
    assert [(s["stage_id"], s["analysed"], s["failed"]) for s in board["stages"]][1] == ("s2", True, False)

    # s4 fails three times: at its push, at an explicit retry (exit 1), at close's own retry (refused)
    assert http.post("/api/matches/m1/stages", json=stage_body(match, 3)).json()["status"] == "failed"
    assert main(cli(server, "retry", "m1", "s4")) == 1
    assert "the analysis of s4 failed again" in capsys.readouterr().err
    r = http.post("/api/matches/m1/close")
    assert r.status_code == 409 and r.json()["field"] == "stages"
    assert r.json()["detail"].startswith("match 'm1': the analysis of 1 stage(s) failed (s4); a verdict would miss them")
    assert http.get("/api/matches/m1").json()["status"] == "open"
    # a stage that did not fail is not retried
    r = http.post("/api/matches/m1/stages/s3/retry")
    assert r.status_code == 409 and "was analysed; only a failed stage is retried" in r.json()["detail"]
    assert http.post("/api/matches/m1/stages/s9/retry").status_code == 404

    # the fourth try succeeds: retry exits 0, close gives a verdict whose failures no longer list s2 or s4
    assert main(cli(server, "retry", "m1", "s4")) == 0
    assert capsys.readouterr().err.strip().endswith("m1: 4/4 analysed; no failed stage")
    verdict = http.post("/api/matches/m1/close").json()
    assert verdict["winner"] == "affirmative" and verdict["failures"] == []
    assert [q.stage.stage_id for q in backend.stage_requests] == ["s1", "s2", "s2", "s3", "s4", "s4", "s4", "s4"]
