"""Identity from tokens (issue 27, item 7, the rest), on SQLite and PostgreSQL: per-person tokens
(tab room, chair, panellist, board) issued once and stored as a digest, listed and revoked; ``by`` is
the token's person; Tabbycat's rule compares token persons; a panellist reads its room and writes
nothing; a tournament may keep its boards private.

Before: no person tokens (``POST /api/tokens`` was 404), the shared organiser token's ``by`` told two
tab-room people apart by name only (one person entered a ballot as "A" and confirmed it as "B"), and
every board was public. One server per store serves the whole module (each test its own tournament);
the backend is the scripted RecordingBackend (every judge votes affirmative).
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
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}
M = online_match("x", 4)
_ids = itertools.count(1)


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def desk(request, tmp_path_factory):
    """One live server per store for the module: (server, http)."""
    url = None if request.param == "sqlite" else new_database(request.getfixturevalue("pg_cluster_url"), f"t_people_{os.getpid()}")
    server = start_server(tmp_path_factory.mktemp("state"), AdjudicationContext.single(RecordingBackend()), store=url)
    http = httpx.Client(base_url=server.url, timeout=30, trust_env=False)
    try:
        yield server, http
    finally:
        http.close()
        server.stop()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def cup(http: httpx.Client, rooms: tuple[str, ...] = ("a",), **settings) -> tuple[str, dict[str, dict]]:
    """A new tournament (its id returned) with round r1 and ``rooms`` (chair Ms Lee) debated and
    closed; and each room's chair-token headers."""
    t = f"cup{next(_ids)}"
    assert http.post("/api/tournaments", json={"tournament_id": t, **settings}, headers=ORG).status_code == 201
    rnd = {"round_id": "r1", "format": "online-1v1", "motion": M.motion, "affirmative_position": M.affirmative_position, "negative_position": M.negative_position}
    assert http.post(f"/api/tournaments/{t}/rounds", json=rnd, headers=ORG).status_code == 201
    chairs = {}
    for room in rooms:
        r = http.post(f"/api/tournaments/{t}/rounds/r1/rooms", json={"room_id": room, "teams": {"affirmative": "Aff", "negative": "Neg"}, "chair": "Ms Lee"}, headers=ORG)
        chairs[room] = bearer(r.json()["chair_token"])
        for i in range(4):
            assert http.post(f"/api/matches/{t}.r1.{room}/stages", json=stage_body(M, i), headers=chairs[room]).status_code == 200
        assert http.post(f"/api/matches/{t}.r1.{room}/close", headers=chairs[room]).status_code == 200
    return t, chairs


def issue(http: httpx.Client, role: str, person: str, headers: dict = ORG, **scope) -> dict:
    r = http.post("/api/tokens", json={"role": role, "person": person, **scope}, headers=headers)
    assert r.status_code == 201, r.text  # before: 404, no such route
    return r.json()


def test_a_token_is_shown_once_kept_as_a_digest_listed_and_revoked(desk):
    server, http = desk
    t, _ = cup(http)
    kim = issue(http, "tabroom", "Kim")
    assert kim["token_id"].startswith("tk_") and len(kim["token"]) >= 40 and kim["url"] is None
    panel = issue(http, "panellist", "Dr Roe", tournament_id=t, round_id="r1", room_id="a")
    assert panel["url"] == f"/board/{t}.r1.a?token={panel['token']}"
    listed = http.get("/api/tokens", headers=bearer(kim["token"])).json()["tokens"]  # a tab-room person has the organiser's rights
    assert [x["token_id"] for x in listed][-2:] == [kim["token_id"], panel["token_id"]]
    assert all("token" not in x for x in listed) and kim["token"] not in json.dumps(listed) and panel["token"] not in json.dumps(listed)
    stored = json.dumps([x.model_dump(mode="json") for x in server.app.state.tabroom.store.tokens(None)])
    assert kim["token"] not in stored and panel["token"] not in stored  # the store keeps the record and the digest only
    assert [x["token_id"] for x in http.get("/api/tokens", params={"tournament": t}, headers=ORG).json()["tokens"]] == [panel["token_id"]]

    r = http.post(f"/api/tokens/{kim['token_id']}/revoke", headers=ORG)
    assert r.status_code == 200 and r.json()["revoked_at"] and r.json()["revoked_by"] == "organiser"
    assert http.get("/api/tokens", headers=bearer(kim["token"])).status_code == 401  # stops at once
    assert http.post("/api/tokens/tk_nosuch/revoke", headers=ORG).status_code == 404
    assert http.post("/api/tokens", json={"role": "tabroom", "person": "X"}, headers=bearer(panel["token"])).status_code == 403  # only organiser-level tokens issue
    r = http.post("/api/tokens", json={"role": "chair", "person": "X", "tournament_id": t}, headers=ORG)
    assert r.status_code == 422 and "needs round_id" in r.json()["detail"]
    assert http.post("/api/tokens", json={"role": "chair", "person": "X", "tournament_id": t, "round_id": "r1", "room_id": "zz"}, headers=ORG).status_code == 404
    kinds = [(e["kind"], e["detail"].get("person")) for e in http.get(f"/api/tournaments/{t}/log", headers=ORG).json()["log"] if e["kind"].startswith("token_")]
    assert kinds == [("token_issued", "Dr Roe")]  # a tournament's token changes are in its log; a tab-room token's record is in the list


def test_a_wrong_or_revoked_token_on_a_read_is_refused_not_read_as_public(desk, tmp_path, capsys):
    # before: a read with a token the server does not know answered as for the public (200), so
    # `live status --token-file` with a made-up or revoked token exited 0 and a person learned nothing
    server, http = desk
    t, _ = cup(http)
    mid = f"{t}.r1.a"
    assert http.get(f"/api/matches/{mid}").status_code == 200  # no token: the public view
    kim = issue(http, "tabroom", "Kim")
    assert http.get(f"/api/matches/{mid}", headers=bearer(kim["token"])).status_code == 200
    assert http.post(f"/api/tokens/{kim['token_id']}/revoke", headers=ORG).status_code == 200
    for given in (kim["token"], "made-up"):
        for path in (f"/api/matches/{mid}", f"/api/tournaments/{t}", "/api/matches"):
            r = http.get(path, headers=bearer(given))
            assert r.status_code == 401 and r.json()["detail"].startswith("the access token is wrong (or revoked)"), path
    assert main(["live", "status", mid, "--url", server.url, "--token-file", token_file("made-up")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("adjudicate: error: the access token is wrong (or revoked)") and err.count("\n") == 1


def test_by_is_the_tokens_person_on_the_result_the_csv_and_the_log(desk):
    _, http = desk
    t, _ = cup(http)
    kim = bearer(issue(http, "tabroom", "Kim")["token"])
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    r = http.post(f"{room}/confirm", json={"by": "organiser"}, headers=kim)
    assert r.status_code == 422 and r.json()["field"] == "by" and "a person's token acts as its person ('Kim'), not as 'organiser'" in r.json()["detail"]
    r = http.post(f"{room}/confirm", json={"winner": "negative", "note": "recount"}, headers=kim)
    by = r.json()["decision"]["confirmed_by"]
    assert r.status_code == 200 and (by["role"], by["name"], by["person_id"].startswith("tk_")) == ("organiser", "Kim", True)
    assert http.post(f"{room}/release", json={"by": "Lee"}, headers=kim).status_code == 422
    assert http.post(f"{room}/release", json={}, headers=kim).status_code == 200
    rows = list(csv.DictReader(io.StringIO(http.get(f"/api/tournaments/{t}/rounds/r1/results.csv", headers=ORG).text)))
    assert {r["confirmed_by"] for r in rows} == {"Kim"}
    assert http.get(f"/api/matches/{t}.r1.a").json()["verdict"]["confirmed_by"] == "Kim"
    log = [(e["kind"], e["actor"]["name"]) for e in http.get(f"/api/tournaments/{t}/log", headers=ORG).json()["log"] if e["kind"] in ("confirmed", "released")]
    assert log == [("confirmed", "Kim"), ("released", "Kim")]


def test_tabbycats_rule_compares_token_persons_not_names(desk):
    _, http = desk
    t, _ = cup(http, second_person_confirms=True)
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    kim1, kim2 = (bearer(issue(http, "tabroom", "Kim")["token"]) for _ in range(2))  # two people of one name
    assert http.post(f"{room}/confirm", json={"winner": "negative"}, headers=kim1).json()["decision"]["state"] == "draft"  # entered
    r = http.post(f"{room}/confirm", json={}, headers=kim1)
    assert r.status_code == 403 and "Kim entered this ballot" in r.json()["detail"]
    r = http.post(f"{room}/confirm", json={}, headers=kim2)  # the other Kim: another person, by token
    assert r.status_code == 200 and (r.json()["decision"]["state"], r.json()["winner"]) == ("confirmed", "negative")

    t, _ = cup(http, second_person_confirms=True)
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    assert http.post(f"{room}/confirm", json={"winner": "negative", "by": "Ann"}, headers=ORG).status_code == 200  # the shared token enters as "Ann"
    r = http.post(f"{room}/confirm", json={"by": "Bob"}, headers=ORG)  # before: 200, two names passed for two people
    assert r.status_code == 403 and "entered this ballot" in r.json()["detail"]


def test_a_panellist_reads_its_room_before_release_and_writes_nothing(desk):
    _, http = desk
    t, chairs = cup(http, rooms=("a", "b"))
    panel = bearer(issue(http, "panellist", "Dr Roe", tournament_id=t, round_id="r1", room_id="a")["token"])
    room = f"/api/tournaments/{t}/rounds/r1/rooms"
    own = http.get(f"{room}/a", headers=panel).json()
    assert (own["viewer"], own["viewer_name"], own["decision"]["state"], own["winner"]) == ("panellist", "Dr Roe", "draft", "affirmative")
    assert http.get(f"/api/matches/{t}.r1.a/verdict", headers=panel).status_code == 200
    other = http.get(f"{room}/b", headers=panel).json()
    assert other["viewer"] == "public" and "decision" not in other and other["winner"] is None
    assert http.get(f"/api/matches/{t}.r1.b/verdict", headers=panel).status_code == 403
    for path, body in ((f"{room}/a/confirm", {}), (f"/api/matches/{t}.r1.a/stages", stage_body(M, 0)), (f"/api/matches/{t}.r1.a/close", None),
                       (f"{room}/a/release", {}), (f"{room}/a/void", {"reason": "x"})):
        r = http.post(path, json=body, headers=panel)
        assert r.status_code == 403, (path, r.text)
    assert "panellist's token reads its room and writes nothing" in http.post(f"{room}/a/confirm", json={}, headers=panel).json()["detail"]
    assert http.get(f"{room}/a", headers=ORG).json()["decision"]["state"] == "draft"  # nothing changed


def test_a_chair_persons_token_is_that_chair_and_yields_to_the_organiser(desk):
    _, http = desk
    t, _ = cup(http)
    wu = bearer(issue(http, "chair", "Mr Wu", tournament_id=t, round_id="r1", room_id="a")["token"])
    room = f"/api/tournaments/{t}/rounds/r1/rooms/a"
    assert http.post(f"{room}/confirm", json={"by": "Ms Lee"}, headers=wu).status_code == 422
    assert http.post(f"{room}/confirm", json={}, headers=wu).json()["decision"]["confirmed_by"]["name"] == "Mr Wu"
    assert http.post(f"{room}/confirm", json={"winner": "negative"}, headers=ORG).status_code == 200
    r = http.post(f"{room}/confirm", json={"winner": "affirmative"}, headers=wu)
    assert r.status_code == 403 and "the organiser (organiser) confirmed this result" in r.json()["detail"]
    t2, _ = cup(http)
    assert http.post(f"/api/tournaments/{t2}/rounds/r1/rooms/a/confirm", json={}, headers=wu).status_code == 403  # another tournament's room


def test_a_private_board_needs_its_board_token_or_better(desk):
    _, http = desk
    t, chairs = cup(http)
    other, _ = cup(http)
    match, rnd = f"/api/matches/{t}.r1.a", f"/api/tournaments/{t}/rounds/r1"
    with httpx.Client(base_url=str(http.base_url), timeout=10, trust_env=False) as reader, reader.stream("GET", f"{match}/events") as stream:
        lines = stream.iter_lines()
        assert any(line.startswith("data:") for line in itertools.islice(lines, 6))  # public: the first board arrives
        assert http.post(f"/api/tournaments/{t}/settings", json={"board_private": True}, headers=ORG).status_code == 200
        assert [line for line in lines if line.startswith("data:")] == []  # the open stream ends, with nothing more (a timeout would raise)
    reads = (match, f"{match}/events", f"{match}/verdict", f"{match}/report", rnd, f"{rnd}/rooms/a", f"/api/tournaments/{t}")
    for path in reads:
        assert http.get(path).status_code == 401, path  # before: 200, every board public
    assert t not in [x["tournament_id"] for x in http.get("/api/tournaments").json()["tournaments"]]
    assert not [m for m in http.get("/api/matches", params={"limit": 500}).json()["matches"] if m["match_id"].startswith(f"{t}.")]
    board = bearer(issue(http, "board", "hall screen", tournament_id=t)["token"])
    assert http.get(match, headers=board).status_code == 200 and http.get(rnd, headers=board).json()["viewer"] == "board"
    with http.stream("GET", f"{match}/events", headers=board) as r:
        assert r.status_code == 200
    assert http.get(match, headers=chairs["a"]).status_code == 200 and http.get(rnd, headers=ORG).status_code == 200
    assert http.get(match, headers=bearer(issue(http, "board", "screen", tournament_id=other)["token"])).status_code == 403  # another tournament's
    assert http.post(f"{rnd}/rooms/a/confirm", json={}, headers=board).status_code == 403  # a board token writes nothing
    assert http.get(f"/api/matches/{other}.r1.a").status_code == 200  # a public tournament stays public


def test_the_token_commands(desk, tmp_path, capsys):
    server, http = desk
    t, _ = cup(http)
    common = ["--url", server.url, "--token-file", token_file()]
    assert main(["live", "token", "add", "--role", "panellist", "--person", "Dr Roe", "--tournament", t, "--round", "r1", "--room", "a", *common]) == 0
    out = capsys.readouterr()
    rec = json.loads(out.out)
    assert rec["url"] == f"{server.url}/board/{t}.r1.a?token={rec['token']}" and "shown only this once" in out.err
    assert main(["live", "token", "list", "--tournament", t, *common]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [x["person"] for x in listed] == ["Dr Roe"] and rec["token"] not in json.dumps(listed)
    assert main(["live", "token", "revoke", rec["token_id"], *common]) == 0
    assert capsys.readouterr().err.startswith(f"{rec['token_id']} (Dr Roe): revoked at ")
    assert main(["live", "token", "add", "--role", "board", "--person", "x", *common]) == 2  # a board token needs --tournament
    assert "needs tournament_id (--tournament)" in capsys.readouterr().err
    # the option the person typed is named beside the field (before: only round_id)
    assert main(["live", "token", "add", "--role", "chair", "--person", "x", "--tournament", t, *common]) == 2
    assert capsys.readouterr().err.strip() == "adjudicate: error: token: a chair token needs round_id (--round)"
    out_file = tmp_path / "kim.token"
    assert main(["live", "token", "add", "--role", "tabroom", "--person", "Kim", "--token-out", str(out_file), *common]) == 0
    printed = capsys.readouterr().out
    kim = out_file.read_text(encoding="utf-8").strip()
    assert oct(out_file.stat().st_mode & 0o777) == "0o600" and kim not in printed and json.loads(printed)["token_file"] == str(out_file)
    assert http.get("/api/tokens", headers=bearer(kim)).status_code == 200  # the file is the person's --token-file
