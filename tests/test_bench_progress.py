"""The bench's progress never looks stuck: a line while the model client loads and while the first
request is out, the report phase announced, and spend written as unknown (never $0.0000) where no
price is known. One progress library (rich): tqdm is gone from the dependencies."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from bench_helpers import answer, isolate_env
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.progress_bar import spend_text
from adjudicator.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def test_spend_is_unknown_not_zero_where_no_price_is_known():
    assert spend_text(0.0, 0, 0) == "$0.0000"  # nothing sent: nothing spent
    assert spend_text(0.0, 3, 0) == "cost unknown"
    assert spend_text(0.01234, 2, 5) == "$0.0123 + unknown"
    assert spend_text(0.01234, 0, 5) == "$0.0123"


def test_one_progress_library():
    deps = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert not any(d.startswith("tqdm") for d in deps) and any(d.startswith("rich") for d in deps)
    assert "tqdm" not in (REPO / "adjudicator/bench/loop.py").read_text(encoding="utf-8")


def test_a_model_backed_bench_says_what_it_waits_for(tmp_path, capsys, fake_openai, bundled_matches_dir):
    fake_openai.respond_with(answer)
    args = ["bench", str(bundled_matches_dir / "synthetic"), "--name", "lb", "--runs-dir", str(tmp_path / "runs"), "--bootstrap", "0", "--limit", "1",
            "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "c")]
    assert main(args) == 0
    err = capsys.readouterr().err.splitlines()
    starting = next(i for i, line in enumerate(err) if line.startswith("bench: starting the model client (litellm loads"))
    first = next(i for i, line in enumerate(err) if line == "bench: the model client is loaded; the first request is out, waiting for its reply")
    reports = next(i for i, line in enumerate(err) if line.startswith("writing reports: statistics with 0 bootstrap resamples"))
    assert starting < first < reports < next(i for i, line in enumerate(err) if line.startswith("reports: "))
    assert not any("$0.0000" in line for line in err)  # the test model has no price


def test_an_offline_bench_does_not_announce_a_model_client(tmp_path, capsys, bundled_matches_dir):
    assert main(["bench", str(bundled_matches_dir / "synthetic"), "--name", "off", "--runs-dir", str(tmp_path / "runs"), "--bootstrap", "0", "--limit", "1"]) == 0
    err = capsys.readouterr().err
    assert "model client" not in err and "writing reports: statistics with 0 bootstrap resamples" in err
