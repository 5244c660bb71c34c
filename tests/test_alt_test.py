"""The alternative annotator test against a hand-worked example, its edge cases, and its bench section."""

from __future__ import annotations

import pytest

from adjudicator.evaluation.alt_test import agreement, alt_test, negative_distance

# three judges, four matches; the arm agrees with judge 3 everywhere
HUMANS = {
    "h1": {"m1": "A", "m2": "A", "m3": "N", "m4": "N"},
    "h2": {"m1": "A", "m2": "N", "m3": "N", "m4": "A"},
    "h3": {"m1": "A", "m2": "A", "m3": "N", "m4": "A"},
}
ARM = {"m1": "A", "m2": "A", "m3": "N", "m4": "A"}


def test_hand_worked_example():
    res = alt_test(HUMANS, ARM, agreement, epsilon=0.2, alpha=0.05)
    h1, h2, h3 = res.judges
    # h1 left out: on m4 the others say A, A: the arm (A) aligns 1, h1 (N) 0 -> W_f 1, W_h 0; elsewhere ties.
    # d = W_h - W_f = (0, 0, 0, -1): mean -0.25, s = 0.5, t = (-0.25 - 0.2) / (0.5 / 2) = -1.8, df 3,
    # one-sided p = P(T3 < -1.8) = 0.0848
    assert (h1.n, h1.rho_f, h1.rho_h) == (4, 1.0, 0.75)
    assert h1.t == pytest.approx(-1.8) and h1.p_value == pytest.approx(0.0848, abs=1e-4)
    # h2 left out: the same on m2
    assert (h2.rho_f, h2.rho_h, h2.t) == (1.0, 0.75, pytest.approx(-1.8))
    # h3 left out: every instance a tie, d all 0 < epsilon: decided by its sign, p = 0
    assert (h3.rho_f, h3.rho_h, h3.t, h3.p_value) == (1.0, 1.0, None, 0.0)
    # Benjamini-Yekutieli, m = 3, c(3) = 1 + 1/2 + 1/3 = 1.8333: sorted p (0, 0.0848, 0.0848);
    # p(3) -> 0.0848 * 3 * 1.8333 / 3 = 0.1556, p(2) -> min(0.0848 * 3 * 1.8333 / 2, 0.1556) = 0.1556
    assert [j.p_adjusted for j in (h1, h2, h3)] == [pytest.approx(0.1556, abs=1e-4), pytest.approx(0.1556, abs=1e-4), 0.0]
    assert [j.won for j in (h1, h2, h3)] == [False, False, True]
    assert res.omega == pytest.approx(1 / 3) and res.passed is False and res.rho == 1.0
    assert "does not pass" in res.verdict_text() and "beats 1 of 3 judges" in res.verdict_text()


def test_numeric_annotations_use_the_distance():
    humans = {"h1": {"u1": 7.0, "u2": 5.0}, "h2": {"u1": 7.0, "u2": 6.0}, "h3": {"u1": 8.0, "u2": 6.0}}
    arm = {"u1": 7.0, "u2": 6.0}
    res = alt_test(humans, arm, negative_distance, epsilon=0.2)
    h1 = res.judges[0]
    # h1 out, others (7, 8) and (6, 6): u1 arm 7 vs h1 7 tie; u2 arm 6 aligns 0, h1 5 aligns -1 -> W_f 1, W_h 0
    assert (h1.rho_f, h1.rho_h) == (1.0, 0.5)


def test_too_few_instances_and_bad_arguments():
    res = alt_test({"h1": {"m1": "A"}, "h2": {"m1": "A"}}, {"m1": "A"})
    assert res.omega is None and res.passed is None and "not tested" in res.judges[0].note
    assert "not testable" in res.verdict_text()
    with pytest.raises(ValueError, match="at least 2 human judges"):
        alt_test({"h1": {"m1": "A"}}, {"m1": "A"})
    with pytest.raises(ValueError, match="epsilon"):
        alt_test(HUMANS, ARM, epsilon=1.5)


def test_the_bench_section_on_three_judge_panels():
    from bench_helpers import labelled_2v2

    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.predictions import ArmPredictions
    from adjudicator.bench.scoring.alt_test_section import alt_test_section

    units = {"s01|affirmative": [7, 7, 8], "s03|negative": [6, 5, 6]}
    votes = [{"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}] * 3
    matches = [labelled_2v2(f"m{i}", ["affirmative", "affirmative", "negative"], units, votes) for i in range(3)]
    gold = gold_from_matches(matches)
    import numpy as np

    unit_pred = np.array([7.0 if u[2] == "affirmative" else 6.0 for u in gold.units])
    pr = ArmPredictions("agentic", "agentic · m", {}, np.array([0.7, 0.7, 0.7]), [None] * 3, unit_pred, np.empty(0), np.empty(0), {}, [])
    sec = alt_test_section(matches, gold, {"agentic": pr})
    assert sec["applicable"] and sec["matches_with_panel"] == 3
    t1 = sec["tasks"]["task1"]["arms"]["agentic"]
    # judge 3 votes negative every time, the others and the arm affirmative: the arm beats j3 on all 3
    assert [j["rho_f"] for j in t1["judges"]] == [1.0, 1.0, 1.0] and [j["rho_h"] for j in t1["judges"]] == [1.0, 1.0, 0.0]
    assert sec["tasks"]["task3"]["applicable"] is True


def test_not_applicable_without_judge_panels():
    from llm_helpers import online_match

    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.scoring.alt_test_section import alt_test_section

    matches = [online_match()]
    sec = alt_test_section(matches, gold_from_matches(matches), {})
    assert sec["applicable"] is False and "audience outcomes" in sec["reason"]
