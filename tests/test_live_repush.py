"""Re-pushing a stage of a closed room (issue 27, item 9, the rest), on SQLite and PostgreSQL: the
organiser replaces a stage's text, the analysis is recomputed from that stage on (the stages before it
are not analysed again), the panel judges again, and the room's result is a new draft; the lifecycle
log (and the round's log.csv) keeps person, time, reason, the stage's hash and the result before and
after. Refused after release until reopened.

Before: no way to correct a stage of a closed match (``.../repush`` was 404; docs/tournaments.md said
to void the room and debate it again). The backend is the RecordingBackend, except that every judge
votes negative once a stage says "I concede"; one server per store serves the module.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server, token_file
from pg_cluster import new_database

from adjudicator.cli import main
from adjudicator.judges.base import NodeResult
from adjudicator.records import FailureKind, NodeFailure
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
_ids = itertools.count(1)


class Conceding(RecordingBackend):
    """Every judge votes negative (p 0.3) when a stage of the match says "I concede". The analysis of a
    stage saying "garbled" fails ``garbled_failures`` times (then succeeds)."""

    garbled_failures = 0

    def analyse_stage(self, request):
        if self.garbled_failures > 0 and any("garbled" in u.text for u in request.stage.utterances):
            self.garbled_failures -= 1
            return NodeResult(value=None, calls=[], failure=NodeFailure(node="track_stage", key=request.stage.stage_id, kind=FailureKind.UNPARSEABLE,
                                                                        reason="scripted failure", raw_outputs=["garbage"]))
        return super().analyse_stage(request)

    def judge(self, request):
        conceded = any("I concede" in u.text for s in request.match.stages for u in s.utterances)
        self.negative_judges = {request.judge_id} if conceded else set()
        return super().judge(request)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def desk(request, tmp_path_factory):
    """One live server per store for the module: (server, http, backend)."""
    url = None if request.param == "sqlite" else new_database(request.getfixturevalue("pg_cluster_url"), f"t_repush_{os.getpid()}")
    backend = Conceding()
    server = start_server(tmp_path_factory.mktemp("state"), AdjudicationContext.single(backend), store=url)
    http = httpx.Client(base_url=server.url, timeout=60, trust_env=False)
    try:
        yield server, http, backend
    finally:
        http.close()
        server.stop()


def closed_room(http: httpx.Client) -> tuple[str, dict]:
    """A new tournament's room r1/a debated, closed and confirmed by its chair: (tournament id, chair headers)."""
    t = f"cup{next(_ids)}"
    assert http.post("/api/tournaments", json={"tournament_id": t}, headers=ORG).status_code == 201
    rnd = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}
    assert http.post(f"/api/tournaments/{t}/rounds", json=rnd, headers=ORG).status_code == 201
    r = http.post(f"/api/tournaments/{t}/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "Aff", "negative": "Neg"}, "chair": "Ms Lee"}, headers=ORG)
    chair = {"Authorization": f"Bearer {r.json()['chair_token']}"}
    for i in range(4):
        assert http.post(f"/api/matches/{t}.r1.a/stages", json=stage_body(M, i), headers=chair).status_code == 200
    assert http.post(f"/api/matches/{t}.r1.a/close", headers=chair).status_code == 200
    assert http.post(f"/api/tournaments/{t}/rounds/r1/rooms/a/confirm", json={"note": "as the panel said"}, headers=chair).status_code == 200
    return t, chair


def conceding(i: int) -> dict:
    """Stage ``i`` with its speech replaced by a concession."""
    body = stage_body(M, i)
    body["utterances"][0]["text"] = "On reflection I concede the whole motion to the other side."
    return body


def test_a_stage_is_repushed_the_analysis_redone_from_it_and_the_result_a_new_draft_with_a_trail(desk):
    server, http, backend = desk
    t, chair = closed_room(http)
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    before = http.get(room, headers=ORG).json()
    assert (before["decision"]["state"], before["decision"]["automated"]["winner"]) == ("confirmed", "affirmative")
    analysed = len(backend.stage_requests)
    r = http.post(f"{room}/repush", json={"stage": conceding(2), "reason": "the transcript of s3 was another room's"}, headers=ORG)
    assert r.status_code == 200, r.text  # before: 404, no such route
    d = r.json()["decision"]
    assert (d["state"], d["version"], d["confirmed_by"], d["override"]) == ("draft", 3, None, None)
    assert (d["automated"]["winner"], d["automated"]["p"]) == ("negative", pytest.approx(0.3, abs=1e-9))  # the panel judged the new text
    again = [q.stage.stage_id for q in backend.stage_requests[analysed:] if q.match.match_id == f"{t}.r1.a"]
    assert again == [M.stages[2].stage_id, M.stages[3].stage_id]  # from that stage on; s1 and s2 kept their analyses
    snap = http.get(f"/api/matches/{t}.r1.a", headers=ORG).json()
    assert snap["status"] == "closed" and snap["decision"]["state"] == "awaiting"  # off the public board until confirmed and released
    assert "I concede" in server.app.state.store.stages(f"{t}.r1.a")[2].utterances[0].text  # the new text in place, the others kept
    assert [st.utterances[0].text for i, st in enumerate(server.app.state.store.stages(f"{t}.r1.a")) if i != 2] == [M.stages[i].utterances[0].text for i in (0, 1, 3)]

    entry = next(e for e in http.get(f"/api/tournaments/{t}/log", params={"room": "a"}, headers=ORG).json()["log"] if e["kind"] == "stage_repushed")
    det = entry["detail"]
    assert (entry["actor"]["name"], entry["from_state"], entry["to_state"], entry["version"], det["stage_id"]) == ("organiser", "confirmed", "draft", 3, M.stages[2].stage_id)
    assert det["reason"] == "the transcript of s3 was another room's" and entry["at"]
    assert (det["before"]["automated_winner"], det["before"]["p"], det["before"]["confirmed_by"]) == ("affirmative", pytest.approx(0.7, abs=1e-9), "Ms Lee")
    assert (det["after"]["automated_winner"], det["after"]["p"], det["after"]["state"]) == ("negative", pytest.approx(0.3, abs=1e-9), "draft")
    assert len(det["before"]["stage_sha256"]) == 64 and det["before"]["stage_sha256"] != det["after"]["stage_sha256"]
    rows = list(csv.DictReader(io.StringIO(http.get(f"/api/tournaments/{t}/rounds/r1/log.csv", headers=ORG).text)))
    assert [json.loads(r["detail"])["after"]["automated_winner"] for r in rows if r["kind"] == "stage_repushed"] == ["negative"]

    assert http.post(f"{room}/confirm", json={}, headers=chair).json()["winner"] == "negative"  # confirmed and released as usual
    assert http.post(f"{room}/release", json={}, headers=ORG).status_code == 200
    assert http.get(f"/api/matches/{t}.r1.a").json()["verdict"]["winner"] == "negative"


def test_a_repush_is_refused_after_release_until_reopened_and_only_the_organiser_makes_one(desk):
    _, http, _ = desk
    t, chair = closed_room(http)
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    assert http.post(f"{room}/repush", json={"stage": conceding(1), "reason": "x"}, headers=chair).status_code == 403
    assert http.post(f"{room}/repush", json={"stage": conceding(1)}, headers=ORG).status_code == 422  # a reason is required
    assert http.post(f"{room}/repush", json={"stage": {**conceding(1), "stage_id": "s99"}, "reason": "x"}, headers=ORG).status_code == 404
    r = http.post(f"{room}/repush", json={"stage": stage_body(M, 1), "reason": "x"}, headers=ORG)
    assert r.status_code == 409 and "nothing to re-push" in r.json()["detail"]  # the same text: nothing changes
    assert http.get(room, headers=ORG).json()["decision"]["version"] == 2
    assert http.post(f"{room}/release", json={}, headers=ORG).status_code == 200
    r = http.post(f"{room}/repush", json={"stage": conceding(1), "reason": "x"}, headers=ORG)
    assert r.status_code == 409 and "reopens it first" in r.json()["detail"]
    assert http.post(f"{room}/reopen", json={"reason": "a stage to correct"}, headers=ORG).status_code == 200
    assert http.post(f"{room}/repush", json={"stage": conceding(1), "reason": "x"}, headers=ORG).json()["decision"]["automated"]["winner"] == "negative"


def test_a_repush_cut_off_by_a_failed_analysis_resumes_when_sent_again(desk):
    _, http, backend = desk
    t, _ = closed_room(http)
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    body = conceding(1)
    body["utterances"][0]["text"] += " (garbled)"
    backend.garbled_failures = 2  # the analysis, and the retry right after it
    r = http.post(f"{room}/repush", json={"stage": body, "reason": "x"}, headers=ORG)
    assert r.status_code == 409 and "failed again" in r.json()["detail"]
    view = http.get(room, headers=ORG).json()
    assert (view["status"], view["decision"]["state"], view["decision"]["version"]) == ("closing", "confirmed", 2)  # the result untouched, held back
    r = http.post(f"{room}/repush", json={"stage": body, "reason": "x, again"}, headers=ORG)  # the same re-push resumes
    assert r.status_code == 200, r.text
    assert (r.json()["status"], r.json()["decision"]["version"], r.json()["decision"]["automated"]["winner"]) == ("closed", 3, "negative")
    assert [e["detail"]["reason"] for e in http.get(f"/api/tournaments/{t}/log", params={"room": "a"}, headers=ORG).json()["log"] if e["kind"] == "stage_repushed"] == ["x, again"]


def test_the_repush_command(desk, tmp_path, capsys):
    server, http, _ = desk
    t, _ = closed_room(http)
    stage = tmp_path / "s4.json"
    stage.write_text(json.dumps(conceding(3)), encoding="utf-8")
    assert main(["live", "repush", t, "r1", "a", str(stage), "--reason", "wrong closing speech", "--url", server.url, "--token-file", token_file()]) == 0
    err = capsys.readouterr().err
    assert f"{t}.r1.a: stage {M.stages[3].stage_id} re-pushed; new draft (version 3), automated winner negative (p=0.3)" in err
