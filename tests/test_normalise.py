"""Issue 38: the decision never hostage to a side field. Each normalisation rule of
adjudicator.model.normalise on its own, then through the loopback server with the replies the real
Qwen2.5-Coder 0.5B gave at 0cefc6c (p = 8, 8.5 on a 1-10 scale, p = 0.5, feedback points naming their
stage by its name): a ballot whose decision is valid is counted, a feedback point still bad after its
repair is dropped (a ``dropped_field`` failure, the ballot's ``dropped``, a review reason), and what was
refused for a good reason still is."""

from __future__ import annotations

import json

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)
from llm_helpers import chair_stays_at_half, judge_request_over, loopback_backend, online_match, weak_model_ballot

from adjudicator.api import adjudicate_with_context
from adjudicator.model.normalise import normalise_ballot, p_of, stage_id_of, stage_id_with_side_of
from adjudicator.records import FailureKind
from adjudicator.workflow.context import AdjudicationContext

VIEW = online_match().view()
STAGES = {"s01": ["Round 1, affirmative (Pro) speech"], "s02": ["Round 1, negative (Con) speech"], "s03": ["正方一辩陈词", "Affirmative First Constructive"]}


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("s01", ("s01", None)),  # as it is: no rule
        ("S01", ("s01", "stage_id_case")),
        ("s01: Round 1, affirmative (Pro) speech", ("s01", "stage_id_with_title")),
        ("Round 1, negative (Con) speech (s02)", ("s02", "stage_id_with_title")),
        ("round 1,  affirmative (pro) speech", ("s01", "stage_by_name")),
        ("正方一辩陈词", ("s03", "stage_by_name")),
        ("Affirmative First Constructive", ("s03", "stage_by_name")),
        ("Round 1", None),  # two stages share the round: no single reading
        ("c1", None),  # a clash id is no stage
        ("s01 the opening", None),  # an id with words that are not the stage's name
        ("", None),
    ],
)
def test_a_stage_is_read_by_its_id_or_its_name_only_when_one_stage_fits(written, read):
    assert stage_id_of(written, STAGES) == read


@pytest.mark.parametrize(
    ("written", "read"),
    [(8, (0.8, "p_on_1_10")), (8.5, (0.85, "p_on_1_10")), ("6", (0.6, "p_on_1_10")), (10, (1.0, "p_on_1_10")), (85, (0.85, "p_on_0_100")), (62.5, (0.62, "p_on_0_100")),
     (1, None), (0.7, None), (0, None), (150, None), (-3, None), (True, None), ("high", None)],
)  # fmt: skip
def test_a_p_above_1_is_read_on_a_1_10_or_0_100_scale_and_nothing_else_is(written, read):
    # 8.5 / 10 = 0.85; 62.5 / 100 = 0.625 -> 0.62 (two decimals, Python's round half to even on 0.625)
    assert p_of(written) == read


@pytest.mark.parametrize(
    ("written", "side", "read"),
    [
        ("s01|affirmative", "affirmative", "s01"),  # as the 1.5B model wrote it: a stage score's key
        ("S02|negative", "negative", "s02"),
        ("s01 affirmative", "affirmative", "s01"),
        ("s01 (affirmative)", "affirmative", "s01"),
        ("s01, pro", "affirmative", "s01"),
        ("s02|反方", "negative", "s02"),
        ("s02|negative", "affirmative", None),  # the other debater's side: not read, so refused and dropped
        ("s01|affirmative", None, None),  # no side known
        ("s09|affirmative", "affirmative", None),  # no such stage
        ("s01|speech", "affirmative", None),  # no side after the id
        ("Round 1|affirmative", "affirmative", None),  # a name is not an id
        ("s01", "affirmative", None),  # no side: the other rules' business
    ],
)
def test_a_stage_id_with_a_side_is_read_only_when_the_side_is_the_debaters(written, side, read):
    assert stage_id_with_side_of(written, STAGES, side) == read


def test_the_15b_models_stage_score_keys_as_feedback_stages_are_read_for_the_debaters_own_side(fake_openai):
    # debateart_4395 on Qwen2.5-Coder 1.5B at 0cefc6c: every point named 's01|negative' and the like, so
    # every judge was voided by repeated_repair; here the negative's missed point names the affirmative's s3
    labels = VIEW.debater_labels()
    first = weak_model_ballot(VIEW, 0.7, {labels[0]: ["s1|affirmative", "s3 (affirmative)", "S3|Affirmative"], labels[1]: ["s2|negative", "s3|affirmative", "s4|negative"]})
    fake_openai.push(first, json.dumps({"feedback": json.loads(first)["feedback"]}))  # the repair turn gives the points back as they were
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    ballot = result.value
    assert ballot is not None and (ballot.p, ballot.winner, ballot.deciding) == (0.7, "affirmative", True)
    assert [(f.debater, [(k, pt.stage_id) for k, pt in f.points()]) for f in ballot.feedback] == [
        (labels[0], [("worked", "s1"), ("missed", "s3"), ("work_on", "s3")]),
        (labels[1], [("worked", "s2"), ("work_on", "s4")]),
    ]
    assert [d.field for d in ballot.dropped] == [f"feedback.{labels[1]}.missed"] and "'s3|affirmative' is not a stage" in ballot.dropped[0].reason
    assert [n.rule for n in ballot.normalised].count("stage_id_with_side") == 5
    assert result.failure is not None and result.failure.kind == FailureKind.DROPPED_FIELD


def test_votes_by_a_debaters_name_are_read_as_its_label_and_every_rule_leaves_a_note():
    answer = {"p": 8, "stage_scores": {"S01|affirmative": 7, "s02|negative": 6}, "best_debater_votes": {"Ann Lee": 2, "Negative Speaker 1": 1},
              "feedback": {"Affirmative Speaker 1": {"worked": {"text": "t", "stage_id": "Round 1, negative (Con) speech", "clash_id": ""}}}}  # fmt: skip
    read, notes = normalise_ballot(answer, STAGES, ["Affirmative Speaker 1", "Negative Speaker 1"], {"Ann Lee": "Affirmative Speaker 1"})
    assert read["p"] == 0.8 and read["stage_scores"] == {"s01|affirmative": 7, "s02|negative": 6}
    assert read["best_debater_votes"] == {"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}
    assert read["feedback"]["Affirmative Speaker 1"]["worked"]["stage_id"] == "s02"
    assert [(n.rule, n.field, n.before, n.after) for n in notes] == [
        ("p_on_1_10", "p", "8", "0.8"),
        ("stage_id_case", "stage_scores.S01|affirmative", '"S01|affirmative"', '"s01|affirmative"'),
        ("votes_by_name", "best_debater_votes", '{"Ann Lee":2,"Negative Speaker 1":1}', '{"Affirmative Speaker 1":2,"Negative Speaker 1":1}'),
        ("stage_by_name", "feedback.Affirmative Speaker 1.worked.stage_id", '"Round 1, negative (Con) speech"', '"s02"'),
    ]
    assert answer["p"] == 8  # the answer as written is not changed


def test_the_real_models_ballot_with_p_85_and_stage_names_is_counted_and_says_what_was_read(fake_openai):
    fake_openai.push(weak_model_ballot(VIEW, 8.5, ["Speech 1", "speech 2", "S3"]))
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    assert result.failure is None and fake_openai.count == 1  # no repair turn
    ballot = result.value
    assert (ballot.p, ballot.winner, ballot.deciding) == (0.85, "affirmative", True)
    assert {pt.stage_id for f in ballot.feedback for _, pt in f.points()} == {"s1", "s2", "s3"}
    rules = [n.rule for n in ballot.normalised]
    assert rules.count("p_on_1_10") == 1 and rules.count("stage_by_name") == 4 and rules.count("stage_id_case") == 2  # 2 debaters x (2 names + 1 id)
    assert result.calls[0].normalised == ballot.normalised and result.calls[0].parse == "strict"


def test_a_feedback_point_still_bad_after_its_repair_is_dropped_and_the_ballot_counts(fake_openai):
    # 'Round 1' names no single stage and 'c1' is a clash: the missed point of each debater is bad
    first = weak_model_ballot(VIEW, 0.34, ["s1", "Round 1", "c1"], winner="negative")
    patch = json.dumps({"feedback": json.loads(first)["feedback"]})  # the repair turn gives the same points back
    fake_openai.push(first, patch)
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    assert fake_openai.count == 2
    ballot = result.value
    assert ballot is not None and (ballot.p, ballot.winner) == (0.34, "negative")
    assert result.failure.kind == FailureKind.DROPPED_FIELD and result.failure.partial
    assert [d.field for d in ballot.dropped] == [f"feedback.{label}.{kind}" for label in VIEW.debater_labels() for kind in ("missed", "work_on")]
    assert "'Round 1' is not a stage of this match" in ballot.dropped[0].reason
    assert [(f.debater, [k for k, _ in f.points()]) for f in ballot.feedback] == [(label, ["worked"]) for label in VIEW.debater_labels()]
    assert [c.turn for c in result.calls] == ["answer", "repair"] and result.calls[1].dropped == ballot.dropped


def test_a_judge_still_at_half_after_a_repair_is_kept_as_a_ballot_that_does_not_decide(fake_openai):
    fake_openai.respond_with(chair_stays_at_half(VIEW, None))
    verdict = adjudicate_with_context(online_match(), AdjudicationContext.single(loopback_backend(fake_openai)))
    held = {b.judge_id: b for b in verdict.ballots}
    assert sorted(held) == ["judge-1", "judge-2", "judge-3"] and not verdict.failures
    assert (held["judge-1"].deciding, held["judge-1"].winner, held["judge-1"].p) == (False, None, 0.5)
    deciding = [b for b in verdict.ballots if b.deciding]
    assert verdict.p == round(sum(b.p for b in deciding) / 2, 2) or verdict.p in (0.49, 0.51)  # judge-1's 0.5 takes no part
    assert verdict.dissent.winner_split in ("2:0", "1:1")
    assert sum(verdict.best_debater_votes.values()) == 9  # its votes count
    assert all(len(s.judge_scores) == 3 for s in verdict.stage_scores)  # and its scores
    assert "non_deciding_ballot" in verdict.review.reasons and "failed_judge" not in verdict.review.reasons
    assert "judge-1 still gave p = 0.5 after a repair turn" in verdict.review.line()


def test_p_on_a_1_10_scale_that_contradicts_the_winner_is_still_refused(fake_openai):
    answer = weak_model_ballot(VIEW, 8, ["s1"], winner="negative")  # 8 -> 0.8, but the winner is the negative
    fake_openai.push(answer, json.dumps({"winner": "negative", "p": 8}))
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    assert result.value is None and result.failure.kind == FailureKind.REPEATED_REPAIR
    assert "winner: negative contradicts p=0.8" in result.failure.reason


def test_an_empty_reasoning_still_fails_the_ballot(fake_openai):
    answer = weak_model_ballot(VIEW, 0.7, ["s1"], reasoning="")
    fake_openai.push(answer, json.dumps({"reasoning": ""}))
    result = loopback_backend(fake_openai).judge(judge_request_over(VIEW))
    assert result.value is None and result.failure.kind == FailureKind.REPEATED_REPAIR and "reasoning: empty" in result.failure.reason


def test_a_dropped_feedback_failure_is_no_failed_judge_in_the_review():
    from adjudicator.records import NodeFailure
    from adjudicator.verdict.review import review_of

    dropped = NodeFailure(node="judge", key="judge-2", kind=FailureKind.DROPPED_FIELD, reason="dropped_field: answer taken without 1 field(s)")
    assert "failed_judge" not in review_of(0.8, "3:0", [dropped]).reasons
    failed = dropped.model_copy(update={"kind": FailureKind.REPEATED_REPAIR})
    assert "failed_judge" in review_of(0.8, "2:0", [failed]).reasons


SPEAKING = {"s01": ["affirmative"], "s02": ["negative"], "s03": ["affirmative"]}


@pytest.mark.parametrize(
    ("written", "side", "read"),
    [
        ("Round 1", "affirmative", "s01"),  # two stages share 'Round 1': the affirmative speaks in s01
        ("round 1", "negative", "s02"),
        ("Round 1,", "negative", "s02"),
        ("Round 1", None, None),  # no side known: no single reading
        ("Round 2", "affirmative", None),  # no stage starts with it
        ("Round", "affirmative", "s01"),  # the first word of s01's and s02's names; the affirmative speaks in s01
        ("Round 1, affirmative", "negative", None),  # names the affirmative's speech: not the negative's stage
    ],
)
def test_a_name_two_stages_share_is_read_as_the_debaters_own_stage(written, side, read):
    from adjudicator.model.normalise import stage_by_name_and_side_of

    assert stage_by_name_and_side_of(written, STAGES, SPEAKING, side) == read


def test_the_05b_models_round_names_on_debateart_0750_are_read_as_each_debaters_stage(fake_openai):
    # after-run 0750 (0.5B, 05:52): every dropped point named 'Round 2' or 'Round 3', which two stages share
    from pathlib import Path

    from adjudicator.input.match import Match

    match = Match.model_validate_json((Path(__file__).resolve().parents[1] / "adjudicator/data/matches/panelbench/debateart_0750.json").read_text())
    view = match.view()
    aff, neg = view.debater_labels()
    fake_openai.push(weak_model_ballot(view, 0.34, ["Round 2", "Round 2", "Round 3"], winner="negative"))
    result = loopback_backend(fake_openai).judge(judge_request_over(view))
    assert result.failure is None and fake_openai.count == 1  # nothing dropped, no repair turn
    assert [(f.debater, [pt.stage_id for _, pt in f.points()]) for f in result.value.feedback] == [(aff, ["s03", "s03", "s05"]), (neg, ["s04", "s04", "s06"])]
    assert [n.rule for n in result.value.normalised].count("stage_by_name_and_side") == 6
