"""The wording defects of issue 30 item 6, each checked on what a report renders: the BP header's label
convention, Task 1's not-applicable reason without two-sided matches, an interval of a mean absolute
shift below zero, a bootstrap p of 0, the non-tie tendency test's n, and the seeded random baseline
ranked above an arm."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import run_dir_of
from bp_helpers import bp_data

from adjudicator.cli import main

HERE = Path(__file__).parent
SYNTHETIC = HERE.parent / "adjudicator" / "data" / "matches" / "synthetic"


def _bench(data: Path, runs: Path, *extra: str) -> Path:
    assert main(["bench", str(data), "--name", "w", "--runs-dir", str(runs), "--no-progress", *extra]) == 0
    return run_dir_of(runs)


def test_a_panelbench_bp_only_run_states_its_gold_and_task1_says_why(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    for mid, adv in (("bp_110", ["OG", "CO"]), ("bp_202", ["OO"])):
        d = bp_data(mid, labels={"advanced": adv})
        d["source"] = {"kind": "real", "origin": "PanelBench BP-Competition (ljcleo/debatrix)"}
        (data / f"{mid}.json").write_text(json.dumps(d), encoding="utf-8")
    md = (_bench(data, tmp_path / "runs", "--bootstrap", "0") / "report.md").read_text(encoding="utf-8")
    assert "labels read under the ;" not in md and "read under the  " not in md
    assert "PanelBench BP rounds: the gold is the teams that advanced (no winner label, so no label convention applies)" in md
    assert "no match of the 0" not in md
    assert "the run has no two-sided match to score a winner on (British Parliamentary rounds are scored in their own section)" in md


def test_the_synthetic_report_ranks_no_random_draw_above_the_arm(tmp_path):
    data = tmp_path / "d"
    shutil.copytree(SYNTHETIC, data)
    run = _bench(data, tmp_path / "runs", "--bootstrap", "200")
    report = json.loads((run / "report.json").read_text())
    for task in ("task1", "task2"):
        rows = report["tasks"][task]["rows"]
        arm = next(r for r in rows if r["kind"] == "arm")
        seeded = [r for r in rows if r["kind"] == "baseline" and r.get("seed") is not None]
        assert seeded and all(r["rank"] is None for r in seeded) and arm["rank"] is not None
    assert next(r for r in report["tasks"]["task2"]["rows"] if r["kind"] == "arm")["rank"] == 1
    # Task 2: the structure-aware random draw has the higher Pearson r (0.224 vs the arm's 0.112) and used to rank 1
    md = (run / "report.md").read_text(encoding="utf-8")
    line = next(x for x in md.splitlines() if x.startswith("| — | structure-aware random"))
    assert "0.224" in line
    assert "nor is a seeded random baseline (one draw, shown with its expected value E)" in md


def test_a_mean_absolute_shift_has_no_interval_below_zero():
    from adjudicator.probes.stats import mean_measure

    # shifts 0, 0, 0, 0.3: mean 0.075, s = 0.15, t(0.975, 3) = 3.182 -> half 0.2387: the t interval would reach -0.164
    m = mean_measure("swap", "mean absolute p shift", [0.0, 0.0, 0.0, 0.3], 0.0, "expected", floor=0.0)
    assert m.value == pytest.approx(0.075) and m.ci_low == 0.0 and m.ci_high == pytest.approx(0.075 + 3.182446 * 0.15 / 2, abs=1e-5)


def test_a_bootstrap_p_of_zero_reads_below_one_over_b():
    from adjudicator.bench.report_md import _paired_test_line

    t = {"test": "paired bootstrap", "value_a": 0.8, "value_b": 0.2, "difference": 0.6, "low": 0.4, "high": 0.8, "p_value": 0.0, "p_text": "< 1/2000", "n": 30}
    assert _paired_test_line("winner_accuracy", t).endswith("| < 1/2000 | 30 |")
    from adjudicator.bench.scoring.leaves import ScoreSettings, paired_bootstrap_test
    from adjudicator.evaluation.metrics import winner_accuracy

    gold = ["affirmative"] * 20
    res = paired_bootstrap_test(winner_accuracy, [np.full(20, 0.9), gold], [np.full(20, 0.1), gold], None, ScoreSettings(n_bootstrap=500, seed=1))
    assert res["p_value"] == 0.0 and res["p_text"] == "< 1/500"


def test_the_non_tie_tendency_test_counts_the_pairs_it_uses():
    from adjudicator.bench.gold import gold_from_matches
    from adjudicator.bench.predictions import ArmPredictions
    from adjudicator.bench.scoring.leaves import ScoreSettings
    from adjudicator.bench.scoring.stage_scores import paired_tests
    from adjudicator.evaluation.metrics import tendency_sign
    from adjudicator.input.match_file import load_match

    matches = [load_match(p) for p in sorted(SYNTHETIC.glob("*.json"))]
    gold = gold_from_matches(matches)
    rng = np.random.default_rng(0)
    P = len(gold.pairs)

    def arm(name: str) -> ArmPredictions:
        return ArmPredictions(name, name, {}, np.full(len(matches), 0.6), [None] * len(matches), np.full(len(gold.units), 6.0),
                              rng.integers(1, 11, P).astype(float), rng.integers(1, 11, P).astype(float), {}, [])

    t = paired_tests(arm("a"), arm("b"), gold, ScoreSettings(n_bootstrap=200, seed=0))
    non_tie = int((tendency_sign(gold.pair_aff, gold.pair_neg) != 0).sum())
    assert non_tie < P  # the synthetic set has human-tie pairs
    assert t["tendency_all_pairs"]["n"] == P and t["tendency_non_tie"]["n"] == non_tie
