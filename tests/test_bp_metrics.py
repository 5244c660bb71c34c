"""BP metrics and baselines against values computed by hand, and the BP tasks of a benchmark run."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from bench_helpers import run_dir_of
from bp_helpers import bp_data

from adjudicator.cli import main
from adjudicator.evaluation import ranking_metrics as R

# houses in unit order OG, OO, CG, CO
GOLD = [np.array([2, 1, 4, 3]), np.array([1, 2, 3, 4])]
PRED = [np.array([1, 2, 3, 4]), np.array([1, 2, 4, 3])]


def test_house_order_error():
    # match 1: |1-2|+|2-1|+|3-4|+|4-3| = 4; match 2: 0+0+1+1 = 2 -> mean 3.0
    r = R.house_order_error(PRED, GOLD)
    assert (r.value, r.n, r.n_excluded) == (3.0, 2, 0)
    # a missing prediction is excluded, never scored
    r = R.house_order_error([None, PRED[1]], GOLD)
    assert (r.value, r.n, r.n_excluded) == (2.0, 1, 1)
    assert math.isnan(R.house_order_error([None], [GOLD[0]]).value)


def test_speaker_score_mae_and_tolerance():
    pred = [80, 75, 90, 78, float("nan")]
    gold = [82, 75, 80, 81, 79]
    # |80-82| = 2, 0, 10, 3 (the NaN prediction is excluded) -> MAE 15/4 = 3.75
    r = R.speaker_score_mae(pred, gold)
    assert (r.value, r.n, r.n_excluded) == (3.75, 4, 1)
    # within 2: {2, 0} -> 2/4; within 3: {2, 0, 3} -> 3/4; within 9: still 3/4 (10 > 9)
    assert R.speaker_score_accuracy(pred, gold, 2).value == 0.5
    assert R.speaker_score_accuracy(pred, gold, 3).value == 0.75
    assert R.speaker_score_accuracy(pred, gold, 9).value == 0.75


def test_speaker_rank_error():
    gold = [np.arange(1, 9)]
    pred = [np.array([2, 1, 3, 4, 5, 6, 8, 7])]
    # |2-1|+|1-2|+0+0+0+0+|8-7|+|7-8| = 4
    assert R.speaker_rank_error(pred, gold).value == 4.0


def test_advancing_accuracy():
    # match 1 (a semi-final, OG and OO advanced): predicted ranks (2,1,4,3) -> top two {OG, OO}: hit;
    #   every team right -> 4/4
    # match 2 (OO and CG advanced): predicted (1,2,3,4) -> top two {OG, OO}: miss; OG wrong, OO right,
    #   CG wrong, CO right -> 2/4
    # match 3 (a final, CO won): predicted (1,2,3,4) -> top one {OG}: miss; OG wrong, OO right, CG right,
    #   CO wrong -> 2/4
    pred = [np.array([2, 1, 4, 3]), np.array([1, 2, 3, 4]), np.array([1, 2, 3, 4])]
    gold = [[0, 1], [1, 2], [3]]
    s = R.advancing_sets(pred, gold)
    assert (s.value, s.n) == (1 / 3, 3)
    t = R.advancing_teams(pred, gold)
    assert (t.value, t.n) == ((4 + 2 + 2) / 12, 12)


def test_random_ranking_expectations():
    # (n^2 - 1) / 3: 4 houses -> 15/3 = 5; 8 speeches -> 63/3 = 21
    assert R.expected_random_rank_error(4) == 5.0 and R.expected_random_rank_error(8) == 21.0
    # brute force over all 24 permutations of 4 against the gold ranking (2,1,4,3)
    from itertools import permutations

    errors = [sum(abs(p - g) for p, g in zip(perm, (2, 1, 4, 3))) for perm in permutations(range(1, 5))]
    assert sum(errors) / 24 == 5.0
    # top-k set: 1 / C(4, 2) = 1/6, 1 / C(4, 1) = 1/4; per team: (4 + 4) / 16 = 0.5, (1 + 9) / 16 = 0.625
    assert R.expected_random_advancing_set(4, 2) == pytest.approx(1 / 6) and R.expected_random_advancing_set(4, 1) == 0.25
    assert R.expected_random_advancing_team(4, 2) == 0.5 and R.expected_random_advancing_team(4, 1) == 0.625


# --- the BP tasks of a benchmark run ----------------------------------------------------------------

# gold: OO 1, OG 2, CO 3, CG 4; speaker scores OG 80+80 = 160 < OO 82+81 = 163, CG 77+76 = 153 < CO 78+77 = 155
SCORES = {"s01": 80, "s02": 82, "s03": 80, "s04": 81, "s05": 77, "s06": 78, "s07": 76, "s08": 77}
RANKS = {"s01": 3, "s02": 1, "s03": 4, "s04": 2, "s05": 6, "s06": 5, "s07": 8, "s08": 7}
FULL = {"ranking": {"OG": 2, "OO": 1, "CG": 4, "CO": 3}, "speaker_scores": SCORES, "speaker_ranks": RANKS, "advanced": ["OO", "OG"]}


def test_bp_tasks_in_a_benchmark_report(tmp_path, capsys):
    data = tmp_path / "data"
    data.mkdir()
    (data / "bp_a.json").write_text(json.dumps(bp_data("bp_a", labels=FULL)), encoding="utf-8")
    (data / "bp_b.json").write_text(json.dumps(bp_data("bp_b", labels={"advanced": ["CO"]})), encoding="utf-8")
    runs = tmp_path / "runs"
    assert main(["bench", str(data), "--name", "bp", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]) == 0
    run = run_dir_of(runs)
    report = json.loads((run / "report.json").read_text())
    bp = report["tasks"]["bp"]
    rows = {r["label"]: r for r in bp["house_order"]["rows"]}
    # the speaking-order baseline ranks OG 1, OO 2, CG 3, CO 4 against gold (2, 1, 4, 3): 1+1+1+1 = 4
    assert rows["speaking order (OG, OO, CG, CO)"]["metrics"]["error"]["value"] == 4.0
    # closing first: CG 1, CO 2, OG 3, OO 4 -> |3-2|+|4-1|+|1-4|+|2-3| = 8
    assert rows["closing first (CG, CO, OG, OO)"]["metrics"]["error"]["value"] == 8.0
    assert rows["random ranking (expected)"]["metrics"]["error"]["value"] == 5.0
    # the arm's error is the one its verdict implies (only bp_a has a gold ranking)
    verdict = json.loads((run / "results" / "agentic" / "bp_a.json").read_text())["verdict"]
    pred = {r["unit"]: r["rank"] for r in verdict["ranking"]}
    arm = next(r for r in bp["house_order"]["rows"] if r["kind"] == "arm")
    assert arm["metrics"]["error"]["value"] == sum(abs(pred[u] - FULL["ranking"][u]) for u in pred)
    assert arm["metrics"]["error"]["n"] == 1 and bp["house_order"]["n_matches"] == 1
    # speaker scores: constant 80 vs the gold -> |0|+2+0+1+3+2+4+3 = 15 / 8 = 1.875; within 2: 5 of 8
    const = next(r for r in bp["speaker_scores"]["rows"] if r["label"] == "constant 80")
    assert const["metrics"]["mae"]["value"] == 1.875 and const["metrics"]["within_2"]["value"] == 5 / 8
    assert set(const["metrics"]) == {"mae"} | {f"within_{t}" for t in range(2, 10)}
    # speaker ranks, speaking order 1..8 vs gold (3,1,4,2,6,5,8,7): 2+1+1+2+1+1+1+1 = 10
    speaking = next(r for r in bp["speaker_ranks"]["rows"] if r["label"].startswith("speaking order"))
    assert speaking["metrics"]["error"]["value"] == 10.0
    # advancing on both matches: speaking order puts OG, OO on top (bp_a hit) and OG first (bp_b miss) -> 1/2
    adv = {r["label"]: r for r in bp["advancing"]["rows"]}
    assert adv["speaking order (OG, OO, CG, CO)"]["metrics"]["set_accuracy"]["value"] == 0.5
    # per team: bp_a 4/4, bp_b OG wrong, OO right, CG right, CO wrong -> (4 + 2) / 8
    assert adv["speaking order (OG, OO, CG, CO)"]["metrics"]["team_accuracy"]["value"] == 0.75
    # random: mean of 1/6 (k = 2) and 1/4 (k = 1) = 5/24; per team mean of 0.5 and 0.625
    assert adv["random ranking (expected)"]["metrics"]["set_accuracy"]["value"] == pytest.approx(5 / 24, abs=1e-6)
    assert adv["random ranking (expected)"]["metrics"]["team_accuracy"]["value"] == pytest.approx(0.5625)
    # the two rounds share their motion: effective n 1
    assert (bp["advancing"]["n_matches"], bp["advancing"]["effective_n"]) == (2, 1)
    md = (run / "report.md").read_text()
    assert "## British Parliamentary tasks" in md and "E=5.000" in md
    # the per-sample table has a row per BP sample, its winner fields null
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert [r["sample_id"] for r in rows] == ["bp_a", "bp_b"] and all(r["p"] is None and r["status"] == "ok" for r in rows)


def test_panelbench_bp_tasks_are_not_applicable_where_the_data_has_no_gold(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "bp_b.json").write_text(json.dumps(bp_data("bp_b", labels={"advanced": ["CO"]})), encoding="utf-8")
    assert main(["bench", str(tmp_path / "d"), "--name", "x", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--bootstrap", "0"]) == 0
    report = json.loads((run_dir_of(tmp_path / "runs") / "report.json").read_text())
    bp = report["tasks"]["bp"]
    for task in ("house_order", "speaker_scores", "speaker_ranks"):
        assert bp[task]["rows"] == [] and bp[task]["reason"].startswith("not applicable: ")
    assert bp["advancing"]["rows"]
