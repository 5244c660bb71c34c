"""What a round's views say of each room (issue 41, item 8): ``live round show`` (and ``--json``) with
the panel's split and where each room stands in Tabbycat (its last push: posted with the ballot id,
refused with the setting), from the push log; the public board of a result a person confirmed has
no "review before use" box (the private view keeps it); a void room's board says void.

Through the live server and the fake Tabbycat v2.9.3 of tests/test_tabbycat_push.py: the recording
panel votes 3:0 for the affirmative, so room A confirmed as it is posts, and room B, confirmed with the
negative winning on lower scores, is refused under Tabbycat's default winners_in_ballots setting.
"""

from __future__ import annotations

import json

from live_fakes import TOKEN, token_file
from test_tabbycat_push import _round, push, server  # noqa: F401 (server: the fixture)

from adjudicator.cli import main

ORG = {"Authorization": f"Bearer {TOKEN}"}
ROOM = "/api/tournaments/cup/rounds/r1/rooms"


def _confirm_and_push(http):
    _round(http, "cup")
    assert http.post(f"{ROOM}/A/confirm", json={"by": "Ms Lee"}, headers=ORG).status_code == 200
    assert http.post(f"{ROOM}/B/confirm", json={"winner": "negative"}, headers=ORG).status_code == 200
    return {o["room_id"]: o for o in push(http, "cup").json()["rooms"]}


def test_round_show_says_the_split_and_where_each_room_stands_in_tabbycat(server, capsys):
    # before: room, stage, state, winner, confirmed by, released; nothing of Tabbycat, no split
    pushed = _confirm_and_push(server.http)
    a = pushed["A"]
    assert (a["status"], pushed["B"]["status"], pushed["B"]["setting"]) == ("posted", "refused", "winners_in_ballots")
    code = main(["live", "round", "show", "cup", "r1", "--url", server.url, "--token-file", token_file()])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0 and lines[1].split() == ["room", "stage", "state", "winner", "split", "confirmed", "by", "released", "tabbycat"]
    assert lines[2].split()[3:6] == ["affirmative", "(Fudan)", "3:0"] and lines[2].endswith(f"posted ballot {a['ballot_id']} v{a['ballot_version']}")
    assert lines[3].split()[:5] == ["B", "14/14", "confirmed", "negative", "(Xiamen)"] and lines[3].endswith("refused (winners_in_ballots)")
    code = main(["live", "round", "show", "cup", "r1", "--url", server.url, "--token-file", token_file(), "--json"])
    rooms = {r["room_id"]: r for r in json.loads(capsys.readouterr().out)["rooms"]}
    ta, tb = rooms["A"]["tabbycat_push"], rooms["B"]["tabbycat_push"]
    assert (ta["status"], ta["ballot_id"], ta["debate"], tb["status"], tb["setting"]) == ("posted", a["ballot_id"], a["debate"], "refused", "winners_in_ballots")
    assert tb["reason"] == pushed["B"]["reason"] and ta["at"].endswith("+00:00")
    # the public reads no push status (nor the decision)
    public = server.http.get("/api/tournaments/cup/rounds/r1").json()["rooms"]
    assert all("tabbycat_push" not in r and "decision" not in r for r in public)
    # a second push: unchanged, with the same ballot
    push(server.http, "cup")
    view = server.http.get("/api/tournaments/cup/rounds/r1", headers=ORG).json()
    from adjudicator.live.tabbycat.status import status_line

    assert status_line(view["rooms"][0]["tabbycat_push"]) == f"unchanged ballot {a['ballot_id']} v{a['ballot_version']}"


def test_status_line_in_few_words():
    from adjudicator.live.tabbycat.status import status_line

    assert status_line(None) == "" and status_line({"status": "conflict", "debate": 12, "at": "x"}) == "conflict debate 12"
    assert status_line({"status": "kept", "debate": 3, "resolution": {"resolve": "theirs"}}) == "kept debate 3"
    assert status_line({"status": "failed", "ballot_id": 5, "ballot_version": 2}) == "failed ballot 5 v2"


def test_the_public_board_of_a_confirmed_room_has_no_review_box_and_a_void_room_says_void(server):
    http = server.http
    _round(http, "cup")
    assert http.get("/api/tournaments/cup/rounds/r1/rooms/A", headers=ORG).json()["verdict"]["review"]["escalate"] is True  # identical ballots
    assert http.post(f"{ROOM}/A/confirm", json={"by": "Ms Lee"}, headers=ORG).status_code == 200
    assert http.post(f"{ROOM}/A/release", json={}, headers=ORG).status_code == 200
    board = http.get("/api/matches/cup.r1.A").json()  # the public's
    # before: the automated "review before use" box on a result a person confirmed and released
    assert board["verdict"]["state"] == "released" and board["verdict"]["confirmed_by"] == "Ms Lee" and board["verdict"]["review"] is None
    assert http.get("/api/tournaments/cup/rounds/r1/rooms/A", headers=ORG).json()["verdict"]["review"]["escalate"] is True  # the tab room's view keeps it
    assert 'class="review' not in http.get("/api/matches/cup.r1.A/report.html").text
    assert http.post(f"{ROOM}/A/void", json={"reason": "wrong motion"}, headers=ORG).status_code == 200
    board = http.get("/api/matches/cup.r1.A").json()
    assert board["decision"]["state"] == "void" and board["verdict"] is None
    labels = http.get("/api/labels").json()
    assert labels["en"]["state.void"] == "void" and labels["zh"]["state.void"] == "已作废" and labels["en"]["verdict.void"].startswith("Void: ")
