"""Issue 41 item 5: rounding keeps the counted winner ahead by one step when its raw total is ahead, and
says which score it moved (in the push outcome and the push command's line).

Hand-worked (calibrated map on Tabbycat's default 68-82, step 1, raw mean 6.66, sd 0.33): gain =
(2.69 / 50) * 14 / 0.33 = 2.28242; raw 7.83 -> 75 + 1.17 * 2.28242 = 77.670 -> 78; raw 8.00 -> 75 + 1.34 *
2.28242 = 78.058 -> 78: a 78-78 tie although the negative (8.00) won on the raw scores. The negative's
speech gains one step: 78 -> 79.
"""

from fake_tabbycat import BASE, TOKEN, FakeTabbycat

from adjudicator.cli.tabbycat import outcome_line
from adjudicator.live.tabbycat.ballot import winner_kept_ahead
from adjudicator.live.tabbycat.client import TabbycatClient
from adjudicator.live.tabbycat.push import push_room
from adjudicator.live.tabbycat.reading import read_round
from adjudicator.live.tabbycat.source import RoomSource
from adjudicator.live.tournament.speaker_scores import SpeakerScale

SCALE = SpeakerScale(low=68, high=82, step=1, mapping="calibrated")


def one_v_one(aff: float, neg: float, winner: str) -> RoomSource:
    return RoomSource(tournament_id="cup", round_id="r1", room_id="A", match_id="cup.r1.A", format="online-1v1", tabbycat_round=1,
                      teams={"affirmative": "Fudan", "negative": "Wuhan"},
                      debaters={"Affirmative Speaker 1": "An", "Negative Speaker 1": "Fang"}, state="confirmed", decision_version=1,
                      winner=winner, raw_scores={"Affirmative Speaker 1": aff, "Negative Speaker 1": neg})


def test_7_83_vs_8_00_on_68_82_step_1_is_no_longer_a_tie_and_the_move_is_named():
    src = one_v_one(7.83, 8.00, "negative")
    assert SCALE.team([7.83]) == SCALE.team([8.00]) == [78.0]  # the old mapping: a tie
    points, moves = winner_kept_ahead(src, SCALE)
    assert points == {"affirmative": [78.0], "negative": [79.0]}
    assert moves == ["negative #1: 78 -> 79 (raw 8.00)"]


def test_a_winner_at_the_top_of_the_scale_keeps_ahead_by_the_loser_moving_down():
    # raw 9.9 and 10.0 both clip to 82: the winner cannot go up, so the loser's speech goes down a step
    points, moves = winner_kept_ahead(one_v_one(9.9, 10.0, "negative"), SCALE)
    assert points == {"affirmative": [81.0], "negative": [82.0]} and moves == ["affirmative #1: 82 -> 81 (raw 9.90)"]


def test_no_move_when_rounding_keeps_the_order_or_the_raw_totals_are_level():
    assert winner_kept_ahead(one_v_one(6.0, 9.0, "negative"), SCALE)[1] == []
    assert winner_kept_ahead(one_v_one(8.0, 8.0, "negative"), SCALE)[1] == []


def test_the_push_posts_79_to_78_and_its_line_names_the_moved_score():
    tb = FakeTabbycat({"substantive_speakers": 1, "reply_scores_enabled": False}, rooms=1, speakers=1,
                      team_names=[("Fudan", "Wuhan")], speaker_names={"Fudan": ["An"], "Wuhan": ["Fang"]})
    with TabbycatClient(BASE, TOKEN, transport=tb.transport) as c:
        o = push_room(c, read_round(c, 1), one_v_one(7.83, 8.00, "negative"), {})
    assert o.status == "posted" and o.moved == ["negative #1: 78 -> 79 (raw 8.00)"]
    stored = tb.result(10)
    assert stored is not None and stored["neg"]["win"] and [s for _, s in stored["aff"]["speeches"].values()] == [78.0] \
        and [s for _, s in stored["neg"]["speeches"].values()] == [79.0]
    line = outcome_line(o.model_dump(mode="json", exclude_none=True))
    assert line.endswith("(rounding kept the winner ahead: negative #1: 78 -> 79 (raw 8.00))")


def test_the_ballot_file_export_keeps_the_winner_ahead_too(tmp_path):
    import httpx
    from graph_fakes import RecordingBackend
    from live_fakes import TOKEN as LIVE_TOKEN
    from live_fakes import online_match, stage_body, start_server

    from adjudicator.workflow.context import AdjudicationContext

    org = {"Authorization": f"Bearer {LIVE_TOKEN}"}
    srv = start_server(tmp_path / "state", AdjudicationContext.single(RecordingBackend()))
    http = httpx.Client(base_url=srv.url, timeout=30, trust_env=False)
    m = online_match("x", 4)
    try:
        assert http.post("/api/tournaments", json={"tournament_id": "cup", "tabbycat_url": BASE, "speaker_scale": {"low": 68, "high": 82, "step": 1}}, headers=org).status_code == 201
        body = {"round_id": "r1", "format": "online-1v1", "motion": m.motion, "affirmative_position": m.affirmative_position, "negative_position": m.negative_position, "tabbycat_round": 1}
        assert http.post("/api/tournaments/cup/rounds", json=body, headers=org).status_code == 201
        ids = {"debate": 10, "teams": {"affirmative": 100, "negative": 101}, "speakers": {"Affirmative Speaker 1": 200, "Negative Speaker 1": 201}, "motion": 1}
        room = {"room_id": "A", "teams": {"affirmative": "Fudan", "negative": "Wuhan"}, "tabbycat": ids,
                "debaters": [{"side": "affirmative", "position": 1, "name": "An"}, {"side": "negative", "position": 1, "name": "Fang"}]}
        assert http.post("/api/tournaments/cup/rounds/r1/rooms", json=room, headers=org).status_code == 201
        for i in range(4):
            assert http.post("/api/matches/cup.r1.A/stages", json=stage_body(m, i), headers=org).status_code == 200
        assert http.post("/api/matches/cup.r1.A/close", headers=org).status_code == 200
        units = http.get("/api/tournaments/cup/rounds/r1/rooms/A", headers=org).json()["decision"]["automated"]["stage_scores"]
        over = {u: (7.83 if u.endswith("affirmative") else 8.0) for u in units}
        assert http.post("/api/tournaments/cup/rounds/r1/rooms/A/confirm", json={"winner": "negative", "stage_scores": over}, headers=org).status_code == 200
        teams = http.get("/api/tournaments/cup/rounds/r1/rooms/A/tabbycat", headers=org).json()["body"]["result"]["sheets"][0]["teams"]
        assert [(t["side"], t["score"], t["win"]) for t in teams] == [("aff", 78.0, False), ("neg", 79.0, True)]
    finally:
        http.close()
        srv.stop()
