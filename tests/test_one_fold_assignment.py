"""One fold assignment per dataset, whichever command made it, recorded with a digest and refused
when it does not match; what the export leaves out is said, with why (issue 42, item 2; protocol
001 s.03: a model tuned on fold K must never be tested on its own training matches).

At 52c38fb ``finetune export`` made its folds over the two-sided matches alone, so on a folder of
one-on-one debates and BP rounds its splits.json left the BP rounds out (and said nothing);
``bench --fold 0 --splits ft/splits.json`` refused it and advised ``adjudicate splits``, whose
folds over every match put most of each fold's test debates in the export's training part of
that fold."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from bench_helpers import isolate_env, online, write_dataset
from bp_helpers import bp_data

from adjudicator.bench.dataset import load_dataset
from adjudicator.bench.splits import assignment_digest, choose_fold
from adjudicator.cli import main
from adjudicator.errors import InputError
from adjudicator.finetune.pooled import _check_runs

SYNTHETIC = Path(__file__).resolve().parents[1] / "adjudicator" / "data" / "matches" / "synthetic"


def _dataset(tmp_path: Path) -> Path:
    """Nine one-on-one debates (nine motions) and three BP rounds (three more motions)."""
    folder = write_dataset(tmp_path / "data", [online(i, "affirmative" if i % 2 else "negative") for i in range(1, 10)])
    for k in range(3):
        data = bp_data(f"bp_{k}")
        data["motion"] = f"This House would ban private cars from city centre {k}"
        (folder / f"bp_{k}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_export_splits_and_bench_give_every_match_one_fold_with_one_digest(tmp_path, capsys):
    data = _dataset(tmp_path)
    code, _, err = _run(["finetune", "export", str(data), "--out", str(tmp_path / "ft")], capsys)
    assert code == 0, err
    # said, with why
    assert "left out of the files: 3 matches (3 bp): a ranking format (British Parliamentary" in err
    m = json.loads((tmp_path / "ft" / "manifest.json").read_text())
    assert m["left_out"]["n"] == 3 and m["left_out"]["by_format"] == {"bp": 3} and sorted(m["left_out"]["match_ids"]) == ["bp_0", "bp_1", "bp_2"]
    exported = json.loads((tmp_path / "ft" / "splits.json").read_text())
    assert len(exported["assignment"]) == 12  # the BP rounds keep their fold
    assert _run(["splits", str(data), "--out", str(tmp_path / "s.json")], capsys)[0] == 0
    made = json.loads((tmp_path / "s.json").read_text())
    ds = load_dataset(data)
    assert made["assignment"] == exported["assignment"]
    assert made["assignment_sha256"] == exported["assignment_sha256"] == m["splits"]["assignment_sha256"] == assignment_digest(made["assignment"], ds.sha256)
    for f in m["folds"]:
        k = f["fold"]
        for splits_file in (tmp_path / "ft" / "splits.json", tmp_path / "s.json", None):
            chosen = choose_fold(ds.samples, k, ds.sha256, splits_file)
            test = {Path(n).stem for n in chosen["test"]}
            assert test == set(f["test"]) and not test & (set(f["train"]) | set(f["validation"]))
            assert chosen["assignment_sha256"] == made["assignment_sha256"]


def test_a_folds_file_that_is_not_this_datasets_assignment_is_refused(tmp_path, capsys):
    data = _dataset(tmp_path)
    assert _run(["splits", str(data), "--out", str(tmp_path / "s.json")], capsys)[0] == 0
    good = json.loads((tmp_path / "s.json").read_text())

    def bench_fold_0(splits: dict, name: str) -> str:
        path = tmp_path / name
        path.write_text(json.dumps(splits))
        code, _, err = _run(["bench", str(data), "--fold", "0", "--splits", str(path), "--runs-dir", str(tmp_path / "runs"), "--no-progress"], capsys)
        assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) <= 2, err
        return err

    # a match moved to another fold after the file was written: its digest no longer matches
    moved = json.loads(json.dumps(good))
    mid = next(iter(moved["assignment"]))
    moved["assignment"][mid] = (moved["assignment"][mid] + 1) % 3
    assert "does not match its recorded digest" in bench_fold_0(moved, "moved.json")
    # the folds of part of the dataset (what the export wrote at 52c38fb: no BP round)
    part = {k: v for k, v in good.items() if k != "assignment_sha256"}
    part["assignment"] = {k: v for k, v in good["assignment"].items() if not k.startswith("bp_")}
    err = bench_fold_0(part, "part.json")
    assert "assigns no fold to match 'bp_0' (3 of the dataset's 12 unassigned): it is not this dataset's fold assignment" in err
    assert "rerun adjudicate splits" not in err  # a second assignment would leak
    # a match the dataset does not hold
    extra = {k: v for k, v in good.items() if k != "assignment_sha256"}
    extra["assignment"] = {**good["assignment"], "m99": 0}
    assert "assigns match 'm99', which this dataset does not hold" in bench_fold_0(extra, "extra.json")
    # the export refuses them too, writing nothing
    code, _, err = _run(["finetune", "export", str(data), "--out", str(tmp_path / "ft"), "--splits", str(tmp_path / "moved.json")], capsys)
    assert code == 2 and "does not match its recorded digest" in err and not (tmp_path / "ft").exists()


def _manifest(fold: int, digest: str) -> SimpleNamespace:
    test = [f"m{fold}.json"]
    return SimpleNamespace(fold={"fold": fold, "folds": 2, "test": test, "train": [f"m{1 - fold}.json"], "assignment_sha256": digest}, dataset={"sha256": "d"}, arms=["single-call"])


def test_finetune_report_pools_only_runs_of_one_fold_assignment():
    _check_runs([(Path("r0"), _manifest(0, "a" * 64)), (Path("r1"), _manifest(1, "a" * 64))])
    with pytest.raises(InputError, match="its fold assignment differs from r0's"):
        _check_runs([(Path("r0"), _manifest(0, "a" * 64)), (Path("r1"), _manifest(1, "b" * 64))])


def test_finetune_report_with_export_refuses_runs_of_another_assignment(tmp_path, capsys, monkeypatch):
    """The four synthetic matches: seed 0 and seed 1 give other folds (fold 0 holds 2v2_02 + 4v4_02,
    or 4v4_01 alone); runs made with the folds of seed 1 are refused for the export of seed 0."""
    isolate_env(monkeypatch, tmp_path)
    ft = tmp_path / "ft"
    assert _run(["finetune", "export", str(SYNTHETIC), "--out", str(ft)], capsys)[0] == 0
    assert _run(["splits", str(SYNTHETIC), "--seed", "1", "--out", str(tmp_path / "s1.json")], capsys)[0] == 0
    other = json.loads((tmp_path / "s1.json").read_text())
    assert other["assignment_sha256"] != json.loads((ft / "splits.json").read_text())["assignment_sha256"]

    def fold_runs(splits: Path, name: str) -> list[str]:
        out = []
        for k in range(3):
            code, stdout, err = _run(["bench", str(SYNTHETIC), "--fold", str(k), "--splits", str(splits), "--name", f"{name}{k}", "--runs-dir", str(tmp_path / "runs"),
                                      "--no-progress", "--bootstrap", "0"], capsys)  # fmt: skip
            assert code == 0, err
            out.append(stdout.strip())
        return out

    ours = fold_runs(ft / "splits.json", "ft")
    code, _, err = _run(["finetune", "report", *ours, "--export", str(ft), "--bootstrap", "0"], capsys)
    assert code == 0, err
    assert "every run is a fold of the export's assignment" in err
    theirs = fold_runs(tmp_path / "s1.json", "s1")
    code, _, err = _run(["finetune", "report", *theirs, "--export", str(ft), "--bootstrap", "0"], capsys)
    assert code == 2 and "not the export's" in err and "its test matches may be the training matches of the model it ran" in err
    code, _, err = _run(["finetune", "report", ours[0], theirs[1], theirs[2], "--bootstrap", "0"], capsys)
    assert code == 2 and "its fold assignment differs from" in err
