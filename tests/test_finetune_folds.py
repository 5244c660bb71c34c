"""``bench --fold K`` under the fine-tuning protocol (issue 31; protocol 001 s.03): a calibration of p
and the data-dependent baselines fitted on the other folds only, applied to fold K and reported beside
the raw values; ``adjudicate finetune report`` pooling the three folds. Through the loopback
OpenAI-compatible server (tests/fake_openai.py) with the real litellm client; no network.

The model of these tests is informative but biased: it answers p = 0.80, 0.75, 0.70, ... for the
matches the affirmative won and p = 0.55-0.65 for those the negative won, so every raw p says
"affirmative" (raw accuracy = the affirmative share) while a calibration fitted on the training folds
moves the 0.5 threshold between the two groups.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.cli import main

#: match number -> (gold winner, the model's p)
MATCHES = {
    1: ("affirmative", 0.80), 2: ("negative", 0.55), 3: ("affirmative", 0.75), 4: ("negative", 0.60), 5: ("affirmative", 0.70),
    6: ("negative", 0.65), 7: ("affirmative", 0.85), 8: ("negative", 0.58), 9: ("affirmative", 0.72),
}  # fmt: skip
TOKEN = re.compile(r"SAMPLETOKEN-(\d+)")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def responder(body: dict) -> str:
    """Task 1: the match's scripted p; every other request a valid answer (bench_helpers.answer)."""
    rf = body.get("response_format") or {}
    props = (rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}).get("properties") or {}
    if set(props) == {"basis", "p"}:
        i = int(TOKEN.search(json.dumps(body["messages"], ensure_ascii=False)).group(1))
        return json.dumps({"basis": "scripted", "p": MATCHES[i][1]})
    return answer(body)


def dataset(path: Path, flip: set[int] = frozenset()) -> Path:
    """The nine matches (nine motions), outcomes flipped for the match numbers in ``flip``."""
    other = {"affirmative": "negative", "negative": "affirmative"}
    return write_dataset(path, [online(i, other[w] if i in flip else w) for i, (w, _) in MATCHES.items()])


def llm(server, tmp_path) -> list[str]:
    return ["--arm", "single-call", "--model", "openai/test-model", "--api-base", server.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache"),
            "--timeout-s", "20", "--no-progress", "--bootstrap", "0"]  # fmt: skip


def run_fold(data: Path, k: int, runs: Path, name: str, server, tmp_path, capsys, *extra: str) -> Path:
    code, out, err = bench([str(data), "--fold", str(k), "--name", name, "--runs-dir", str(runs), *llm(server, tmp_path), *extra], capsys)
    assert code == 0, err
    return Path(out.strip())


def folds_of(data: Path, capsys) -> list[list[str]]:
    assert main(["splits", str(data)]) == 0
    return [f["match_ids"] for f in json.loads(capsys.readouterr().out)["folds"]]


def test_three_folds_fit_on_the_training_folds_and_pool(tmp_path, capsys, fake_openai):
    fake_openai.respond_with(responder)
    data = dataset(tmp_path / "data")
    folds = folds_of(data, capsys)
    assert sorted(len(f) for f in folds) == [3, 3, 3]
    runs = tmp_path / "runs"
    dirs = [run_fold(data, k, runs, f"f{k}", fake_openai, tmp_path, capsys) for k in range(3)]
    # each run also runs its six training matches, but with one response cache the three runs send
    # each request once: 9 matches x (Task 1 + 4 Task 2 units + Task 3), one pass over the dataset
    assert fake_openai.count == 9 * 6
    for k, d in enumerate(dirs):
        fit = json.loads((d / "fit.json").read_text())
        train = sorted(m for j, f in enumerate(folds) if j != k for m in f)
        # fitted on the six matches of the other folds, never on a test match
        assert sorted(fit["calibration"]["fitted_on"]) == train and sorted(fit["baselines"]["fitted_on"]) == train
        assert not set(fit["calibration"]["fitted_on"]) & set(folds[k]) and sorted(fit["test"]) == sorted(folds[k])
        platt = fit["calibration"]["arms"]["single-call"]
        assert platt["n"] == 6 and platt["a"] > 0
        # the training base rate: the affirmative's share of the six training matches
        assert fit["baselines"]["p_affirmative"] == pytest.approx(sum(MATCHES[int(m[1:])][0] == "affirmative" for m in train) / 6, abs=1e-12)
        report = json.loads((d / "report.json").read_text())
        assert report["samples"]["selected"] == 3  # the calibration part is run, never scored
        row = report["fold_fit"]["calibration"]["single-call"]
        aff_share = sum(MATCHES[int(m[1:])][0] == "affirmative" for m in folds[k]) / 3
        assert row["raw"]["winner_accuracy"]["value"] == pytest.approx(aff_share, abs=1e-12)  # every raw p > 0.5
        assert row["calibrated"]["winner_accuracy"]["n"] == 3
        assert "Fitted on the training folds only" in (d / "report.md").read_text() and "Fitted on the training folds only" in (d / "report.html").read_text()
    code = main(["finetune", "report", *map(str, dirs), "--json", "--bootstrap", "0"])
    pooled = json.loads(capsys.readouterr().out)
    assert code == 0 and pooled["n_matches"] == 9 and [r["fold"] for r in pooled["per_fold"]] == [0, 1, 2]
    acc = pooled["tasks"]["task1"]["rows"]
    arm = next(r for r in acc if r.get("arm") == "single-call")
    assert arm["metrics"]["winner_accuracy"]["value"] == pytest.approx(5 / 9, abs=1e-12)  # five affirmative wins of nine
    assert pooled["calibration"]["single-call"]["raw"]["winner_accuracy"]["value"] == pytest.approx(5 / 9, abs=1e-12)
    assert pooled["parsing"]["single-call"]["task1"]["strict"] == 9
    md_code = main(["finetune", "report", *map(str, dirs), "--bootstrap", "0"])
    assert md_code == 0 and "# Fine-tuning protocol: folds pooled" in capsys.readouterr().out


def test_the_test_folds_labels_never_reach_the_fit(tmp_path, capsys, fake_openai):
    """Fold 0 run twice on datasets that differ only in fold 0's labels: every fitted parameter is
    the same, the scored test results are not."""
    fake_openai.respond_with(responder)
    data = dataset(tmp_path / "a")
    test = folds_of(data, capsys)[0]
    flipped = dataset(tmp_path / "b", flip={int(m[1:]) for m in test})
    assert folds_of(flipped, capsys)[0] == test  # labels do not move the folds
    runs = tmp_path / "runs"
    a = run_fold(data, 0, runs, "a", fake_openai, tmp_path, capsys)
    b = run_fold(flipped, 0, runs, "b", fake_openai, tmp_path, capsys)
    fa, fb = (json.loads((d / "fit.json").read_text()) for d in (a, b))
    assert fa == fb
    ra, rb = (json.loads((d / "report.json").read_text())["fold_fit"]["calibration"]["single-call"] for d in (a, b))
    assert ra["fit"] == rb["fit"]
    assert ra["raw"]["winner_accuracy"]["value"] + rb["raw"]["winner_accuracy"]["value"] == pytest.approx(1.0)  # flipped outcomes


def test_calibrate_on_none_runs_only_the_fold_and_finetune_report_refuses_an_incomplete_set(tmp_path, capsys, fake_openai):
    fake_openai.respond_with(responder)
    data = dataset(tmp_path / "data")
    folds = folds_of(data, capsys)
    runs = tmp_path / "runs"
    d = run_fold(data, 1, runs, "n1", fake_openai, tmp_path, capsys, "--calibrate-on", "none")
    assert sorted(p.stem for p in (d / "results" / "single-call").glob("*.json")) == sorted(folds[1])
    section = json.loads((d / "report.json").read_text())["fold_fit"]
    assert section["calibration_part"] == "none" and "not fitted" in section["calibration"]["single-call"]["reason"]
    assert section["baselines"]["task1"]["rows"][-1]["predictor"].startswith("training base rate")
    code = main(["finetune", "report", str(d)])
    err = capsys.readouterr().err
    assert code == 2 and "fold(s) [0, 2] missing" in err


def test_a_fine_tuned_models_run_calibrates_on_the_exports_validation_part(tmp_path, capsys, fake_openai):
    """``bench --fold K --splits OUT/splits.json`` (the folds a model was fine-tuned on): the same test
    fold, and by default the calibration part is the fold's validation part, which the fine-tuning
    never trained on."""
    fake_openai.respond_with(responder)
    data = dataset(tmp_path / "data")
    out = tmp_path / "ft"
    assert main(["finetune", "export", str(data), "--out", str(out)]) == 0
    capsys.readouterr()
    manifest = json.loads((out / "manifest.json").read_text())
    val = manifest["folds"][0]["validation"]
    assert len(val) == 2  # six training matches of six motions, held out by fifths: groups of 2, 1, 1, 1, 1
    d = run_fold(data, 0, tmp_path / "runs", "ft0", fake_openai, tmp_path, capsys, "--splits", str(out / "splits.json"))
    fold = json.loads((d / "manifest.json").read_text())["fold"]
    assert fold["test"] == [f"{m}.json" for m in manifest["folds"][0]["test"]]
    assert fold["calibration_part"] == "validation" and fold["calibration"] == [f"{m}.json" for m in val]
    fit = json.loads((d / "fit.json").read_text())
    assert fit["calibration"]["fitted_on"] == val
    assert fit["calibration"]["arms"]["single-call"].startswith("not fitted: 2 training match(es)")
    assert sorted(fit["baselines"]["fitted_on"]) == sorted(manifest["folds"][0]["train"] + val)  # baselines: the whole training portion
