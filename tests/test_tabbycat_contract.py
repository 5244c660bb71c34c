"""Contract tests of the Tabbycat push against Tabbycat v2.9.3's rules (``tests/fake_tabbycat.py`` encodes
them from ``tabbycat/api/serializers.py``, ``tabbycat/results/`` and ``tabbycat/options/preferences.py``
at tag v2.9.3; its GET answers are recorded from a real v2.9.3).

First the fake against what the real Tabbycat did (the table of issue 28), then the push: what it posts
under each setting, what it refuses and with which setting named, what Tabbycat then stores.
"""

from __future__ import annotations

import json

import pytest
from fake_tabbycat import ANSWERS, BASE, TOKEN, FakeTabbycat

from adjudicator.live.tabbycat.client import TabbycatClient
from adjudicator.live.tabbycat.push import push_room, push_round
from adjudicator.live.tabbycat.reading import read_round
from adjudicator.live.tabbycat.rules import TabbycatRules
from adjudicator.live.tabbycat.source import RoomSource

FORMAT_SET = {"substantive_speakers": 4, "reply_scores_enabled": False}  # what any ccdb-4v4 tournament sets; all else default
AFF_NAMES = ["Ann", "Bo", "Cy", "Di"]
NEG_NAMES = ["Eve", "Fay", "Gus", "Hal"]


def fake(prefs=None, **kw) -> FakeTabbycat:
    kw.setdefault("team_names", [("Fudan", "Wuhan"), ("Nanjing", "Xiamen")])
    kw.setdefault("speaker_names", {"Fudan": AFF_NAMES, "Wuhan": NEG_NAMES, "Nanjing": ["Kai", "Lu", "Mo", "Ning"], "Xiamen": ["Ou", "Pan", "Qi", "Ren"]})
    return FakeTabbycat(prefs, **kw)


def source(room="A", winner="affirmative", aff=(7.0, 7.0, 7.0, 7.0), neg=(6.5, 6.5, 6.5, 6.5), teams=("Fudan", "Wuhan"), names=(AFF_NAMES, NEG_NAMES), **kw) -> RoomSource:
    debaters = {f"Affirmative Speaker {i}": n for i, n in enumerate(names[0], 1)} | {f"Negative Speaker {i}": n for i, n in enumerate(names[1], 1)}
    raw = {f"Affirmative Speaker {i}": x for i, x in enumerate(aff, 1)} | {f"Negative Speaker {i}": x for i, x in enumerate(neg, 1)}
    return RoomSource(tournament_id="cup", round_id="r1", room_id=room, match_id=f"cup.r1.{room}", format="ccdb-4v4", tabbycat_round=1,
                      teams={"affirmative": teams[0], "negative": teams[1]}, debaters=debaters, state=kw.pop("state", "confirmed"),
                      decision_version=kw.pop("version", 2), winner=winner, raw_scores=raw, **kw)


def push(tb: FakeTabbycat, src: RoomSource, previous=None, **kw):
    """Push one room; ``previous``: the detail of its last push (or a list of them, oldest first)."""
    details = previous if isinstance(previous, list) else [previous] if previous else []
    with TabbycatClient(BASE, TOKEN, transport=tb.transport) as c:
        return push_room(c, read_round(c, 1), src, {d["url"]: d for d in details}, **kw)


def post(tb: FakeTabbycat, debate: int, body: dict):
    with TabbycatClient(BASE, TOKEN, transport=tb.transport) as c:
        return c.http.post(f"{BASE}/rounds/1/pairings/{debate}/ballots", json=body)


def consensus_body(tb: FakeTabbycat, debate: int, aff: list[float], neg: list[float], aff_wins: bool = True, adjudicator: int | None = None) -> dict:
    """The body the old file export gave: one sheet, no adjudicator, one speech per score."""
    d = tb.debates[debate]
    teams = [{"side": code, "team": f"{BASE}/teams/{tid}", "win": (code == "aff") == aff_wins, "score": sum(sc),
              "speeches": [{"speaker": f"{BASE}/speakers/{sid}", "score": x} for sid, x in zip(tb.speakers_of(tid), sc, strict=False)]}
             for code, tid, sc in (("aff", d.teams[0], aff), ("neg", d.teams[1], neg))]
    return {"result": {"sheets": [({"adjudicator": f"{BASE}/adjudicators/{adjudicator}"} if adjudicator else {}) | {"teams": teams}]}, "confirmed": True}


# ---------------------------------------------------------------------------------------------
# The fake against the real v2.9.3 (issue 28's table; tests/tabbycat/v2.9.3/answers.json)


def test_recorded_answers_are_tabbycats_and_the_fake_agrees_with_them():
    # recorded on a real v2.9.3: a full per-adjudicator ballot 201, a tie 400, a single sheet without its adjudicator 500,
    # a declared low-point winner under the default winner declaration stored with the winner turned round, the ballot list 500
    assert [ANSWERS[k]["status"] for k in ("ballot_201", "tied_400", "no_adjudicator_500", "low_point_201", "ballots_list")] == [201, 400, 500, 201, 500]
    assert ANSWERS["tied_400"]["answer"] == ["Tried to save an invalid result."]
    low = ANSWERS["low_point_201"]
    assert low["request"]["result"]["sheets"][0]["teams"][0]["win"] is True and low["answer"]["result"]["sheets"][0]["teams"][0]["win"] is False
    tb = fake(FORMAT_SET)
    for key, status in (("tied_400", 400), ("no_adjudicator_500", 500), ("low_point_201", 201), ("ballot_201", 201)):
        r = post(tb, 10, _renumber(tb, json.loads(json.dumps(ANSWERS[key]["request"]))))
        assert r.status_code == status, (key, r.text)
    assert tb.result(10)["aff"]["win"] is True  # the last, a well-formed ballot, counts


def _renumber(tb: FakeTabbycat, body: dict) -> dict:
    """The recorded request with this fake's team, speaker and adjudicator ids of debate 10."""
    d = tb.debates[10]
    sheets = body["result"]["sheets"]
    adjs = [d.chair, *d.panellists]
    for k, sheet in enumerate(sheets):
        if "adjudicator" in sheet:
            sheet["adjudicator"] = f"{BASE}/adjudicators/{adjs[k]}"
        for t, tid in zip(sheet["teams"], d.teams, strict=True):
            t["team"] = f"{BASE}/teams/{tid}"
            for s, sid in zip(t["speeches"], tb.speakers_of(tid), strict=True):
                s["speaker"] = f"{BASE}/speakers/{sid}"
    return body


def test_the_fake_reproduces_issue_28s_table():
    # Tabbycat's defaults (one ballot per voting adjudicator, panel of 2): the old export's consensus sheet is a 500
    tb = fake()
    assert post(tb, 10, consensus_body(tb, 10, [76, 76, 76, 76.5], [75, 75, 75, 75])).status_code == 500 and tb.ballots == []
    # defaults with a consensus ballot: debater 4's 76.5 lands in the reply position (3 substantive speakers + reply)
    tb = fake({"ballots_per_debate_prelim": "per-debate"})
    assert post(tb, 10, consensus_body(tb, 10, [76, 76, 76, 76.5], [75, 75, 75, 75])).status_code == 201
    assert tb.result(10)["aff"]["speeches"][4][1] == 76.5 and sorted(tb.result(10)["aff"]["speeches"]) == [1, 2, 3, 4]  # 4 = the reply
    # ... and a chair's low-point override comes back with the other winner
    assert post(tb, 11, consensus_body(tb, 11, [74, 74, 74, 74], [75, 75, 75, 75], aff_wins=True)).status_code == 201
    assert tb.result(11)["aff"]["win"] is False and tb.result(11)["neg"]["win"] is True
    # a tie leaves an empty confirmed ballot behind, which unconfirms the good one
    assert post(tb, 11, consensus_body(tb, 11, [75] * 4, [75] * 4)).status_code == 400 and tb.result(11) is None


# ---------------------------------------------------------------------------------------------
# Settings read from Tabbycat's preferences


def test_rules_read_from_the_recorded_preferences_and_their_defaults_are_v2_9_3s():
    # the recording tournament set 4 substantive speakers and no reply; every entry also carries Tabbycat's default
    assert TabbycatRules.from_preferences(ANSWERS["preferences"]) == TabbycatRules(substantive_speakers=4, reply_scores_enabled=False)
    assert TabbycatRules.from_preferences([p | {"value": p["default"]} for p in ANSWERS["preferences"]]) == TabbycatRules()
    assert TabbycatRules().model_dump() == {
        "teams_in_debate": 2, "ballots_per_debate_prelim": "per-adj", "ballots_per_debate_elim": "per-adj", "winners_in_ballots": "none",
        "speakers_in_ballots": "always", "substantive_speakers": 3, "reply_scores_enabled": True, "speaker_ranks": "none", "score_min": 68.0,
        "score_max": 82.0, "score_step": 1.0, "maximum_margin": 0.0, "has_criteria": False}


# ---------------------------------------------------------------------------------------------
# Pushing: Tabbycat's defaults


def posts(tb: FakeTabbycat) -> list[dict]:
    return [json.loads(r.content) for r in tb.requests if r.method == "POST"]


def test_on_tabbycats_pure_defaults_the_push_refuses_naming_both_format_settings():
    tb = fake()
    out = push(tb, source())
    assert out.status == "refused" and out.setting == "substantive_speakers,reply_scores_enabled"
    assert "Tabbycat setting 'Substantive speakers' (debate_rules__substantive_speakers) is 3; ccdb-4v4 has 4 speaker(s) a team" in out.reason
    assert "Tabbycat setting 'Reply scores' (debate_rules__reply_scores_enabled) is on" in out.reason
    assert posts(tb) == [] and tb.ballots == []


def test_defaults_post_one_sheet_per_voting_adjudicator_and_tabbycat_stores_the_room():
    tb = fake(FORMAT_SET)  # one ballot per voting adjudicator, panels of 2, high point wins, 68-82 in whole points
    outs = {o.room_id: o for o in _push_round(tb, [source("A"), source("B", winner="negative", aff=(6.5,) * 4, neg=(7.0,) * 4, teams=("Nanjing", "Xiamen"),
                                                                  names=(["Kai", "Lu", "Mo", "Ning"], ["Ou", "Pan", "Qi", "Ren"]))])}
    assert {k: o.status for k, o in outs.items()} == {"A": "posted", "B": "posted"}
    body = posts(tb)[0]
    d = tb.debates[10]
    assert [s["adjudicator"] for s in body["result"]["sheets"]] == [f"{BASE}/adjudicators/{d.chair}", f"{BASE}/adjudicators/{d.panellists[0]}"]
    # calibrated on 68-82: gain = (2.69 / 50) * 14 / 0.33 = 2.2824; raw 7.0 -> 75 + 0.34 * 2.2824 = 75.776 each, the team's
    # total 303.104 -> 303, so three speeches take 76 and the last 75 (largest remainders, earlier speaker first);
    # raw 6.5 -> 74.635, total 298.54 -> 299: 75, 75, 75, 74
    aff, neg = body["result"]["sheets"][0]["teams"]
    assert ([s["score"] for s in aff["speeches"]], aff["score"], aff["win"]) == ([76.0, 76.0, 76.0, 75.0], 303.0, True)
    assert ([s["score"] for s in neg["speeches"]], neg["score"], neg["win"]) == ([75.0, 75.0, 75.0, 74.0], 299.0, False)
    stored = tb.result(10)
    assert stored["aff"]["win"] and not stored["neg"]["win"]
    assert [tb.speakers[sid][0] for sid, _ in (stored["aff"]["speeches"][p] for p in (1, 2, 3, 4))] == AFF_NAMES
    assert [tb.speakers[sid][0] for sid, _ in (stored["neg"]["speeches"][p] for p in (1, 2, 3, 4))] == NEG_NAMES
    assert tb.result(11)["neg"]["win"] and [tb.speakers[sid][0] for sid, _ in tb.result(11)["neg"]["speeches"].values()] == ["Ou", "Pan", "Qi", "Ren"]
    assert (tb.debates[10].result_status, tb.debates[11].result_status) == ("C", "C")  # as Tabbycat's own ballot form leaves it
    assert outs["A"].stored == {"winner": "affirmative", "speeches": {"affirmative": [[u["speaker"], u["score"]] for u in aff["speeches"]],
                                                                   "negative": [[u["speaker"], u["score"]] for u in neg["speeches"]]}}


def _push_round(tb: FakeTabbycat, sources, previous=None, **kw):
    with TabbycatClient(BASE, TOKEN, transport=tb.transport) as c:
        return push_round(c, 1, sources, previous or {}, **kw)


def test_a_second_push_of_the_same_ballot_posts_nothing_and_a_changed_one_a_new_version():
    tb = fake(FORMAT_SET)
    first = push(tb, source())
    detail = first.model_dump(exclude={"body"})
    again = push(tb, source(), previous=detail)
    assert (again.status, again.ballot_id, len(tb.ballots)) == ("unchanged", first.ballot_id, 1)
    changed = push(tb, source(aff=(7.5, 7.0, 7.0, 7.0), version=3), previous=detail)
    assert (changed.status, changed.ballot_version, len(tb.ballots)) == ("posted", 2, 2)
    assert [b.confirmed for b in tb.ballots] == [False, True]  # Tabbycat keeps the newest confirmed
    # someone unconfirmed it in Tabbycat: nothing counts, so it is posted again
    tb.ballots[-1].confirmed = False
    assert push(tb, source(aff=(7.5, 7.0, 7.0, 7.0), version=3), previous=changed.model_dump()).status == "posted"


def test_a_draft_is_never_posted_and_a_dry_run_posts_nothing():
    tb = fake(FORMAT_SET)
    assert push(tb, source(state="draft")).status == "skipped"
    dry = push(tb, source(), dry_run=True)
    assert dry.status == "ready" and dry.body["result"]["sheets"][0]["teams"][0]["score"] == 303.0 and posts(tb) == []


# ---------------------------------------------------------------------------------------------
# The winner declaration


LOW = {"winner": "negative", "aff": (7.0,) * 4, "neg": (6.5,) * 4}  # a chair's override to the team with fewer points


@pytest.mark.parametrize("declaration, label", [("none", "Do not require separate winner selection"),
                                                ("high-points", "Require separate winner selection as a check on correct scores"),
                                                ("tied-points", "Require winner selection to break tied-point debates")])
def test_a_low_point_win_is_refused_unless_tabbycat_lets_the_declared_winner_stand(declaration, label):
    tb = fake(FORMAT_SET | {"winners_in_ballots": declaration})
    out = push(tb, source(**LOW))
    assert out.status == "refused" and out.setting == "winners_in_ballots" and posts(tb) == []
    assert out.reason.startswith(f"the counted winner, the negative, has 299 points to the affirmative's 303 (a low-point win), and Tabbycat setting "
                                 f"'Winner Declaration in ballot(s)' (debate_rules__winners_in_ballots) is '{label}'")
    assert "--score" in out.reason and "'Require winner selection, overriding scores'" in out.reason


def test_a_low_point_win_is_stored_where_the_declared_winner_overrides_scores():
    tb = fake(FORMAT_SET | {"winners_in_ballots": "low-points", "ballots_per_debate_prelim": "per-debate"})
    out = push(tb, source(**LOW))
    assert out.status == "posted" and tb.result(10)["neg"]["win"] and (tb.result(10)["neg"]["score"], tb.result(10)["aff"]["score"]) == (299.0, 303.0)


def test_a_tie_is_refused_under_high_point_wins_and_stored_with_tied_points():
    tie = {"aff": (7.0,) * 4, "neg": (7.0,) * 4}
    out = push(fake(FORMAT_SET), source(**tie))
    assert out.status == "refused" and out.reason.startswith("both teams have 303 points and Tabbycat setting 'Winner Declaration in ballot(s)'")
    tb = fake(FORMAT_SET | {"winners_in_ballots": "tied-points"})
    assert push(tb, source(winner="negative", **tie)).status == "posted" and tb.result(10)["neg"]["win"]


# ---------------------------------------------------------------------------------------------
# Ballots per debate, speaker scores, elimination rounds


def test_a_consensus_tournament_gets_one_sheet_without_an_adjudicator():
    tb = fake(FORMAT_SET | {"ballots_per_debate_prelim": "per-debate"}, panel=3)
    assert push(tb, source()).status == "posted"
    (sheet,) = posts(tb)[0]["result"]["sheets"]
    assert "adjudicator" not in sheet and tb.result(10)["aff"]["win"]


def test_without_speaker_scores_the_ballot_declares_the_winner_only():
    tb = fake({"speakers_in_ballots": "never"})  # 3 speakers and replies do not matter then
    out = push(tb, source(**LOW))
    assert out.status == "posted" and tb.result(10)["neg"]["win"]
    assert all("speeches" not in t and "score" not in t for s in posts(tb)[0]["result"]["sheets"] for t in s["teams"])


def test_an_elimination_round_follows_the_elimination_settings():
    tb = fake(FORMAT_SET | {"ballots_per_debate_elim": "per-debate", "speakers_in_ballots": "prelim"}, stage="E")
    assert push(tb, source(**LOW)).status == "posted"  # no scores in elimination rounds: the declared winner
    (sheet,) = posts(tb)[0]["result"]["sheets"]
    assert "adjudicator" not in sheet and "speeches" not in sheet["teams"][0] and tb.result(10)["neg"]["win"]


@pytest.mark.parametrize("prefs, setting, words", [
    ({"speaker_ranks": "any"}, "speaker_ranks", "Tabbycat's API does not store speech ranks"),
    ({"teams_in_debate": 4}, "teams_in_debate", "ccdb-4v4 debates have two teams"),
    ({"maximum_margin": 3.0}, "maximum_margin", "the margin is 4 points and Tabbycat setting 'Maximum margin' (scoring__maximum_margin) is 3"),
])
def test_settings_that_cannot_hold_the_ballot_are_named(prefs, setting, words):
    tb = fake(FORMAT_SET | prefs)
    out = push(tb, source())
    assert out.status == "refused" and setting in out.setting.split(",") and words in out.reason and posts(tb) == []


def test_a_four_team_format_is_refused_not_posted_as_two_teams():
    tb = fake(FORMAT_SET)
    out = push(tb, source().model_copy(update={"format": "bp"}))
    assert out.status == "refused" and out.reason.startswith("bp has 4 teams a debate; this push posts two-team ballots only") and posts(tb) == []


def test_score_criteria_are_refused():
    out = push(fake(FORMAT_SET, criteria=True), source())
    assert out.status == "refused" and out.setting == "score_criteria" and "scores speeches by criteria" in out.reason


def test_the_tournaments_own_range_and_step_are_used():
    tb = fake(FORMAT_SET | {"score_min": 70.0, "score_max": 80.0, "score_step": 0.5})
    assert push(tb, source()).status == "posted"
    # gain (2.69 / 50) * 10 / 0.33 = 1.6303: raw 7.0 -> 75.554 each, total 302.22 -> 302 (on the half-point grid):
    # floors 75.5 each = 302.0 -> no extra step; raw 6.5 -> 74.739, total 298.96 -> 299.0: floors 74.5 = 298, two more steps
    aff, neg = posts(tb)[0]["result"]["sheets"][0]["teams"]
    assert [s["score"] for s in aff["speeches"]] == [75.5] * 4 and [s["score"] for s in neg["speeches"]] == [75.0, 75.0, 74.5, 74.5]



# ---------------------------------------------------------------------------------------------
# Which debate, teams and speakers a room is


def test_rooms_map_by_name_ignoring_case_and_spacing_and_by_ids_without_names():
    tb = fake(FORMAT_SET)
    assert push(tb, source(teams=("  fudan ", "WUHAN"), names=([n.lower() for n in AFF_NAMES], NEG_NAMES))).status == "posted"
    from adjudicator.live.tournament.model import TabbycatIds

    d = tb.debates[11]
    ids = TabbycatIds(debate=11, teams={"affirmative": d.teams[0], "negative": d.teams[1]},
                      speakers={f"{side.capitalize()} Speaker {i}": sid for side, tid in zip(("affirmative", "negative"), d.teams, strict=True)
                                for i, sid in enumerate(tb.speakers_of(tid), 1)}, motion=5)
    out = push(tb, source("B", teams=("x", "y"), names=([None] * 4, [None] * 4), ids=ids))
    assert out.status == "posted" and posts(tb)[1]["motion"] == f"{BASE}/motions/5"


@pytest.mark.parametrize("change, words", [
    ({"names": ([None, "Bo", "Cy", "Di"], NEG_NAMES)}, "Affirmative Speaker 1 of room 'A' has no name and no Tabbycat speaker id"),
    ({"names": (["Zed", "Bo", "Cy", "Di"], NEG_NAMES)}, "no speaker of Tabbycat team 'Fudan' is named 'Zed' (Affirmative Speaker 1)"),
    ({"names": (["Bo", "Bo", "Cy", "Di"], NEG_NAMES)}, "one Tabbycat speaker of team 'Fudan' would speak twice"),
    ({"teams": ("Wuhan", "Fudan")}, "Tabbycat debate 10 has 'Wuhan' as the negative team and 'Fudan' as the affirmative"),
    ({"teams": ("Fudan", "Xiamen")}, "no debate of Tabbycat round 1 is between teams named 'Fudan' and 'Xiamen'"),
])
def test_a_room_that_cannot_be_matched_without_guessing_is_refused(change, words):
    tb = fake(FORMAT_SET)
    out = push(tb, source(**change))
    assert out.status == "refused" and words in out.reason and posts(tb) == []


def test_two_speakers_of_one_name_and_a_debate_without_chair_or_confirmed_sides_are_refused():
    tb = fake(FORMAT_SET, speaker_names={"Fudan": ["Ann", "Ann", "Cy", "Di"], "Wuhan": NEG_NAMES})
    assert "2 speakers of Tabbycat team 'Fudan' are named 'Ann' (Affirmative Speaker 1)" in push(tb, source(names=(["Ann", "Bo", "Cy", "Di"], NEG_NAMES))).reason
    tb = fake(FORMAT_SET)
    tb.debates[10].chair, tb.debates[10].panellists = None, []
    assert "Tabbycat debate 10 has no chair" in push(tb, source()).reason
    tb = fake(FORMAT_SET)
    tb.debates[10].sides_confirmed = False
    assert "its sides are not confirmed" in push(tb, source()).reason and posts(tb) == []


# ---------------------------------------------------------------------------------------------
# Tabbycat's answers


def test_tabbycat_storing_another_result_is_a_failure_not_a_success(monkeypatch):
    tb = fake(FORMAT_SET)
    real = tb._result

    def flipped(*a):
        r = real(*a)
        r["aff"]["win"], r["neg"]["win"] = False, True
        return r

    monkeypatch.setattr(tb, "_result", flipped)
    out = push(tb, source())
    assert out.status == "failed" and out.reason.startswith("Tabbycat stored another result than was sent: winner negative;")


def test_a_wrong_token_or_an_unknown_tournament_is_one_line_without_the_token():
    from adjudicator.live.tabbycat.client import TabbycatRejected

    tb = fake(FORMAT_SET)
    with TabbycatClient(BASE, "wrong-token-abcdef", transport=tb.transport) as c, pytest.raises(TabbycatRejected) as err:
        read_round(c, 1)
    assert str(err.value) == f"Tabbycat refused GET {BASE}/rounds/1 (HTTP 401): detail: Invalid token." and "wrong-token" not in str(err.value)
    with TabbycatClient(BASE.replace("/cup", "/nope"), TOKEN, transport=tb.transport) as c, pytest.raises(TabbycatRejected, match="HTTP 404"):
        read_round(c, 1)
