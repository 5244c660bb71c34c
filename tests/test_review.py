"""Escalation: the review rule on verdicts, and selective accuracy against coverage (by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.api import adjudicate
from adjudicator.evaluation.selective import rule_selective, selective_accuracy
from adjudicator.input.match_file import load_match
from adjudicator.records import FailureKind, NodeFailure
from adjudicator.verdict.review import review_of, with_probe_flips

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator/data/matches"


def test_a_clear_unanimous_verdict_is_not_escalated():
    r = review_of(0.68, "3:0", [])
    assert (r.escalate, r.reasons, r.band) == (False, [], 0.1)


def test_each_reason_escalates_and_says_why():
    assert review_of(0.60, "3:0", []).reasons == ["close_call"]  # |0.60 - 0.5| = 0.1: inside the band
    assert review_of(0.39, "3:0", []).reasons == []
    r = review_of(0.45, "2:1", [NodeFailure(node="judge", key="judge-2", kind=FailureKind.UNPARSEABLE, reason="unparseable: x")])
    assert r.reasons == ["close_call", "split_panel", "failed_judge"]
    assert r.detail == ["p = 0.45 is within 0.1 of 0.5", "the panel split 2:1 on the winner", "judge(s) judge-2 failed: the verdict counts no ballot of theirs"]
    flipped = with_probe_flips(review_of(0.8, "3:0", []), ["swap"])
    assert flipped.escalate and flipped.reasons == ["probe_flip"] and "swap" in flipped.detail[0]


def test_offline_verdicts_carry_the_review():
    v = adjudicate(load_match(BUNDLED / "synthetic/synthetic_2v2_01.json"))
    expected = abs(v.p - 0.5) <= 0.1 or v.dissent.winner_split != "3:0"
    assert v.review is not None and v.review.escalate == expected
    assert "review" in v.model_dump(mode="json")


def test_selective_accuracy_against_coverage():
    p = [0.9, 0.7, 0.55, 0.45, 0.2, None]
    gold = ["affirmative", "negative", "affirmative", "affirmative", "negative", "affirmative"]
    curve = selective_accuracy(p, gold, bands=(0.0, 0.1, 0.3))
    # eligible: the five with a p; correct: 0.9 yes, 0.7 no, 0.55 yes, 0.45 no, 0.2 yes
    assert [(c.kept, c.n, c.accuracy) for c in curve] == [(5, 5, pytest.approx(3 / 5)), (3, 5, pytest.approx(2 / 3)), (1, 5, 1.0)]
    # band 0.1 keeps |p - 0.5| > 0.1: 0.9, 0.7, 0.2; band 0.3 keeps 0.9 only (|0.2 - 0.5| = 0.3 is inside)
    assert curve[1].coverage == pytest.approx(0.6)
    rule = rule_selective(p, gold, [False, True, False, True, False, None])
    assert (rule.kept, rule.accuracy) == (3, 1.0)
    with pytest.raises(ValueError, match="bands"):
        selective_accuracy(p, gold, bands=(0.5,))


LONG = "the negative won the sleep clash in s2 and Negative Speaker 1 kept it through the closing, so the negative wins"


def _ballot(judge_id: str, p: float = 0.36, score: int = 6, votes: dict[str, int] | None = None, reasoning: str = LONG):
    from adjudicator.verdict.ballots import Ballot, BallotScore

    return Ballot(
        judge_id=judge_id,
        perspective=judge_id,
        model="m",
        winner="affirmative" if p > 0.5 else "negative",
        p=p,
        stage_scores=[BallotScore(stage_id="s1", side="affirmative", score=score), BallotScore(stage_id="s2", side="negative", score=7)],
        best_debater_votes=votes or {"Negative Speaker 1": 2, "Affirmative Speaker 1": 1},
        reasoning=reasoning,
    )


def test_two_or_three_identical_ballots_are_escalated():
    same = [_ballot(f"judge-{i}") for i in (1, 2, 3)]
    r = review_of(0.36, "3:0", [], ballots=same)  # clear and unanimous: only the identity escalates it
    assert (r.escalate, r.reasons) == (True, ["identical_ballots"])
    assert r.detail == ["identical ballots (the same winner, p and best-debater votes): all 3 ballots; the judges may not have judged independently"]
    # the decision is winner, p and votes: a differing stage score does not make two ballots independent
    assert review_of(0.36, "3:0", [], ballots=[*same[:2], _ballot("judge-3", score=5)]).reasons == ["identical_ballots"]
    # two of three alike are escalated too, and named (before: only all three)
    two = review_of(0.36, "3:0", [], ballots=[*same[:2], _ballot("judge-3", p=0.35)])
    assert two.reasons == ["identical_ballots"] and "): judge-1 and judge-2;" in two.detail[0]
    # every pair differing in p or votes: an ordinary unanimous panel
    assert review_of(0.36, "3:0", [], ballots=[same[0], _ballot("judge-2", p=0.35), _ballot("judge-3", votes={"Negative Speaker 1": 3})]).reasons == []
    assert review_of(0.36, "3:0", [], ballots=same[:1]).reasons == []  # one ballot is no panel


def test_an_llm_verdict_with_identical_ballots_says_so(fake_openai):  # noqa: F811
    from llm_helpers import online_match, schema_responder

    from adjudicator.api import adjudicate_with_context
    from adjudicator.judges.llm.backend import LLMBackend
    from adjudicator.model.llm import LLMClient
    from adjudicator.model.prompts import PromptStore
    from adjudicator.workflow.context import AdjudicationContext

    fake_openai.respond_with(schema_responder)  # every judge gets the same answer: a 35-character reason, 7 for every stage
    client = LLMClient("openai/test-model", api_base=fake_openai.base_url, api_key="sk-test-0123456789", json_mode="object")
    v = adjudicate_with_context(online_match(), AdjudicationContext.single(LLMBackend(client, PromptStore())))
    assert v.p == 0.62 and v.dissent.winner_split == "3:0"
    assert v.review.escalate and v.review.reasons == ["short_reasoning", "identical_ballots", "equal_stage_scores", "tracker_scores"]  # the tracker suggested 7 too
    assert v.review.detail[0] == "the reasoning of judge-1 (35), judge-2 (35) and judge-3 (35) is shorter than 80 characters"
    assert v.review.detail[2] == "every stage score is the same on the ballot of judge-1 (all 7), judge-2 (all 7) and judge-3 (all 7)"
