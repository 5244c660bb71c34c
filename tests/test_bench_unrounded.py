"""Metrics are computed from unrounded values: the verdict rounds a panel mean to 3 decimals and the
log-prob p to 4 for display, the bench reads what those were rounded from (issue 30, item 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from bench_helpers import labelled_2v2

from adjudicator.bench.gold import gold_from_matches
from adjudicator.bench.predictions import exact_logprob_p, exact_mean, predictions_for_arm
from adjudicator.bench.results import SampleResult
from adjudicator.evaluation.metrics import stage_mse
from adjudicator.evaluation.uncertainty import brier_score

UNITS = {"s01|affirmative": [7, 7, 8], "s03|negative": [6, 5, 6]}
VOTES = [{"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}] * 3


def _result(judge_scores: dict[tuple[str, str], list[int]], logprobs: list[float]) -> SampleResult:
    stage_scores = [{"stage_id": sid, "side": side, "judge_scores": s, "mean": round(sum(s) / len(s), 3)} for (sid, side), s in judge_scores.items()]
    ballots = [{"judge_id": f"j{k + 1}", "p_logprob": lp} for k, lp in enumerate(logprobs)]
    verdict: dict[str, Any] = {"p": 0.7, "stage_scores": stage_scores, "ballots": ballots, "p_logprob": round(sum(logprobs) / len(logprobs), 4)}
    return SampleResult.model_validate({"sample_id": "m0", "arm": "agentic", "sample_sha256": "0" * 64, "status": "ok", "verdict": verdict})


def _setup(logprobs: list[float]) -> tuple[Any, Any]:
    match = labelled_2v2("m0", ["affirmative"] * 3, UNITS, VOTES)
    gold = gold_from_matches([match])
    scores = {(sid, side): [7, 7, 8] if side == "affirmative" else [6, 6, 6] for _, sid, side in gold.units}
    return gold, predictions_for_arm("agentic", "agentic", gold, [match], {"m0": _result(scores, logprobs)})


def test_stage_means_are_the_judges_mean_not_the_printed_one():
    gold, pr = _setup([0.7, 0.7, 0.7])
    aff = [k for k, (_, _, side) in enumerate(gold.units) if side == "affirmative"]
    # the panel gave 7, 7, 8: the verdict prints 7.333, the metric uses 22/3
    assert all(pr.unit_pred[k] == pytest.approx(22 / 3, abs=1e-15) for k in aff)
    # gold: the judges' 7, 7, 8 (22/3) and 6, 5, 6 (17/3); the arm 22/3 and 6: MSE = (0 + (1/3)^2) / 2 = 1/18
    assert stage_mse(pr.unit_pred, gold.unit_mean).value == pytest.approx(1 / 18, abs=1e-15)
    # from the printed 7.333 it would be ((1/3000)^2 + 1/9) / 2, 5.6e-8 off: the tolerance above sees it
    rounded = np.where(np.isin(np.arange(len(gold.units)), aff), 7.333, pr.unit_pred)
    assert stage_mse(rounded, gold.unit_mean).value - 1 / 18 == pytest.approx((1 / 3000) ** 2 / 2, abs=1e-15)


def test_a_change_at_the_fourth_decimal_moves_the_brier_score_by_the_exact_amount():
    # one ballot's log-prob p moves by 0.0001: the panel's p moves by 0.0001 / 3 (lost when rounded to 4 decimals)
    base, moved = [0.61234, 0.70000, 0.65000], [0.61244, 0.70000, 0.65000]
    _, pr0 = _setup(base)
    _, pr1 = _setup(moved)
    assert pr0.p_logprob is not None and pr1.p_logprob is not None
    assert pr1.p_logprob[0] - pr0.p_logprob[0] == pytest.approx(0.0001 / 3, abs=1e-15)
    # gold affirmative: Brier = (1 - p)^2, so it moves by (1 - p1)^2 - (1 - p0)^2
    p0, p1 = sum(base) / 3, sum(moved) / 3
    b0 = brier_score(pr0.p_logprob, ["affirmative"]).value
    b1 = brier_score(pr1.p_logprob, ["affirmative"]).value
    assert b1 - b0 == pytest.approx((1 - p1) ** 2 - (1 - p0) ** 2, abs=1e-15)
    assert round(p0, 4) == round(p1, 4)  # the verdict's printed value does not move at all


def test_speaker_means_and_fallbacks():
    assert exact_mean({"judge_scores": [75, 76, 76], "mean": 75.667}) == pytest.approx(227 / 3, abs=1e-12)
    assert exact_mean({"mean": 75.5}) == 75.5 and exact_mean({}) is None
    assert exact_logprob_p({"p_logprob": 0.6123}) == 0.6123 and exact_logprob_p({"ballots": [{"judge_id": "j1"}]}) is None


def test_bp_speaker_score_error_uses_the_unrounded_mean():
    from bp_helpers import bp_data

    from adjudicator.bench.scoring.ranking import RankingGold, RankingPredictions
    from adjudicator.evaluation import ranking_metrics as R
    from adjudicator.input.match import Match

    match = Match.model_validate(bp_data("bp_a"))
    gold = RankingGold([match])
    sids = [sid for sid, _, _ in gold.speeches[0]]
    # every speech: the judges gave 80, 80, 81 (the verdict prints 80.333); the first speech 80, 81, 81 (80.667)
    speaker_scores = [{"stage_id": sid, "judge_scores": [80, 81, 81] if k == 0 else [80, 80, 81], "mean": 80.667 if k == 0 else 80.333, "rank": k + 1} for k, sid in enumerate(sids)]
    res = SampleResult.model_validate({"sample_id": "bp_a", "arm": "agentic", "sample_sha256": "0" * 64, "status": "ok", "verdict": {"speaker_scores": speaker_scores}})
    pr = RankingPredictions(gold, {"bp_a": res})
    assert pr.score[0] == pytest.approx(242 / 3, abs=1e-12) and all(x == pytest.approx(241 / 3, abs=1e-12) for x in pr.score[1:])
    # against a gold of 80 everywhere the error is exactly (2 / 3 + 7 * 1 / 3) / 8 = 0.375, not 0.37475 from the printed means
    mae = R.speaker_score_mae(np.array(pr.score), np.full(len(sids), 80.0))
    assert len(sids) == 8 and mae.value == pytest.approx(0.375, abs=1e-12)
