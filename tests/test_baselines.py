"""Structural baselines (adjudicator.evaluation.baselines): shapes, seeding and exact expectations by hand."""

from __future__ import annotations

import numpy as np
import pytest

from adjudicator.errors import InputError
from adjudicator.evaluation.baselines import (
    always_affirmative,
    expected_tendency_agreement,
    expected_uniform_sq_error,
    oracle_third_speaker,
    predicted_winner_third_speaker,
    random_best_debater,
    random_stage_scores,
    random_winner,
    structure_aware_random_scores,
    uniform_votes,
)
from adjudicator.evaluation.metrics import best_debater_top1, stage_mse, tendency_agreement, vote_share_mae, winner_accuracy
from adjudicator.input.formats import CCDB_4V4

A, N = "affirmative", "negative"


def test_always_affirmative_is_the_base_rate():
    # decisive golds A, N, A (the tie is not applicable) -> 2/3
    b = always_affirmative([A, N, A, "tie"])
    assert b.predictions.tolist() == [1.0, 1.0, 1.0, 1.0]
    assert b.expected["winner_accuracy"] == pytest.approx(2 / 3)
    assert winner_accuracy(b.predictions, [A, N, A, "tie"]).value == pytest.approx(2 / 3)


def test_random_winner_seeded_with_expectation_half():
    gold = [A, N] * 1000
    b1, b2, b3 = random_winner(gold, seed=7), random_winner(gold, seed=7), random_winner(gold, seed=8)
    assert np.array_equal(b1.predictions, b2.predictions) and not np.array_equal(b1.predictions, b3.predictions)
    assert b1.expected == {"winner_accuracy": 0.5} and b1.seed == 7
    assert np.all((b1.predictions >= 0) & (b1.predictions <= 1))
    # a 2000-match draw lands near 0.5 (sd = sqrt(.25/2000) = 0.011)
    assert abs(winner_accuracy(b1.predictions, gold).value - 0.5) < 0.05


def test_uniform_squared_error_by_enumeration():
    # y = 6: sum_u (u-6)^2 / 10 = (25+16+9+4+1+0+1+4+9+16)/10 = 8.5 = 8.25 + (5.5-6)^2
    assert expected_uniform_sq_error(np.array([6.0]))[0] == pytest.approx(8.5)
    y = 23 / 3
    assert expected_uniform_sq_error(np.array([y]))[0] == pytest.approx(sum((u - y) ** 2 for u in range(1, 11)) / 10)


def test_random_stage_scores_expectation_by_hand():
    # E[(U-y)^2]: y=6 -> 8.5 ; y=7 -> 8.25 + 2.25 = 10.5 ; y=5.5 -> 8.25 ; mean 27.25/3
    b = random_stage_scores([6, 7, 5.5], seed=1)
    assert b.expected["stage_mse"] == pytest.approx(27.25 / 3)
    assert b.expected["stage_pearson"] == 0.0
    assert set(b.predictions.tolist()) <= set(range(1, 11))
    # a large seeded draw agrees with the exact expectation: all y = 7 -> 10.5
    big = random_stage_scores([7.0] * 20000, seed=3)
    assert stage_mse(big.predictions, [7.0] * 20000).value == pytest.approx(10.5, abs=0.3)
    assert big.predictions.min() == 1 and big.predictions.max() == 10


def test_structure_aware_random_by_hand():
    # questioner 8, respondent 6, third unit random ; gold 7, 7, 6
    # expected MSE = ((8-7)^2 + (6-7)^2 + 8.5) / 3 = 10.5/3 = 3.5
    b = structure_aware_random_scores(["questioner", "respondent", None], [7, 7, 6], seed=0)
    assert b.predictions[:2].tolist() == [8.0, 6.0] and 1 <= b.predictions[2] <= 10
    assert b.expected["stage_mse"] == pytest.approx(3.5)
    with pytest.raises(InputError):
        structure_aware_random_scores(["asker"], [7], seed=0)
    with pytest.raises(InputError):
        structure_aware_random_scores([None, None], [7], seed=0)


def test_expected_tendency_agreement_by_hand():
    # human tendencies: 7-6 -> + ; 6-6 -> tie ; 5-7 -> -
    # random (P+, P0, P-) = (.45, .10, .45): agree .45, .10, .45 -> all 1.0/3 ; non-tie .45
    e = expected_tendency_agreement([7, 6, 5], [6, 6, 7])
    assert e["tendency_all_pairs"] == pytest.approx(1 / 3) and e["tendency_non_tie"] == pytest.approx(0.45)
    # structure-aware: pair 0 questioner A -> + (agree 1) ; pair 1 questioner N -> - vs tie (0) ;
    # pair 2 random vs - (.45) -> all 1.45/3 ; non-tie (1 + .45)/2 = .725
    s = expected_tendency_agreement([7, 6, 5], [6, 6, 7], questioner=[A, N, None])
    assert s["tendency_all_pairs"] == pytest.approx(1.45 / 3) and s["tendency_non_tie"] == pytest.approx(0.725)


def test_random_tendency_draw_matches_expectation():
    # 3000 paired stages, a third each of human +, tie, - : expected all = (.45 + .10 + .45)/3 = 1/3
    h_aff = np.array([7.0, 6.0, 5.0] * 1000)
    h_neg = np.array([6.0, 6.0, 7.0] * 1000)
    aff = random_stage_scores(h_aff, seed=11).predictions
    neg = random_stage_scores(h_neg, seed=12).predictions
    t = tendency_agreement(aff, neg, h_aff, h_neg)
    assert t.all_pairs.value == pytest.approx(1 / 3, abs=0.03)
    assert t.non_tie.value == pytest.approx(0.45, abs=0.03)


HUMAN = [[2, 4, 3, 0], [4, 4, 1, 0], [3, 3, 3, 0, 0, 0, 0, 0]]


def test_random_best_debater_expectations_by_hand():
    # |D*|/K: 1/4, 2/4, 3/8 -> mean (2/8 + 4/8 + 3/8)/3 = 3/8
    # MAE 2(K-1)/K^2: 6/16, 6/16, 14/64 -> (12/32 + 12/32 + 7/32)/3 = 31/96
    # check of the MAE formula on match 1: one-hot at c has MAE (2 - 2 q_c)/4 with q = 2/9,4/9,3/9,0:
    # 14/36, 10/36, 12/36, 18/36 -> mean 54/144 = 3/8 = 2*3/16
    b = random_best_debater(HUMAN, seed=5)
    assert b.expected["best_debater_top1"] == pytest.approx(3 / 8)
    assert b.expected["vote_share_mae"] == pytest.approx(31 / 96)
    for p, h in zip(b.predictions, HUMAN):
        assert len(p) == len(h) and sorted(p)[-1] == 9 and p.sum() == 9
    # the average over many seeds approaches the exact expectation
    draws = [best_debater_top1(random_best_debater(HUMAN, seed=s).predictions, HUMAN).value for s in range(400)]
    assert np.mean(draws) == pytest.approx(3 / 8, abs=0.03)


def test_uniform_votes_by_hand():
    # 9/4 each; MAE vs [2,4,3,0]: (1/36 + 7/36 + 3/36 + 9/36)/4 = 5/36
    b = uniform_votes([[2, 4, 3, 0]])
    assert b.predictions[0].tolist() == [2.25] * 4
    assert b.expected["vote_share_mae"] == pytest.approx(5 / 36)
    assert vote_share_mae(b.predictions, [[2, 4, 3, 0]]).value == pytest.approx(5 / 36)


LABELS_4V4 = [f"{s} Speaker {i}" for s in ("Affirmative", "Negative") for i in range(1, 5)]
LABELS_2V2 = [f"{s} Speaker {i}" for s in ("Affirmative", "Negative") for i in range(1, 3)]


def test_predicted_winner_third_speaker():
    assert CCDB_4V4.position_labels() == LABELS_4V4
    b = predicted_winner_third_speaker(
        [0.7, 0.2, 0.9, 0.5, None],
        [LABELS_4V4, LABELS_4V4, LABELS_2V2, LABELS_4V4, LABELS_4V4],
        ["ccdb-4v4", "ccdb-4v4", "ccdb-2v2", "ccdb-4v4", "ccdb-4v4"],
    )
    # p 0.7 -> Affirmative Speaker 3 (index 2) ; 0.2 -> Negative Speaker 3 (index 6) ;
    # 2v2 has no third speaker ; p = 0.5 and a missing p predict no side -> None
    assert b.predictions[0].tolist() == [0, 0, 9, 0, 0, 0, 0, 0]
    assert b.predictions[1].tolist() == [0, 0, 0, 0, 0, 0, 9, 0]
    assert b.predictions[2:] == [None, None, None]
    assert b.comparable
    # scored: m0 human top is Aff3 -> right ; m1 human top is Neg2 -> wrong ; rest excluded -> 1/2, n = 2
    human = [[0, 0, 5, 0, 0, 0, 4, 0], [0, 0, 0, 0, 0, 9, 0, 0], [9, 0, 0, 0], [9] + [0] * 7, [9] + [0] * 7]
    r = best_debater_top1(b.predictions, human)
    assert (r.value, r.n, r.n_excluded) == (0.5, 2, 3)


def test_oracle_third_speaker_is_non_comparable():
    b = oracle_third_speaker([N, "tie"], [LABELS_4V4, LABELS_4V4], ["ccdb-4v4", "ccdb-4v4"])
    assert not b.comparable
    assert b.predictions[0].tolist() == [0, 0, 0, 0, 0, 0, 9, 0] and b.predictions[1] is None
    with pytest.raises(InputError):
        oracle_third_speaker([A], [LABELS_4V4], ["australs-3v3"])
