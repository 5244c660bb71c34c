"""Scoring a run: aligning per-sample results with gold labels, exclusions, the common subset,
parse statistics, baselines with expectations, references kept out of rankings, not-applicable tasks.

Hand-built data (three ccdb-2v2 matches, position labels order A1, A2, N1, N2):

- m1: judges vote aff, aff, neg (gold affirmative); scores s01|aff 5/6/7 (mean 6), s02|aff 6/6/6,
  s02|neg 8/8/8 (s02 is negative questioning), s07|aff 7/7/7 and s07|neg 7/7/7 (head-to-head);
  votes A1 3 / A1 2 + N1 1 / N1 3 -> A1 5, N1 4.
- m2: all vote neg; scores s02|aff 5/5/5, s02|neg 7/7/8 (mean 22/3); votes N2 3 each -> N2 9.
- m3: all vote aff; no stage scores; votes A2 3 each -> A2 9.

Arm "agentic": m1 p 0.7, scores s01|aff 6, s02 7/7, s07 8/6, votes A1 9; m2 p 0.5, scores s02 5/8,
votes N1 3 + N2 6; m3 failed. Arm "single-call": m1 p 0.3, no stage score, votes N1 9; m2 p 0.2,
s02 4/9, votes N2 9; m3 p 0.9, votes A2 9.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from bench_helpers import labelled_2v2

from adjudicator.bench.gold import gold_from_matches
from adjudicator.bench.results import SampleResult
from adjudicator.bench.scoring.leaves import ScoreSettings
from adjudicator.bench.scoring.run import score_run
from adjudicator.evaluation import metrics as M
from adjudicator.records import CallRecord

A1, A2, N1, N2 = "Affirmative Speaker 1", "Affirmative Speaker 2", "Negative Speaker 1", "Negative Speaker 2"


def matches():
    m1 = labelled_2v2(
        "m1",
        ["affirmative", "affirmative", "negative"],
        {"s01|affirmative": [5, 6, 7], "s02|affirmative": [6, 6, 6], "s02|negative": [8, 8, 8], "s07|affirmative": [7, 7, 7], "s07|negative": [7, 7, 7]},
        [{A1: 3}, {A1: 2, N1: 1}, {N1: 3}],
    )
    m2 = labelled_2v2("m2", ["negative"] * 3, {"s02|affirmative": [5, 5, 5], "s02|negative": [7, 7, 8]}, [{N2: 3}] * 3)
    m3 = labelled_2v2("m3", ["affirmative"] * 3, {}, [{A2: 3}] * 3)
    return [m1, m2, m3]


def _scores(pairs):
    return [{"stage_id": sid, "side": side, "mean": float(v)} for (sid, side), v in pairs.items()]


def ok(mid, arm, p, scores, votes, calls=(), tasks=()):
    verdict = {"match_id": mid, "p": p, "stage_scores": _scores(scores), "best_debater_votes": votes, "tasks": list(tasks)}
    return SampleResult(sample_id=mid, arm=arm, sample_sha256="x", status="ok", verdict=verdict, calls=list(calls))


JUDGE_CALLS = [CallRecord(node="judge", key=f"judge-{k}", model="m", parse="strict") for k in (1, 2, 3)]


def results():
    agentic = {
        "m1": ok("m1", "agentic", 0.7, {("s01", "affirmative"): 6, ("s02", "affirmative"): 7, ("s02", "negative"): 7, ("s07", "affirmative"): 8, ("s07", "negative"): 6}, {A1: 9}, JUDGE_CALLS),
        "m2": ok("m2", "agentic", 0.5, {("s02", "affirmative"): 5, ("s02", "negative"): 8}, {N1: 3, N2: 6}, JUDGE_CALLS),
        "m3": SampleResult(sample_id="m3", arm="agentic", sample_sha256="x", status="failed", error="the panel needs at least 2 valid ballots", error_type="AdjudicationFailed"),
    }
    t_ok = [{"task": "task1", "key": "match", "ok": True, "parse": "strict"}, {"task": "task3", "key": "match", "ok": True, "parse": "strict"}]
    single = {
        "m1": ok("m1", "single-call", 0.3, {}, {N1: 9}, tasks=[{"task": "task1", "key": "match", "ok": True, "parse": "strict"}, {"task": "task3", "key": "match", "ok": True, "parse": "regex"}]),
        "m2": ok("m2", "single-call", 0.2, {("s02", "affirmative"): 4, ("s02", "negative"): 9}, {N2: 9}, tasks=t_ok),
        "m3": ok("m3", "single-call", 0.9, {}, {A2: 9}, tasks=t_ok),
    }
    return {"agentic": agentic, "single-call": single}


@pytest.fixture(scope="module")
def scored():
    from adjudicator.evaluation.reliability_report import reliability_from_matches

    ms = matches()
    return score_run(ms, results(), {"agentic": "agentic · m", "single-call": "single-call · m"}, ScoreSettings(n_bootstrap=0, seed=0), reliability_from_matches(ms))


def row(rows, name):
    return next(r for r in rows if r["predictor"] == name)


def test_gold_alignment():
    g = gold_from_matches(matches())
    assert g.winners == ["affirmative", "negative", "affirmative"]
    # 5 units of m1 and 2 of m2 were scored by every judge
    assert len(g.units) == 7
    assert g.unit_mean[0] == pytest.approx(6.0)  # m1 s01|aff: (5 + 6 + 7) / 3
    assert g.unit_mean[-1] == pytest.approx(22 / 3)  # m2 s02|neg: (7 + 7 + 8) / 3
    assert g.pairs == [("m1", "s02"), ("m1", "s07"), ("m2", "s02")]
    assert g.pair_questioner == ["negative", None, "negative"]
    assert [list(v) for v in g.votes] == [[5, 0, 4, 0], [0, 0, 0, 9], [0, 9, 0, 0]]


def test_task1_winner_accuracy_excludes_the_failed_sample_and_counts_p_half_wrong(scored):
    t1 = scored["tasks"]["task1"]
    a = row(t1["rows"], "agentic · m")["metrics"]["winner_accuracy"]
    # m1 correct, m2 p = 0.5 counts as incorrect, m3 failed -> excluded: 1/2
    assert (a["value"], a["n"], a["n_excluded"]) == (0.5, 2, 1)
    s = row(t1["rows"], "single-call · m")["metrics"]["winner_accuracy"]
    # m1 wrong (0.3 -> negative), m2 right, m3 right: 2/3
    assert s["value"] == pytest.approx(2 / 3) and s["n"] == 3
    aff = row(t1["rows"], "always affirmative")
    # gold: aff, neg, aff -> 2/3, exactly its expectation
    assert aff["metrics"]["winner_accuracy"]["value"] == pytest.approx(2 / 3)
    assert aff["expected"]["winner_accuracy"] == pytest.approx(2 / 3)
    rnd = row(t1["rows"], "random")
    assert rnd["expected"]["winner_accuracy"] == 0.5 and rnd["seed"] == 0
    # common subset: m1 and m2 (both arms parsed p); single-call 1/2 there, always affirmative 1/2
    cs = t1["common_subset"]
    assert cs["n"] == 2
    assert row(cs["rows"], "single-call · m")["metrics"]["winner_accuracy"]["value"] == 0.5
    assert row(cs["rows"], "always affirmative")["expected"]["winner_accuracy"] == 0.5


def test_human_references_are_unranked_and_non_comparable(scored):
    rows = scored["tasks"]["task1"]["rows"]
    self_inc = row(rows, "human judge (self-included)")
    loo = row(rows, "human judge (leave-one-out)")
    # self-included: m1 2 of 3 judges agree with the majority, m2 and m3 3 of 3 -> 8/9
    assert self_inc["metrics"]["winner_accuracy"]["value"] == pytest.approx(8 / 9)
    # leave-one-out: m1 j1, j2 face a 1:1 split (excluded), j3 is wrong; m2, m3 all right -> 6/7
    assert loo["metrics"]["winner_accuracy"]["value"] == pytest.approx(6 / 7)
    assert self_inc["comparable"] is False and self_inc["rank"] is None and loo["rank"] is None
    # accuracies (gold aff, neg, aff): single-call 2/3, always affirmative 2/3, random (seed 0 draws
    # p = .637, .270, .041 -> aff, neg, neg) 2/3 but not ranked (one draw), agentic 1/2, always negative
    # 1/3. Equal values share a rank; the rows read in rank order although the arms come first when built.
    assert [(r["predictor"], r["rank"]) for r in rows] == [
        ("single-call · m", 1), ("always affirmative", 1), ("agentic · m", 3), ("always negative", 4), ("random", None),
        ("majority class (always affirmative)", None), ("human judge (self-included)", None), ("human judge (leave-one-out)", None),
    ]


def test_always_negative_and_the_majority_class_reference(scored):
    t1 = scored["tasks"]["task1"]
    neg = row(t1["rows"], "always negative")
    # gold aff, neg, aff: always negative is right on m2 only -> 1/3, exactly its expectation
    assert neg["comparable"] is True and neg["kind"] == "baseline"
    assert neg["metrics"]["winner_accuracy"]["value"] == pytest.approx(1 / 3) and neg["expected"]["winner_accuracy"] == pytest.approx(1 / 3)
    # majority side: 2 affirmative winners against 1 negative -> "always affirmative", 2/3, shown unranked
    assert t1["majority_side"] == "affirmative"
    maj = row(t1["rows"], "majority class (always affirmative)")
    assert (maj["comparable"], maj["kind"], maj["rank"]) == (False, "reference", None)
    assert maj["metrics"]["winner_accuracy"]["value"] == pytest.approx(2 / 3)
    assert "fitted on the evaluation labels" in maj["note"] and "training folds" in maj["note"]
    # common subset m1, m2 (aff, neg): always negative 1/2 there, expectation recomputed on the subset
    cs_neg = row(t1["common_subset"]["rows"], "always negative")
    assert cs_neg["metrics"]["winner_accuracy"]["value"] == 0.5 and cs_neg["expected"]["winner_accuracy"] == 0.5
    # the McNemar tests against baselines cover the comparable ones only
    assert sorted({t["baseline"] for t in scored["arm_vs_baseline"] if t.get("test") != "exact binomial"}) == ["always affirmative", "always negative", "random"]


@pytest.mark.parametrize("outcomes, side, accuracy", [
    (["negative", "negative", "affirmative"], "negative", 2 / 3),  # 2 negative winners of 3
    (["negative", "affirmative", "tie"], "affirmative", 1 / 2),  # 1:1 (the tie is not decisive) -> affirmative
])
def test_majority_side_is_fitted_on_the_dataset(outcomes, side, accuracy):
    from bench_helpers import online

    ms = [online(i + 1, o) for i, o in enumerate(outcomes)]
    out = score_run(ms, {"agentic": {}}, {"agentic": "agentic"}, ScoreSettings(n_bootstrap=0))
    t1 = out["tasks"]["task1"]
    assert t1["majority_side"] == side
    maj = row(t1["rows"], f"majority class (always {side})")
    assert maj["rank"] is None and maj["metrics"]["winner_accuracy"]["value"] == pytest.approx(accuracy)


def test_synthetic_labels_rename_the_human_references():
    from adjudicator.evaluation.reliability_report import reliability_from_matches

    ms = matches()
    out = score_run(ms, results(), {"agentic": "a", "single-call": "s"}, ScoreSettings(n_bootstrap=0), reliability_from_matches(ms), synthetic_labels=True)
    for task in ("task1", "task2", "task3"):
        names = [r["predictor"] for r in out["tasks"][task]["rows"]]
        assert "synthetic judge (self-included)" in names and "synthetic judge (leave-one-out)" in names, task
        assert not any(n.startswith("human") for n in names), task
    ref = row(out["tasks"]["task1"]["rows"], "synthetic judge (self-included)")
    assert "not human" in ref["note"] and ref["rank"] is None


def test_task2_alignment_tendency_and_baseline_expectations(scored):
    t2 = scored["tasks"]["task2"]
    assert t2["applicable"] and (t2["n_units"], t2["n_pairs"]) == (7, 3)
    a = row(t2["rows"], "agentic · m")["metrics"]
    # squared errors: 0, 1, 1, 1, 1, 0, (8 - 22/3)^2 = 4/9 -> (40/9) / 7 = 40/63
    assert a["stage_mse"]["value"] == pytest.approx(40 / 63) and a["stage_mse"]["n"] == 7
    x = [6, 7, 7, 8, 6, 5, 8]
    y = [6, 6, 8, 7, 7, 5, 22 / 3]
    assert a["stage_pearson"]["value"] == pytest.approx(M.stage_pearson(x, y).value)
    # tendencies human (-1, 0, -1), agentic (0, +1, -1): all pairs 1/3, non-tie pairs 1/2
    assert a["tendency_all_pairs"]["value"] == pytest.approx(1 / 3)
    assert a["tendency_non_tie"]["value"] == pytest.approx(1 / 2) and a["tendency_non_tie"]["n"] == 2
    s = row(t2["rows"], "single-call · m")["metrics"]
    # only m2 parsed: (4 - 5)^2 + (9 - 22/3)^2 = 1 + 25/9 = 34/9 over 2 -> 17/9
    assert s["stage_mse"]["value"] == pytest.approx(17 / 9) and s["stage_mse"]["n_excluded"] == 5
    sar = row(t2["rows"], "structure-aware random")
    # fixed units (8 - 8)^2, (6 - 6)^2, (6 - 5)^2, (8 - 22/3)^2; random units 8.25 + (5.5 - y)^2 for
    # y = 6, 7, 7: 8.5 + 10.5 + 10.5 -> (1 + 4/9 + 29.5) / 7
    assert sar["expected"]["stage_mse"] == pytest.approx((1 + 4 / 9 + 29.5) / 7)
    # tendency: questioning pairs always agree (negative questioner, human negative), the tied
    # head-to-head agrees with probability 0.1 -> (1 + 0.1 + 1) / 3; non-tie pairs 1.0
    assert sar["expected"]["tendency_all_pairs"] == pytest.approx(0.7)
    assert sar["expected"]["tendency_non_tie"] == pytest.approx(1.0)
    rnd = row(t2["rows"], "random")
    # random: P(agree) 0.45 on the decisive pairs, 0.10 on the tie -> (0.45 + 0.1 + 0.45) / 3
    assert rnd["expected"]["tendency_all_pairs"] == pytest.approx(1 / 3)
    cs = t2["common_subset"]
    assert (cs["n_units"], cs["n_pairs"]) == (2, 1)
    # agentic on m2 only: (0 + 4/9) / 2
    assert row(cs["rows"], "agentic · m")["metrics"]["stage_mse"]["value"] == pytest.approx(2 / 9)


def test_task3_votes_uniform_blank_and_oracle_not_applicable_to_2v2(scored):
    t3 = scored["tasks"]["task3"]
    a = row(t3["rows"], "agentic · m")["metrics"]
    # m1 argmax A1 in {A1}, m2 argmax N2 in {N2}; m3 failed -> 1.0 on n = 2
    assert (a["best_debater_top1"]["value"], a["best_debater_top1"]["n"]) == (1.0, 2)
    # MAE m1: (4/9 + 4/9) / 4 = 2/9; m2: (1/3 + 1/3) / 4 = 1/6 -> mean 7/36
    assert a["vote_share_mae"]["value"] == pytest.approx(7 / 36)
    # ccdb-2v2 has no third speaker: the heuristic is not applicable, never 0
    assert a["pred_winner_third_speaker_top1"]["value"] is None
    assert a["pred_winner_third_speaker_top1"]["reason"].startswith("not applicable")
    s = row(t3["rows"], "single-call · m")["metrics"]["best_debater_top1"]
    assert s["value"] == pytest.approx(2 / 3)  # m1 N1 not in {A1}; m2, m3 right
    uv = row(t3["rows"], "uniform votes")
    # uniform 1/4 each: m1 (11 + 9 + 7 + 9)/36 / 4 = 0.25; m2 and m3 (3 * 1/4 + 3/4) / 4 = 0.375
    assert uv["metrics"]["vote_share_mae"]["value"] == pytest.approx(1 / 3)
    assert uv["expected"]["vote_share_mae"] == pytest.approx(1 / 3)
    assert uv["metrics"]["best_debater_top1"]["value"] is None
    rb = row(t3["rows"], "random")
    assert rb["expected"]["best_debater_top1"] == pytest.approx(0.25)  # |D*| / K = 1/4 everywhere
    assert rb["expected"]["vote_share_mae"] == pytest.approx(0.375)  # 2 (K - 1) / K^2 with K = 4
    oracle = row(t3["rows"], "winning-side third speaker (oracle)")
    assert oracle["comparable"] is False and oracle["rank"] is None
    assert oracle["metrics"]["best_debater_top1"]["value"] is None


def test_parse_statistics_and_failures(scored):
    pa = scored["parsing"]["agentic"]
    assert pa["task1"] == {"instances": 3, "not_run": 0, "parsed": 2, "parse_rate": pytest.approx(2 / 3), "strict": 2, "recovered": 0, "native": 0, "unknown": 0, "failed": 1}
    # a ccdb-2v2 match has 18 scored units (6 monologues, 4 questionings x 2, 2 alternating x 2)
    assert (pa["task2"]["instances"], pa["task2"]["parsed"], pa["task2"]["failed"]) == (54, 7, 47)
    ps = scored["parsing"]["single-call"]
    assert (ps["task3"]["strict"], ps["task3"]["recovered"]) == (2, 1)
    assert [(f["arm"], f["sample_id"], f["status"]) for f in scored["failures"]] == [("agentic", "m3", "failed")]


def test_paired_mcnemar_on_the_common_subset(scored):
    (pc,) = scored["paired"]
    t = pc["tests"]["winner_accuracy"]
    # common subset m1, m2: agentic right/wrong, single-call wrong/right -> one discordant pair each way
    assert (t["n"], t["a_only"], t["b_only"], t["p_value"]) == (2, 1, 1, 1.0)


def test_not_applicable_tasks_are_never_zero():
    from bench_helpers import online

    ms = [online(1, "affirmative"), online(2, "negative")]
    res = {"agentic": {"m01": ok("m01", "agentic", 0.8, {("s1", "affirmative"): 7}, {A1: 9}, JUDGE_CALLS)}}
    out = score_run(ms, res, {"agentic": "agentic"}, ScoreSettings(n_bootstrap=0))
    assert out["tasks"]["task2"]["applicable"] is False and "stage scores" in out["tasks"]["task2"]["reason"]
    assert out["tasks"]["task3"]["applicable"] is False and "rows" not in out["tasks"]["task3"]
    # m02 was never run: not counted as a parse failure, excluded from accuracy
    assert out["parsing"]["agentic"]["task1"]["not_run"] == 1
    acc = out["tasks"]["task1"]["rows"][0]["metrics"]["winner_accuracy"]
    assert (acc["value"], acc["n"], acc["n_excluded"]) == (1.0, 1, 1)


def test_bootstrap_intervals_are_seeded_and_bracket_the_value():
    ms = matches()
    a = score_run(ms, results(), {"agentic": "a", "single-call": "s"}, ScoreSettings(n_bootstrap=100, seed=3))
    b = score_run(ms, results(), {"agentic": "a", "single-call": "s"}, ScoreSettings(n_bootstrap=100, seed=3))
    leaf = row(a["tasks"]["task2"]["rows"], "a")["metrics"]["stage_mse"]
    assert leaf["ci"]["low"] <= leaf["value"] <= leaf["ci"]["high"]
    assert leaf["ci"]["n_matches"] == 2  # units of m1 and m2 are resampled by match
    assert leaf == row(b["tasks"]["task2"]["rows"], "a")["metrics"]["stage_mse"]
    assert math.isfinite(a["calibration"]["agentic"]["brier"]["value"])
    # Brier of the agentic p on m1 (0.7 vs 1) and m2 (0.5 vs 0): (0.09 + 0.25) / 2
    assert a["calibration"]["agentic"]["brier"]["value"] == pytest.approx(0.17)
    assert np.isclose(sum(b_["count"] for b_ in a["calibration"]["agentic"]["curve"]), 2)


def test_arm_against_the_random_baselines_expected_value_is_a_binomial_test():
    from adjudicator.bench.scoring.winner import random_expected_test

    # 8 of 10 correct against a fair coin: two-sided exact binomial p = 2 * P(X >= 8) = 2 * 56/1024 = 0.109375
    t = random_expected_test("agentic", np.array([1.0] * 8 + [0.0] * 2 + [np.nan]))
    assert (t["k"], t["n"], t["accuracy_a"], t["accuracy_b"]) == (8, 10, 0.8, 0.5)
    assert t["p_value"] == pytest.approx(0.109375) and t["test"] == "exact binomial"


def test_strict_top1_counts_a_tied_model_maximum_as_wrong():
    from adjudicator.evaluation.metrics import best_debater_top1, best_debater_top1_strict

    pred = [np.array([4.0, 4.0, 1.0]), np.array([6.0, 2.0, 1.0])]
    human = [np.array([5.0, 3.0, 1.0]), np.array([7.0, 1.0, 1.0])]
    # match 1: the model ties debaters 1 and 2, one of them is the human top: fractional 1/2, strict 0
    # match 2: a unique, correct maximum: 1 either way
    assert best_debater_top1(pred, human).value == pytest.approx((0.5 + 1) / 2)
    assert best_debater_top1_strict(pred, human).value == pytest.approx((0 + 1) / 2)


def test_paired_tests_cover_every_ranked_metric(scored):
    names = {n for pc in scored["paired"] for n in pc["tests"]}
    assert {"tendency_non_tie", "vote_share_spearman", "best_debater_top1_strict"} <= names


def test_task3_states_its_top1_rule_and_splits_pooled_vote_shares_by_format(scored):
    t3 = scored["tasks"]["task3"]
    assert "a tie in the model's own maximum earns the share" in t3["top1_rule"] and "strict counts such a tie as wrong" in t3["top1_rule"]
    # every match of this dataset is ccdb-2v2: nothing is pooled across formats
    assert t3["by_format"] == {} and t3["pooling_caveat"] is None


def test_pooled_vote_shares_get_a_per_format_split():
    from bench_helpers import labelled_2v2

    from adjudicator.bench.predictions import ArmPredictions
    from adjudicator.bench.scoring.best_debater import vote_shares_by_format

    two = labelled_2v2("a", ["affirmative"] * 3, {}, [{"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}] * 3)
    gold = gold_from_matches([two, two.model_copy(update={"match_id": "b"})])
    gold.formats[1] = "ccdb-4v4"  # stand-in for a second format with the same labels
    preds = {"arm": ArmPredictions("arm", "arm", {}, np.array([0.7, 0.7]), [np.array([6.0, 0, 3.0, 0]), np.array([6.0, 0, 3.0, 0])], np.empty(0), np.empty(0), np.empty(0), {}, [])}
    by = vote_shares_by_format(gold, preds, ScoreSettings(n_bootstrap=0))
    assert sorted(by) == ["ccdb-2v2", "ccdb-4v4"] and by["ccdb-2v2"]["n_matches"] == 1
    # within one match the arm's shares (6/9, 0, 3/9, 0) are the gold's (6/9, 0, 3/9, 0): r = 1
    assert by["ccdb-2v2"]["arm"]["vote_share_pearson"]["value"] == pytest.approx(1.0)


def test_task2_reports_the_panel_mean_and_one_judges_integer():
    from adjudicator.bench.predictions import ArmPredictions
    from adjudicator.bench.scoring.stage_scores import judge_integer_mse

    g = gold_from_matches(matches())  # 7 gold units; the first has gold mean 6.0
    judges = {"judge-1": np.full(7, np.nan), "judge-2": np.full(7, np.nan)}
    judges["judge-1"][0], judges["judge-2"][0] = 5.0, 8.0
    unit_pred = np.full(7, np.nan)
    unit_pred[0] = 6.5
    pr = ArmPredictions("agentic", "agentic · m", {}, np.full(3, np.nan), [None] * 3, unit_pred, np.empty(0), np.empty(0), {}, [], unit_judges=judges)
    r = judge_integer_mse(g, {"agentic": pr})["agentic"]
    # one unit, gold 6.0: panel mean 6.5 -> 0.25; judge-1 5 -> 1.0, judge-2 8 -> 4.0, their mean 2.5
    assert (r["n_units"], r["panel_mean_mse"], r["per_judge"], r["judge_integer_mse"]) == (1, 0.25, {"judge-1": 1.0, "judge-2": 4.0}, 2.5)
