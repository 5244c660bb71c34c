"""BP through a model in both arms (issue 42, item 6): the loopback server's schema responder answers
the BP requests (tracker speeches, the judges' ranking ballots, the single-call arm's three plain-text
tasks), and a bench run takes two BP rounds and a two-sided match through the agentic panel and the
single call over real HTTP.

Worked by hand: every answer ranks OG, OO, CG, CO (the judges by the schema's house order, the single
call's "First: OG ..."), so each arm's first team is OG in both rounds; bp_a advanced OO and OG (a hit),
bp_b only CO (a miss): best-team accuracy 1/2, pick rate OG 1.0; the random team's expected accuracy
(2/4 + 1/4) / 2 = 0.375. Speaker scores 80, 79, ... 73 in speaking order: the mean speaker score of
every speech equals its answer in both arms (three equal ballots in the panel).
"""

from __future__ import annotations

import json

import pytest
from bench_helpers import answer, bench, isolate_env, online, run_dir_of, write_dataset
from bp_helpers import bp_data
from fake_openai import fake_openai  # noqa: F401 (fixture)


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def test_bp_rounds_through_both_arms_over_the_loopback_server(tmp_path, capsys, fake_openai):
    data = write_dataset(tmp_path / "data", [online(1)])
    (data / "bp_a.json").write_text(json.dumps(bp_data("bp_a", labels={"advanced": ["OO", "OG"]})), encoding="utf-8")
    (data / "bp_b.json").write_text(json.dumps(bp_data("bp_b", labels={"advanced": ["CO"]})), encoding="utf-8")
    fake_openai.respond_with(answer)
    args = [str(data), "--name", "bp", "--runs-dir", str(tmp_path / "runs"), "--no-progress", "--bootstrap", "0", "--arm", "agentic", "--arm", "single-call",
            "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"), "--timeout-s", "20"]  # fmt: skip
    code, _, err = bench(args, capsys)
    assert code == 0, err
    run = run_dir_of(tmp_path / "runs")
    for arm in ("agentic", "single-call"):
        for mid in ("bp_a", "bp_b", "m01"):
            res = json.loads((run / "results" / arm / f"{mid}.json").read_text())
            assert res["status"] == "ok", (arm, mid, res.get("error"))
        v = json.loads((run / "results" / arm / "bp_a.json").read_text())["verdict"]
        assert [(r["unit"], r["rank"]) for r in v["ranking"]] == [("OG", 1), ("OO", 2), ("CG", 3), ("CO", 4)]
        assert [s["mean"] for s in v["speaker_scores"]] == [80.0, 79.0, 78.0, 77.0, 76.0, 75.0, 74.0, 73.0]
    report = json.loads((run / "report.json").read_text())
    assert "bp" in report["tasks"]
    bp = report["tasks"]["panelbench"]["bp"]
    rows = {r.get("arm", r["label"]): r for r in bp["rows"]}
    for arm in ("agentic", "single-call"):
        assert rows[arm]["best_team_accuracy"]["value"] == 0.5 and rows[arm]["best_team_accuracy"]["n"] == 2
        assert rows[arm]["pick_rate"] == {"OG": 1.0, "OO": 0.0, "CG": 0.0, "CO": 0.0}
        assert rows[arm]["completion"]["value"] == 1.0 and rows[arm]["n_completed"] == 2  # both rounds ranked (item 5)
    assert rows["random team (expected)"]["best_team_accuracy"]["value"] == 0.375
