"""Label reliability (adjudicator.evaluation.reliability) against values computed by hand (paper 2.5, App. B.1)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from adjudicator.errors import InputError
from adjudicator.evaluation.reliability import (
    best_debater_consensus,
    human_stage_references,
    human_vote_references,
    human_winner_references,
    icc_1k,
    judge_score_mse,
    paired_differences,
    score_band_agreement,
    winner_vote_agreement,
)
from adjudicator.evaluation.reliability_report import reliability_from_matches
from adjudicator.input.formats import CCDB_2V2
from adjudicator.input.match import Match

A, N = "affirmative", "negative"

TABLE = [[7, 8, 6], [5, 5, 5], [9, 8, 7]]


def test_icc_1_3_by_hand():
    # row means 7, 5, 8 ; grand mean 20/3
    # SSB = 3 * [(1/3)^2 + (5/3)^2 + (4/3)^2] = 3 * 42/9 = 14 ; MSB = 14 / (3-1) = 7
    # SSW = (0+1+1) + 0 + (1+0+1) = 4 ; MSW = 4 / (3*(3-1)) = 2/3
    # ICC(1,3) = (7 - 2/3) / 7 = 19/21 = 0.904762
    r = icc_1k(TABLE)
    assert r.value == pytest.approx(19 / 21) and r.n == 3


def test_icc_of_paired_differences_by_hand():
    # per-judge aff - neg: [7,8,6]-[6,6,6] = [1,2,0] ; [6,6,6]-[7,7,8] = [-1,-1,-2]
    # row means 1, -4/3 ; grand -1/6 ; SSB = 3 * [(7/6)^2 + (7/6)^2] = 49/6 ; MSB = 49/6 / 1
    # SSW = (0+1+1) + (1/9+1/9+4/9) = 8/3 ; MSW = (8/3) / (2*2) = 2/3
    # ICC = (49/6 - 4/6) / (49/6) = 45/49 = 0.918367
    d = paired_differences([[7, 8, 6], [6, 6, 6]], [[6, 6, 6], [7, 7, 8]])
    assert d.tolist() == [[1, 2, 0], [-1, -1, -2]]
    assert icc_1k(d).value == pytest.approx(45 / 49)


def test_icc_edge_cases():
    # negative, not clipped: rows [1,9,5] (mean 5), [6,4,8] (mean 6); grand 5.5
    # SSB = 3 * (0.25 + 0.25) = 1.5 = MSB ; SSW = 16+16+0 + 0+4+4 = 40 ; MSW = 40/4 = 10
    # ICC = (1.5 - 10) / 1.5 = -17/3
    assert icc_1k([[1, 9, 5], [6, 4, 8]]).value == pytest.approx(-17 / 3)
    # identical row means: MSB = 0 -> undefined
    assert math.isnan(icc_1k([[1, 9, 5], [5, 5, 5]]).value)
    # one complete row (the other has a missing judge) -> undefined, row counted as excluded
    r = icc_1k([[7, 8, 6], [5, float("nan"), 5]])
    assert math.isnan(r.value) and r.n == 1 and r.n_excluded == 1


def test_score_band_agreement_by_hand():
    # [7,8,6] well/well/well -> all same ; [5,6,9] approx/well/perfect -> all different
    # [3,4,5] not/approx/approx -> two same ; [9,10,8] perfect/perfect/well -> two same
    b = score_band_agreement([[7, 8, 6], [5, 6, 9], [3, 4, 5], [9, 10, 8]])
    assert (b.all_same.value, b.two_same.value, b.all_different.value) == (0.25, 0.5, 0.25)
    assert b.all_same.n == 4
    with pytest.raises(InputError):
        score_band_agreement([[7, 8], [5, 6]])
    with pytest.raises(InputError):
        score_band_agreement([[7, 8, 11]])


def test_judge_score_mse_both_definitions():
    # deviations from the stage mean: (0,1,1) (0,0,0) (1,0,1) -> squares sum 4 over 9 scores = 4/9
    assert judge_score_mse(TABLE).value == pytest.approx(4 / 9)
    # pairwise: row 1 (7-8)^2=1, (7-6)^2=1, (8-6)^2=4 -> 6 ; row 2: 0 ;
    # row 3 (9-8)^2=1, (9-7)^2=4, (8-7)^2=1 -> 6 ; 12 over 9 pairs = 4/3 = 3 x 4/9 (the k = 3 identity)
    assert judge_score_mse(TABLE, kind="pairwise").value == pytest.approx(4 / 3)


def test_human_stage_references_by_hand():
    # self-included MSE = judge MSE = 4/9
    # leave-one-out targets (mean of the other two): row 1: 7, 6.5, 7.5 -> errors 0, 1.5, -1.5
    # row 2: 0, 0, 0 ; row 3: 7.5, 8, 8.5 -> errors 1.5, 0, -1.5 ; squares sum 4 * 2.25 = 9 over 9 -> 1
    # (= 9/4 x 4/9, the paper's 1.709 = 9/4 x .759)
    # self-included Pearson over 9 (judge, stage) points: sxy = 3 * sum (m_i - G)^2 = 14 (= SSB),
    # syy = 14, sxx = SSB + SSW = 18 -> r = sqrt(14/18) = sqrt(7/9) = 0.881917
    h = human_stage_references(TABLE)
    assert h.self_included.mse.value == pytest.approx(4 / 9) and h.self_included.mse.n == 9
    assert h.leave_one_out.mse.value == pytest.approx(1.0)
    assert h.self_included.pearson.value == pytest.approx(math.sqrt(7 / 9))


WINNER_VOTES = [[A, A, A], [A, A, N], [N, N, N], [N, A, N]]


def test_winner_vote_agreement_by_hand():
    # agreeing pairs: 3 + 1 + 3 + 1 = 8 of 12 -> 2/3 ; unanimous 2 of 4
    # equal ability: q = (1 + sqrt(2*2/3 - 1)) / 2 = (1 + 1/sqrt(3)) / 2 = 0.788675
    # panel: q^3 + 3 q^2 (1 - q) = 0.884900
    w = winner_vote_agreement(WINNER_VOTES)
    assert w.pairwise.value == pytest.approx(2 / 3) and w.pairwise.n == 12
    assert w.unanimous.value == 0.5 and w.split.value == 0.5 and w.unanimous.n == 4
    q = (1 + 1 / math.sqrt(3)) / 2
    assert w.equal_ability_judge_accuracy == pytest.approx(q)
    assert w.equal_ability_panel_accuracy == pytest.approx(q**3 + 3 * q**2 * (1 - q))


def test_winner_agreement_reproduces_paper_numbers():
    # paper 2.5: 82 unanimous, 66 split of 148 -> (82*3 + 66) / 444 = 312/444 = 0.7027,
    # single judge q = (1 + sqrt(2*0.7027 - 1)) / 2 = 0.8184 (the paper's 81.9 % comes from the rounded
    # 70.3 %: (1 + sqrt(0.406)) / 2 = 0.8186), panel q^3 + 3q^2(1-q) = 0.9130 (paper 91.3 %)
    # Appendix B.1: self-included (246 + 132)/444 = .851, leave-one-out 246 / (246 + 66) = .788
    votes = [[A, A, A]] * 41 + [[N, N, N]] * 41 + [[A, A, N]] * 33 + [[N, N, A]] * 33
    w = winner_vote_agreement(votes)
    assert w.pairwise.value == pytest.approx(312 / 444)
    assert w.equal_ability_judge_accuracy == pytest.approx((1 + math.sqrt(2 * 312 / 444 - 1)) / 2)
    assert abs(w.equal_ability_judge_accuracy - 0.819) < 0.001
    assert round(w.equal_ability_panel_accuracy, 3) == 0.913
    h = human_winner_references(votes)
    assert round(h.self_included.value, 3) == 0.851 and round(h.leave_one_out.value, 3) == 0.788


def test_human_winner_references_by_hand():
    # self-included: 3 + 2 + 3 + 2 = 10 right of 12
    # leave-one-out: m1 3 right ; m2 (A,A,N): both A judges see a 1:1 split -> excluded, N vs (A,A) wrong
    # m3 3 right ; m4 (N,A,N): N1 sees (A,N) excluded, A vs (N,N) wrong, N3 sees (N,A) excluded
    # -> 6 right of 8, 4 excluded
    h = human_winner_references(WINNER_VOTES)
    assert h.self_included.value == pytest.approx(10 / 12) and h.self_included.n == 12
    assert h.leave_one_out.value == pytest.approx(0.75) and h.leave_one_out.n == 8 and h.leave_one_out.n_excluded == 4


def test_best_debater_consensus_with_ties_by_hand():
    tables = [
        [[2, 1, 0, 0], [1, 1, 1, 0], [0, 3, 0, 0]],  # sum 3,5,1,0 -> best 1, every judge voted -> yes
        [[3, 0, 0, 0], [0, 3, 0, 0], [2, 1, 0, 0]],  # sum 5,4,0,0 -> best 0, judge 2 did not -> no
        [[2, 1, 0, 0], [1, 2, 0, 0], [0, 0, 3, 0]],  # tie {0,1,2}: none voted by all -> no
        [[1, 1, 1, 0], [1, 2, 0, 0], [1, 0, 2, 0]],  # tie {0,1,2}: 0 voted by all -> yes
        [[3, 0, 0, 0], [0, 0, 0, 0], [0, 3, 0, 0]],  # a judge cast no vote -> excluded
    ]
    c = best_debater_consensus(tables)
    assert c.share.value == 0.5 and c.share.n == 4 and c.share.n_excluded == 1 and c.n_tied_top == 2


def test_human_vote_references_by_hand():
    # judges [2,1,0,0], [1,1,1,0], [0,3,0,0] ; total 3,5,1,0 (D* = {1})
    # self top-1: j1 argmax 0 -> 0 ; j2 tie {0,1,2} -> 1/3 ; j3 argmax 1 -> 1 ; mean 4/9
    # loo top-1: j1 vs 1,4,1,0 -> 0 ; j2 vs 2,4,0,0 -> 1/3 ; j3 vs 3,2,1,0 (D*={0}) -> 0 ; mean 1/9
    # self MAE (shares): j1 [2/3,1/3,0,0] vs [1/3,5/9,1/9,0] -> (1/3+2/9+1/9)/4 = 1/6
    #   j2 [1/3,1/3,1/3,0] -> (0+2/9+2/9)/4 = 1/9 ; j3 [0,1,0,0] -> (1/3+4/9+1/9)/4 = 2/9 ; mean 1/6
    # loo MAE: j1 vs [1/6,2/3,1/6,0] -> (1/2+1/3+1/6)/4 = 1/4 ; j2 vs [1/3,2/3,0,0] -> (1/3+1/3)/4 = 1/6
    #   j3 vs [1/2,1/3,1/6,0] -> (1/2+2/3+1/6)/4 = 1/3 ; mean 1/4
    h = human_vote_references([[[2, 1, 0, 0], [1, 1, 1, 0], [0, 3, 0, 0]]])
    assert h.self_included.top1.value == pytest.approx(4 / 9) and h.self_included.top1.n == 3
    assert h.leave_one_out.top1.value == pytest.approx(1 / 9)
    assert h.self_included.vote_share_mae.value == pytest.approx(1 / 6)
    assert h.leave_one_out.vote_share_mae.value == pytest.approx(1 / 4)


# ---------------------------------------------------------------------------------------------
# adapter over Match objects


def _match_2v2(match_id: str, judges: list[dict] | None, appeal: list[dict] | None = None, outcome=None) -> Match:
    """A valid ccdb-2v2 match whose stages follow the declared order, one utterance per speaker."""
    stages = []
    for i, slot in enumerate(CCDB_2V2.order):
        speakers = list(slot.speakers) or ["Affirmative Speaker 1", "Negative Speaker 1"]
        stages.append(
            {
                "stage_id": f"s{i + 1:02d}",
                "name": slot.name,
                "type": slot.type,
                "sides": list(slot.sides),
                **({"roles": {slot.questioner: "questioner", (N if slot.questioner == A else A): "respondent"}} if slot.questioner else {}),
                "speakers": speakers,
                "utterances": [{"speaker": s, "side": A if s.startswith("Aff") else N, "text": f"words of {s}"} for s in speakers],
            }
        )
    labels = {}
    if judges is not None:
        labels["judges"] = judges
    if appeal:
        labels["appeal_judges"] = appeal
    if outcome:
        labels["outcome"] = outcome
    return Match.model_validate(
        {
            "match_id": match_id,
            "format": "ccdb-2v2",
            "language": "zh",
            "motion": "m",
            "affirmative_position": "yes",
            "negative_position": "no",
            "debaters": [{"side": s, "position": p} for s in (A, N) for p in (1, 2)],
            "stages": stages,
            **({"labels": labels} if labels else {}),
        }
    )


def _judge(jid, winner, scores, votes):
    return {"judge_id": jid, "winner": winner, "stage_scores": scores, "best_debater_votes": votes}


A1, A2, N1, N2 = "Affirmative Speaker 1", "Affirmative Speaker 2", "Negative Speaker 1", "Negative Speaker 2"


def _dataset() -> list[Match]:
    # s01 is the affirmative constructive (monologue), s02 negative questioning, s04 affirmative
    # questioning (both scored for both sides).
    match_a = _match_2v2(
        "a",
        [
            _judge("j1", A, {"s01|affirmative": 7, "s02|affirmative": 7, "s02|negative": 6}, {A1: 2, N1: 1}),
            _judge("j2", A, {"s01|affirmative": 8, "s02|affirmative": 6, "s02|negative": 6}, {A1: 1, A2: 1, N2: 1}),
            _judge("j3", N, {"s01|affirmative": 6, "s02|affirmative": 5, "s02|negative": 6}, {A1: 3}),
        ],
        appeal=[_judge(f"x{i}", N, {"s01|affirmative": 1}, {N2: 3}) for i in range(3)],  # must be ignored
    )
    match_b = _match_2v2(
        "b",
        [
            _judge("j4", A, {"s01|affirmative": 5, "s04|affirmative": 8, "s04|negative": 6}, {N2: 3}),
            _judge("j5", A, {"s01|affirmative": 5, "s04|affirmative": 7, "s04|negative": 7}, {N2: 2, A1: 1}),
            _judge("j6", A, {"s01|affirmative": 5, "s04|affirmative": 9, "s04|negative": 5}, {A2: 3}),
        ],
    )
    two_judges = _match_2v2("c", [_judge("j7", A, {"s01|affirmative": 1}, {A1: 3}), _judge("j8", N, {"s01|affirmative": 10}, {N1: 3})])
    outcome_only = _match_2v2("d", None, outcome=A)
    return [match_a, match_b, two_judges, outcome_only]


def test_reliability_from_matches_by_hand():
    rep = reliability_from_matches(_dataset())
    assert rep["n_matches"] == 4 and rep["n_matches_with_panel"] == 2
    # winner: a (A,A,N) 1 agreeing pair, b unanimous 3 -> 4/6 ; unanimous 1 of 2 (appeal panel ignored)
    assert rep["winner"]["pairwise_agreement"]["value"] == pytest.approx(2 / 3)
    assert rep["winner"]["unanimous_share"]["value"] == 0.5
    # stage table rows (judges j1..j3 / j4..j6): a s01|A [7,8,6] m7, a s02|A [7,6,5] m6, a s02|N [6,6,6] m6,
    # b s01|A [5,5,5] m5, b s04|A [8,7,9] m8, b s04|N [6,7,5] m6 ; grand 38/6 = 19/3
    # SSB = 3 * (4+1+1+16+25+1)/9 = 16 ; MSB = 16/5 ; SSW = 2+2+0+0+2+2 = 8 ; MSW = 8/12 = 2/3
    # ICC(1,3) = (16/5 - 2/3) / (16/5) = 38/48 = 19/24
    ss = rep["stage_scores"]
    assert ss["icc_1_3"]["value"] == pytest.approx(19 / 24) and ss["icc_1_3"]["n"] == 6
    # paired differences: a s02 [1,0,-1] m0 ; b s04 [2,0,4] m2 ; grand 1 ; SSB = 3*(1+1) = 6 = MSB
    # SSW = (1+0+1) + (0+4+4) = 10 ; MSW = 10 / (2*2) = 2.5 ; ICC = (6 - 2.5)/6 = 7/12
    assert ss["icc_1_3_paired_difference"]["value"] == pytest.approx(7 / 12) and ss["icc_1_3_paired_difference"]["n"] == 2
    # judge MSE = SSW / 18 = 4/9
    assert ss["judge_mse"]["value"] == pytest.approx(4 / 9)
    # bands: [7,8,6] same, [7,6,5] two, [6,6,6] same, [5,5,5] same, [8,7,9] two, [6,7,5] two
    assert ss["band_all_same"]["value"] == 0.5 and ss["band_two_same"]["value"] == 0.5 and ss["band_all_different"]["value"] == 0.0
    # best debater, debaters ordered A1, A2, N1, N2:
    # a: [2,0,1,0] + [1,1,0,1] + [3,0,0,0] = [6,1,1,1] -> A1, voted by all -> yes
    # b: [0,0,0,3] + [1,0,0,2] + [0,3,0,0] = [1,3,0,5] -> N2, j6 did not -> no ; 1/2
    assert rep["best_debater"]["every_judge_voted_for_best"]["value"] == 0.5
    ref = rep["human_reference"]
    # self-included winner: a 2 of 3, b 3 of 3 -> 5/6 ; self-included stage MSE = judge MSE
    assert ref["self_included"]["winner_accuracy"]["value"] == pytest.approx(5 / 6)
    assert ref["self_included"]["stage_mse"]["value"] == pytest.approx(4 / 9)
    # leave-one-out stage MSE = 9/4 x 4/9 = 1
    assert ref["leave_one_out"]["stage_mse"]["value"] == pytest.approx(1.0)
    json.dumps(rep, allow_nan=False)  # JSON-ready: no NaN anywhere


def test_reliability_not_applicable_is_none_with_reason():
    # PanelBench-like data: outcomes only, no judge panels
    rep = reliability_from_matches([_match_2v2("d", None, outcome=A), _match_2v2("e", None, outcome=N)])
    leaves = [
        rep["winner"]["pairwise_agreement"],
        rep["stage_scores"]["icc_1_3"],
        rep["best_debater"]["every_judge_voted_for_best"],
        rep["human_reference"]["leave_one_out"]["stage_pearson"],
        rep["human_reference"]["self_included"]["best_debater_top1"],
    ]
    for leaf in leaves:
        assert leaf["value"] is None and "panel" in leaf["reason"]
    json.dumps(rep, allow_nan=False)


def test_reliability_panels_without_scores_report_reason():
    # winner votes but no stage scores and no best-debater votes
    m = _match_2v2("f", [_judge(f"j{i}", A, {}, {}) for i in range(3)])
    rep = reliability_from_matches([m])
    assert rep["winner"]["pairwise_agreement"]["value"] == 1.0
    assert rep["stage_scores"]["icc_1_3"]["value"] is None and "stage" in rep["stage_scores"]["icc_1_3"]["reason"]
    assert rep["best_debater"]["every_judge_voted_for_best"]["value"] is None
    # ICC undefined (a single scored stage) is None with an "undefined" reason, not 0
    m2 = _match_2v2("g", [_judge(f"j{i}", A, {"s01|affirmative": 5 + i}, {A1: 3}) for i in range(3)])
    leaf = reliability_from_matches([m2])["stage_scores"]["icc_1_3"]
    assert leaf["value"] is None and leaf["reason"].startswith("undefined") and leaf["n"] == 1
    assert np.isfinite(reliability_from_matches([m2])["stage_scores"]["judge_mse"]["value"])
