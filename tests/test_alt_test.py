"""The alternative annotator test against its authors' worked example, a hand-worked case, its edge
cases (too few instances, a constant answer), and its bench section."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from adjudicator.evaluation.alt_test import accuracy, alt_test, neg_rmse

HERE = Path(__file__).parent
REFERENCE = HERE / "fixtures" / "alt_test_reference"

# What the authors' notebook (nitaytech/AltTest alt_test_example.ipynb, "Example (paper's data)")
# prints for each LLM as (winning rate, advantage probability), 2 decimals; the full-precision values
# are what its alt_test function returns on the same files (run by hand at commit 18428b1).
WORKED_EXAMPLE = {
    ("wax", "accuracy", 0.1): {
        "gemini_flash": (0.375, 0.6923117015237552), "gemini_pro": (0.5, 0.737148232999707), "gpt-4o": (0.5, 0.7300214903206385),
        "llama-31": (0.0, 0.5730284799365712), "gpt-4o-mini": (0.0, 0.5944934993309019), "mistral-v03": (0.0, 0.49771377838950703),
    },
    ("cebab_stars", "neg_rmse", 0.1): {
        "gemini_flash": (0.6, 0.8214660215872229), "gemini_pro": (0.8, 0.8666235020616695), "gpt-4o": (0.9, 0.8985877019326693),
        "llama-31": (0.6, 0.8531833966306959), "gpt-4o-mini": (0.9, 0.8941078511659228), "mistral-v03": (0.5, 0.8290684214741388),
    },
}
PRINTED = {  # the notebook's output lines, for the record: "Winning Rate=0.38 Advantage Probability=0.69" ...
    "wax": [(0.38, 0.69), (0.50, 0.74), (0.50, 0.73), (0.00, 0.57), (0.00, 0.59), (0.00, 0.50)],
    "cebab_stars": [(0.60, 0.82), (0.80, 0.87), (0.90, 0.90), (0.60, 0.85), (0.90, 0.89), (0.50, 0.83)],
}


def _read(name: str) -> tuple[dict[str, dict[int, int]], dict[str, dict[int, int]]]:
    with open(REFERENCE / f"{name}.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    head, body = rows[0], rows[1:]
    cols = {c: {i: int(r[k]) for i, r in enumerate(body) if r[k] != ""} for k, c in enumerate(head)}
    return {c: v for c, v in cols.items() if c.startswith("h")}, {c: v for c, v in cols.items() if not c.startswith("h")}


@pytest.mark.parametrize("dataset", sorted(WORKED_EXAMPLE, key=str))
def test_the_authors_worked_example(dataset):
    name, scoring, epsilon = dataset
    humans, llms = _read(name)
    fn = {"accuracy": accuracy, "neg_rmse": neg_rmse}[scoring]
    for (llm, (omega, rho)), printed in zip(WORKED_EXAMPLE[dataset].items(), PRINTED[name]):
        res = alt_test(humans, llms[llm], fn, epsilon=epsilon, alpha=0.05)
        assert res.omega == pytest.approx(omega, abs=1e-12) and res.rho == pytest.approx(rho, abs=1e-12), llm
        assert (round(res.omega, 2), round(res.rho, 2)) == pytest.approx(printed, abs=1e-9), llm
        assert res.passed is (omega >= 0.5)


# three judges, four matches; the arm agrees with judge 3 everywhere
HUMANS = {
    "h1": {"m1": "A", "m2": "A", "m3": "N", "m4": "N"},
    "h2": {"m1": "A", "m2": "N", "m3": "N", "m4": "A"},
    "h3": {"m1": "A", "m2": "A", "m3": "N", "m4": "A"},
}
ARM = {"m1": "A", "m2": "A", "m3": "N", "m4": "A"}


def test_hand_worked_example():
    res = alt_test(HUMANS, ARM, accuracy, epsilon=0.2, alpha=0.05, min_instances=2)
    h1, h2, h3 = res.judges
    # h1 left out: on m4 the others say A, A: the arm (A) scores 1, h1 (N) 0 -> W_f 1, W_h 0; elsewhere ties.
    # d = W_h - W_f = (0, 0, 0, -1): mean -0.25, s = 0.5, t = (-0.25 - 0.2) / (0.5 / 2) = -1.8, df 3,
    # one-sided p = P(T3 < -1.8) = 0.0848
    assert (h1.n, h1.rho_f, h1.rho_h) == (4, 1.0, 0.75)
    assert h1.t == pytest.approx(-1.8) and h1.p_value == pytest.approx(0.0848, abs=1e-4)
    assert (h2.rho_f, h2.rho_h, h2.t) == (1.0, 0.75, pytest.approx(-1.8))
    # h3 left out: every instance a tie, d all 0 < epsilon: scipy's t is -inf (reported None), p = 0
    assert (h3.rho_f, h3.rho_h, h3.t, h3.p_value) == (1.0, 1.0, None, 0.0) and "constant" in h3.note
    # Benjamini-Yekutieli, m = 3, H_3 = 1 + 1/2 + 1/3 = 1.8333: sorted p (0, 0.0848, 0.0848);
    # p(3) -> 0.0848 * 3 * 1.8333 / 3 = 0.1556, p(2) -> min(0.0848 * 3 * 1.8333 / 2, 0.1556) = 0.1556
    assert [j.p_adjusted for j in (h1, h2, h3)] == [pytest.approx(0.1556, abs=1e-4), pytest.approx(0.1556, abs=1e-4), 0.0]
    assert [j.won for j in (h1, h2, h3)] == [False, False, True]
    assert res.omega == pytest.approx(1 / 3) and res.passed is False and res.rho == 1.0
    assert "does not pass" in res.verdict_text() and "beats 1 of 3 judges" in res.verdict_text()


def test_numbers_are_scored_by_negative_rmse_not_the_mean_absolute_difference():
    # the remaining judges say 6 and 8. The arm's 7: RMSE sqrt((1 + 1) / 2) = 1; the left-out judge's 6:
    # sqrt((0 + 4) / 2) = 1.414. A mean absolute difference would call it a tie (1 and 1); RMSE gives the arm W_f 1, the judge W_h 0
    assert neg_rmse(7.0, [6.0, 8.0]) == pytest.approx(-1.0) and neg_rmse(6.0, [6.0, 8.0]) == pytest.approx(-(2**0.5))
    humans = {"h1": {"u1": 6.0, "u2": 6.0}, "h2": {"u1": 6.0, "u2": 6.0}, "h3": {"u1": 8.0, "u2": 8.0}}
    res = alt_test(humans, {"u1": 7.0, "u2": 7.0}, neg_rmse, min_instances=2)
    # h3 out: the others say 6, 6; the arm's 7 scores -1, h3's 8 scores -2
    assert [(j.rho_f, j.rho_h) for j in res.judges] == [(1.0, 0.0)] * 3 and res.scoring == "neg_rmse"
    # vectors (vote shares): the mean runs over judges and components, (0.25 + 0.25 + 0 + 0) / 4 -> -0.5
    assert neg_rmse([1.0, 0.0], [[0.5, 0.5], [1.0, 0.0]]) == pytest.approx(-(0.125**0.5))


def test_below_the_authors_minimum_there_is_no_result():
    # 29 instances per judge: the authors' code skips every judge, so there is no pass and no fail
    humans = {h: {i: "A" for i in range(29)} for h in ("h1", "h2", "h3")}
    res = alt_test(humans, {i: "A" for i in range(29)})
    assert res.omega is None and res.passed is None and res.rho is None
    assert all(j.won is None and "not enough instances (29 < 30)" in j.note for j in res.judges)
    assert res.verdict_text().startswith("not enough instances") and "pass" in res.verdict_text() and "PASS" not in res.verdict_text()
    with pytest.raises(ValueError, match="at least 2 human judges"):
        alt_test({"h1": {"m1": "A"}}, {"m1": "A"})
    with pytest.raises(ValueError, match="epsilon"):
        alt_test(HUMANS, ARM, epsilon=1.5)


def test_a_constant_answer_is_tested_not_dropped():
    # 40 matches: 30 unanimous, 10 split 2:1 where j1 is the odd one out 4 times, j2 3 and j3 3. An arm answering
    # "tie" everywhere scores 0 on every match; it ties a left-out judge (W_f = 1) only where that judge agrees
    # with neither other judge. rho_f = 4/40, 3/40, 3/40 -> rho = 10/120; W_h is always 1, so d = 1 - W_f has
    # mean 0.9, 0.925, 0.925, far above epsilon: no judge is beaten, omega = 0.
    humans: dict[str, dict[int, str]] = {"j1": {}, "j2": {}, "j3": {}}
    odd = ["j1"] * 4 + ["j2"] * 3 + ["j3"] * 3
    for i in range(40):
        for j in humans:
            humans[j][i] = "negative" if i >= 30 and odd[i - 30] == j else "affirmative"
    res = alt_test(humans, {i: "tie" for i in range(40)})
    assert [j.rho_f for j in res.judges] == [pytest.approx(0.1), pytest.approx(0.075), pytest.approx(0.075)]
    assert res.omega == 0.0 and res.passed is False and res.rho == pytest.approx(10 / 120)


def test_the_bench_section_on_three_judge_panels():
    from bench_helpers import labelled_2v2

    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.predictions import ArmPredictions
    from adjudicator.bench.scoring.alt_test_section import alt_test_section

    units = {"s01|affirmative": [7, 7, 8], "s03|negative": [6, 5, 6]}
    votes = [{"Affirmative Speaker 1": 2, "Negative Speaker 1": 1}] * 3
    n = 30
    matches = [labelled_2v2(f"m{i}", ["affirmative", "affirmative", "negative"], units, votes) for i in range(n)]
    gold = gold_from_matches(matches)
    import numpy as np

    unit_pred = np.array([7.0 if u[2] == "affirmative" else 6.0 for u in gold.units])
    p = np.array([0.5] + [0.7] * (n - 1))  # one exact 0.5: the answer "tie", which agrees with no judge
    pr = ArmPredictions("agentic", "agentic · m", {}, p, [None] * n, unit_pred, np.empty(0), np.empty(0), {}, [])
    sec = alt_test_section(matches, gold, {"agentic": pr})
    assert sec["applicable"] and sec["matches_with_panel"] == n and sec["min_instances"] == 30
    t1 = sec["tasks"]["task1"]["arms"]["agentic"]
    # j3 votes negative every time, the others and the arm affirmative. Left out j1 or j2: the arm ties them on
    # the 29 matches it answers affirmative (0.5 = 0.5) and loses the tie match (0 < 0.5): rho_f 29/30, rho_h 1.
    # Left out j3: the others say affirmative; the arm wins 29 (1 > 0) and ties the "tie" match (0 = 0): rho_f 1, rho_h 1/30
    assert [j["rho_f"] for j in t1["judges"]] == [pytest.approx(29 / 30), pytest.approx(29 / 30), 1.0]
    assert [j["rho_h"] for j in t1["judges"]] == [1.0, 1.0, pytest.approx(1 / 30)]
    assert t1["scoring"] == "accuracy" and sec["tasks"]["task2"]["arms"]["agentic"]["scoring"] == "neg_rmse"
    assert sec["tasks"]["task3"]["applicable"] is True


def test_the_bench_agrees_with_the_reference_on_the_synthetic_set():
    # The bench report over the bundled synthetic set (tests/golden/bench/synthetic_report.json, which
    # test_golden keeps equal to what the bench writes) against the authors' alt_test run by hand on the same
    # annotations (the four matches' judge labels and the offline arm's predictions, epsilon 0.2): Tasks 1 and 3
    # have 4 instances per judge, below the authors' 30, and their code gives no result; Task 2 (79 units)
    # gives winning rate 0.0 and advantage probability 0.5316455696202532 (= 42/79).
    report = json.loads((HERE / "golden" / "bench" / "synthetic_report.json").read_text(encoding="utf-8"))
    tasks = report["alt_test"]["tasks"]
    for t in ("task1", "task3"):
        arm = tasks[t]["arms"]["agentic"]
        assert arm["omega"] is None and arm["passed"] is None and arm["verdict"].startswith("not enough instances")
    t2 = tasks["task2"]["arms"]["agentic"]
    assert t2["omega"] == 0.0 and t2["rho"] == pytest.approx(42 / 79, abs=1e-12)


def test_not_applicable_without_judge_panels():
    from llm_helpers import online_match

    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.scoring.alt_test_section import alt_test_section

    matches = [online_match()]
    sec = alt_test_section(matches, gold_from_matches(matches), {})
    assert sec["applicable"] is False and "audience outcomes" in sec["reason"]
