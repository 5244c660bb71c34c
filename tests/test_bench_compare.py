"""``adjudicate compare RUN_A RUN_B``: paired comparison of two runs on their common subset.

Run A: the offline judge; run B: the loopback model, which always answers p = 0.7 and a score of 7
(judges) -- so B predicts the affirmative everywhere. On the bundled synthetic CCDB matches (gold:
2v2_01 negative, 2v2_02 affirmative, 4v4_01 affirmative, 4v4_02 negative) B's accuracy is 2/4.
"""

from __future__ import annotations

import json

from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.cli import main
from bench_helpers import answer


def test_compare_two_runs(tmp_path, capsys, fake_openai, bundled_matches_dir, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    data = str(bundled_matches_dir / "synthetic")
    runs = tmp_path / "runs"
    common = ["--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    assert main(["bench", data, "--name", "off", *common]) == 0
    fake_openai.respond_with(answer)
    llm = ["--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "c")]
    assert main(["bench", data, "--name", "lb", *common, *llm]) == 0
    capsys.readouterr()

    assert main(["compare", "off", "lb", "--runs-dir", str(runs), "--json", "--bootstrap", "50"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert c["matches_shared"] == 4 and (c["arm_a"], c["arm_b"]) == ("agentic", "agentic")
    w = c["tests"]["winner_accuracy"]
    assert w["test"] == "exact McNemar" and w["n"] == 4
    assert w["accuracy_b"] == 0.5  # always affirmative on 2 affirmative of 4
    off_report = json.loads(next(runs.glob("*_off/report.json")).read_text())
    off_acc = next(r for r in off_report["tasks"]["task1"]["rows"] if r["kind"] == "arm")["metrics"]["winner_accuracy"]["value"]
    assert w["accuracy_a"] == off_acc
    assert w["a_only"] + w["both_correct"] == round(off_acc * 4)
    for name in ("stage_mse", "tendency_all_pairs", "best_debater_top1", "vote_share_mae"):
        t = c["tests"][name]
        assert t["test"] == "paired bootstrap" and t["difference"] == t["value_a"] - t["value_b"], name
        assert t["low"] <= t["difference"] <= t["high"], name
    # every loopback judge scores 7, so B's scores are constant: its correlation is undefined (None), never 0
    assert c["tests"]["stage_pearson"]["value_b"] is None and c["tests"]["stage_pearson"]["difference"] is None

    assert main(["compare", "off", "lb", "--runs-dir", str(runs), "--bootstrap", "20"]) == 0
    table = capsys.readouterr().out
    assert "exact McNemar" in table and "paired bootstrap" in table and "4 matches in both runs" in table


def test_compare_unknown_run_is_exit_2(tmp_path, capsys):
    assert main(["compare", "nope", "nada", "--runs-dir", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
