"""Release control covers everything that reveals a result (issue 27, item 6), on SQLite and PostgreSQL.

Before: on closed, unreleased rooms the public board's provisional "leaning" named the unreleased winner
every time it named a side. Now, from the close until the release, no unauthenticated page or endpoint
gives the room's provisional tendency, suggested scores, turning points, clash events, ballot or
report; the organiser and the room's chair still read everything; the release shows it all.

The backend is the scripted RecordingBackend (tests/graph_fakes.py); each room is a 4-stage online-1v1 match.
"""

from __future__ import annotations

import json

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server

from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
ROUND = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}
BOARD = "/api/matches/cup.r1.a"

pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


@pytest.fixture
def room(tmp_path):
    """A server with cup/r1/a debated (four stages pushed by its chair), still open: (http, chair headers)."""
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    try:
        assert http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=ORG).status_code == 201
        assert http.post("/api/tournaments/cup/rounds", json=ROUND, headers=ORG).status_code == 201
        r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "Aff", "negative": "Neg"}}, headers=ORG)
        chair = {"Authorization": f"Bearer {r.json()['chair_token']}"}
        for i in range(4):
            assert http.post(f"{BOARD}/stages", json=stage_body(M, i), headers=chair).status_code == 200
        yield http, chair
    finally:
        http.close()
        server.stop()


def first_event(http: httpx.Client) -> dict:
    """The first snapshot the public event stream sends."""
    with http.stream("GET", f"{BOARD}/events") as r:
        for line in r.iter_lines():
            if line.startswith("data:"):
                return json.loads(line.removeprefix("data:"))
    raise AssertionError("the stream sent no snapshot")


def reveals(board: dict) -> list[str]:
    """What of a board snapshot tells which way the room went."""
    found = [k for k in ("scores", "timeline") if board[k]]
    found += ["tendency"] if board["tendency"]["p"] is not None or board["tendency"]["leaning"] in ("affirmative", "negative", "even") else []
    found += ["latest"] if board["latest"] is not None else []
    found += ["clash events"] if any(c["events"] or c["momentum"] for c in board["clashes"]) else []
    found += ["verdict"] if board["verdict"] is not None else []
    return found


def public_leaks(http: httpx.Client) -> dict[str, object]:
    """Every unauthenticated way to a room's result, and what each gave away."""
    row = http.get("/api/tournaments/cup/rounds/r1").json()["rooms"][0]
    one = http.get("/api/tournaments/cup/rounds/r1/rooms/a").json()
    return {
        "board": reveals(http.get(BOARD).json()),
        "stream": reveals(first_event(http)),
        "overview": [k for k in ("tendency", "winner") if row[k] is not None] + (["leaning"] if row["leaning"] != "withheld" else []),
        "room": [k for k in ("tendency", "winner") if one[k] is not None],
        "files": [p for p in ("/verdict", "/report", "/report.html") if http.get(BOARD + p).status_code != 403],
    }


def test_a_closed_room_reveals_nothing_to_the_public_until_release(room):
    http, chair = room
    live = http.get(BOARD).json()
    assert live["tendency"]["p"] is not None and live["scores"]  # while the debate runs the board is live
    assert http.post(f"{BOARD}/close", headers=chair).status_code == 200
    nothing = {"board": [], "stream": [], "overview": [], "room": [], "files": []}
    assert public_leaks(http) == nothing  # before: the tendency named the side on board, stream and overview
    board = http.get(BOARD).json()
    assert board["withheld"] is True and board["tendency"]["leaning"] == "withheld" and board["decision"]["state"] == "awaiting"
    assert [c["title"] for c in board["clashes"]] == [c["title"] for c in live["clashes"]] and board["stages"] == live["stages"]
    # the organiser and the chair read everything
    for who in (ORG, chair):
        private = http.get("/api/tournaments/cup/rounds/r1/rooms/a", headers=who).json()
        assert private["tendency"] is not None and private["verdict"]["winner"] == "affirmative"
        assert http.get(BOARD + "/verdict", headers=who).status_code == 200
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={}, headers=chair).status_code == 200
    assert public_leaks(http) == nothing  # confirmed is not released
    assert http.post("/api/tournaments/cup/rounds/r1/rooms/a/release", json={}, headers=ORG).status_code == 200
    leaks = public_leaks(http)
    assert set(leaks["board"]) >= {"scores", "tendency", "verdict"} and set(leaks["overview"]) == {"tendency", "winner", "leaning"}
    assert leaks["files"] == ["/verdict", "/report", "/report.html"] and http.get(BOARD).json().get("withheld") is None


def test_a_tournament_showing_drafts_shows_the_analysis_with_them(room):
    http, chair = room
    assert http.post("/api/tournaments/cup/settings", json={"board_shows": "draft"}, headers=ORG).status_code == 200
    assert http.post(f"{BOARD}/close", headers=chair).status_code == 200
    board = http.get(BOARD).json()
    assert board["tendency"]["p"] is not None and board["verdict"]["state"] == "draft" and "withheld" not in board
