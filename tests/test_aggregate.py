"""Aggregation rules: nine votes, p never 0.5 and on the winner's side, means, minimum ballots."""

from __future__ import annotations

import pytest
from graph_fakes import tiny_match

from adjudicator.errors import AdjudicationFailed
from adjudicator.records import CallRecord, FailureKind, NodeFailure
from adjudicator.verdict.aggregate import aggregate, panel_p, panel_winner, provenance_of
from adjudicator.verdict.ballots import Ballot, BallotScore

VIEW = tiny_match(2).view()


def ballot(judge_id, p, aff=7, neg=6, votes=None):
    winner = "affirmative" if p > 0.5 else "negative"
    return Ballot(
        judge_id=judge_id,
        model="m",
        winner=winner,
        p=p,
        stage_scores=[BallotScore(stage_id="s1", side="affirmative", score=aff), BallotScore(stage_id="s2", side="negative", score=neg)],
        best_debater_votes=votes or {"Affirmative Speaker 1": 2, "Negative Speaker 1": 1},
    )


PROV = provenance_of("agentic", "m", {}, False, {}, [], "test")


def test_votes_sum_to_nine_and_best_debater_is_the_maximum():
    bs = [ballot("j1", 0.8), ballot("j2", 0.6, votes={"Negative Speaker 1": 3}), ballot("j3", 0.7)]
    v = aggregate(VIEW, bs, {}, [], [], PROV)
    # Affirmative Speaker 1: 2 + 0 + 2 = 4; Negative Speaker 1: 1 + 3 + 1 = 5
    assert v.best_debater_votes == {"Negative Speaker 1": 5, "Affirmative Speaker 1": 4}
    assert sum(v.best_debater_votes.values()) == 9
    assert v.best_debaters == ["Negative Speaker 1"]


def test_p_is_mean_rounded_to_two_decimals():
    # mean(0.81, 0.62, 0.70) = 2.13 / 3 = 0.71
    assert panel_p([ballot("a", 0.81), ballot("b", 0.62), ballot("c", 0.70)], "affirmative") == 0.71


def test_p_never_exactly_half_and_follows_the_majority():
    # mean(0.9, 0.3, 0.3) = 0.5 exactly; majority negative -> 0.49
    bs = [ballot("a", 0.9), ballot("b", 0.3), ballot("c", 0.3)]
    assert panel_winner(bs) == "negative"
    assert panel_p(bs, "negative") == 0.49
    # mean(0.99, 0.45, 0.45) = 0.63 but two judges voted negative -> clamped to 0.49
    bs = [ballot("a", 0.99), ballot("b", 0.45), ballot("c", 0.45)]
    assert panel_winner(bs) == "negative" and panel_p(bs, "negative") == 0.49
    # mean(0.51, 0.51, 0.2) = 0.4067 -> 0.41, majority affirmative -> 0.51
    bs = [ballot("a", 0.51), ballot("b", 0.51), ballot("c", 0.2)]
    assert panel_winner(bs) == "affirmative" and panel_p(bs, "affirmative") == 0.51


def test_even_split_of_two_ballots_goes_by_mean_p_then_scores():
    # 1:1, mean(0.8, 0.4) = 0.6 -> affirmative
    assert panel_winner([ballot("a", 0.8), ballot("b", 0.4)]) == "affirmative"
    # 1:1, mean(0.6, 0.4) = 0.5 -> stage means decide: aff 6.0 vs neg 7.0 -> negative
    assert panel_winner([ballot("a", 0.6), ballot("b", 0.4)], {("s1", "affirmative"): 6.0, ("s2", "negative"): 7.0}) == "negative"


def test_stage_means_and_dissent():
    bs = [ballot("j1", 0.8, aff=9, neg=4), ballot("j2", 0.3, aff=5, neg=6), ballot("j3", 0.7, aff=7, neg=5)]
    v = aggregate(VIEW, bs, {}, [], [], PROV)
    s1, s2 = v.stage_scores
    assert s1.judge_scores == [9, 5, 7] and s1.mean == 7.0  # (9 + 5 + 7) / 3
    assert s2.judge_scores == [4, 6, 5] and s2.mean == 5.0
    assert v.dissent.winner_split == "2:1" and v.dissent.dissenting_judges == ["j2"]
    assert v.dissent.max_score_range == 4 and v.dissent.units_with_range_ge_3 == 1  # 9 - 5 = 4; 6 - 4 = 2


def test_fewer_than_two_ballots_fail_in_one_short_line_of_counts():
    fail = NodeFailure(node="judge", key="j2", kind=FailureKind.UNPARSEABLE, reason="no valid JSON after 3 attempts " + "x" * 3000, raw_outputs=["x", "y", "z"])
    with pytest.raises(AdjudicationFailed) as caught:
        aggregate(VIEW, [ballot("j1", 0.8)], {}, [fail], [], PROV)
    assert caught.value.args[0] == "the panel needs at least 2 deciding ballots, got 1 (1 ballot(s) kept, 1 judge(s) failed: j2 unparseable; see failures)"


def test_ballot_rejects_ties_wrong_vote_totals_and_contradictions():
    with pytest.raises(ValueError):
        ballot("x", 0.5)
    with pytest.raises(ValueError):
        ballot("x", 0.7, votes={"Affirmative Speaker 1": 2})
    with pytest.raises(ValueError):
        Ballot(judge_id="x", model="m", winner="negative", p=0.7, stage_scores=[], best_debater_votes={"Affirmative Speaker 1": 3})


def test_provenance_sums_and_unknown_cost():
    calls = [
        CallRecord(node="judge", key="j1", model="m", parse="strict", prompt_tokens=100, completion_tokens=20, cost_usd=0.001),
        CallRecord(node="judge", key="j2", model="m", parse="failed", attempt=1, prompt_tokens=100, completion_tokens=5, cost_usd=0.0005),
        CallRecord(node="judge", key="j2", model="m", parse="regex", attempt=2, prompt_tokens=100, completion_tokens=20, cost_usd=0.001),
    ]
    p = provenance_of("agentic", "m", {}, True, {}, calls, "t")
    assert (p.calls, p.attempts, p.prompt_tokens, p.completion_tokens) == (2, 3, 300, 45)
    assert p.cost_usd == 0.0025 and (p.strict_json, p.recovered, p.parse_failures) == (1, 1, 1)
    calls.append(CallRecord(node="track_stage", key="s1", model="m", parse="strict", cost_usd=None))
    assert provenance_of("agentic", "m", {}, True, {}, calls, "t").cost_usd is None
