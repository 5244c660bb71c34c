"""The parts of live tournaments that need no server: the verdict lifecycle rules, override checks,
visibility, the speaker scale and speaker scores of the Tabbycat export, team outcomes for two and
four teams, turning points (computed by hand), the label tables, the HTML report, and the contract of
the tournament store (run against every implementation in STORES; today SQLite).
"""

from __future__ import annotations

import pytest
from graph_fakes import RecordingBackend, tiny_match

from adjudicator.api import adjudicate_with_context
from adjudicator.input.formats import STAGE_TYPES
from adjudicator.input.match_file import load_match
from adjudicator.live.errors import Conflict, Unprocessable
from adjudicator.live.rooms.turning_points import turning_points
from adjudicator.live.tabbycat.export import team_outcomes
from adjudicator.live.tournament import lifecycle
from adjudicator.live.tournament.lifecycle import SYSTEM, Actor, Automated, Decision, Override, check_override, visible
from adjudicator.live.tournament.model import SpeakerScale
from adjudicator.live.tournament.report_html import report_html
from adjudicator.live.tournament.speaker_scores import debater_scores
from adjudicator.verdict.battlefield import Clash, ClashEvent, SideAnalysis, StageAnalysis
from adjudicator.verdict.labels import TABLES, debater_name, stage_name
from adjudicator.workflow.context import AdjudicationContext

KEY = ("t", "r1", "a")
CHAIR = Actor(role="chair", room="t.r1.a", name="Ms Li")
ORGANISER = Actor(role="organiser", name="organiser")


def automated() -> Automated:
    return Automated(winner="affirmative", stage_scores={"s1|affirmative": 7.0, "s2|negative": 6.0}, best_debater_votes={"Affirmative Speaker 1": 6, "Negative Speaker 1": 3},
                     p=0.7, winner_split="3:0", model="recording")


def draft() -> Decision:
    return Decision(tournament_id="t", round_id="r1", room_id="a", state="draft", version=1, automated=automated(), recorded_at="2025-01-01T10:00:00+00:00")


# ---------------------------------------------------------------------------------------------
# Lifecycle rules


def test_confirm_keeps_the_automated_original_and_release_follows():
    d = draft()
    o = check_override(Override(winner="negative", stage_scores={"s2|negative": 8.456}, note="missed rebuttal"), d.automated, ["Affirmative Speaker 1", "Negative Speaker 1"])
    assert o.stage_scores == {"s2|negative": 8.46}  # two decimals
    c, entry = lifecycle.confirm(d, o, CHAIR, "2025-01-01T10:05:00+00:00")
    assert (c.state, c.version, c.automated, c.confirmed_by, c.overridden) == ("confirmed", 2, d.automated, CHAIR, True)
    assert c.effective().winner == "negative" and c.effective().stage_scores == {"s1|affirmative": 7.0, "s2|negative": 8.46}
    assert c.effective().best_debater_votes == d.automated.best_debater_votes  # votes not overridden
    assert (entry.kind, entry.from_state, entry.to_state, entry.version, entry.actor.name) == ("confirmed", "draft", "confirmed", 2, "Ms Li")
    assert entry.detail["override"] == {"winner": "negative", "stage_scores": {"s2|negative": 8.46}, "note": "missed rebuttal"}
    # a correction before release is a new version
    c2, _ = lifecycle.confirm(c, Override(), ORGANISER, "2025-01-01T10:06:00+00:00")
    assert (c2.version, c2.override, c2.overridden, c2.effective().winner) == (3, None, False, "affirmative")
    r, entry = lifecycle.release(c2, ORGANISER, "2025-01-01T10:10:00+00:00")
    assert (r.state, r.version, r.released_at, entry.kind) == ("released", 4, "2025-01-01T10:10:00+00:00", "released")
    with pytest.raises(Conflict, match="a released result is final"):
        lifecycle.confirm(r, Override(), ORGANISER, "x")
    with pytest.raises(Conflict, match="already released"):
        lifecycle.release(r, ORGANISER, "x")
    with pytest.raises(Conflict, match="unconfirmed draft"):
        lifecycle.release(d, ORGANISER, "x")


def test_override_checks_name_the_field():
    auto = automated()
    labels = ["Affirmative Speaker 1", "Negative Speaker 1"]
    cases = [
        (Override(stage_scores={"s3|affirmative": 5}), "stage_scores.s3|affirmative", "the panel scored no such unit"),
        (Override(stage_scores={"s1|affirmative": 0.5}), "stage_scores.s1|affirmative", "outside 1-10"),
        (Override(best_debater_votes={"Affirmative Speaker 2": 9}), "best_debater_votes.Affirmative Speaker 2", "not a debater of this room"),
        (Override(best_debater_votes={"Affirmative Speaker 1": 10, "Negative Speaker 1": -1}), "best_debater_votes.Negative Speaker 1", "is negative"),
        (Override(best_debater_votes={"Affirmative Speaker 1": 8}), "best_debater_votes", "add up to 8, not 9"),
    ]
    for o, field, words in cases:
        with pytest.raises(Unprocessable) as exc:
            check_override(o, auto, labels)
        assert exc.value.field == field and words in exc.value.message
    ok = check_override(Override(best_debater_votes={"Negative Speaker 1": 9, "Affirmative Speaker 1": 0}), auto, labels)
    assert ok.best_debater_votes == {"Negative Speaker 1": 9}  # zero counts dropped


def test_visibility_by_state_and_board_setting():
    d = draft()
    c, _ = lifecycle.confirm(d, Override(), ORGANISER, "x")
    r, _ = lifecycle.release(c, ORGANISER, "y")
    table = {(s, b): visible(x, b) for s, x in (("none", None), ("draft", d), ("confirmed", c), ("released", r)) for b in ("released", "confirmed", "draft")}
    assert [k for k, v in table.items() if v] == [
        ("draft", "draft"), ("confirmed", "confirmed"), ("confirmed", "draft"), ("released", "released"), ("released", "confirmed"), ("released", "draft")]


# ---------------------------------------------------------------------------------------------
# Export arithmetic


def test_speaker_scale_by_hand():
    assert SpeakerScale().convert(7.125) == 7.13 and SpeakerScale().convert(20 / 3) == 6.67  # half up, two decimals
    s = SpeakerScale(low=70, high=80, step=1, mapping="linear")
    # 70 + (7.5 - 1) * 10 / 9 = 77.22 -> 77; the ends map onto the ends
    assert (s.convert(7.5), s.convert(1), s.convert(10)) == (77.0, 70.0, 80.0)
    # 70 + 5.66 * 10 / 9 = 76.289 -> 12.58 half-steps above 70 -> 13 -> 76.5
    assert SpeakerScale(low=70, high=80, step=0.5, mapping="linear").convert(6.66) == 76.5
    # another range without a mapping is calibrated (tests/test_speaker_scores.py works the numbers)
    assert SpeakerScale().method() == "linear" and SpeakerScale(low=70, high=80).method() == "calibrated"
    with pytest.raises(ValueError, match="low"):
        SpeakerScale(low=10, high=1)


def test_debater_scores_follow_who_spoke():
    m = load_match("adjudicator/data/matches/synthetic/synthetic_2v2_01.json")
    s1, s2, s3 = m.stages[0], m.stages[1], m.stages[9]
    assert (s1.speakers, s2.speakers, s3.type, s3.speakers) == (["Affirmative Speaker 1"], ["Negative Speaker 2", "Affirmative Speaker 1"], "free_debate", [])
    units = {f"{s1.stage_id}|affirmative": 8.0, f"{s2.stage_id}|negative": 6.0, f"{s2.stage_id}|affirmative": 5.0,
             f"{s3.stage_id}|affirmative": 7.0, f"{s3.stage_id}|negative": 9.0}
    labels = {"affirmative": ["Affirmative Speaker 1", "Affirmative Speaker 2"], "negative": ["Negative Speaker 1", "Negative Speaker 2"]}
    got = debater_scores([s1, s2, s3], units, labels)
    # A1: s1 8, s2 5, free debate 7 -> 20/3; A2: free debate only -> 7; N1: free debate -> 9; N2: s2 6, free debate 9 -> 7.5
    assert got == {"Affirmative Speaker 1": pytest.approx(20 / 3), "Affirmative Speaker 2": 7.0, "Negative Speaker 1": 9.0, "Negative Speaker 2": 7.5}
    assert debater_scores([s1], {}, labels)["Affirmative Speaker 1"] is None


def test_team_outcomes_for_two_teams_and_for_bp():
    assert team_outcomes({"affirmative": 2, "negative": 1}) == {"affirmative": {"win": False}, "negative": {"win": True}}
    # BP: points are 4 - rank (3, 2, 1, 0)
    ranks = {"opening_government": 2, "opening_opposition": 1, "closing_government": 4, "closing_opposition": 3}
    assert team_outcomes(ranks) == {"opening_government": {"points": 2}, "opening_opposition": {"points": 3}, "closing_government": {"points": 0}, "closing_opposition": {"points": 1}}


# ---------------------------------------------------------------------------------------------
# Turning points


def _side(stage_id, side, score):
    return SideAnalysis(stage_id=stage_id, side=side, task_performance="well", battlefield_judgement="correct_important", advancement="effective", suggested_score=score)


def test_turning_points_by_hand():
    stages = tiny_match(4).stages  # s1 aff constructive, s2 neg constructive, s3 aff closing, s4 neg closing
    analyses = [StageAnalysis(stage_id=f"s{i + 1}", stage_index=i, sides=[_side(f"s{i + 1}", side, score)])
                for i, (side, score) in enumerate([("affirmative", 7), ("negative", 6), ("affirmative", 6), ("negative", 8)])]
    clashes = {
        "c1": Clash(clash_id="c1", title="cost", opened_in="s1", events=[ClashEvent(stage_id="s1", side="affirmative", kind="opened"),
                                                                          ClashEvent(stage_id="s2", side="negative", kind="advanced"),
                                                                          ClashEvent(stage_id="s3", side="affirmative", kind="advanced")]),
        "c2": Clash(clash_id="c2", title="fairness", opened_in="s4", events=[ClashEvent(stage_id="s4", side="negative", kind="opened")]),
    }
    tps = turning_points(analyses, clashes, stages)
    # after s1: nothing comparable (None). after s2: gap 7-6 = 1, momentum -1/1 -> z = 0.8 - 1.2 = -0.4 -> p 0.40 (first side taken: no crossing)
    # after s3: momentum (-1 + 1)/2 = 0, gap 1 -> z 0.8 -> p 0.69: crossed to the affirmative, c1 pushed +1 toward it in s3
    # after s4: closing gap 6-8 = -2 and constructive +1, each weight 1 -> -0.5; momentum 0 -> z -0.4 -> p 0.40: crossed back,
    #           and no clash pushed toward the negative in s4 (c2 was only opened): the scores moved it
    assert [(t.stage_id, t.position, t.toward, t.p_before, t.p_after, t.driver, t.clash_id) for t in tps] == [
        ("s3", 3, "affirmative", 0.4, 0.69, "clash", "c1"), ("s4", 4, "negative", 0.69, 0.4, "scores", None)]
    assert tps[0].clash_events == ("affirmative advanced",) and (tps[1].score_gap_before, tps[1].score_gap_after) == (1.0, -0.5)
    assert turning_points(analyses[:2], clashes, stages) == []


# ---------------------------------------------------------------------------------------------
# Words


def test_label_tables_have_the_same_keys_and_cover_the_vocabulary():
    en, zh = TABLES["en"], TABLES["zh"]
    assert set(en) == set(zh)
    assert all(f"stage_type.{t}" in en for t in STAGE_TYPES)
    assert all(f"kind.{k}" in en for k in ("opened", "advanced", "defended", "conceded", "contested"))
    assert all(f"state.{s}" in en for s in ("none", "awaiting", "draft", "confirmed", "released"))
    assert (zh["stage_type.cross_examination"], zh["side.affirmative"], zh["tendency.title"]) == ("盘问", "正方", "暂时倾向")
    assert stage_name("Affirmative constructive speech", "zh") == "正方一辩开篇立论" and stage_name("Speech 3", "zh") == "Speech 3"
    assert debater_name("Negative Speaker 3", "zh", {"Negative Speaker 3": "王五"}) == "反方三辩 王五"


def test_the_html_report_speaks_the_match_language_and_escapes_text():
    m = load_match("adjudicator/data/matches/synthetic/synthetic_2v2_01.json")
    v = adjudicate_with_context(m, AdjudicationContext.single(RecordingBackend()))
    b0 = v.ballots[0].model_copy(update={"reasoning": "<script>alert(1)</script> **正方论证更完整 &lt;b&gt;"})
    v = v.model_copy(update={"ballots": [b0, *v.ballots[1:]]})
    html = report_html(m.view(), v, timeline=[])
    assert '<html lang="zh-CN">' in html and "<h1>裁决报告: " in html and "获胜方：正方" in html
    assert "正方一辩开篇立论" in html and "<td>立论</td>" in html and "较好完成（6-8 分）" in html
    # the reasoning's markup is removed (tags, an unclosed **, an escaped tag), the rest escaped by jinja2
    assert "alert(1) 正方论证更完整</p>" in html and "<script>" not in html and "&lt;script" not in html and "**" not in html
    assert not v.provenance.is_llm and html.index("确定性的基线，不是评委") < html.index("获胜方：正方")  # what the offline judge is, at the top
    en = report_html(tiny_match(2).view(), adjudicate_with_context(tiny_match(2), AdjudicationContext.single(RecordingBackend())), timeline=[])
    # the CLI report's words (the live page is rendered through it), the turning points' explanation the live page adds
    assert '<html lang="en">' in en and "Winner: the affirmative." in en and "Momentum, in one sentence:" in en and "Like-for-like score gap:" in en



def test_the_html_report_names_each_judges_perspective_in_the_match_language():
    # before: the raw perspective id ("judge-1 (task)") in a Chinese page, where the Markdown report says 侧重环节任务
    m = load_match("adjudicator/data/matches/synthetic/synthetic_2v2_01.json")
    v = adjudicate_with_context(m, AdjudicationContext.single(RecordingBackend()))
    ballots = [b.model_copy(update={"perspective": p}) for b, p in zip(v.ballots, ("task", "battlefield", "advancement"), strict=True)]
    html = report_html(m.view(), v.model_copy(update={"ballots": ballots}), timeline=[])
    ids = [b.judge_id for b in ballots]
    # the CLI report's ballot heading: judge (perspective) · model: outcome
    assert f"<h3>{ids[0]} (侧重环节任务) · " in html
    assert f"<h3>{ids[1]} (侧重战场选择) · " in html and f"<h3>{ids[2]} (侧重推进程度) · " in html and "(task)" not in html
    en_match = tiny_match(2)
    en = adjudicate_with_context(en_match, AdjudicationContext.single(RecordingBackend()))
    en = en.model_copy(update={"ballots": [en.ballots[0].model_copy(update={"perspective": "battlefield"}), *en.ballots[1:]]})
    assert f"<h3>{en.ballots[0].judge_id} (battlefield judgement first) · " in report_html(en_match.view(), en, timeline=[])

def test_draft_of_a_verdict():
    v = adjudicate_with_context(tiny_match(4), AdjudicationContext.single(RecordingBackend()))
    d, e = lifecycle.draft(KEY, v, "2025-01-01T10:00:00+00:00")
    # the recording judges: 7 per affirmative unit, 6 per negative unit, 3 votes each to Affirmative Speaker 1
    assert d.automated.stage_scores == {"s1|affirmative": 7.0, "s2|negative": 6.0, "s3|affirmative": 7.0, "s4|negative": 6.0}
    assert (d.state, d.version, d.automated.winner, d.automated.best_debater_votes, e.actor) == ("draft", 1, "affirmative", {"Affirmative Speaker 1": 9}, SYSTEM)
