"""The organiser's views of a live round (issue 28, item 5): ``live round show`` as a short table (and
``--json``), the server naming the viewer, next-slot guesses in the speaking order, ``live close`` of a
match with a speech missing, client errors that say which URL was tried and where the access file was
looked for, ``live serve``'s default port, and a replay into a room of another motion."""

from __future__ import annotations

import json

import httpx
import pytest
from graph_fakes import RecordingBackend, tiny_match
from live_fakes import TOKEN, stage_body, start_server, token_file

from adjudicator.cli import main
from adjudicator.input.match_file import load_match
from adjudicator.workflow.context import AdjudicationContext

ORG = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def live(tmp_path):
    srv = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()), store=None)
    http = httpx.Client(base_url=srv.url, timeout=60, trust_env=False)
    try:
        yield srv, http
    finally:
        http.close()
        srv.stop()


def cli(capsys, *args):
    code = main(["live", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _tournament(http, m, rooms=("a", "b")) -> dict[str, str]:
    assert http.post("/api/tournaments", json={"tournament_id": "cup", "name": "Spring Cup"}, headers=ORG).status_code == 201
    body = {"round_id": "r1", "name": "Round 1", "format": "online-1v1", "motion": m.motion, "affirmative_position": m.affirmative_position, "negative_position": m.negative_position}
    assert http.post("/api/tournaments/cup/rounds", json=body, headers=ORG).status_code == 201
    chairs = {}
    for room in rooms:
        r = http.post("/api/tournaments/cup/rounds/r1/rooms", json={"room_id": room, "teams": {"affirmative": f"Owls {room}", "negative": f"Larks {room}"}, "chair": "Ms Lee"}, headers=ORG)
        chairs[room] = r.json()["chair_token"]
    return chairs


def test_round_show_is_a_short_table_and_json_on_request(live, capsys):
    srv, http = live
    m = tiny_match(4)
    _tournament(http, m)
    for i in range(4):
        http.post("/api/matches/cup.r1.a/stages", json=stage_body(m, i), headers=ORG)
    http.post("/api/matches/cup.r1.a/close", headers=ORG)
    http.post("/api/tournaments/cup/rounds/r1/rooms/a/confirm", json={"by": "Ms Lee"}, headers=ORG)
    http.post("/api/matches/cup.r1.b/stages", json=stage_body(m, 0), headers=ORG)
    code, out, _ = cli(capsys, "round", "show", "cup", "r1", "--url", srv.url, "--token-file", token_file())
    lines = out.splitlines()
    assert code == 0 and len(lines) == 4 and lines[0] == "Spring Cup / Round 1: 2 room(s)"
    assert lines[1].split() == ["room", "stage", "state", "winner", "split", "confirmed", "by", "released", "tabbycat"]  # split, tabbycat: issue 41 item 8
    a, b = lines[2].split(), lines[3].split()
    assert a[:5] == ["a", "4", "confirmed", "affirmative", "(Owls"] and "Ms" in a and b == ["b", "1", "open"]
    code, out, _ = cli(capsys, "round", "show", "cup", "r1", "--url", srv.url, "--token-file", token_file(), "--json")
    view = json.loads(out)
    assert code == 0 and view["viewer"] == "organiser" and [r["room_id"] for r in view["rooms"]] == ["a", "b"] and view["rooms"][0]["decision"]["state"] == "confirmed"
    assert http.get("/api/tournaments/cup/rounds/r1").json()["viewer"] == "public"


def test_the_next_slot_starts_with_the_side_that_speaks_first(live, capsys, bundled_matches_dir):
    srv, http = live
    f = bundled_matches_dir / "panelbench" / "debateart_4389.json"  # the negative opens this debate
    assert load_match(f).stages[0].sides == ["negative"]
    code, out, _ = cli(capsys, "create", str(f), "--url", srv.url, "--token-file", token_file())
    slot = json.loads(out)["next_slot"]
    assert code == 0 and slot["stage"]["sides"] == ["negative"] and slot["stage"]["name"] == "Negative speech 1"


def test_closing_with_a_speech_missing_warns_and_needs_force(live, capsys):
    srv, http = live
    m = tiny_match(4).model_copy(update={"match_id": "m1"})
    assert http.post("/api/matches", json=m.view().model_dump(mode="json", exclude={"stages"}), headers=ORG).status_code == 201
    for i in range(3):
        http.post("/api/matches/m1/stages", json=stage_body(m, i), headers=ORG)
    code, _, err = cli(capsys, "close", "m1", "--url", srv.url, "--token-file", token_file())
    assert code == 2 and "the negative has given 1 speech and the affirmative 2: the negative's answer to the affirmative's last speech seems missing" in err
    assert "--force" in err and http.get("/api/matches/m1").json()["status"] == "open"
    code, out, _ = cli(capsys, "close", "m1", "--force", "--url", srv.url, "--token-file", token_file())
    assert code == 0 and json.loads(out)["winner"] in ("affirmative", "negative")


def test_a_client_without_a_server_says_which_url_it_tried_and_where_it_looked(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ADJUDICATOR_LIVE_URL", raising=False)
    code, _, err = cli(capsys, "status", "x", "--state-dir", str(tmp_path / "nowhere"))
    assert code == 2 and "cannot reach the live server at http://127.0.0.1:8421" in err
    assert f"no access file at {(tmp_path / 'nowhere' / 'access.json').resolve()}" in err


def test_a_server_that_is_not_ours_is_named_as_such(tmp_path, capsys):
    from adjudicator.live.client.connection import LiveClient
    from adjudicator.live.errors import NotFound

    transport = httpx.MockTransport(lambda request: httpx.Response(404, json={"detail": "Not Found"}))
    c = LiveClient("http://127.0.0.1:8765", TOKEN, origin="from the access file /x/access.json")
    c.http = httpx.Client(base_url=c.url, transport=transport)
    with pytest.raises(NotFound) as err:
        c.snapshot("m1")
    assert str(err.value) == ("GET /api/matches/m1: HTTP 404 Not Found from http://127.0.0.1:8765: is it an adjudicator live server? "
                              "(the URL is from the access file /x/access.json)")


def test_live_serve_listens_on_a_port_no_common_model_server_uses():
    from adjudicator.cli.live import serve_cmd
    from adjudicator.live.server.serving import DEFAULT_PORT

    assert DEFAULT_PORT == 8421 and DEFAULT_PORT not in (8765, 8000, 8080, 11434, 1234)
    assert next(p.default for p in serve_cmd.params if p.name == "port") == DEFAULT_PORT  # the command spells it out (startup: no server import)


def test_replaying_another_motion_into_a_room_names_the_room_not_a_new_match_id(live, capsys, tmp_path):
    srv, http = live
    _tournament(http, tiny_match(4), rooms=("a",))
    other = tiny_match(4).model_dump(mode="json") | {"motion": "Cities should ban cars"}
    f = tmp_path / "other.json"
    f.write_text(json.dumps(other), encoding="utf-8")
    code, _, err = cli(capsys, "replay", str(f), "--match-id", "cup.r1.a", "--speed", "0", "--url", srv.url, "--token-file", token_file())
    assert code == 2 and "match 'cup.r1.a' is room 'a' of round 'r1', which debates online-1v1 'Schools should require uniforms'" in err
    assert "--match-id" not in err and "round create --from-match" in err
