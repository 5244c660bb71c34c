"""Metrics of adjudicator.evaluation.metrics against values computed by hand (paper 2.3, A.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from adjudicator.errors import InputError
from adjudicator.evaluation.metrics import (
    MetricResult,
    average_ranks,
    best_debater_top1,
    stage_mse,
    stage_pearson,
    stage_spearman,
    tendency_agreement,
    tendency_sign,
    top1_credit,
    vote_share_mae,
    vote_share_pearson,
    vote_share_spearman,
    winner_accuracy,
    winner_correct,
    winner_from_p,
)

A, N = "affirmative", "negative"
NAN = float("nan")


# ---------------------------------------------------------------------------------------------
# Task 1


def test_winner_accuracy_counts_half_as_wrong_and_excludes_ties_and_missing():
    # 0.8 vs A: right | 0.3 vs A: wrong | 0.5 vs N: wrong (0.5 is incorrect, stays in n)
    # 0.6 vs tie: not applicable | 0.9 vs N: wrong | NaN: parse failure, excluded
    # -> 1 right of n = 4 -> 0.25; 2 excluded
    r = winner_accuracy([0.8, 0.3, 0.5, 0.6, 0.9, NAN], [A, A, N, "tie", N, A])
    assert r == MetricResult(value=0.25, n=4, n_excluded=2)


def test_winner_half_is_incorrect_for_either_gold_side():
    # p = 0.5 predicts no side: wrong against A and against N -> 0 of 2
    r = winner_accuracy([0.5, 0.5], [A, N])
    assert (r.value, r.n) == (0.0, 2)
    assert winner_from_p(0.5) is None and winner_from_p(0.51) == A and winner_from_p(0.49) == N


def test_winner_correct_vector_and_none_gold():
    c = winner_correct([1.0, 0.0, 0.7, None], [A, A, None, N])
    # right, wrong, gold None -> NaN, prediction None -> NaN
    assert c[0] == 1.0 and c[1] == 0.0 and math.isnan(c[2]) and math.isnan(c[3])


def test_winner_accuracy_undefined_when_nothing_applies():
    r = winner_accuracy([0.7, 0.2], ["tie", "tie"])
    assert math.isnan(r.value) and r.n == 0 and r.n_excluded == 2
    assert r.as_dict() == {"value": None, "n": 0, "n_excluded": 2}


@pytest.mark.parametrize(
    "pred,gold",
    [([1.2], [A]), ([0.4], ["draw"]), ([0.4, 0.6], [A])],
)
def test_winner_accuracy_rejects_bad_input(pred, gold):
    with pytest.raises(InputError):
        winner_accuracy(pred, gold)


# ---------------------------------------------------------------------------------------------
# Task 2


def test_stage_mse_by_hand():
    # errors 7-6=1, 5-6=-1, 8-8=0; the 4th pair has no prediction -> (1 + 1 + 0) / 3
    r = stage_mse([7, 5, 8, NAN], [6, 6, 8, 7])
    assert r.value == pytest.approx(2 / 3) and r.n == 3 and r.n_excluded == 1


def test_stage_pearson_by_hand():
    # x = 1,2,3,4 (mean 2.5), y = 2,4,5,9 (mean 5)
    # sxy = (-1.5)(-3) + (-.5)(-1) + (.5)(0) + (1.5)(4) = 4.5 + .5 + 0 + 6 = 11
    # sxx = 2.25 + .25 + .25 + 2.25 = 5 ; syy = 9 + 1 + 0 + 16 = 26 ; r = 11 / sqrt(130) = 0.96476
    r = stage_pearson([1, 2, 3, 4], [2, 4, 5, 9])
    assert r.value == pytest.approx(11 / math.sqrt(130)) and r.n == 4


def test_stage_spearman_with_ties_by_hand():
    # x = 1,2,2,3 -> average ranks 1, 2.5, 2.5, 4 ; y = 1,3,2,4 -> ranks 1,3,2,4 ; both mean 2.5
    # centred rx = -1.5,0,0,1.5 ; ry = -1.5,.5,-.5,1.5
    # sxy = 2.25 + 0 + 0 + 2.25 = 4.5 ; sxx = 4.5 ; syy = 2.25+.25+.25+2.25 = 5
    # rho = 4.5 / sqrt(4.5 * 5) = sqrt(0.9) = 0.948683
    r = stage_spearman([1, 2, 2, 3], [1, 3, 2, 4])
    assert r.value == pytest.approx(math.sqrt(0.9))
    assert r.value == pytest.approx(stats.spearmanr([1, 2, 2, 3], [1, 3, 2, 4]).statistic)


def test_average_ranks_by_hand_and_value_for_value_as_scipy():
    # 3, 1, 3, 2, 3: 1 -> rank 1, 2 -> rank 2, the three 3s span ranks 3..5 -> (3 + 4 + 5) / 3 = 4
    assert average_ranks(np.array([3.0, 1.0, 3.0, 2.0, 3.0])).tolist() == [4.0, 1.0, 4.0, 2.0, 4.0]
    assert average_ranks(np.array([-0.0, 0.0])).tolist() == [1.5, 1.5]  # equal values tie
    rng = np.random.default_rng(7)
    for n in (1, 2, 5, 40, 333):
        x = rng.integers(0, 6, size=n) / 3.0  # many ties, three-judge means
        ours, theirs = average_ranks(x), stats.rankdata(x, method="average")
        assert ours.dtype == theirs.dtype and ours.tobytes() == theirs.tobytes()


def test_stage_correlations_undefined_cases():
    # constant prediction: zero variance -> NaN, not 0
    assert math.isnan(stage_pearson([7, 7, 7], [5, 6, 8]).value)
    assert math.isnan(stage_spearman([7, 7, 7], [5, 6, 8]).value)
    # one usable pair -> NaN
    r = stage_pearson([7, NAN], [5, 6])
    assert math.isnan(r.value) and r.n == 1 and r.n_excluded == 1
    # no pair at all
    assert math.isnan(stage_mse([NAN], [6]).value)


def test_tendency_agreement_by_hand():
    # human means from three judges: 20/3 = mean(7,7,6), 19/3 = mean(6,6,7)
    h_aff = [7, 6, np.mean([7, 7, 6]), 6, 5, 6]
    h_neg = [6, 6, 7, np.mean([6, 6, 7]), 5, 5]
    p_aff = [8, 6, 7, 5, 7, NAN]
    p_neg = [6, 6, 7, 7, 5, 6]
    # pair 0: model +, human +        -> agree
    # pair 1: model 0, human 0        -> agree (tie on tie)
    # pair 2: model 0, human - (-1/3) -> disagree
    # pair 3: model -, human - (-1/3) -> agree
    # pair 4: model +, human 0        -> disagree
    # pair 5: prediction missing      -> excluded
    # all pairs: 3 / 5 = 0.6 ; non-tie human pairs 0, 2, 3: agree 0 and 3 -> 2/3
    t = tendency_agreement(p_aff, p_neg, h_aff, h_neg)
    assert t.all_pairs.value == pytest.approx(0.6) and t.all_pairs.n == 5 and t.all_pairs.n_excluded == 1
    assert t.non_tie.value == pytest.approx(2 / 3) and t.non_tie.n == 3 and t.non_tie.n_excluded == 3


def test_tendency_sign_tolerates_float_noise():
    # (0.1 + 0.2) - 0.3 is 5.5e-17, not 0: still a tie
    s = tendency_sign([0.1 + 0.2, 2.0], [0.3, 1.0])
    assert list(s) == [0.0, 1.0]


# ---------------------------------------------------------------------------------------------
# Task 3

PRED = [[0, 9, 0, 0], [5, 0, 4, 0], [3, 3, 3, 0], [0, 0, 9, 0], None]
HUMAN = [[2, 4, 3, 0], [4, 4, 1, 0], [0, 1, 6, 2], [9, 0, 0, 0], [3, 3, 3, 0]]


def test_best_debater_top1_by_hand():
    # m1: argmax 1, D* = {1}                         -> 1
    # m2: argmax 0, D* = {0, 1} (human tie)          -> 1
    # m3: model tie {0,1,2}, D* = {2}: 1 of 3 tied   -> 1/3
    # m4: argmax 2, D* = {0}                         -> 0
    # m5: no prediction                              -> excluded
    # mean = (1 + 1 + 1/3 + 0) / 4 = 7/12
    r = best_debater_top1(PRED, HUMAN)
    assert r.value == pytest.approx(7 / 12) and r.n == 4 and r.n_excluded == 1


def test_top1_credit_model_tie_rule():
    # model tie {0, 1}, human tie {1, 2}: overlap {1} -> 1/2
    assert top1_credit([4, 4, 1, 0], [0, 4, 4, 1]) == 0.5
    # all-equal (uniform) prediction: |D*| / K = 1/4
    assert top1_credit([2.25] * 4, [2, 4, 3, 0]) == 0.25


def test_vote_share_mae_by_hand():
    # m1: shares [0,1,0,0] vs [2,4,3,0]/9: |..| = 2/9, 5/9, 3/9, 0 -> 10/9 / 4 = 5/18
    # m2: [5,0,4,0]/9 vs [4,4,1,0]/9: 1/9, 4/9, 3/9, 0 -> 8/9 / 4 = 2/9 = 4/18
    # mean = (5/18 + 4/18) / 2 = 1/4
    r = vote_share_mae(PRED[:2], HUMAN[:2])
    assert r.value == pytest.approx(0.25) and r.n == 2


def test_vote_share_mae_uniform_fractional_and_own_total():
    # uniform 9/4 = 2.25 each: shares 1/4 vs 2/9, 4/9, 3/9, 0:
    # |9-8|/36 + |9-16|/36 + |9-12|/36 + 9/36 = 20/36 ; / 4 = 5/36
    assert vote_share_mae([[2.25] * 4], [[2, 4, 3, 0]]).value == pytest.approx(5 / 36)
    # a 3-vote ballot is normalised by its own total: [1,1,1,0]/3 == [3,3,3,0]/9 -> 0
    assert vote_share_mae([[1, 1, 1, 0]], [[3, 3, 3, 0]]).value == 0.0


def test_vote_share_correlations_pooled_by_hand():
    # pooled points (votes; r and rho are scale-free): x = 0,9,0,0,5,0,4,0  y = 2,4,3,0,4,4,1,0
    # Pearson: means 18/8 = 2.25 ; sxy = 60 - 8*2.25*2.25 = 19.5 ; sxx = 122 - 40.5 = 81.5
    #          syy = 62 - 40.5 = 21.5 ; r = 19.5 / sqrt(81.5 * 21.5) = 0.465840
    r = vote_share_pearson(PRED[:2], HUMAN[:2])
    assert r.value == pytest.approx(19.5 / math.sqrt(81.5 * 21.5)) and r.n == 2
    # Spearman: rx = 3,8,3,3,7,3,6,3 (five zeros share rank 3) ; ry = 4,7,5,1.5,7,7,3,1.5 ; means 4.5
    # sxy = .75+8.75-.75+4.5+6.25-3.75-2.25+4.5 = 18 ; sxx = 32 ; syy = 39.5 ; rho = 18/sqrt(1264)
    rho = vote_share_spearman(PRED[:2], HUMAN[:2])
    assert rho.value == pytest.approx(18 / math.sqrt(32 * 39.5))


def test_vote_share_pearson_mixed_k_artefact_and_centring():
    # uniform votes on a K=4 and a K=2 match. Pooled shares x = 1/4 x4, 1/2 x2 (mean 1/3),
    # y = 2/9, 4/9, 3/9, 0, 6/9, 3/9 (mean 1/3). xc = -1/12 x4, 1/6 x2 ; yc = -1/9, 1/9, 0, -1/3, 1/3, 0
    # sxy = (-1/12)(-1/3) + (1/6)(1/3) = 1/36 + 2/36 = 1/12 ; sxx = 4/144 + 2/36 = 1/12
    # syy = 2/81 + 2/9 = 20/81 ; r = (1/12) / sqrt((1/12)(20/81)) = 9 / sqrt(240) = 0.5809
    pred = [[2.25] * 4, [4.5, 4.5]]
    human = [[2, 4, 3, 0], [6, 3]]
    assert vote_share_pearson(pred, human).value == pytest.approx(9 / math.sqrt(240))
    # centring each share by 1/K leaves uniform votes constant (all 0): undefined
    assert math.isnan(vote_share_pearson(pred, human, centre_within_match=True).value)


def test_vote_inputs_misaligned_or_negative():
    with pytest.raises(InputError):
        best_debater_top1([[9, 0]], [[1, 1, 1]])
    with pytest.raises(InputError):
        vote_share_mae([[10, -1]], [[1, 2]])
    with pytest.raises(InputError):
        vote_share_mae([[9, 0]], [[1, 2], [3, 0]])


def test_zero_vote_gold_is_not_applicable():
    # human cast no vote: D* would be everyone; excluded instead of counted correct
    r = best_debater_top1([[9, 0, 0]], [[0, 0, 0]])
    assert math.isnan(r.value) and r.n == 0 and r.n_excluded == 1


def test_vote_metrics_agree_with_per_match_definitions():
    # the vectorised implementation equals the per-match formulas on mixed K, ties and exclusions
    rng = np.random.default_rng(4)
    human, pred = [], []
    for m in range(60):
        k = 8 if m % 3 else 4
        human.append(rng.integers(0, 4, size=k))
        pred.append(None if m % 11 == 0 else rng.integers(0, 4, size=k))
    pairs = [(np.asarray(p, float), np.asarray(h, float)) for p, h in zip(pred, human) if p is not None and p.sum() > 0 and h.sum() > 0]
    top = np.mean([top1_credit(p, h) for p, h in pairs])
    mae = np.mean([np.mean(np.abs(p / p.sum() - h / h.sum())) for p, h in pairs])
    x = np.concatenate([p / p.sum() for p, _ in pairs])
    y = np.concatenate([h / h.sum() for _, h in pairs])
    assert best_debater_top1(pred, human).value == pytest.approx(top)
    assert best_debater_top1(pred, human).n == len(pairs)
    assert vote_share_mae(pred, human).value == pytest.approx(mae)
    assert vote_share_pearson(pred, human).value == pytest.approx(stats.pearsonr(x, y).statistic)
    assert vote_share_spearman(pred, human).value == pytest.approx(stats.spearmanr(x, y).statistic)


def test_vote_vector_with_nan_is_missing_and_bad_shapes_are_named():
    r = vote_share_mae([[NAN, 9, 0], [9, 0, 0]], [[1, 1, 1], [3, 0, 0]])
    assert (r.value, r.n, r.n_excluded) == (0.0, 1, 1)
    with pytest.raises(InputError, match=r"pred_votes\[1\]"):
        best_debater_top1([[9, 0], [[9, 0]]], [[1, 2], [1, 2]])
    with pytest.raises(InputError, match="1-D"):
        best_debater_top1([5], [[1, 2]])
