"""Pure parts of live adjudication: the provisional tendency, the next-stage suggestion, replay timing."""

from __future__ import annotations

import math

import pytest
from live_fakes import ccdb_header, ccdb_stage, online_match

from adjudicator.errors import InputError
from adjudicator.input.match import Match, MatchView, Stage
from adjudicator.live.client.replay import nominal_duration_s, replay_delays_s
from adjudicator.live.rooms.board import board_snapshot, next_slot
from adjudicator.live.rooms.tendency import clashes_before, like_for_like_gap, pooled_momentum, provisional_tendency
from adjudicator.verdict.battlefield import Clash, ClashEvent, SideAnalysis, StageAnalysis


def _sa(stage_id, side, score, role=None):
    # levels are irrelevant to the tendency; the suggested score is set explicitly
    return SideAnalysis(stage_id=stage_id, side=side, role=role, task_performance="well", battlefield_judgement="correct_important",
                        advancement="effective", suggested_score=score)


def _stage(stage_id, type_, sides, roles=None):
    speakers = {"affirmative": "Affirmative Speaker 1", "negative": "Negative Speaker 1"}
    return Stage(stage_id=stage_id, name=stage_id, type=type_, sides=sides, roles=roles,
                 utterances=[{"speaker": speakers[s], "side": s, "text": "x"} for s in sides])


def test_tendency_like_for_like_gap_and_momentum_by_hand():
    stages = [
        _stage("s1", "constructive", ["affirmative"]),
        _stage("s2", "questioning", ["negative", "affirmative"], {"negative": "questioner", "affirmative": "respondent"}),
        _stage("s3", "constructive", ["negative"]),
        _stage("s4", "questioning", ["affirmative", "negative"], {"affirmative": "questioner", "negative": "respondent"}),
    ]
    analyses = [
        StageAnalysis(stage_id="s1", stage_index=0, sides=[_sa("s1", "affirmative", 8)]),
        StageAnalysis(stage_id="s2", stage_index=1, sides=[_sa("s2", "affirmative", 5, "respondent"), _sa("s2", "negative", 7, "questioner")]),
        StageAnalysis(stage_id="s3", stage_index=2, sides=[_sa("s3", "negative", 6)]),
        StageAnalysis(stage_id="s4", stage_index=3, sides=[_sa("s4", "affirmative", 8, "questioner"), _sa("s4", "negative", 6, "respondent")]),
    ]
    ev = lambda sid, side, kind: ClashEvent(stage_id=sid, side=side, kind=kind)  # noqa: E731
    clashes = {
        "c1": Clash(clash_id="c1", title="cost", opened_in="s1", events=[ev("s1", "affirmative", "opened"), ev("s2", "affirmative", "advanced"), ev("s3", "negative", "conceded")]),
        "c2": Clash(clash_id="c2", title="harm", opened_in="s2", events=[ev("s2", "affirmative", "defended"), ev("s4", "negative", "advanced"), ev("s4", "negative", "contested")]),
    }
    # groups: constructive 8 vs 6 -> +2; questioner 8 vs 7 -> +1; respondent 5 vs 6 -> -1; all weight 1
    # score_gap = (2 + 1 - 1) / 3 = 0.6667
    assert like_for_like_gap(analyses, {s.stage_id: s.type for s in stages}) == (pytest.approx(2 / 3), 3)
    # counted: aff advanced +1, neg conceded +1 (for aff), aff defended +1, neg advanced -1 -> 2/4 = 0.5
    assert pooled_momentum(clashes) == (0.5, 4)
    t = provisional_tendency(analyses, clashes, stages)
    # z = 0.8 * 0.6667 + 1.2 * 0.5 = 1.1333; p = 1 / (1 + e^-1.1333) = 0.7565 -> 0.76
    assert t.p == 0.76 and t.leaning == "affirmative"
    assert t.score_gap == pytest.approx(0.667) and t.momentum == 0.5 and t.compared_groups == 3 and t.counted_events == 4
    assert t.p == round(1 / (1 + math.exp(-(0.8 * 2 / 3 + 1.2 * 0.5))), 2)


def test_tendency_before_any_analysis_and_with_one_side_only():
    assert provisional_tendency([], {}, []).p is None
    only_aff = [StageAnalysis(stage_id="s1", stage_index=0, sides=[_sa("s1", "affirmative", 9)])]
    # no group has both sides: nothing to weigh yet, even with a one-sided clash map
    c = Clash(clash_id="c1", title="a", opened_in="s1", events=[ClashEvent(stage_id="s1", side="affirmative", kind="advanced")])
    t = provisional_tendency(only_aff, {"c1": c}, [_stage("s1", "constructive", ["affirmative"])])
    assert (t.p, t.leaning, t.compared_groups, t.momentum) == (None, "none yet", 0, 1.0)


def test_clashes_before_removes_the_stage_events_and_the_clashes_it_opened():
    c1 = Clash(clash_id="c1", title="a", opened_in="s1", events=[ClashEvent(stage_id="s1", side="affirmative", kind="opened"), ClashEvent(stage_id="s2", side="negative", kind="advanced")])
    c2 = Clash(clash_id="c2", title="b", opened_in="s2", events=[ClashEvent(stage_id="s2", side="negative", kind="opened")])
    before = clashes_before({"c1": c1, "c2": c2}, "s2")
    assert list(before) == ["c1"] and [e.stage_id for e in before["c1"].events] == ["s1"]


def test_next_slot_follows_the_declared_ccdb_order():
    header = MatchView.model_validate({**ccdb_header(), "stages": []})
    first = next_slot(header, [])
    assert first["position"] == 1 and first["of"] == 14
    assert first["stage"]["type"] == "constructive" and first["stage"]["speakers"] == ["Affirmative Speaker 1"]
    stages = [Stage.model_validate(ccdb_stage(0))]
    second = next_slot(header, stages)
    # paper A.2: the negative fourth speaker questions the affirmative first speaker next
    assert second["stage"]["type"] == "questioning" and second["stage"]["roles"] == {"negative": "questioner", "affirmative": "respondent"}
    assert second["stage"]["stage_id"] == "s02"
    # the template is a valid push once the text is filled in
    body = dict(second["stage"])
    body["utterances"] = [{**u, "text": "问题"} for u in body["utterances"]]
    Match.model_validate({**ccdb_header(), "stages": [ccdb_stage(0), body]}, context={"partial": True})


def test_next_slot_alternates_sides_in_online_debates():
    m = online_match("o", 3)
    slot = next_slot(m.view(), list(m.stages[:3]))
    assert slot["stage"]["sides"] == ["negative"] and slot["stage"]["type"] == "supplementary" and slot["of"] is None


def test_snapshot_of_an_empty_match():
    header = MatchView.model_validate({**ccdb_header(), "stages": []})
    s = board_snapshot(header, {"stages": [], "next_stage": 0}, status="open", model="offline", is_llm=False)
    assert (s["received"], s["analysed"], s["pending"], s["clashes"], s["scores"], s["latest"]) == (0, 0, [], [], [], None)
    assert s["tendency"]["p"] is None and s["match"]["expected_stages"] == 14


def test_nominal_duration_from_text_length():
    zh = Stage.model_validate(ccdb_stage(0, text="一二三四五六七八九十"))
    # one utterance: 10 characters + the digit suffix "0" = 11 non-space characters / 5 per second = 2.2 s
    assert nominal_duration_s(zh, "zh") == pytest.approx(2.2)
    en = Stage(stage_id="s1", name="s1", type="constructive", sides=["affirmative"],
               utterances=[{"speaker": "Affirmative Speaker 1", "side": "affirmative", "text": "one two three four five"}])
    # 5 words / 2.5 words per second = 2.0 s
    assert nominal_duration_s(en, "en") == pytest.approx(2.0)


def test_replay_delays_scale_with_speed():
    m = online_match("o", 2)
    # each tiny speech is "Argument number N about school uniforms." = 6 words -> 2.4 s at 1x
    assert replay_delays_s(m, 1) == pytest.approx([2.4, 2.4])
    assert replay_delays_s(m, 4) == pytest.approx([0.6, 0.6])
    assert replay_delays_s(m, 0) == [0.0, 0.0]
    with pytest.raises(InputError):
        replay_delays_s(m, -1)


def test_expected_stage_count_includes_surprise_challenges():
    """2v2: 12 fixed stages plus each surprise challenge received (synthetic_2v2_02 has two)."""
    from pathlib import Path

    from adjudicator.input.match_file import load_match

    m = load_match(Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "synthetic" / "synthetic_2v2_02.json")
    view = m.view()
    header = view.model_copy(update={"stages": []})
    s = board_snapshot(header, {"stages": list(view.stages), "next_stage": 0}, status="open", model="offline", is_llm=False)
    assert sum(1 for st in view.stages if st.surprise) == 2
    assert s["match"]["expected_stages"] == 14 and s["received"] == 14
