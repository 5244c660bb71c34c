"""A whole tournament through the live server's HTTP API: two rounds of three rooms each, chair tokens
scoped to their room, read-only board links, drafts hidden from the boards, a confirmed override that
keeps the automated original, round release, Tabbycat exports checked against Tabbycat's shape, the
results CSV and the lifecycle log.

The backend is the scripted RecordingBackend (tests/graph_fakes.py): every judge votes affirmative
with p 0.7, scores 7 for each affirmative unit and 6 for each negative unit, and gives its three
best-debater votes to Affirmative Speaker 1. Each room is a 4-stage online-1v1 match: the affirmative
speaks in s1 and s3, the negative in s2 and s4 (one debater a side).
"""

from __future__ import annotations

import csv
import io
from types import SimpleNamespace

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server
from tabbycat_shape import problems

from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
BASE = "https://tab.example.org/api/v1/tournaments/spring"
ROOMS = ("a", "b", "c")


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def ids_of(round_no: int, k: int) -> dict:
    """Distinct Tabbycat ids for room k (0-2) of round ``round_no``."""
    n = 100 * round_no + 10 * k
    return {"debate": n, "teams": {"affirmative": n + 1, "negative": n + 2}, "speakers": {"Affirmative Speaker 1": n + 3, "Negative Speaker 1": n + 4}, "motion": round_no}


pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


@pytest.fixture
def cup(tmp_path):
    """A server with tournament "spring": rounds r1 and r2, rooms a, b, c in each, every stage pushed by
    its room's chair."""
    backend = RecordingBackend()
    server = start_server(tmp_path / "state", AdjudicationContext.single(backend))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    m = online_match("x", 4)
    chairs: dict[str, str] = {}
    try:
        r = http.post("/api/tournaments", json={"tournament_id": "spring", "name": "Spring Open", "tabbycat_url": BASE}, headers=ORG)
        assert r.status_code == 201, r.text
        for n, rid in enumerate(("r1", "r2"), start=1):
            body = {"round_id": rid, "name": f"Round {n}", "format": "online-1v1", "motion": m.motion,
                    "affirmative_position": m.affirmative_position, "negative_position": m.negative_position, "tabbycat_round": n}
            assert http.post("/api/tournaments/spring/rounds", json=body, headers=ORG).status_code == 201
            for k, room in enumerate(ROOMS):
                body = {"room_id": room, "teams": {"affirmative": f"Aff {rid}{room}", "negative": f"Neg {rid}{room}"}, "chair": f"Chair {rid}{room}",
                        "debaters": [{"side": "affirmative", "position": 1, "name": "Ann"}, {"side": "negative", "position": 1, "name": "Ned"}],
                        "tabbycat": ids_of(n, k)}
                r = http.post(f"/api/tournaments/spring/rounds/{rid}/rooms", json=body, headers=ORG)
                assert r.status_code == 201, r.text
                assert r.json()["match_id"] == f"spring.{rid}.{room}" and r.json()["chair_url"].startswith(f"/board/spring.{rid}.{room}?token=")
                chairs[f"{rid}.{room}"] = r.json()["chair_token"]
        for key, tok in chairs.items():
            for i in range(4):
                r = http.post(f"/api/matches/spring.{key}/stages", json=stage_body(m, i), headers=bearer(tok))
                assert r.status_code == 200, r.text
        yield SimpleNamespace(http=http, chairs=chairs, backend=backend, server=server, state=tmp_path / "state")
    finally:
        http.close()
        server.stop()


def room_url(key: str) -> str:
    rid, room = key.split(".")
    return f"/api/tournaments/spring/rounds/{rid}/rooms/{room}"


def test_two_rounds_three_rooms_chairs_boards_drafts_overrides_release_and_exports(cup):
    http, chairs = cup.http, cup.chairs
    a1 = bearer(chairs["r1.a"])

    # -- a chair token acts on its own room only (403 anywhere else)
    other = "/api/matches/spring.r1.b"
    m = online_match("x", 4)
    assert http.post(f"{other}/stages", json=stage_body(m, 0), headers=a1).status_code == 403
    assert http.post(f"{other}/close", headers=a1).status_code == 403
    assert http.post("/api/matches/spring.r2.a/close", headers=a1).status_code == 403  # same room id, another round
    r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "d", "teams": {"affirmative": "X", "negative": "Y"}}, headers=a1)
    assert r.status_code == 403 and r.json()["detail"].startswith("creating a room needs the organiser's token")
    assert http.post("/api/tournaments", json={"tournament_id": "mine"}, headers=a1).status_code == 403
    assert http.post("/api/matches", json={"match_id": "solo"}, headers=a1).status_code == 403

    # -- board links carry no token: every write is refused (401), and a wrong token too
    for path in (f"{other}/stages", f"{other}/close", f"{room_url('r1.b')}/confirm", f"{room_url('r1.b')}/release", "/api/tournaments/spring/rounds/r1/release",
                 "/api/tournaments/spring/rounds/r1/rooms", "/api/tournaments", "/api/tournaments/spring/rounds", "/api/tournaments/spring/settings"):
        assert http.post(path, json={}).status_code == 401, path
        assert http.post(path, json={}, headers=bearer("not-a-token")).status_code == 401, path
    for path in (f"{room_url('r1.b')}/tabbycat", "/api/tournaments/spring/rounds/r1/tabbycat", "/api/tournaments/spring/rounds/r1/results.csv", "/api/tournaments/spring/log"):
        assert http.get(path).status_code == 401, path

    # -- each chair closes its room: the panel's result is a draft, hidden from every public view
    for key, tok in chairs.items():
        r = http.post(f"/api/matches/spring.{key}/close", headers=bearer(tok))
        assert r.status_code == 200 and r.json()["winner"] == "affirmative"
    board = http.get("/api/matches/spring.r1.a").json()
    assert board["status"] == "closed" and board["verdict"] is None
    assert board["decision"] == {"state": "awaiting", "shown": False, "board_shows": "released"}
    assert board["room"]["teams"] == {"affirmative": "Aff r1a", "negative": "Neg r1a"}
    for suffix in ("verdict", "report", "report.html"):
        r = http.get(f"/api/matches/spring.r1.a/{suffix}")
        assert r.status_code == 403 and "not released yet" in r.json()["detail"], suffix
    public_room = http.get(room_url("r1.a")).json()
    assert (public_room["verdict_state"], public_room["winner"]) == ("awaiting", None) and "decision" not in public_room
    assert [r["verdict_state"] for r in http.get("/api/tournaments/spring/rounds/r1").json()["rooms"]] == ["awaiting"] * 3
    # another room's chair sees it as the public does; its own chair and the organiser see the draft
    assert "decision" not in http.get(room_url("r1.a"), headers=bearer(chairs["r1.b"])).json()
    mine = http.get(room_url("r1.a"), headers=a1).json()
    assert mine["viewer"] == "chair" and mine["decision"]["state"] == "draft" and mine["decision"]["version"] == 1
    assert mine["decision"]["automated"]["winner"] == "affirmative" and mine["decision"]["automated"]["p"] == 0.7
    assert http.get("/api/matches/spring.r1.a/verdict", headers=a1).status_code == 200
    assert http.get("/api/matches/spring.r1.a/report.html", headers=ORG).status_code == 200

    # -- a draft cannot be released, alone or with its round
    r = http.post("/api/tournaments/spring/rounds/r1/release", headers=ORG)
    assert r.status_code == 409 and r.json()["detail"] == "round 'r1': not every room is confirmed: a (unconfirmed draft), b (unconfirmed draft), c (unconfirmed draft); confirm each room first (`adjudicate live confirm`), or release rooms one by one"
    assert http.post(f"{room_url('r1.a')}/release", headers=ORG).status_code == 409

    # -- a draft's Tabbycat export is marked automated and unconfirmed
    draft = http.get(f"{room_url('r1.b')}/tabbycat", headers=bearer(chairs["r1.b"])).json()
    assert problems(draft, BASE, ids_of(1, 1)) == []
    assert draft["body"]["confirmed"] is False and draft["submission"]["state"] == "draft" and draft["submission"]["submitter_type"] == "A"
    assert draft["notes"][0].startswith("Automated draft, not confirmed by a person")
    assert http.get(f"{room_url('r1.b')}/tabbycat", headers=a1).status_code == 403

    # -- overrides are checked (422 naming the field) before anything is stored
    r = http.post(f"{room_url('r1.a')}/confirm", json={"stage_scores": {"s9|negative": 8}}, headers=a1)
    assert r.status_code == 422 and r.json()["field"] == "stage_scores.s9|negative"
    r = http.post(f"{room_url('r1.a')}/confirm", json={"best_debater_votes": {"Negative Speaker 1": 5}}, headers=a1)
    assert r.status_code == 422 and r.json()["detail"].startswith("confirm: field best_debater_votes: the votes add up to 5, not 9")
    r = http.post(f"{room_url('r1.a')}/confirm", json={"winner": "nobody"}, headers=a1)
    assert r.status_code == 422 and r.json()["field"] == "winner"
    r = http.post(f"{room_url('r1.a')}/confirm", json={"stage_scores": {"s2|negative": 11}}, headers=a1)
    assert r.status_code == 422 and "outside 1-10" in r.json()["detail"]
    assert http.post(f"{room_url('r1.b')}/confirm", json={}, headers=a1).status_code == 403

    # -- the chair confirms with an override; the automated original stays beside it
    body = {"winner": "negative", "stage_scores": {"s2|negative": 8.5}, "best_debater_votes": {"Negative Speaker 1": 6, "Affirmative Speaker 1": 3},
            "note": "the panel missed the concession in s3", "expected_version": 1}
    r = http.post(f"{room_url('r1.a')}/confirm", json=body | {"by": "organiser"}, headers=a1)
    assert r.status_code == 422 and r.json()["field"] == "by"  # a chair token confirms as its chair, never as another name (issue 27, item 7)
    r = http.post(f"{room_url('r1.a')}/confirm", json=body | {"by": "Chair r1a"}, headers=a1)
    assert r.status_code == 200, r.text
    d = r.json()["decision"]
    assert (d["state"], d["version"]) == ("confirmed", 2)
    assert d["automated"] == {"winner": "affirmative", "stage_scores": {"s1|affirmative": 7.0, "s2|negative": 6.0, "s3|affirmative": 7.0, "s4|negative": 6.0},
                              "best_debater_votes": {"Affirmative Speaker 1": 9}, "p": 0.7, "winner_split": "3:0", "model": "recording", "is_llm": False}
    assert d["override"] == {"winner": "negative", "stage_scores": {"s2|negative": 8.5}, "best_debater_votes": {"Negative Speaker 1": 6, "Affirmative Speaker 1": 3},
                             "note": "the panel missed the concession in s3"}
    assert d["confirmed_by"] == {"role": "chair", "room": "spring.r1.a", "name": "Chair r1a"} and d["confirmed_at"]
    assert r.json()["effective"] == {"winner": "negative", "stage_scores": {"s1|affirmative": 7.0, "s2|negative": 8.5, "s3|affirmative": 7.0, "s4|negative": 6.0},
                                     "best_debater_votes": {"Negative Speaker 1": 6, "Affirmative Speaker 1": 3}}
    # a confirmation against a stale version is refused
    r = http.post(f"{room_url('r1.a')}/confirm", json={"expected_version": 1}, headers=a1)
    assert r.status_code == 409 and "version 2, not 1" in r.json()["detail"]
    # the others as they are: chairs b, the organiser for c
    assert http.post(f"{room_url('r1.b')}/confirm", headers=bearer(chairs["r1.b"])).json()["decision"]["confirmed_by"]["name"] == "Chair r1b"
    assert http.post(f"{room_url('r1.c')}/confirm", json={}, headers=ORG).json()["decision"]["confirmed_by"] == {"role": "organiser", "room": None, "name": "organiser"}
    # confirmed is still not public while the tournament shows released verdicts only
    assert http.get("/api/matches/spring.r1.a").json()["verdict"] is None
    assert http.get("/api/matches/spring.r1.a/verdict").status_code == 403

    # -- the organiser releases round 1; its boards show the counted result with the original beside it
    r = http.post("/api/tournaments/spring/rounds/r1/release", json={"by": "Tab director"}, headers=ORG)
    assert r.status_code == 200 and [x["verdict_state"] for x in r.json()["rooms"]] == ["released"] * 3
    board = http.get("/api/matches/spring.r1.a").json()
    v = board["verdict"]
    assert board["decision"] == {"state": "released", "shown": True, "board_shows": "released"}
    assert (v["winner"], v["winner_team"], v["state"], v["overridden"], v["confirmed_by"]) == ("negative", "Neg r1a", "released", True, "Chair r1a")
    assert v["automated"]["winner"] == "affirmative" and v["best_debater_votes"] == {"Negative Speaker 1": 6, "Affirmative Speaker 1": 3}
    assert [(s["stage_id"], s["mean"], s["counted"]) for s in v["stage_scores"]] == [("s1", 7.0, 7.0), ("s2", 6.0, 8.5), ("s3", 7.0, 7.0), ("s4", 6.0, 6.0)]
    html = http.get("/api/matches/spring.r1.a/report.html")
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert "Winner: negative" in html.text and "the panel missed the concession in s3" in html.text and "Automated result" in html.text
    assert http.get("/api/matches/spring.r1.a/verdict").status_code == 200
    # a released result is final; round 2 stays hidden
    r = http.post(f"{room_url('r1.a')}/confirm", json={"winner": "affirmative"}, headers=ORG)
    assert r.status_code == 409 and "a released result is final" in r.json()["detail"]
    assert all(x["verdict_state"] == "awaiting" for x in http.get("/api/tournaments/spring/rounds/r2").json()["rooms"])
    # releasing one room of round 2 on its own, after its confirmation
    assert http.post(f"{room_url('r2.c')}/confirm", headers=bearer(chairs["r2.c"])).status_code == 200
    assert http.post(f"{room_url('r2.c')}/release", headers=bearer(chairs["r2.c"])).status_code == 403
    assert http.post(f"{room_url('r2.c')}/release", headers=ORG).status_code == 200
    assert [x["verdict_state"] for x in http.get("/api/tournaments/spring/rounds/r2").json()["rooms"]] == ["awaiting", "awaiting", "released"]

    # -- every room's Tabbycat export validates against the shape Tabbycat accepts
    for n, rid in enumerate(("r1", "r2"), start=1):
        for k, room in enumerate(ROOMS):
            export = http.get(f"{room_url(f'{rid}.{room}')}/tabbycat", headers=ORG).json()
            assert problems(export, BASE, ids_of(n, k)) == [], f"{rid}.{room}"
            assert export["url"] == f"{BASE}/rounds/{n}/pairings/{ids_of(n, k)['debate']}/ballots"
    a = http.get(f"{room_url('r1.a')}/tabbycat", headers=a1).json()
    teams = a["body"]["result"]["sheets"][0]["teams"]
    # counted scores: the affirmative spoke in s1 and s3 (7, 7) -> 7.0; the negative in s2 and s4 (8.5 overridden, 6) -> 7.25
    assert [(t["side"], t["win"], t["score"], [s["score"] for s in t["speeches"]]) for t in teams] == [("aff", False, 7.0, [7.0]), ("neg", True, 7.25, [7.25])]
    assert a["body"]["confirmed"] is True and a["submission"] | {"confirmed_at": None, "released_at": None} == {
        "submitter_type": "A", "automated": True, "tournament_id": "spring", "round_id": "r1", "room_id": "a", "match_id": "spring.r1.a",
        "state": "released", "confirmed_by": "Chair r1a", "confirmed_at": None, "released_at": None, "overridden": True,
        "override_note": "the panel missed the concession in s3", "model": "recording", "is_llm": False, "p": 0.7, "winner_split": "3:0"}
    b = http.get(f"{room_url('r1.b')}/tabbycat", headers=ORG).json()
    # not overridden: 7 for the affirmative's speeches, 6 for the negative's; the affirmative wins
    assert [(t["side"], t["win"], t["score"]) for t in b["body"]["result"]["sheets"][0]["teams"]] == [("aff", True, 7.0), ("neg", False, 6.0)]
    both = http.get("/api/tournaments/spring/rounds/r2/tabbycat", headers=ORG).json()
    assert [x["submission"]["room_id"] for x in both["ballots"]] == ["a", "b", "c"] and both["skipped"] == []
    assert [x["body"]["confirmed"] for x in both["ballots"]] == [False, False, True]

    # -- the round's results CSV: one row per room and team
    rows = list(csv.DictReader(io.StringIO(http.get("/api/tournaments/spring/rounds/r1/results.csv", headers=ORG).text)))
    assert [(r["room_id"], r["side"], r["team"], r["rank"], r["won"], r["state"], r["overridden"]) for r in rows] == [
        ("a", "affirmative", "Aff r1a", "2", "0", "released", "1"), ("a", "negative", "Neg r1a", "1", "1", "released", "1"),
        ("b", "affirmative", "Aff r1b", "1", "1", "released", "0"), ("b", "negative", "Neg r1b", "2", "0", "released", "0"),
        ("c", "affirmative", "Aff r1c", "1", "1", "released", "0"), ("c", "negative", "Neg r1c", "2", "0", "released", "0")]
    assert (rows[1]["mean_stage_score"], rows[1]["speaker_scores"], rows[1]["automated_winner"], rows[1]["confirmed_by"]) == ("7.25", "Negative Speaker 1=7.25", "affirmative", "Chair r1a")

    # -- the lifecycle log: every change, in order, with who
    full = http.get("/api/tournaments/spring/log", params={"round": "r1", "room": "a"}, headers=ORG).json()["log"]
    assert {e["kind"] for e in full if e["actor"]["role"] == "chair"} >= {"stage_pushed", "match_closed"}  # pushes and the close too (tests/test_live_corrections.py)
    log = [e for e in full if e["kind"] not in ("stage_pushed", "match_closed")]
    assert [(e["kind"], e["actor"]["name"], e["from_state"], e["to_state"], e["version"]) for e in log] == [
        ("room_created", "organiser", None, None, None), ("chair_token_issued", "organiser", None, None, None),
        ("draft_recorded", "adjudicator", None, "draft", 1), ("confirmed", "Chair r1a", "draft", "confirmed", 2),
        ("released", "Tab director", "confirmed", "released", 3)]
    assert log[3]["detail"]["override"]["winner"] == "negative" and log[3]["detail"]["automated_winner"] == "affirmative"
    assert [e["seq"] for e in full] == sorted(e["seq"] for e in full)
    assert http.get("/api/tournaments/spring/log", headers=a1).status_code == 403


def test_board_shows_confirmed_or_draft_when_the_organiser_chooses(cup):
    http, chairs = cup.http, cup.chairs
    assert http.post("/api/matches/spring.r1.a/close", headers=bearer(chairs["r1.a"])).status_code == 200
    assert http.get("/api/matches/spring.r1.a").json()["verdict"] is None
    # drafts on the boards, labelled as drafts
    r = http.post("/api/tournaments/spring/settings", json={"board_shows": "draft"}, headers=ORG)
    assert r.status_code == 200 and r.json()["tournament"]["board_shows"] == "draft"
    board = http.get("/api/matches/spring.r1.a").json()
    assert board["decision"]["state"] == "draft" and board["verdict"]["state"] == "draft" and board["verdict"]["winner"] == "affirmative"
    # confirmed only: the draft goes, a confirmation brings it back
    http.post("/api/tournaments/spring/settings", json={"board_shows": "confirmed"}, headers=ORG)
    assert http.get("/api/matches/spring.r1.a").json()["verdict"] is None
    http.post(f"{room_url('r1.a')}/confirm", headers=ORG)
    assert http.get("/api/matches/spring.r1.a").json()["verdict"]["state"] == "confirmed"
    kinds = [e["kind"] for e in http.get("/api/tournaments/spring/log", headers=ORG).json()["log"]]
    assert kinds.count("settings_changed") == 2
    r = http.post("/api/tournaments/spring/settings", json={"board_shows": "everything"}, headers=ORG)
    assert r.status_code == 422 and r.json()["field"] == "board_shows"


def test_chair_token_rotation_and_bad_bodies(cup):
    http, chairs = cup.http, cup.chairs
    old = bearer(chairs["r1.a"])
    r = http.post(f"{room_url('r1.a')}/chair-token", headers=ORG)
    assert r.status_code == 200
    new = bearer(r.json()["chair_token"])
    assert http.post("/api/matches/spring.r1.a/close", headers=old).status_code == 401
    assert http.post("/api/matches/spring.r1.a/close", headers=new).status_code == 200
    # ids, duplicates and unknowns
    r = http.post("/api/tournaments", json={"tournament_id": "spring"}, headers=ORG)
    assert r.status_code == 409 and r.json()["detail"] == "tournament 'spring' already exists; choose another tournament id"
    r = http.post("/api/tournaments", json={"tournament_id": "has.dot"}, headers=ORG)
    assert r.status_code == 422 and r.json()["field"] == "tournament_id"
    r = http.post("/api/tournaments", json={"tournament_id": "t2", "tabbycat_url": "https://tab.example.org/spring"}, headers=ORG)
    assert r.status_code == 422 and "not a Tabbycat API base" in r.json()["detail"]
    r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "X", "negative": "Y"}}, headers=ORG)
    assert r.status_code == 409
    r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "d", "teams": {"affirmative": "X"}}, headers=ORG)
    assert r.status_code == 422 and r.json()["detail"] == "room: field teams.negative: name the negative team"
    r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "d", "teams": {"affirmative": "X", "negative": "Y"}, "debaters": [{"side": "affirmative", "position": 3}]}, headers=ORG)
    assert r.status_code == 422 and r.json()["detail"] == "room: field debaters.0: Affirmative Speaker 3 is not a position of online-1v1; use positions 1-1"
    assert http.get("/api/tournaments/nope/rounds/r1").status_code == 404
    assert http.get(room_url("r1.zz")).status_code == 404
    # a room whose match is still open has nothing to confirm or export
    r = http.post(f"{room_url('r1.b')}/confirm", headers=ORG)
    assert r.status_code == 409 and "not closed yet" in r.json()["detail"]
    skipped = http.get("/api/tournaments/spring/rounds/r1/tabbycat", headers=ORG).json()["skipped"]
    assert [s["room_id"] for s in skipped] == ["b", "c"]


def test_a_body_that_is_no_object_points_at_the_page_that_has_the_bodies():
    from pydantic import BaseModel

    from adjudicator.live.errors import Unprocessable
    from adjudicator.live.tournament.model import parse_body

    with pytest.raises(Unprocessable) as err:
        parse_body(BaseModel, [1], "room")
    assert err.value.one_line() == "room: the body must be a JSON object; see docs/tournaments.md"  # before: README, which has no such section


def test_a_room_without_tabbycat_ids_says_which_id_is_missing(cup):
    http = cup.http
    r = http.post("/api/tournaments/spring/rounds/r1/rooms", json={"room_id": "plain", "teams": {"affirmative": "X", "negative": "Y"}}, headers=ORG)
    tok = bearer(r.json()["chair_token"])
    m = online_match("x", 2)
    for i in range(2):
        http.post("/api/matches/spring.r1.plain/stages", json=stage_body(m, i), headers=tok)
    http.post("/api/matches/spring.r1.plain/close", headers=tok)
    r = http.get(f"{room_url('r1.plain')}/tabbycat", headers=tok)
    assert r.status_code == 409 and r.json()["detail"].startswith("room 'plain': no Tabbycat ids (tabbycat)")
    assert "(see docs/tabbycat.md, 'Setting it up')" in r.json()["detail"]  # before: README's 'Running a tournament', which README has no more
    # the CSV does not need them
    rows = list(csv.DictReader(io.StringIO(http.get("/api/tournaments/spring/rounds/r1/results.csv", headers=ORG).text)))
    assert [(r["room_id"], r["state"]) for r in rows if r["room_id"] == "plain"] == [("plain", "draft"), ("plain", "draft")]


def test_stand_alone_matches_keep_their_public_verdict(cup):
    http = cup.http
    m = online_match("solo", 2)
    from live_fakes import header_body

    assert http.post("/api/matches", json=header_body(m), headers=ORG).status_code == 201
    for i in range(2):
        http.post("/api/matches/solo/stages", json=stage_body(m, i), headers=ORG)
    http.post("/api/matches/solo/close", headers=ORG)
    board = http.get("/api/matches/solo").json()
    assert board["verdict"]["winner"] == "affirmative" and "room" not in board and "decision" not in board
    assert http.get("/api/matches/solo/verdict").status_code == 200
    html = http.get("/api/matches/solo/report.html").text
    assert html.startswith("<!DOCTYPE html>") and "<h1>Verdict report: solo</h1>" in html
