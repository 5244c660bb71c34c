"""Correction with a trail (issue 27, item 9), on SQLite and PostgreSQL: the organiser reopens or voids
a room's result, each step an entry of the append-only lifecycle log with person, time, reason and the
result before and after; every stage pushed and every close is in the log too; the round's export
carries the log as CSV.

Before: no way to correct a released room (confirm answered 409 "final"), no void, and pushes and
closes were not in the log. The backend is the scripted RecordingBackend (tests/graph_fakes.py):
every judge votes affirmative. Each room is a 4-stage online-1v1 match.
"""

from __future__ import annotations

import csv
import io
import json

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server, token_file

from adjudicator.cli import main
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
ROUND = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}
ROOMS = "/api/tournaments/cup/rounds/r1/rooms"

pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


@pytest.fixture
def desk(tmp_path):
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    try:
        assert http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=ORG).status_code == 201
        assert http.post("/api/tournaments/cup/rounds", json=ROUND, headers=ORG).status_code == 201
        yield server, http
    finally:
        http.close()
        server.stop()


def closed_room(http: httpx.Client, room: str) -> dict:
    """Room ``room`` debated and closed by its chair (Ms Lee); returns the chair's headers."""
    r = http.post(ROOMS, json={"room_id": room, "teams": {"affirmative": "Aff", "negative": "Neg"}, "chair": "Ms Lee"}, headers=ORG)
    chair = {"Authorization": f"Bearer {r.json()['chair_token']}"}
    for i in range(4):
        assert http.post(f"/api/matches/cup.r1.{room}/stages", json=stage_body(M, i), headers=chair).status_code == 200
    assert http.post(f"/api/matches/cup.r1.{room}/close", headers=chair).status_code == 200
    return chair


def log_of(http: httpx.Client, room: str) -> list[dict]:
    return http.get("/api/tournaments/cup/log", params={"round": "r1", "room": room}, headers=ORG).json()["log"]


def test_a_released_result_is_reopened_corrected_and_released_again_with_every_step_logged(desk):
    _, http = desk
    chair = closed_room(http, "a")
    assert http.post(f"{ROOMS}/a/confirm", json={}, headers=chair).status_code == 200
    assert http.post(f"{ROOMS}/a/release", json={}, headers=ORG).status_code == 200
    assert http.post(f"{ROOMS}/a/confirm", json={"winner": "negative"}, headers=ORG).status_code == 409  # released: final until reopened
    r = http.post(f"{ROOMS}/a/reopen", json={"reason": "the chair read out the wrong side"}, headers=ORG)
    assert r.status_code == 200, r.text  # before: 404, no such route
    assert r.json()["verdict_state"] == "draft" and r.json()["decision"]["version"] == 4
    assert http.get("/api/matches/cup.r1.a").json()["decision"]["state"] == "awaiting"  # off the public board again
    assert http.post(f"{ROOMS}/a/confirm", json={"winner": "negative", "note": "recount"}, headers=chair).status_code == 200
    assert http.post(f"{ROOMS}/a/release", json={}, headers=ORG).json()["rooms"][0]["winner"] == "negative"

    entries = log_of(http, "a")
    kinds = [e["kind"] for e in entries]
    # the close records the draft, then the close is logged with who closed
    assert kinds == ["room_created", "chair_token_issued", *["stage_pushed"] * 4, "draft_recorded", "match_closed", "confirmed", "released", "reopened", "confirmed", "released"]
    pushes = [e for e in entries if e["kind"] == "stage_pushed"]
    assert [p["detail"]["stage_id"] for p in pushes] == [s.stage_id for s in M.stages] and {p["actor"]["role"] for p in pushes} == {"chair"}
    closed = next(e for e in entries if e["kind"] == "match_closed")
    assert closed["detail"] == {"winner": "affirmative", "p": pytest.approx(0.7, abs=1e-9), "forced": False} and closed["actor"]["role"] == "chair"
    reopened = next(e for e in entries if e["kind"] == "reopened")
    assert (reopened["actor"]["role"], reopened["from_state"], reopened["to_state"], reopened["version"]) == ("organiser", "released", "draft", 4)
    assert reopened["detail"]["reason"] == "the chair read out the wrong side" and reopened["at"]
    before, after = reopened["detail"]["before"], reopened["detail"]["after"]
    assert (before["state"], before["winner"], before["confirmed_by"], after["state"], after["confirmed_by"], after["released_at"]) == \
        ("released", "affirmative", "Ms Lee", "draft", None, None) and before["released_at"]
    seqs = [e["seq"] for e in entries]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # appended, never rewritten

    rows = list(csv.DictReader(io.StringIO(http.get("/api/tournaments/cup/rounds/r1/log.csv", headers=ORG).text)))
    assert [r["kind"] for r in rows if r["room_id"] == "a"] == kinds
    row = next(r for r in rows if r["kind"] == "reopened")
    assert (row["role"], row["person"], row["from_state"], row["to_state"]) == ("organiser", "organiser", "released", "draft")
    assert json.loads(row["detail"])["before"]["winner"] == "affirmative"


def test_a_void_room_counts_for_nothing_until_reopened(desk):
    _, http = desk
    chair_a, chair_b = closed_room(http, "a"), closed_room(http, "b")
    for room, chair in (("a", chair_a), ("b", chair_b)):
        assert http.post(f"{ROOMS}/{room}/confirm", json={}, headers=chair).status_code == 200
    r = http.post(f"{ROOMS}/a/void", json={"reason": "the debate is rerun"}, headers=ORG)
    assert r.status_code == 200 and r.json()["verdict_state"] == "void" and r.json()["decision"]["void"] is True
    assert http.get("/api/matches/cup.r1.a").json()["decision"]["state"] == "void" and http.get("/api/matches/cup.r1.a").json()["verdict"] is None
    assert http.post(f"{ROOMS}/a/confirm", json={}, headers=chair_a).status_code == 409
    assert http.post(f"{ROOMS}/a/void", json={"reason": "again"}, headers=ORG).status_code == 409
    assert http.get(f"{ROOMS}/a/tabbycat", headers=ORG).status_code == 409
    view = http.post("/api/tournaments/cup/rounds/r1/release", json={}, headers=ORG).json()  # the void room does not hold the round back
    assert {r["room_id"]: r["verdict_state"] for r in view["rooms"]} == {"a": "void", "b": "released"}
    rows = [r for r in csv.DictReader(io.StringIO(http.get("/api/tournaments/cup/rounds/r1/results.csv", headers=ORG).text)) if r["room_id"] == "a"]
    assert [(r["state"], r["rank"], r["points"]) for r in rows] == [("void", "", "")] * 2
    voided = next(e for e in log_of(http, "a") if e["kind"] == "voided")
    assert (voided["from_state"], voided["to_state"], voided["detail"]["before"]["winner"], voided["detail"]["reason"]) == ("confirmed", "void", "affirmative", "the debate is rerun")
    assert http.post(f"{ROOMS}/a/reopen", json={"reason": "rerun cancelled"}, headers=ORG).json()["verdict_state"] == "draft"
    assert http.post(f"{ROOMS}/a/confirm", json={}, headers=chair_a).status_code == 200


def test_only_the_organiser_corrects_and_always_with_a_reason(desk):
    _, http = desk
    chair = closed_room(http, "a")
    assert http.post(f"{ROOMS}/a/reopen", json={"reason": "x"}, headers=chair).status_code == 403
    assert http.post(f"{ROOMS}/a/void", json={"reason": "x"}).status_code == 401
    r = http.post(f"{ROOMS}/a/void", json={}, headers=ORG)
    assert r.status_code == 422 and "reason" in r.json()["detail"]
    assert http.post(f"{ROOMS}/a/reopen", json={"reason": "x"}, headers=ORG).status_code == 409  # a draft: nothing to reopen
    assert http.post(f"{ROOMS}/a/void", json={"reason": "x", "expected_version": 7}, headers=ORG).status_code == 409


def test_the_commands_reopen_void_and_export_the_trail(desk, tmp_path, capsys):
    server, http = desk
    chair = closed_room(http, "a")
    assert http.post(f"{ROOMS}/a/confirm", json={}, headers=chair).status_code == 200
    common = ["--url", server.url, "--token-file", token_file()]
    assert main(["live", "void", "cup", "r1", "a", "--reason", "=HYPERLINK(\"x\")", *common]) == 0
    assert capsys.readouterr().err.strip() == "cup.r1.a: void (version 3)"
    assert main(["live", "reopen", "cup", "r1", "a", "--reason", "counted again", *common]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["live", "export", "cup", "r1", "--out", str(out), *common]) == 2  # the room is a draft again, and has no Tabbycat ids
    text = (out / "cup.r1.log.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["kind"] for r in rows][-2:] == ["voided", "reopened"]
    assert json.loads(rows[-2]["detail"])["reason"] == '=HYPERLINK("x")' and rows[-2]["detail"].startswith("{")
