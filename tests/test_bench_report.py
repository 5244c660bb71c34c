"""Report rendering: readable model and format lines, the dataset's provenance (synthetic banner,
PanelBench label convention), and tables printed in rank order."""

from __future__ import annotations

import json

import pytest

from adjudicator.bench.dataset import SYNTHETIC_WARNING, load_folder, provenance
from adjudicator.bench.report_md import counts_text, label_convention_text, models_text, table


@pytest.mark.parametrize(
    "models, text",
    [
        ({"tracker": "offline", "judge-1": "offline", "judge-2": "offline", "judge-3": "offline"}, "tracker offline; judges offline x3"),
        ({"tracker": "openai/t", "judge-1": "openai/a", "judge-2": "openai/b", "judge-3": "openai/a"}, "tracker openai/t; judges openai/a, openai/b, openai/a"),
        ({"single-call": "openai/x"}, "single-call openai/x"),
        ({"tracker": "openai/t", "judge-1": "openai/a"}, "tracker openai/t; judge openai/a"),
        ({}, "?"),
        (None, "?"),
    ],
)
def test_models_text(models, text):
    assert models_text(models) == text


def test_counts_text():
    assert counts_text({"ccdb-2v2": 2, "ccdb-4v4": 1}) == "ccdb-2v2 x2, ccdb-4v4 x1"
    assert counts_text({}) == "none"


def test_provenance_of_the_bundled_datasets(bundled_matches_dir):
    syn = provenance([s.match for s in load_folder(bundled_matches_dir / "synthetic").samples])
    assert (syn["synthetic"], syn["n_synthetic"], syn["n_real"], syn["panelbench"], syn["label_conventions"]) == (True, 4, 0, False, {})
    pb = provenance([s.match for s in load_folder(bundled_matches_dir / "panelbench").samples])
    assert (pb["synthetic"], pb["n_real"], pb["panelbench"], pb["label_conventions"]) == (False, 5, True, {"content": 5})
    assert "PanelBench" in pb["origins"][0]
    assert SYNTHETIC_WARNING.startswith("SYNTHETIC labels written by developers")


def test_label_convention_line(tmp_path, bundled_matches_dir):
    pb = bundled_matches_dir / "panelbench"
    content = {"provenance": provenance([s.match for s in load_folder(pb).samples])}
    # LABEL_CONVENTIONS["content"]: 1.0 -> negative, 0.5 -> tie, 0.0 -> affirmative
    assert label_convention_text(content) == (
        "PanelBench labels read under the 'content' convention (upstream 1.0 = negative win, 0.5 = tie, 0.0 = affirmative win); see adjudicator/convert.py"
    )
    # the same files with their note saying 'documented' (two of them) and nothing (one)
    folder = tmp_path / "mixed"
    folder.mkdir()
    for k, f in enumerate(sorted(pb.glob("*.json"))[:3]):
        data = json.loads(f.read_text())
        note = data["labels"]["note"]
        data["labels"]["note"] = note.replace("'content' convention", "'documented' convention") if k < 2 else "no convention named here"
        (folder / f.name).write_text(json.dumps(data))
    mixed = {"provenance": provenance([s.match for s in load_folder(folder).samples])}
    assert mixed["provenance"]["label_conventions"] == {"documented": 2, "unstated": 1}
    text = label_convention_text(mixed)
    assert "'documented' convention (upstream 1.0 = affirmative win, 0.5 = tie, 0.0 = negative win) for 2 match(es)" in text
    assert "1 match(es) with the convention not stated in labels.note" in text
    # a dataset that is not from PanelBench gets no convention line
    syn = {"provenance": provenance([s.match for s in load_folder(bundled_matches_dir / "synthetic").samples])}
    assert label_convention_text(syn) == ""


def test_table_prints_rows_in_rank_order():
    leaf = {"value": 0.5, "n": 4, "ci": None}
    rows = [
        {"predictor": "first built", "kind": "arm", "comparable": True, "rank": 1, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "reference", "kind": "reference", "comparable": False, "rank": None, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "third", "kind": "baseline", "comparable": True, "rank": 3, "metrics": {"winner_accuracy": leaf}},
        {"predictor": "second", "kind": "arm", "comparable": True, "rank": 2, "metrics": {"winner_accuracy": leaf}},
    ]
    body = table(rows, "task1")[2:]
    assert [line.split(" | ")[0:2] for line in body] == [["| 1", "first built"], ["| 2", "second"], ["| 3", "third"], ["| —", "reference*"]]
