"""Identity from tokens, not text (issue 27, item 7, the part built so far), on SQLite and PostgreSQL: a
chair token confirms as its room's chair whatever ``by`` says, and before release the organiser's
confirmation stands over a chair's.

Before: a chair's ``by: "organiser"`` was recorded, and shown on the board, the CSV and the Tabbycat
export as "organiser"; a chair silently reversed the organiser's override before release.
"""

from __future__ import annotations

import csv
import io

import httpx
import pytest
from graph_fakes import RecordingBackend
from live_fakes import TOKEN, online_match, stage_body, start_server

from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
ROUND = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}
ROOM = "/api/tournaments/cup/rounds/r1/rooms/a"

pytestmark = pytest.mark.usefixtures("live_store")  # every test once on SQLite, once on PostgreSQL


@pytest.fixture
def closed(tmp_path):
    """cup/r1/a (chair Ms Lee) debated and closed: (http, chair headers)."""
    server = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()))
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    try:
        assert http.post("/api/tournaments", json={"tournament_id": "cup"}, headers=ORG).status_code == 201
        assert http.post("/api/tournaments/cup/rounds", json=ROUND, headers=ORG).status_code == 201
        r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": "a", "teams": {"affirmative": "Aff", "negative": "Neg"}, "chair": "Ms Lee"}, headers=ORG)
        chair = {"Authorization": f"Bearer {r.json()['chair_token']}"}
        for i in range(4):
            assert http.post("/api/matches/cup.r1.a/stages", json=stage_body(M, i), headers=chair).status_code == 200
        assert http.post("/api/matches/cup.r1.a/close", headers=chair).status_code == 200
        yield http, chair
    finally:
        http.close()
        server.stop()


def test_a_chair_confirms_as_its_chair_never_as_another_name(closed):
    http, chair = closed
    r = http.post(f"{ROOM}/confirm", json={"by": "organiser"}, headers=chair)
    assert r.status_code == 422 and r.json()["field"] == "by" and "confirms as its room's chair ('Ms Lee'), not as 'organiser'" in r.json()["detail"]
    assert http.get(ROOM, headers=ORG).json()["decision"]["state"] == "draft"  # nothing stored
    r = http.post(f"{ROOM}/confirm", json={"by": "Ms Lee"}, headers=chair)
    assert r.status_code == 200 and r.json()["decision"]["confirmed_by"] == {"role": "chair", "room": "cup.r1.a", "name": "Ms Lee"}
    rows = list(csv.DictReader(io.StringIO(http.get("/api/tournaments/cup/rounds/r1/results.csv", headers=ORG).text)))
    assert {r["confirmed_by"] for r in rows} == {"Ms Lee"}


def test_before_release_the_organisers_confirmation_stands_over_a_chairs(closed):
    http, chair = closed
    assert http.post(f"{ROOM}/confirm", json={}, headers=chair).status_code == 200
    r = http.post(f"{ROOM}/confirm", json={"winner": "negative", "note": "recount", "by": "Tab director Kim"}, headers=ORG)  # over the chair's: allowed
    assert r.status_code == 200 and r.json()["decision"]["confirmed_by"] == {"role": "organiser", "room": None, "name": "Tab director Kim"}
    r = http.post(f"{ROOM}/confirm", json={"winner": "affirmative"}, headers=chair)
    assert r.status_code == 403 and "the organiser (Tab director Kim) confirmed this result" in r.json()["detail"]  # before: 200, the override reversed
    view = http.get(ROOM, headers=ORG).json()
    assert (view["winner"], view["decision"]["version"]) == ("negative", 3)
    assert http.post(f"{ROOM}/confirm", json={}, headers=ORG).status_code == 200  # the organiser may change its own


def test_tabbycats_rule_the_person_who_enters_a_ballot_does_not_confirm_it(closed):
    http, chair = closed
    assert http.post("/api/tournaments/cup/settings", json={"second_person_confirms": True}, headers=ORG).status_code == 200
    r = http.post(f"{ROOM}/confirm", json={"winner": "negative", "note": "recount"}, headers=chair)  # the chair enters an override
    assert r.status_code == 200 and r.json()["decision"]["state"] == "draft" and r.json()["decision"]["entered_by"]["name"] == "Ms Lee"
    r = http.post(f"{ROOM}/confirm", json={}, headers=chair)
    assert r.status_code == 403 and "Ms Lee entered this ballot" in r.json()["detail"]  # before: the chair overrode and confirmed alone
    assert http.post(f"{ROOM}/release", json={}, headers=ORG).status_code == 409  # still a draft
    r = http.post(f"{ROOM}/confirm", json={"by": "Tab director Kim"}, headers=ORG)  # another person confirms it as entered
    d = r.json()["decision"]
    assert r.status_code == 200 and (d["state"], d["override"]["winner"], d["confirmed_by"]["name"], r.json()["winner"]) == ("confirmed", "negative", "Tab director Kim", "negative")
    kinds = [(e["kind"], e["actor"]["name"]) for e in http.get("/api/tournaments/cup/log", params={"room": "a"}, headers=ORG).json()["log"] if e["kind"] in ("ballot_entered", "confirmed")]
    assert kinds == [("ballot_entered", "Ms Lee"), ("confirmed", "Tab director Kim")]


def test_without_the_rule_one_person_overrides_and_confirms(closed):
    http, chair = closed
    r = http.post(f"{ROOM}/confirm", json={"winner": "negative"}, headers=chair)
    assert r.status_code == 200 and r.json()["decision"]["state"] == "confirmed" and r.json()["decision"]["entered_by"] is None
