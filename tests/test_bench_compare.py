"""``adjudicate compare RUN_A RUN_B``: paired comparison of two runs on the matches finished in both.

Run A: the offline judge; run B: the loopback model, which always answers p = 0.7 and a score of 7
(judges) -- so B predicts the affirmative everywhere. On the bundled synthetic CCDB matches (gold:
2v2_01 negative, 2v2_02 affirmative, 4v4_01 affirmative, 4v4_02 negative) B's accuracy is 2/4.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import answer, isolate_env, online, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.cli import main


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    """No ADJUDICATOR_* variable or user config may point a run at a real model server."""
    isolate_env(monkeypatch, tmp_path)


def test_compare_two_runs(tmp_path, capsys, fake_openai, bundled_matches_dir):
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
    assert "exact McNemar" in table and "paired bootstrap" in table and "4 matches finished in both runs (finished A 4, B 4; only A 0, only B 0)" in table
    assert "WARNING" not in table


def _run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_compare_counts_only_matches_finished_in_both_and_excludes_ties_like_the_report(tmp_path, capsys):
    # gold: m01 affirmative, m02 negative, m03 tie, m04 affirmative, m05 negative
    data = write_dataset(tmp_path / "data", [online(1), online(2, "negative"), online(3, "tie"), online(4), online(5, "negative")])
    runs = tmp_path / "runs"
    common = ["--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    assert main(["bench", str(data), "--name", "full", *common]) == 0
    assert main(["bench", str(data), "--name", "part", "--limit", "3", *common]) == 0  # stopped early: m01-m03 only
    capsys.readouterr()

    code, out, err = _run(["compare", "full", "part", "--runs-dir", str(runs), "--json", "--bootstrap", "20"], capsys)
    assert code == 0, err
    c = json.loads(out)
    assert (c["matches_shared"], c["matches_only_a"], c["matches_only_b"]) == (3, 2, 0)
    assert (c["finished"]["a"], c["finished"]["b"]) == (5, 3)
    # of m01-m03, m03 is a tie: accuracy and Brier count the 2 decisive matches
    assert c["n_decisive_shared"] == 2
    assert c["tests"]["winner_accuracy"]["n"] == 2 and c["tests"]["brier"]["n"] == 2
    assert c["warnings"] == [] and err == ""

    # the same run against itself: a warning, and the Brier n equals its report's (5 matches, 1 tie -> 4)
    report = json.loads(next(runs.glob("*_full/report.json")).read_text())
    code, out, err = _run(["compare", "full", "full", "--runs-dir", str(runs), "--json", "--bootstrap", "20"], capsys)
    assert code == 0
    c = json.loads(out)
    assert c["tests"]["brier"]["n"] == report["calibration"]["agentic"]["brier"]["n"] == 4
    assert c["tests"]["winner_accuracy"]["n"] == 4 and c["tests"]["brier"]["difference"] == 0.0
    (w,) = c["warnings"]
    assert "the same run folder" in w and "same arm 'agentic'" in w
    assert err.startswith("warning: RUN_A and RUN_B are the same run folder")
    # by folder path and by name: still the same run, and the text table says so first
    full_dir = next(runs.glob("*_full"))
    code, out, _ = _run(["compare", str(full_dir), "full", "--runs-dir", str(runs), "--bootstrap", "0"], capsys)
    assert code == 0 and out.startswith("WARNING: RUN_A and RUN_B are the same run folder")
    assert "5 matches finished in both runs (finished A 5, B 5; only A 0, only B 0)" in out
    # a copy of the run folder elsewhere is still the same run (same manifest run id)
    import shutil

    copy = shutil.copytree(full_dir, tmp_path / "elsewhere" / full_dir.name)
    c = compare_json([str(full_dir), str(copy)], capsys)
    assert len(c["warnings"]) == 1 and f"two copies of run {full_dir.name}" in c["warnings"][0]
    # two different runs give no warning
    assert compare_json(["full", "part"], capsys, runs)["warnings"] == []


def compare_json(refs, capsys, runs=None):
    code, out, err = _run(["compare", *refs, "--json", "--bootstrap", "0", *(["--runs-dir", str(runs)] if runs else [])], capsys)
    assert code == 0, err
    return json.loads(out)


def test_compare_unknown_run_is_exit_2(tmp_path, capsys):
    assert main(["compare", "nope", "nada", "--runs-dir", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err


def test_compare_names_the_one_setting_that_differs_and_lists_the_flipped_samples(tmp_path, capsys, bundled_matches_dir):
    data = str(bundled_matches_dir / "panelbench")
    runs = tmp_path / "runs"
    common = ["--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    assert main(["bench", data, "--name", "scoring", *common]) == 0
    assert main(["bench", data, "--name", "pairwise", "--panel", "pairwise", *common]) == 0
    rows = {}
    for name in ("scoring", "pairwise"):
        rows[name] = {r["sample_id"]: r for r in map(json.loads, next(runs.glob(f"*_{name}/samples.jsonl")).read_text(encoding="utf-8").splitlines())}
    a, b = rows["scoring"], rows["pairwise"]
    flipped = sorted(s for s in a if a[s]["correct"] is not None and b[s]["correct"] is not None and a[s]["correct"] != b[s]["correct"])
    moved = sorted(s for s in a if abs(b[s]["p"] - a[s]["p"]) > 0.25)
    assert flipped and moved  # the bundled matches do differ under the two panels
    capsys.readouterr()

    assert main(["compare", "scoring", "pairwise", "--runs-dir", str(runs), "--json", "--bootstrap", "0", "--p-moved", "0.25"]) == 0
    c = json.loads(capsys.readouterr().out)
    assert c["settings_differ"] == [{"setting": "panel", "a": "scoring", "b": "pairwise"}]  # the only measured setting that differs
    assert c["label_a"].endswith("agentic · offline [panel scoring]") and c["label_b"].endswith("agentic (pairwise) · offline [panel pairwise]")
    listed = {d["sample_id"]: d for d in c["samples_differ"]}
    assert sorted(s for s, d in listed.items() if any(w.startswith("correct in") for w in d["why"])) == flipped
    assert sorted(s for s, d in listed.items() if any(w.startswith("p moved") for w in d["why"])) == moved
    assert set(listed) == set(flipped) | set(moved)
    for s, d in listed.items():
        assert d["p_delta"] == pytest.approx(b[s]["p"] - a[s]["p"], abs=1e-12)
        assert (d["a"]["p"], d["b"]["p"], d["a"]["correct"], d["b"]["correct"]) == (a[s]["p"], b[s]["p"], a[s]["correct"], b[s]["correct"])
    page = Path(c["diff_html"]).read_text(encoding="utf-8")
    assert page.count('<section class="sample"') == len(listed) and page.count('<div class="pair">') == len(listed)
    assert "<td>panel</td><td><code>scoring</code></td><td><code>pairwise</code></td>" in page
    assert page.count('data-node="compare"') > 0 and page.count('data-node="judge"') > 0  # B's pairwise calls beside A's judges
    assert main(["compare", "scoring", "pairwise", "--runs-dir", str(runs), "--bootstrap", "0"]) == 0
    table = capsys.readouterr().out
    assert "settings that differ (A -> B):\n  panel: scoring -> pairwise" in table
    assert all(f"  {s}: " in table for s in listed)
