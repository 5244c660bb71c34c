"""``bench --fold K``: a run over fold K of ``adjudicate splits``, its train/test files in the manifest,
the fold named in the reports, and the refusals (offline judge; no model call)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_helpers import bench, isolate_env, online, write_dataset

from adjudicator.cli import main


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


@pytest.fixture
def data(tmp_path) -> Path:
    """Six matches with six distinct motions (each motion carries its sample token), so the three
    recommended folds hold two matches each."""
    return write_dataset(tmp_path / "data", [online(i, "affirmative" if i % 2 else "negative") for i in range(1, 7)])


def splits_of(data: Path, capsys, *extra: str) -> dict:
    assert main(["splits", str(data), *extra]) == 0
    return json.loads(capsys.readouterr().out) if not extra else {}


def run_named(runs: Path, name: str) -> Path:
    (d,) = [p for p in runs.iterdir() if p.name.endswith(f"_{name}")]
    return d


def test_a_fold_run_holds_that_fold_and_records_train_and_test(data, tmp_path, capsys):
    folds = splits_of(data, capsys)
    want = folds["folds"][1]["match_ids"]
    assert len(want) == 2
    runs = tmp_path / "runs"
    code, _, err = bench([str(data), "--fold", "1", "--name", "f1", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"], capsys)
    assert code == 0, err
    run = run_named(runs, "f1")
    # the train part is run too (its calibration part, --calibrate-on train by default), never scored
    assert sorted(p.stem for p in (run / "results" / "agentic").glob("*.json")) == [f"m0{i}" for i in range(1, 7)]
    fold = json.loads((run / "manifest.json").read_text())["fold"]
    assert fold["fold"] == 1 and fold["folds"] == 3 and fold["seed"] == 0 and fold["splits_file"] is None
    assert fold["test"] == [f"{m}.json" for m in sorted(want)]
    assert sorted(fold["train"]) == sorted(f"m0{i}.json" for i in range(1, 7) if f"m0{i}" not in want)
    assert fold["calibration_part"] == "train" and fold["calibration"] == fold["train"]
    report = json.loads((run / "report.json").read_text())
    assert report["run"]["fold"]["n_test"] == 2 and report["run"]["fold"]["n_train"] == 4
    assert report["samples"]["selected"] == 2
    md = (run / "report.md").read_text()
    assert "- **Fold:** fold 1 of 3: 2 test matches; the other folds' 4 form its train part" in md
    assert "Fold:" in (run / "report.html").read_text()
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert sorted(r["sample_id"] for r in rows) == sorted(want)
    # the report rebuilt from the folder keeps the fold's selection
    assert bench([str(data), "--name", "f1", "--runs-dir", str(runs), "--report-only", "--bootstrap", "0"], capsys)[0] == 0
    assert json.loads((run / "report.json").read_text())["samples"]["selected"] == 2


def test_a_splits_file_chooses_the_folds(data, tmp_path, capsys):
    out = tmp_path / "folds.json"
    splits_of(data, capsys, "--folds", "2", "--seed", "5", "--out", str(out))
    written = json.loads(out.read_text())
    runs = tmp_path / "runs"
    code, _, err = bench([str(data), "--fold", "0", "--splits", str(out), "--name", "s0", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"], capsys)
    assert code == 0, err
    fold = json.loads((run_named(runs, "s0") / "manifest.json").read_text())["fold"]
    assert fold["folds"] == 2 and fold["seed"] == 5 and fold["splits_file"] == str(out)
    assert fold["test"] == [f"{m}.json" for m in written["folds"][0]["match_ids"]]


def test_fold_refusals_are_one_line_and_create_nothing(data, tmp_path, capsys):
    runs = tmp_path / "runs"
    other = write_dataset(tmp_path / "other", [online(i) for i in range(7, 10)])
    foreign = tmp_path / "foreign.json"
    splits_of(other, capsys, "--out", str(foreign))
    base = [str(data), "--name", "x", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0"]
    cases = [
        (["--fold", "3"], "--fold: 3 is not a fold of the recommended splits (folds 0 to 2)"),
        (["--fold", "-1"], "--fold: must be 0 or more"),
        (["--splits", str(foreign)], "--splits: says which folds --fold picks from, but no --fold was given"),
        (["--fold", "0", "--splits", str(foreign)], "was made for another dataset"),
    ]
    for extra, message in cases:
        code, _, err = bench([*base, *extra], capsys)
        assert code == 2, err
        assert message in err and "Traceback" not in err
    assert not runs.exists() or not any(runs.iterdir())
    # a resumed run keeps its fold
    assert bench([*base, "--fold", "2"], capsys)[0] == 0
    code, _, err = bench([*base, "--resume", "--fold", "0"], capsys)
    assert code == 2 and "--fold: run" in err and "runs fold 2" in err
    assert bench([*base, "--resume"], capsys)[0] == 0
