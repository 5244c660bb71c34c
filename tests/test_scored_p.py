"""Which p the metrics score (issue 42, item 3; docs/metrics.md "Which p is scored"): a panel's p
unrounded (the mean of its ballots' p) unless that mean would predict the other side than the
panel's winner; the single-call and pairwise p as stated."""

from __future__ import annotations

from typing import Any

import pytest
from bench_helpers import labelled_2v2

from adjudicator.bench.gold import gold_from_matches
from adjudicator.bench.predictions import exact_p, predictions_for_arm
from adjudicator.bench.results import SampleResult
from adjudicator.evaluation.uncertainty import brier_score

UNITS = {"s01|affirmative": [7, 7, 8], "s03|negative": [6, 5, 6]}
VOTES = [{"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}] * 3


def _panel(ps: list[float], winner: str, stated: float) -> dict[str, Any]:
    ballots = [{"judge_id": f"j{k + 1}", "p": p, "winner": "affirmative" if p > 0.5 else "negative"} for k, p in enumerate(ps)]
    return {"p": stated, "winner": winner, "ballots": ballots}


def _scored(verdict: dict[str, Any]) -> float:
    match = labelled_2v2("m0", ["affirmative"] * 3, UNITS, VOTES)
    gold = gold_from_matches([match])
    res = SampleResult.model_validate({"sample_id": "m0", "arm": "agentic", "sample_sha256": "0" * 64, "status": "ok", "verdict": verdict})
    return float(predictions_for_arm("agentic", "agentic", gold, [match], {"m0": res}).p[0])


def test_the_panel_p_is_the_ballots_mean_not_the_printed_one():
    # ballots 0.70, 0.70, 0.71: the verdict prints round(2.11 / 3, 2) = 0.70; the metric scores 2.11 / 3 = 0.70333
    p = _scored(_panel([0.70, 0.70, 0.71], "affirmative", 0.70))
    assert p == pytest.approx(2.11 / 3, abs=1e-12)
    # gold affirmative: Brier (1 - 0.70333)^2 = 0.088011, not (1 - 0.70)^2 = 0.09
    assert brier_score([p], ["affirmative"]).value == pytest.approx((1 - 2.11 / 3) ** 2, abs=1e-12)
    assert brier_score([p], ["affirmative"]).value == pytest.approx(0.088011, abs=1e-6)


def test_a_mean_on_the_losing_side_is_scored_as_the_verdict_states_it():
    # 0.51, 0.52, 0.45: two judges for the affirmative, mean 1.48 / 3 = 0.4933 would predict the negative;
    # the panel's p must predict its winner (p > 0.5 predicts the affirmative, no tie): the verdict's 0.51
    assert _scored(_panel([0.51, 0.52, 0.45], "affirmative", 0.51)) == 0.51
    # 0.40, 0.45, 0.65 with winner negative: mean 0.50 exactly -> the verdict's 0.49
    assert _scored(_panel([0.40, 0.45, 0.65], "negative", 0.49)) == 0.49


def test_single_call_and_pairwise_p_are_scored_as_stated():
    assert exact_p({"p": 0.63, "winner": "affirmative"}) == 0.63  # the model's own 2-decimal answer
    pairwise = _panel([0.70, 0.70, 0.71], "affirmative", 0.72) | {"pairwise": {"fits": {}}}
    assert exact_p(pairwise) == 0.72  # the Bradley-Terry p of all comparisons, not a ballot mean
    assert exact_p({"winner": None, "ballots": []}) is None
