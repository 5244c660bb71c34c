"""PanelBench's own metrics in the bench (issue 30, item 7): DebateArt RMSE x 100 with the label coding
stated, overall and per dimension; BP best-team accuracy with co-winners and the pick rate per house;
Debatrix's published rows beside them with the line that the subsets differ."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from bench_helpers import run_dir_of
from bp_helpers import bp_data

from adjudicator.bench.scoring.panelbench import PUBLISHED, direct_prediction, rmse_x100
from adjudicator.cli import main

BUNDLED = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "panelbench"


def test_rmse_x100_by_hand():
    # errors 0, 1, 0.5 -> squares 0, 1, 0.25 -> mean 5/12 -> 100 * sqrt(5/12) = 64.55
    res = rmse_x100(np.array([1.0, 0.0, 0.5, np.nan]), np.array([1.0, 1.0, 0.0, 1.0]))
    assert res.value == pytest.approx(100 * math.sqrt(5 / 12), abs=1e-12) and (res.n, res.n_excluded) == (3, 1)
    assert direct_prediction(np.array([0.51, 0.49, 0.5, np.nan])).tolist()[:3] == [1.0, 0.0, 0.5]


def test_published_rows_are_the_debatrix_homepage_figures():
    rows = {r["label"]: r for r in PUBLISHED["rows"]}
    assert (rows["Debatrix (gpt-3.5-turbo backbone)"]["rmse_direct"], rows["Debatrix (gpt-3.5-turbo backbone)"]["bp_accuracy"]) == (41.75, 51.52)
    assert (rows["GPT-4, one call"]["rmse_score_comparison"], rows["GPT-4, one call"]["bp_accuracy"]) == (44.84, 34.85)


def _bench(data: Path, runs: Path) -> Path:
    assert main(["bench", str(data), "--name", "pb", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]) == 0
    return run_dir_of(runs)


def test_debateart_rmse_on_the_bundled_matches(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    for f in BUNDLED.glob("*.json"):
        shutil.copy(f, data / f.name)
    run = _bench(data, tmp_path / "runs")
    report = json.loads((run / "report.json").read_text())
    da = report["tasks"]["panelbench"]["debateart"]
    # recompute by hand from the result files: the winner from p against the outcome coded 1 / 0.5 / 0
    code = {"affirmative": 1.0, "tie": 0.5, "negative": 0.0}
    sq_direct, sq_p = [], []
    for f in sorted(data.glob("*.json")):
        gold = code[json.loads(f.read_text())["labels"]["outcome"]]
        v = json.loads((run / "results" / "agentic" / f.name).read_text())["verdict"]
        # the scored p (docs/metrics.md): the ballots' unrounded mean unless it falls on the panel winner's losing side
        mean = sum(b["p"] for b in v["ballots"]) / len(v["ballots"])
        p = mean if (mean > 0.5) == (v["winner"] == "affirmative") and mean != 0.5 else v["p"]
        sq_direct.append(((1.0 if p > 0.5 else 0.0 if p < 0.5 else 0.5) - gold) ** 2)
        sq_p.append((p - gold) ** 2)
    rows = {r["label"]: r["rmse_x100"] for r in da["overall"]}
    direct = next(v for k, v in rows.items() if k.endswith("direct prediction"))
    given = next(v for k, v in rows.items() if k.endswith("p as given"))
    assert direct["value"] == pytest.approx(100 * math.sqrt(np.mean(sq_direct)), abs=1e-9) and direct["n"] == 5
    assert given["value"] == pytest.approx(100 * math.sqrt(np.mean(sq_p)), abs=1e-9)
    assert set(da["dimensions"]) == {"argument", "source", "language"}
    md = (run / "report.md").read_text()
    assert "RMSE × 100 against the audience outcome (gold coded 1.0 = affirmative (pro) won, 0.5 = tie, 0.0 = negative (con) won" in md
    assert "| Debatrix (gpt-3.5-turbo backbone) | 42.21 | 41.75 | 100.00 | 51.52 |" in md
    assert "| GPT-4, one call | 44.84 | 46.55 | 100.00 | 34.85 |" in md
    assert "the subsets differ" in md


def test_bp_best_team_accuracy_with_co_winners_and_the_pick_rate(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "bp_a.json").write_text(json.dumps(bp_data("bp_a", labels={"advanced": ["OO", "OG"]})), encoding="utf-8")
    (data / "bp_b.json").write_text(json.dumps(bp_data("bp_b", labels={"advanced": ["CO"]})), encoding="utf-8")
    run = _bench(data, tmp_path / "runs")
    bp = json.loads((run / "report.json").read_text())["tasks"]["panelbench"]["bp"]
    firsts = {}
    for mid in ("bp_a", "bp_b"):
        ranking = json.loads((run / "results" / "agentic" / f"{mid}.json").read_text())["verdict"]["ranking"]
        firsts[mid] = next(x["unit"] for x in ranking if x["rank"] == 1)
    hits = [firsts["bp_a"] in ("OO", "OG"), firsts["bp_b"] == "CO"]
    arm = next(r for r in bp["rows"] if r["kind"] == "arm")
    assert arm["best_team_accuracy"]["value"] == pytest.approx(sum(hits) / 2) and arm["best_team_accuracy"]["n"] == 2
    assert arm["pick_rate"] == {h: sum(f == h for f in firsts.values()) / 2 for h in ("OG", "OO", "CG", "CO")}
    # the random team: 2/4 in bp_a (two advanced), 1/4 in bp_b -> 0.375; gold shares OG .5, OO .5, CG 0, CO .5
    rnd = next(r for r in bp["rows"] if r["kind"] == "baseline")
    assert rnd["best_team_accuracy"]["value"] == pytest.approx(0.375)
    assert bp["gold_share"] == {"OG": 0.5, "OO": 0.5, "CG": 0.0, "CO": 0.5}
    md = (run / "report.md").read_text()
    assert "| Predictor | completion % | best-team accuracy % | OG | OO | CG | CO |" in md and "| random team (expected) | — | 37.50 (n=2) | 0.250 | 0.250 | 0.250 | 0.250 |" in md
    assert "| gold (advanced) | — | — | 0.500 | 0.500 | 0.000 | 0.500 |" in md
    assert arm["completion"]["value"] == 1.0 and arm["n_completed"] == 2


def test_bp_completion_rate_counts_the_rounds_without_one_first_team():
    """Issue 42, item 5: three rounds; the arm ranks OG first in bp_a (OG advanced: a hit), fails bp_b and
    ties OG and OO for first in bp_c. Completion 1/3 (as Debatrix's rows count it); best-team accuracy
    1/1 over the completed round; the md row says both."""
    from adjudicator.bench.results import SampleResult
    from adjudicator.bench.scoring.leaves import ScoreSettings
    from adjudicator.bench.scoring.panelbench import bp_table
    from adjudicator.input.match_file import parse_match

    rounds = [parse_match(bp_data(mid, labels={"advanced": ["OG"]})) for mid in ("bp_a", "bp_b", "bp_c")]
    ranks = {"bp_a": {"OG": 1, "OO": 2, "CG": 3, "CO": 4}, "bp_c": {"OG": 1, "OO": 1, "CG": 3, "CO": 4}}
    res = {mid: SampleResult(sample_id=mid, arm="agentic", sample_sha256="x", status="ok", verdict={"ranking": [{"unit": u, "rank": r} for u, r in ranks[mid].items()]}) for mid in ranks}
    res["bp_b"] = SampleResult(sample_id="bp_b", arm="agentic", sample_sha256="x", status="failed", error="the panel needs at least 2 valid ballots", error_type="AdjudicationFailed")
    bp = bp_table(rounds, {"agentic": res}, {"agentic": "agentic"}, ScoreSettings(n_bootstrap=0))
    arm = bp["rows"][0]
    assert arm["completion"]["value"] == pytest.approx(1 / 3) and arm["completion"]["n"] == 3 and arm["n_completed"] == 1
    assert arm["best_team_accuracy"]["value"] == 1.0 and arm["best_team_accuracy"]["n"] == 1 and arm["best_team_accuracy"]["n_excluded"] == 2
    assert bp["rows"][1]["completion"] is None  # the random team has no rounds to fail
    assert "tie for first" in bp["completion_note"]
