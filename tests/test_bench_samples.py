"""samples.jsonl, samples.csv and the per-sample table of report.html, from a run through the
loopback model server in which every judge answer about one sample is unreadable."""

from __future__ import annotations

import csv
import html
import io
import json
import re
from pathlib import Path

import pytest
from bench_helpers import answer, bench, isolate_env, online, run_dir_of, tokens_in, write_dataset
from fake_openai import fake_openai  # noqa: F401 (fixture)

from adjudicator.bench.results import read_result, result_path, write_result
from adjudicator.bench.samples import FIELD_NAMES, FIELDS, escalation_of

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)
    monkeypatch.setenv("ADJUDICATOR_BACKOFF_BASE_S", "0")


def _is_judge(body: dict) -> bool:
    rf = body.get("response_format") or {}
    schema = rf.get("schema") or (rf.get("json_schema") or {}).get("schema") or {}
    return "best_debater_votes" in (schema.get("properties") or {})


def _run(tmp_path, capsys, fake_openai):
    # m02's judges answer garbage on every attempt: no ballot, so the sample fails with 9 raw outputs kept
    fake_openai.respond_with(lambda body: "GARBAGE <not json> from a judge" if _is_judge(body) and "SAMPLETOKEN-2" in tokens_in(body) else answer(body))
    data = write_dataset(tmp_path / "data", [online(1, "affirmative"), online(2, "negative"), online(3, "negative")])
    runs = tmp_path / "runs"
    args = [str(data), "--name", "s", "--runs-dir", str(runs), "--no-progress", "--bootstrap", "0", "--concurrency", "1",
            "--model", "openai/test-model", "--api-base", fake_openai.base_url, "--json-mode", "object", "--cache-dir", str(tmp_path / "cache")]
    code, _, _ = bench(args, capsys)
    assert code == 0
    return run_dir_of(runs), args


def test_samples_files_hold_one_row_per_sample_and_arm(tmp_path, capsys, fake_openai):
    run, _ = _run(tmp_path, capsys, fake_openai)
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["sample_id"] for r in rows] == ["m01", "m02", "m03"]
    assert all(list(r) == list(FIELD_NAMES) for r in rows)  # every verdict carries its review
    # p 0.62, 3:0, but one scripted answer for every judge: three identical ballots escalate; m02 failed, no verdict
    assert [r["escalated"] for r in rows] == [True, None, True]
    by = {r["sample_id"]: r for r in rows}
    for mid, gold in (("m01", "affirmative"), ("m03", "negative")):
        r = by[mid]
        verdict = read_result(run / r["result_file"]).verdict
        # the row is the verdict's p and winner, judged against the match's gold outcome
        assert (r["status"], r["parse"], r["gold_winner"], r["p"]) == ("ok", "strict", gold, verdict["p"])
        assert r["predicted_winner"] == ("affirmative" if verdict["p"] > 0.5 else "negative")
        assert r["correct"] is (r["predicted_winner"] == gold)
        assert r["split"] == verdict["dissent"]["winner_split"] and r["failed_attempts"] == 0 and r["error"] is None
        assert r["requests"] > 0 and r["prompt_tokens"] > 0 and r["cost_usd"] is None  # no price for a test model
    bad = by["m02"]
    assert (bad["status"], bad["parse"], bad["p"], bad["predicted_winner"], bad["correct"]) == ("failed", "failed", None, None, None)
    assert bad["failed_attempts"] == 9 and bad["failed_nodes"] == 3  # 3 judges x 3 attempts
    assert bad["result_file"] == "results/agentic/m02.json" and (run / bad["result_file"]).is_file()
    assert bad["error"].startswith("judge judge-1: unparseable: no valid output in 3 attempts")
    # the winner accuracy of report.json counts exactly the rows with a correct value
    report = json.loads((run / "report.json").read_text())
    arm = next(r for r in report["tasks"]["task1"]["rows"] if r.get("arm") == "agentic")
    scored = [r["correct"] for r in rows if r["correct"] is not None]
    assert arm["metrics"]["winner_accuracy"]["n"] == len(scored) == 2
    assert arm["metrics"]["winner_accuracy"]["value"] == sum(scored) / 2

    table = list(csv.reader(io.StringIO((run / "samples.csv").read_text(encoding="utf-8"))))
    assert table[0] == list(rows[0]) and len(table) == 4
    m02 = dict(zip(table[0], table[2]))
    assert (m02["p"], m02["correct"], m02["failed_attempts"]) == ("", "", "9")
    m01 = dict(zip(table[0], table[1]))
    assert m01["correct"] == ("true" if by["m01"]["correct"] else "false") and float(m01["p"]) == by["m01"]["p"]


def test_report_html_lists_every_sample_and_opens_the_failed_one(tmp_path, capsys, fake_openai):
    run, _ = _run(tmp_path, capsys, fake_openai)
    page = (run / "report.html").read_text(encoding="utf-8")
    assert page.count('<tr class="sample-row') == 3
    # each row links to its detail; m02's detail shows the raw output of its failed attempts, escaped
    section = re.search(r'<section class="sample" id="s2">(.*?)</section>', page, re.S).group(1)
    assert "m02 · agentic" in section and '<a href="results/agentic/m02.json">' in section
    assert "Raw outputs of failed attempts (9)" in section
    # 9 in that list, and each again with its call in the viewer's list of every call
    assert section.count(html.escape("GARBAGE <not json> from a judge")) == 18 and "<not json>" not in section
    assert section.count('<details class="call parse-failed') >= 9
    ok = re.search(r'<section class="sample" id="s1">(.*?)</section>', page, re.S).group(1)
    assert "<h4>Ballots</h4>" in ok and ok.count("<tr><td>judge-") == 3 and "Battlefield map" in ok
    assert "pro1" in ok  # debater names beside the position labels
    assert "<script src" not in page and "<link" not in page  # self-contained


def test_escalation_column_appears_when_a_verdict_has_a_review(tmp_path, capsys, fake_openai):
    run, args = _run(tmp_path, capsys, fake_openai)
    path = result_path(run, "agentic", "m03")
    res = read_result(path)
    write_result(path, res.model_copy(update={"verdict": {**res.verdict, "review": {"escalate": False, "reasons": []}}}))
    code, _, _ = bench([*args, "--report-only"], capsys)
    assert code == 0
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["escalated"] for r in rows] == [True, None, False]  # m01's own review (identical ballots); m02 failed, no verdict
    assert "escalated" in (run / "samples.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert '<th data-col="escalated"' in (run / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("verdict, flag", [
    (None, None), ({}, None), ({"review": None}, False), ({"review": True}, True), ({"review": False}, False),
    ({"review": {"escalate": False}}, False), ({"review": {"needed": True}}, True), ({"review": {"reasons": ["x"]}}, True),
])
def test_escalation_of(verdict, flag):
    assert escalation_of(verdict) is flag


def test_runs_readme_documents_every_sample_field():
    text = (REPO / "runs" / "README.md").read_text(encoding="utf-8")
    for name, _ in FIELDS:
        assert f"| `{name}` |" in text, name
