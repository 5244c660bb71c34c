"""The fine-tuning protocol's pieces, each against values worked by hand (issue 31): Platt scaling,
the train-fitted baselines, the targets, and the gold-number filter."""

from __future__ import annotations

import math

import numpy as np
import pytest
from bench_helpers import labelled_2v2, online

from adjudicator.finetune import baselines as FB
from adjudicator.finetune import targets as T
from adjudicator.finetune.calibration import EPS, fit_platt
from adjudicator.finetune.rationales import REDACTED, filter_rationale, gold_in_text, gold_numbers, number_mentions


def test_platt_with_no_spread_in_p_is_the_smoothed_base_rate():
    # 3 affirmative and 2 negative wins, every p 0.6: targets 4/5 and 1/4 (Platt's smoothing),
    # mean (3 * 0.8 + 2 * 0.25) / 5 = 0.58, so b = ln(0.58 / 0.42) = 0.322773..., a = 0
    fit = fit_platt([0.6] * 5, ["affirmative", "affirmative", "affirmative", "negative", "negative"])
    assert not isinstance(fit, str)
    assert fit.a == 0.0 and fit.b == pytest.approx(math.log(0.58 / 0.42), abs=1e-12)
    assert fit.apply([0.1, 0.9]) == pytest.approx([0.58, 0.58], abs=1e-12)


def test_platt_is_the_maximum_likelihood_fit_and_skips_ties_and_unparsed_matches():
    p = [0.2, 0.3, 0.6, 0.7, 0.8, 0.4, 0.9, float("nan"), 0.5]
    w = ["negative", "negative", "affirmative", "affirmative", "affirmative", "negative", "negative", "affirmative", "tie"]
    fit = fit_platt(p, w)
    assert not isinstance(fit, str) and fit.n == 7 and fit.n_affirmative == 3
    # at the optimum the gradient of the mean log-loss is zero: mean((s - t) * z) = mean(s - t) = 0
    z = np.log(np.array(p[:7]) / (1 - np.array(p[:7])))
    t = np.where(np.array(w[:7]) == "affirmative", 4 / 5, 1 / 6)
    s = 1 / (1 + np.exp(-(fit.a * z + fit.b)))
    assert float(np.mean((s - t) * z)) == pytest.approx(0.0, abs=1e-5) and float(np.mean(s - t)) == pytest.approx(0.0, abs=1e-5)
    assert math.isnan(fit.apply([float("nan")])[0])
    assert fit.apply([0.0])[0] == pytest.approx(1 / (1 + math.exp(-(fit.a * math.log(EPS / (1 - EPS)) + fit.b))), abs=1e-12)  # clipped


def test_platt_refuses_too_few_matches():
    assert fit_platt([0.7, 0.3, 0.6], ["affirmative", "negative", "affirmative"]).startswith("not fitted: 3 training match(es)")


def _two_matches():
    # m1: 2:1 affirmative; s01|affirmative 6, 7, 8 (mean 7), s02 (negative questioning) aff 5/5/5, neg 8/8/9
    a = labelled_2v2("m1", ["affirmative", "affirmative", "negative"], {"s01|affirmative": [6, 7, 8], "s02|affirmative": [5, 5, 5], "s02|negative": [8, 8, 9]},
                     [{"Affirmative Speaker 1": 3}, {"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}, {"Negative Speaker 2": 3}])
    b = labelled_2v2("m2", ["negative"] * 3, {"s01|affirmative": [4, 4, 4], "s02|affirmative": [6, 7, 8], "s02|negative": [5, 5, 5]},
                     [{"Negative Speaker 1": 3}, {"Negative Speaker 1": 3}, {"Negative Speaker 1": 3}])
    return a, b


def test_train_fitted_baselines():
    a, b = _two_matches()
    fit = FB.fit_baselines([a, b])
    assert fit.p_affirmative == pytest.approx(0.5)  # one affirmative win of two decisive
    assert fit.stage_means["ccdb-2v2|constructive|-"] == pytest.approx((7 + 4) / 2)
    # s02 is the negative's questioning: the affirmative responds, the negative questions
    assert fit.stage_means["ccdb-2v2|questioning|respondent"] == pytest.approx((5 + 7) / 2)
    assert fit.stage_means["ccdb-2v2|questioning|questioner"] == pytest.approx((25 / 3 + 5) / 2)
    assert fit.stage_means["*"] == pytest.approx((7 + 5 + 25 / 3 + 4 + 7 + 5) / 6)
    # vote shares: m1 summed {A1: 5, N1: 1, N2: 3} / 9, m2 {N1: 9} / 9; mean per label
    shares = fit.vote_shares["ccdb-2v2"]
    assert shares["Affirmative Speaker 1"] == pytest.approx(5 / 18) and shares["Negative Speaker 1"] == pytest.approx((1 / 9 + 1) / 2)
    pred = FB.predict(fit, [a])
    assert pred["p"].tolist() == [0.5]
    assert pred["unit_pred"].tolist() == pytest.approx([5.5, 6.0, (25 / 3 + 5) / 2])
    assert pred["votes"][0].sum() == pytest.approx(9.0)


def test_targets():
    a, b = _two_matches()
    assert T.winner_target(a) == {"p": 0.67} and T.winner_target(b) == {"p": 0.0}
    means = T.unit_means(a)
    assert T.score_target(means, "s01|affirmative") == {"score": 7}
    assert T.score_target(means, "s02|negative") == {"score": 8}  # 8.33
    assert T.score_target(means, "s03|negative").startswith("not scored")
    assert T.difference_target(means, "s02") == {"difference": -3.33}
    assert T.votes_target(a) == {"votes": ["Affirmative Speaker 1"] * 5 + ["Negative Speaker 2"] * 3 + ["Negative Speaker 1"]}
    assert T.round_half_up(6.5) == 7 and T.round_half_up(-6.5) == -7 and T.round_half_up(6.49) == 6
    assert T.winner_target(online(1, "tie")).startswith("a tie")


def test_gold_numbers_of_a_match():
    a, _ = _two_matches()
    g = gold_numbers(a, [0.67])
    # scores, means (7, 5, 8.33), differences (5 - 8.33 and each judge's), votes, shares in per cent, the split
    for v in (6, 7, 8, 5, 9, 25 / 3, 5 - 25 / 3, 25 / 3 - 5, 3, 2, 1, 0, 56, 33, 11, 0.67):
        assert any(abs(v - x) < 1e-9 for x in g), v


def test_number_mentions_and_the_filter():
    assert [(m.text, m.value) for m in number_mentions("s03 阶段，Speaker 3 得了 8 分，第三环节，正方三辩，二比一，八分，６.５ 分")] == [
        ("8", 8.0), ("二", 2.0), ("一", 1.0), ("八", 8.0), ("6.5", 6.5)]
    assert [m.text for m in number_mentions("She scored seven; eight points; one of the key clashes; 3 votes")] == ["seven", "eight", "3"]
    gold = frozenset({8.0, 25 / 3, 2.0, 1.0})
    assert [m.text for m in gold_in_text("平均 8.33，或 8.3，不是 8.4；第 2 名", gold)] == ["8.33", "8.3"]
    text, n = filter_rationale("反方一辩 8 分，２比１，全场第一", gold)
    assert (text, n) == (f"反方一辩 {REDACTED} 分，{REDACTED}比{REDACTED}，全场第一", 3)
