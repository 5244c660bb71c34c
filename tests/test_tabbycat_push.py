"""The Tabbycat push through the live server and ``adjudicate live tabbycat push``: two ccdb-4v4 rooms
judged, confirmed and pushed into the fake Tabbycat v2.9.3 (``tests/fake_tabbycat.py``) under its
defaults; the token's sources; the push log that makes a second push post nothing; the push on release.

The scripted panel (``graph_fakes.RecordingBackend``) scores every affirmative unit 7 and every negative
unit 6 and votes for the affirmative, so each affirmative debater's raw score is 7.0 and each negative's
6.0 unless a confirmation overrides them.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import httpx
import pytest
from fake_tabbycat import BASE, FakeTabbycat
from fake_tabbycat import TOKEN as TC_TOKEN
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, ccdb_stage, start_server, token_file

from adjudicator.cli import main
from adjudicator.input.formats import CCDB_4V4
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
TEAMS = {"A": ("Fudan", "Wuhan"), "B": ("Nanjing", "Xiamen")}
NAMES = {"Fudan": ["Ann", "Bo", "Cy", "Di"], "Wuhan": ["Eve", "Fay", "Gus", "Hal"], "Nanjing": ["Kai", "Lu", "Mo", "Ning"], "Xiamen": ["Ou", "Pan", "Qi", "Ren"]}
FORMAT_SET = {"substantive_speakers": 4, "reply_scores_enabled": False}


def _round(http: httpx.Client, tid: str, **settings) -> dict[str, str]:
    """Tournament ``tid`` (Tabbycat URL set), round r1 (ccdb-4v4, Tabbycat round 1), rooms A and B with
    named debaters, all 14 stages pushed and closed. Returns room -> chair token."""
    assert http.post("/api/tournaments", json={"tournament_id": tid, "tabbycat_url": BASE, **settings}, headers=ORG).status_code == 201
    body = {"round_id": "r1", "format": "ccdb-4v4", "motion": "人工智能利大于弊", "affirmative_position": "利大于弊", "negative_position": "弊大于利", "tabbycat_round": 1}
    assert http.post(f"/api/tournaments/{tid}/rounds", json=body, headers=ORG).status_code == 201
    chairs = {}
    for room, (aff, neg) in TEAMS.items():
        debaters = [{"side": side, "position": i, "name": n} for side, team in (("affirmative", aff), ("negative", neg)) for i, n in enumerate(NAMES[team], 1)]
        r = http.post(f"/api/tournaments/{tid}/rounds/r1/rooms", json={"room_id": room, "teams": {"affirmative": aff, "negative": neg}, "debaters": debaters}, headers=ORG)
        assert r.status_code == 201, r.text
        chairs[room] = r.json()["chair_token"]
        for k in range(len(CCDB_4V4.order)):
            assert http.post(f"/api/matches/{tid}.r1.{room}/stages", json=ccdb_stage(k), headers=ORG).status_code == 200
        assert http.post(f"/api/matches/{tid}.r1.{room}/close", headers=ORG).status_code == 200
    return chairs


@pytest.fixture
def server(tmp_path):
    tb = FakeTabbycat(FORMAT_SET, team_names=list(TEAMS.values()), speaker_names=NAMES)
    srv = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), tabbycat_transport=tb.transport, tabbycat_token=None, store=None)
    http = httpx.Client(base_url=srv.url, timeout=60, trust_env=False)
    try:
        yield SimpleNamespace(http=http, tb=tb, url=srv.url)
    finally:
        http.close()
        srv.stop()


def push(http, tid, *, token=TC_TOKEN, room=None, **body):
    path = f"/api/tournaments/{tid}/rounds/r1" + (f"/rooms/{room}" if room else "") + "/tabbycat/push"
    return http.post(path, json=body, headers=ORG | ({"X-Tabbycat-Token": token} if token else {}))


def test_a_round_pushed_through_the_server_is_stored_once_and_logged(server):
    http, tb = server.http, server.tb
    chairs = _round(http, "cup")
    assert push(http, "cup").json()["rooms"][0]["reason"].startswith("an unconfirmed automated draft")  # drafts are never posted
    # room B's chair overrides the winner and gives the negative the higher scores
    units = http.get("/api/tournaments/cup/rounds/r1/rooms/B", headers=ORG).json()["decision"]["automated"]["stage_scores"]
    over = {u: (6.0 if u.endswith("affirmative") else 7.5) for u in units}
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/A/confirm", json={}, headers={"Authorization": f"Bearer {chairs['A']}"}).status_code == 200
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/B/confirm", json={"winner": "negative", "stage_scores": over}, headers=ORG).status_code == 200
    answer = push(http, "cup").json()
    assert [(o["room_id"], o["status"], o["sheets"]) for o in answer["rooms"]] == [("A", "posted", 2), ("B", "posted", 2)] and "body" not in answer["rooms"][0]
    # A: raw 7.0 and 6.0 on 68-82 (gain 2.2824): 75.776 x4 = 303.10 -> 76 76 76 75; 73.494 x4 = 293.98 -> 294: 74 74 73 73
    a = tb.result(10)
    assert a["aff"]["win"] and [sc for _, sc in a["aff"]["speeches"].values()] == [76.0, 76.0, 76.0, 75.0] and [sc for _, sc in a["neg"]["speeches"].values()] == [74.0, 74.0, 73.0, 73.0]
    b = tb.result(11)
    assert b["neg"]["win"] and [tb.speakers[sid][0] for sid, _ in b["neg"]["speeches"].values()] == NAMES["Xiamen"] and b["neg"]["score"] > b["aff"]["score"]
    # the log has each outcome; a second push posts nothing
    log = [e for e in http.get("/api/tournaments/cup/log", headers=ORG).json()["log"] if e["kind"] == "tabbycat_push"]
    assert [(e["room_id"], e["detail"]["status"]) for e in log][-2:] == [("A", "posted"), ("B", "posted")] and "token" not in json.dumps(log).lower()
    n = len(tb.ballots)
    assert [o["status"] for o in push(http, "cup").json()["rooms"]] == ["unchanged", "unchanged"] and len(tb.ballots) == n
    # a dry run shows the body and posts nothing
    dry = push(http, "cup", room="A", dry_run=True).json()["rooms"][0]
    assert dry["status"] == "unchanged" and len(tb.ballots) == n


def test_without_a_token_the_push_says_where_to_put_one_and_a_dead_tabbycat_is_502(server, tmp_path):
    http = server.http
    _round(http, "cup")
    r = push(http, "cup", token=None)
    assert r.status_code == 409 and r.json()["detail"].startswith("no Tabbycat token: the server has none and the request sent none")
    bad = push(http, "cup", token="wrong-token-0000")
    assert bad.status_code == 502 and bad.json()["detail"].startswith(f"Tabbycat round 1 could not be read: Tabbycat refused GET {BASE}/rounds/1 (HTTP 401): detail: Invalid token; check")


def test_a_tournament_pushing_on_release_pushes_when_released(tmp_path):
    tb = FakeTabbycat(FORMAT_SET | {"ballots_per_debate_prelim": "per-debate", "winners_in_ballots": "low-points"}, team_names=list(TEAMS.values()), speaker_names=NAMES)
    srv = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), tabbycat_transport=tb.transport, tabbycat_token=TC_TOKEN, store=None)
    try:
        with httpx.Client(base_url=srv.url, timeout=60, trust_env=False) as http:
            _round(http, "cup", tabbycat_push="on_release")
            for room, body in (("A", {}), ("B", {"winner": "negative"})):  # B: a low-point win, which this tournament allows
                assert http.post(f"/api/tournaments/cup/rounds/r1/rooms/{room}/confirm", json=body, headers=ORG).status_code == 200
            view = http.post("/api/tournaments/cup/rounds/r1/release", json={}, headers=ORG).json()
            assert [(o["room_id"], o["status"]) for o in view["tabbycat_push"]] == [("A", "posted"), ("B", "posted")]
            assert tb.result(11)["neg"]["win"] and tb.result(11)["neg"]["score"] < tb.result(11)["aff"]["score"]
    finally:
        srv.stop()


def test_the_push_command_prints_a_line_per_room_and_exits_2_on_a_refusal(server, monkeypatch, capsys):
    http = server.http
    _round(http, "cup")
    for room in ("A", "B"):
        http.post(f"/api/tournaments/cup/rounds/r1/rooms/{room}/confirm", json={"winner": "negative"} if room == "B" else {}, headers=ORG)
    monkeypatch.setenv("ADJUDICATOR_TABBYCAT_TOKEN", TC_TOKEN)
    code = main(["live", "tabbycat", "push", "cup", "r1", "--url", server.url, "--token-file", token_file()])
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert code == 2 and lines[0].split()[:2] == ["A", "posted"] and lines[1].split()[:2] == ["B", "refused"]
    assert "(debate_rules__winners_in_ballots)" in lines[1] and "1 posted, 1 refused" in err and err.strip().endswith("then push again")


def test_the_tabbycat_token_comes_from_a_file_or_the_environment(tmp_path):
    from adjudicator.environment import tabbycat_token
    from adjudicator.errors import ConfigError

    f = tmp_path / "token"
    f.write_text("abc123\n", encoding="utf-8")
    assert tabbycat_token(f, env={}) == ("abc123", f"--tabbycat-token-file {f}")
    assert tabbycat_token(None, env={"ADJUDICATOR_TABBYCAT_TOKEN_FILE": str(f), "ADJUDICATOR_TABBYCAT_TOKEN": "x"})[0] == "abc123"
    assert tabbycat_token(None, env={"ADJUDICATOR_TABBYCAT_TOKEN": " tok "}) == ("tok", "$ADJUDICATOR_TABBYCAT_TOKEN")
    assert tabbycat_token(None, env={})[0] is None
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="the file is empty"):
        tabbycat_token(tmp_path / "empty", env={})


def test_pushing_to_tabbycat_x_then_y_then_x_again_keeps_the_last_post_per_target(tmp_path):
    x = FakeTabbycat(FORMAT_SET, team_names=list(TEAMS.values()), speaker_names=NAMES)
    y = FakeTabbycat(FORMAT_SET, team_names=list(TEAMS.values()), speaker_names=NAMES, slug="cup-mirror")
    route = httpx.MockTransport(lambda req: (y if str(req.url).startswith(y.base + "/") else x).handle(req))
    srv = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), tabbycat_transport=route, tabbycat_token=None, store=None)
    try:
        with httpx.Client(base_url=srv.url, timeout=60, trust_env=False) as http:
            _round(http, "cup")
            assert http.post("/api/tournaments/cup/rounds/r1/rooms/A/confirm", json={}, headers=ORG).status_code == 200
            statuses = []
            for base in (x.base, y.base, x.base, y.base):
                assert http.post("/api/tournaments/cup/settings", json={"tabbycat_url": base}, headers=ORG).status_code == 200
                statuses.append(push(http, "cup", room="A").json()["rooms"][0]["status"])
            assert statuses == ["posted", "posted", "unchanged", "unchanged"]
            assert (len(x.ballots), len(y.ballots)) == (1, 1)
    finally:
        srv.stop()


def test_a_second_round_or_tournament_on_the_same_tabbycat_target_is_warned_at_create_and_settings(server):
    http = server.http
    _round(http, "cup")
    body = {"round_id": "r1b", "format": "ccdb-4v4", "motion": "m", "affirmative_position": "a", "negative_position": "n", "tabbycat_round": 1}
    again = http.post("/api/tournaments/cup/rounds", json=body, headers=ORG).json()
    assert again["warnings"] == [f"round cup/r1 pushes to the same Tabbycat round (1 of {BASE}): a push finds the other's ballots there as conflicts; "
                                 "give this round its own --tabbycat-round"]
    own = http.post("/api/tournaments/cup/rounds", json=body | {"round_id": "r2", "tabbycat_round": 2}, headers=ORG).json()
    assert own["warnings"] == []
    t2 = http.post("/api/tournaments", json={"tournament_id": "cup2", "tabbycat_url": BASE + "/"}, headers=ORG).json()
    assert t2["warnings"] and t2["warnings"][0].startswith(f"tournament 'cup' pushes to the same Tabbycat tournament ({BASE})")
    assert http.post("/api/tournaments/cup2/settings", json={"board_shows": "confirmed"}, headers=ORG).json()["warnings"] == []
    assert http.post("/api/tournaments/cup2/settings", json={"tabbycat_url": BASE}, headers=ORG).json()["warnings"][0].startswith("tournament 'cup'")
