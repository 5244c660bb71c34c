"""Issue 38, session 5 item 2: a ballot's stated winner is a decision field of its own.

On debateart_0020 (real Qwen2.5-Coder 0.5B) two of three judges answered p = 0.5 again after the repair
turn, so one deciding ballot was left and the run exited 1 with ~3 KB of failure text on one line. Now a
judge who states a valid winner but still answers p = 0.5 after its repair keeps a deciding ballot: its
winner vote counts in the winner and the split, its p is left out of the panel's p (``p_counted``
false, review reason ``p_left_out``). A p on the other side of 0.5 from the stated winner still fails,
a judge at 0.5 with no winner still gives a ballot that does not decide, and a panel with fewer than
two deciding ballots says so in one short line.
"""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import chair_stays_at_half, judge_request_over, loopback_backend, online_match, weak_model_ballot

from adjudicator.api import adjudicate_with_context
from adjudicator.bench.predictions import exact_p
from adjudicator.errors import AdjudicationFailed
from adjudicator.verdict.aggregate import aggregate, provenance_of
from adjudicator.verdict.ballots import Ballot, BallotScore
from adjudicator.workflow.context import AdjudicationContext

VIEW = online_match().view()
PROV = provenance_of("agentic", "m", {}, False, {}, [], "test")


def ballot(judge_id: str, winner: str | None, p: float, **kw) -> Ballot:
    return Ballot(
        judge_id=judge_id, model="m", winner=winner, p=p,
        stage_scores=[BallotScore(stage_id="s1", side="affirmative", score=7), BallotScore(stage_id="s2", side="negative", score=6)],
        best_debater_votes={"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}, **kw,
    )  # fmt: skip


def test_a_judge_at_half_after_its_repair_with_a_stated_winner_keeps_its_winner_vote(fake_openai):
    fake_openai.push(weak_model_ballot(VIEW, 0.5, ["s1"], winner="negative"), json.dumps({"p": 0.5}))
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    assert fake_openai.count == 2 and result.failure is None
    b = result.value
    assert (b.deciding, b.p_counted, b.winner, b.p) == (True, False, "negative", 0.5)
    assert json.loads(b.model_dump_json())["p_counted"] is False


def test_the_0020_panel_two_judges_at_half_with_winners_gives_a_verdict_with_the_one_p_that_counts():
    # judge-1 p = 0.3 (negative); judge-2 and judge-3 stated negative and affirmative at p = 0.5 twice
    bs = [ballot("judge-1", "negative", 0.3), ballot("judge-2", "negative", 0.5, p_counted=False), ballot("judge-3", "affirmative", 0.5, p_counted=False)]
    v = aggregate(VIEW, bs, {}, [], [], PROV)
    assert (v.winner, v.p, v.dissent.winner_split, v.dissent.dissenting_judges) == ("negative", 0.3, "2:1", ["judge-3"])  # p: judge-1's alone
    assert "p_left_out" in v.review.reasons and "stated a winner but still gave p = 0.5 after a repair turn: the winner vote counts, the p is left out" in v.review.detail[-1] and v.review.facts[-1] == {"judges": ["judge-2", "judge-3"]}
    assert sum(v.best_debater_votes.values()) == 9 and all(len(s.judge_scores) == 3 for s in v.stage_scores)
    assert exact_p(json.loads(v.model_dump_json())) == pytest.approx(0.3)  # scored p: the left-out 0.5s take no part


def test_when_no_deciding_ballots_p_counts_the_panel_p_is_the_winners_side_of_half():
    v = aggregate(VIEW, [ballot("judge-1", "affirmative", 0.5, p_counted=False), ballot("judge-2", "affirmative", 0.5, p_counted=False)], {}, [], [], PROV)
    assert (v.winner, v.p, v.dissent.winner_split) == ("affirmative", 0.51, "2:0")


def test_a_left_out_p_takes_no_part_in_the_even_split_tie_break():
    # 1:1; the counted p is judge-2's 0.55 alone -> affirmative (with the 0.5 counted: 0.525 -> 0.53, still affirmative,
    # so the judge-1 side is set to negative at 0.5 and judge-2 to affirmative at 0.52: mean with 0.5 = 0.51 vs 0.52 alone)
    v = aggregate(VIEW, [ballot("judge-1", "negative", 0.5, p_counted=False), ballot("judge-2", "affirmative", 0.52)], {}, [], [], PROV)
    assert (v.winner, v.p, v.dissent.winner_split) == ("affirmative", 0.52, "1:1")


def test_one_deciding_ballot_fails_in_one_short_line():
    bs = [ballot("judge-1", "negative", 0.3), ballot("judge-2", None, 0.5, deciding=False, p_counted=False), ballot("judge-3", None, 0.5, deciding=False, p_counted=False)]
    with pytest.raises(AdjudicationFailed) as caught:
        aggregate(VIEW, bs, {}, [], [], PROV)
    assert caught.value.args[0] == "the panel needs at least 2 deciding ballots, got 1 (3 ballot(s) kept, 0 judge(s) failed; see failures)"


def test_a_ballot_whose_p_is_left_out_has_p_half_and_a_winner():
    with pytest.raises(ValueError, match="p_counted"):
        ballot("judge-1", "negative", 0.3, p_counted=False)
    with pytest.raises(ValueError, match="winner"):
        ballot("judge-1", None, 0.5, p_counted=False)


def test_half_with_a_winner_and_two_more_deciding_judges_through_the_panel(fake_openai):
    fake_openai.respond_with(chair_stays_at_half(VIEW, "affirmative"))
    verdict = adjudicate_with_context(online_match(), AdjudicationContext.single(loopback_backend(fake_openai)))
    held = {b.judge_id: b for b in verdict.ballots}
    assert (held["judge-1"].deciding, held["judge-1"].p_counted, held["judge-1"].winner) == (True, False, "affirmative")
    assert verdict.winner == "affirmative" and verdict.dissent.winner_split == "3:0"
    assert verdict.p == round((held["judge-2"].p + held["judge-3"].p) / 2, 2)  # 0.62 each (schema_responder): judge-1's 0.5 left out
    assert "p_left_out" in verdict.review.reasons and "non_deciding_ballot" not in verdict.review.reasons
